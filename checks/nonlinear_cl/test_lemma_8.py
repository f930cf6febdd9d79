"""The checks particular to ``nonlinear_cl.lemma_8`` (Appendix G, Lemma 8 (used in the proof of Theorem 3, Appendix
B.4)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import (
    assert_binding_near_its_edge,
    assert_fails_within_ten_times_the_bound,
    assert_first_control_fails_at,
    assert_hypothesis_edge,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
)

NL = "nonlinear_cl."


EDGES = [
    (NL + "lemma_8", None, dict(bound_scale=1.001), "exact bound"),
    (NL + "lemma_8", None, dict(bound_scale=0.999), "exact bound"),
    (NL + "lemma_8", None, dict(include_indefinite=True), "λ_i(t) > 0 for all i"),
    ('nonlinear_cl.lemma_8', None, dict(include_indefinite=True), 'λ_i(t) > 0 for all i'),
    ("nonlinear_cl.lemma_8", None, dict(bound_scale=0.5), "exact bound"),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("aug, inside", [(50.0, False), (0.0, True)])
def test_lemma_8_needs_one_judged_step(aug, inside):
    """Lemma 8's hypothesis decided by the evaluation: a batch whose augmentation (std 50 along one direction) makes
    A(w(t)) indefinite on every step of a short run has no step inside it (named), the same batch unaugmented has."""
    import theorems
    from theorems import HypothesisViolation

    params = dict(model="batch", N=8, aug=aug, starts=1, pi_iters=3)
    if inside:
        assert theorems.check(NL + "lemma_8", **params).claim("judged_steps").observed >= 1
    else:
        with pytest.raises(HypothesisViolation, match="on some step"):
            theorems.check(NL + "lemma_8", **params)


def test_registered_instance_fails_within_ten_times_the_bound(run):
    """A bound constant (or a z-threshold) pinned by a registered failing instance whose observed value lies in
    (bound, 10·bound]: the constant loosened ×10 lets it pass."""
    assert_fails_within_ten_times_the_bound(
        run, "nonlinear_cl.lemma_8", "controls",
        dict(model="batch", N=16, aug=4.0, include_indefinite=True, allow_violation=True),
        ("weight_difference_bound",))  # 2.9


def test_registered_binding_is_near_its_edge(run):
    """The binding instance's registered margin is a bound claim's: the tightest bound claim is within the slack of
    its edge (normalised, as the Binding's margin says), so a binding moved off its edge fails."""
    assert_binding_near_its_edge(run, "nonlinear_cl.lemma_8", dict(model="shifted", shift=1e-6), 0.02)  # ratio 0.993


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.lemma_8")


def test_fails_on_the_indefinite_steps(run):
    assert_first_control_fails_at(run, "nonlinear_cl.lemma_8", 2.89)
