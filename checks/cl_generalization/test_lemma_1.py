"""Lemma 1: Err(G) ≤ (1−σ) + R_ε for G correct on (∪C_k⁰) ∩ S_ε (paper 003, `cl_generalization.lemma_1`): the checks
particular to this result, its hand cases against independent references, pins and hypothesis edges. What every
result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError

L1 = "cl_generalization.lemma_1"


# -- Lemma 1 ------------------------------------------------------------------------------------------------
def test_lemma_1_is_attained_on_the_adversarial_instance(run):
    # one bad point, σ = 1 at δ = 0: the worst admissible classifier errs exactly (1−σ)+R_ε = 1/(2n)
    ev = run(L1, mode="antipodal_bad", sizes="10,10", m=10)
    assert ev.holds and ev.details["equality"], ev.explain()
    assert ev.observed == pytest.approx(1 / 20, abs=1e-15) and ev.tightness == pytest.approx(1.0)
    # G_f errs on the bad point alone, which no setting with R_ε < 1/20 leaves out of the good set
    assert ev.details["oracle_bound_B_L1"] == pytest.approx(1 / 20, abs=1e-15)


@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        (L1, dict(harness="style_content", encoder="identity"), "identity encoder only on the sphere"),
        (L1, dict(identity_view=False, m=1), "m ≥ 2 without the identity view"),
    ],
)
def test_no_instance_can_be_built_even_as_a_control(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation, allow_violation=True)


@pytest.mark.parametrize(
    "rid, params, name",
    [
        (L1, dict(eps_min=-0.1), "eps_min"),
        (L1, dict(sizes="5,0"), "sizes"),
    ],
)
def test_structural_input_is_refused_by_the_declarations(rid, params, name):
    assert_refused_naming(rid, params, name, ParameterError)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    (P + "lemma_1", None, dict(normalize=True), None),
    # lemma_1: the classifier right on the good set; the bound exact
    (P + "lemma_1", None, dict(classifier="nearest_centre"), None),
    (P + "lemma_1", None, dict(classifier="random"), None),
    (P + "lemma_1", None, dict(bound_scale=1 - 1e-9), "exact bound (1−σ)+R_ε"),
    ('cl_generalization.lemma_1', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.lemma_1', None, dict(classifier='wrong_on_good'), 'G correct on (∪C_k⁰) ∩ S_ε'),
    ('cl_generalization.lemma_1', None, dict(bound_scale=0.0), 'exact bound (1−σ)+R_ε'),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_lemma_1_classifiers_err_where_each_is_defined_to():
    """Four points (classes 0, 0, 1, 1), good set {0, 2, 3}, G_f right on {0, 1, 3}: the worst classifier errs
    exactly off the good set, nearest_centre exactly where G_f does, wrong_on_good also on the first good point
    of each class (0 and 2), random never on the good set."""
    import torch

    from theorems.cl_generalization.lemma_1 import classifier_errors
    from theorems.core.context import Context

    good = torch.tensor([[True, False, True, True]])
    labels, correct = torch.tensor([0, 0, 1, 1]), torch.tensor([True, True, False, True])
    ctx = Context(torch.device("cpu"), 0)

    def errs(kind):
        return classifier_errors(kind, good, labels, 2, correct, ctx).tolist()

    assert errs("worst") == [[False, True, False, False]]
    assert errs("nearest_centre") == [[False, False, True, False]]
    assert errs("wrong_on_good") == [[True, True, True, False]]
    assert not any(e and g for e, g in zip(errs("random")[0], good[0].tolist(), strict=True))
