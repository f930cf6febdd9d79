"""Lemma 2 (with the BT split): E‖f₁ − f₂‖² = 2Σ(1 − C_ii) ≤ 2√(d L₁) (paper 003, `cl_generalization.lemma_2`): the
checks particular to this result, its hand cases against independent references, pins and hypothesis edges. What
every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

from checks.cl_generalization.stand_ins import barlow_twins_seeds_twice
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, probe, row_ids, second_call_changed
from theorems import HypothesisViolation
from theorems.cl_generalization.barlow_twins import BINDING as BT_BINDING
from theorems.core import registry
from theorems.core.verdict import run_spec

L2 = "cl_generalization.lemma_2"


def test_lemma_2_cauchy_schwarz_nearly_binds(run):
    assert run(L2, **BT_BINDING).details["max_ratio_L_pos_over_rhs"] > 0.98


# -- the paper's own preconditions and the declared domains -------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [(L2, dict(bt_norm="none"), "E f_i² = 1")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # Barlow Twins: the uncentred normalisation, i.i.d. positives, the exact constants
    (P + "lemma_2", None, dict(bt_norm="uncentred", pairing="iid"), None),
    (P + "lemma_2", None, dict(bt_norm="cross"), "E f_i² = 1"),
    (P + "lemma_2", None, dict(split_scale=1 + 1e-9), "exact split"),
    (P + "lemma_2", None, dict(align_scale=1 - 1e-9), "= 2Σ(1 − C_ii) exactly"),
    ("cl_generalization.lemma_2", None, dict(align_scale=2.0), "= 2Σ(1 − C_ii) exactly"),
    ('cl_generalization.lemma_2', None, dict(encoder='identity'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.lemma_2', None, dict(bt_norm='none'), 'E f_i² = 1 (per-coordinate normalisation)'),
    ('cl_generalization.lemma_2', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.lemma_2', None, dict(split_scale=0.0), 'exact split'),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_lemma_2_reports_a_search_only_when_there_was_one(run):
    """adversarial_steps = 0 is no search: no start/end slack is reported (a report of a search that did not run
    would read as one that found nothing)."""
    ev = run("cl_generalization.lemma_2")
    assert "adversarial_start_slack" not in ev.details and "adversarial_end_slack" not in ev.details, ev.details


# -- Barlow Twins: every claim over seeds takes the worst seed ----------------------------------------------------
# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_lemma_2_claims_take_the_worst_seed(monkeypatch):
    """Two seeds, the second one's E‖f₁ − f₂‖² set to 10³ (2√(dL₁) ≈ 0.1): Lemma 2 and the alignment identity fail
    at that seed (the first holds both). A 1e-12 change of the split's constant puts the instance outside the
    hypotheses, so the failed identity is recorded rather than raised."""
    from theorems.cl_generalization import barlow_twins as B
    from theorems.cl_generalization import population as P

    barlow_twins_seeds_twice(monkeypatch)
    calls = second_call_changed(monkeypatch, P, "infonce_terms", lambda out: {**out, "align": out["align"] * 0 + 1e3})
    ev = probe(B.LEMMA_2, split_scale=1 + 1e-12, allow_violation=True)
    assert not ev.claim("lemma_2").passed and not ev.claim("alignment_identity").passed, ev.explain()
    assert len(calls) == 2


# Binding instances whose registered margin is a bound claim's: the tightest bound claim is within ``slack`` of its
# edge (normalised slack, as the Binding's margin says), so a binding moved off its edge fails here.
BINDS = [
    ("cl_generalization.lemma_2", dict(harness="sphere", encoder="identity", mode="clustered", sizes=[5, 5, 5, 5], d=4,
                                       m=4, noise=0.05, view_noise=0.05), 0.02),  # L_pos/2√(dL₁) = 0.99
]


@pytest.mark.parametrize("rid, params, slack", BINDS, ids=[r for r, _, _ in BINDS])
def test_registered_binding_is_near_its_edge(run, rid, params, slack):
    result = registry.get(rid)
    binding = [b for b in result.binding if dict(b.params) == params]
    assert binding, f"{rid}: {params} is not a registered binding instance"
    ev = run_spec(run, result, params, binding[0].form)
    assert ev.holds and 0.0 <= ev.slack <= slack, f"{rid}: slack {ev.slack:.3g} on its binding instance"
