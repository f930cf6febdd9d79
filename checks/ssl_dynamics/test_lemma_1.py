"""Lemma 1: the NTK of a linear / kernel model has no cross-output interaction (paper 002, `ssl_dynamics.lemma_1`): the
checks particular to this result, its hand cases against independent references, pins and hypothesis edges. What
every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from checks.probes import evaluate_claims
from theorems import HypothesisViolation
from theorems.core import registry

P = "ssl_dynamics."


# -- Lemma 1 --------------------------------------------------------------------------------------------
def test_lemma_1_two_layer_control_refutes_the_appendix_claim(run):
    ev = run(P + "lemma_1", model="two_layer", h=50, allow_violation=True)
    assert not ev.claim("offdiagonal_blocks_vanish").passed and not ev.claim("diagonal_equals_kernel").passed
    # The appendix proof says the first-layer block vanishes; it adds xᵀx', so the diagonal is ≈ 2xᵀx'.
    assert 1.5 < ev.details["mean_diag_over_kernel"] < 2.5


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [("lemma_1", dict(kernel_scale=1.1), "closed form")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.lemma_1, remark_1, theorem_2: the model, the loss, the flow and the start the statements assume
    ("ssl_dynamics.lemma_1", None, dict(model="two_layer"), "linear or kernel model"),
    ("ssl_dynamics.lemma_1", None, dict(kernel_scale=1.5), "the closed form"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_lemma_1_binding_is_one_random_feature():
    """Lemma 1 is exact at every width: its binding instance is the narrowest the declared domain allows, h = 1
    random feature (the kernel model), and the identity holds there."""
    result = registry.get("ssl_dynamics.lemma_1")
    (binding,) = result.binding
    h = next(q for q in result.params if q.name == "h")
    assert dict(binding.params) == dict(model="kernel", h=1) and h.low == 1
    c = evaluate_claims(result.id, **binding.params)
    assert c["offdiagonal_blocks_vanish"].passed and c["diagonal_equals_kernel"].passed
