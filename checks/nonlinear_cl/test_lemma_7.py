"""The checks particular to ``nonlinear_cl.lemma_7`` (Appendix G, Lemma 7 (used in the proof of Theorem 3, Appendix
B.4)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import (
    assert_binding_near_its_edge,
    assert_default_proof_steps_fail_only_at_errata,
    assert_fails_within_ten_times_the_bound,
    assert_hypothesis_edge,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
)
from theorems import HypothesisViolation
from theorems.core import recording

L7 = "nonlinear_cl.lemma_7"
NL = "nonlinear_cl."


# (result id, form, params, a fragment of the hypothesis named, or None: inside every hypothesis)
EDGES = [
    ("nonlinear_cl.lemma_7", None, dict(bound_scale=0.99), "exact bound μ_t(1 − c_t)"),
    # Lemmas 7, 8 and 10 (pi_steps' judged-step switches): the bound off 1, indefinite steps judged
    (NL + "lemma_7", None, dict(bound_scale=1.001), "exact bound μ_t(1 − c_t)"),
]


# -- Lemmas 7–10 ---------------------------------------------------------------------------------------------------------
def test_lemma_7_fails_on_indefinite_steps_and_holds_once_corrected(run):
    cx = run(L7, form="as_printed", model="batch", N=16, aug=4.0)
    assert not cx.holds and cx.observed > 1000 and cx.details["lambda_min_min"] < -1
    assert not cx.claim("parseval_step_184").passed  # the step that needs |λ_i| ≤ |λ₂|
    fixed = run(L7, model="batch", N=16, aug=4.0)
    assert fixed.holds and 0.99 < fixed.observed <= 1


def test_lemma_7_is_nearly_attained_near_convergence(run):
    assert run(L7, model="batch", N=32, aug=5.0).observed > 0.999


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("form", ["corrected", "as_printed"])
def test_lemma_7_judged_steps_hypothesis_follows_the_form(form):
    """Lemma 7's evaluation-decided hypothesis: on a short run of a strongly augmented batch (indefinite A) no step
    has |λ_i| ≤ |λ₂|, so the corrected form names that condition; the statement as printed (c_t > 0, λ₁ > 0 only)
    judges a step there and names nothing."""

    params = dict(model="batch", N=8, aug=50.0, starts=1, pi_iters=3)
    if form == "corrected":
        with pytest.raises(HypothesisViolation, match=r"\|λ_i\| ≤ \|λ₂\| on some step"):
            theorems.check(NL + "lemma_7", form=form, **params)
    else:
        assert theorems.check(NL + "lemma_7", form=form, **params).claim("judged_steps").observed >= 1


# -- Lemma 7: the registered counterexamples are the ones the correction's reason cites ------------------------------
@pytest.mark.parametrize("cx, lo, hi", [
    (dict(model="batch", N=16, aug=4.0), 1389.0, 1391.0),  # "violate the lemma by a factor up to 1390"
    (dict(model="batch", N=16, aug=3.0, seed=2), 1.0, 10.0),  # just past the bound: 1.46
])
def test_lemma_7_registered_counterexamples_fail_by_the_cited_factor(cx, lo, hi):
    from theorems.core import registry

    result = registry.get("nonlinear_cl.lemma_7")
    assert cx in [dict(c) for c in result.counterexamples]
    ev = recording.expect(theorems.check(result.id, form="as_printed", **cx), recording.FAILS)
    c = ev.claim("one_minus_d_bound")
    assert not c.passed and lo < c.observed < hi, c
    assert "1390" in result.correction_reason


def test_registered_instance_fails_within_ten_times_the_bound(run):
    """A bound constant (or a z-threshold) pinned by a registered failing instance whose observed value lies in
    (bound, 10·bound]: the constant loosened ×10 lets it pass."""
    assert_fails_within_ten_times_the_bound(
        run, "nonlinear_cl.lemma_7", "counterexamples", dict(model="batch", N=16, aug=3.0, seed=2),
        ("one_minus_d_bound", "parseval_step_184"))  # 1.46


def test_registered_binding_is_near_its_edge(run):
    """The binding instance's registered margin is a bound claim's: the tightest bound claim is within the slack of
    its edge (normalised, as the Binding's margin says), so a binding moved off its edge fails."""
    assert_binding_near_its_edge(
        run, "nonlinear_cl.lemma_7", dict(model="batch", N=24, aug=5.0, seed=1), 1e-4)  # ratio 0.999995


def test_default_proof_steps_fail_only_where_an_erratum_is_registered(run):
    # the default instance is cheap and carries proof steps
    assert_default_proof_steps_fail_only_at_errata(run, "nonlinear_cl.lemma_7")


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.lemma_7")
