"""The checks particular to ``nonlinear_cl.lemma_5`` (Section 4.2, Lemma 5, eq. (13) (proof in Appendix C.2)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest
import torch

import theorems
from checks.pinning import (
    assert_default_and_bindings_hold,
    assert_hypothesis_edge,
    assert_named_iff,
    assert_registered_controls_step_over_and_fail,
    row_ids,
    short_row_ids,
    uncached_probe,
)
from theorems.core import recording, registry

L5 = "nonlinear_cl.lemma_5"
AP = "as_printed"
N = "nonlinear_cl."


EDGES = [
    ("nonlinear_cl.lemma_5", None, dict(rank_slack=-1), "rank ≤ C"),
    ("nonlinear_cl.lemma_5", None, dict(rank_slack=1), "rank ≤ C"),
    ("nonlinear_cl.lemma_5", None, dict(power=3), "the coefficient p_c(1 − p_c)² of eq. (13)"),
    ('nonlinear_cl.lemma_5', None, dict(dependent=True), 'Assumption 2(iii): x_k conditionally independent given z'),
    ('nonlinear_cl.lemma_5', None, dict(power=0), 'the coefficient p_c(1 − p_c)² of eq. (13)'),
    ('nonlinear_cl.lemma_5', None, dict(formula_scale=0.001), 'exact eq. (13)'),
    ('nonlinear_cl.lemma_5', None, dict(rank_slack=-5), 'rank ≤ C'),
]


# (result, form, params, hypothesis (a substring of its name), named?)
EDGE_NAMES = [
    # Lemma 5
    (N + "lemma_5", None, dict(dependent=True), "Assumption 2(iii)", True),
    (N + "lemma_5", None, dict(dependent=False), "Assumption 2(iii)", False),
    (N + "lemma_5", None, dict(power=1), "p_c(1 − p_c)² of eq. (13)", True),
    (N + "lemma_5", None, dict(power=2), "p_c(1 − p_c)² of eq. (13)", False),
    (N + "lemma_5", None, dict(formula_scale=1 + 1e-12), "exact eq. (13)", True),
    (N + "lemma_5", None, dict(formula_scale=1.0), "exact eq. (13)", False),
    (N + "lemma_5", None, dict(rank_slack=1), "rank ≤ C", True),
    (N + "lemma_5", None, dict(rank_slack=-1), "rank ≤ C", True),
    (N + "lemma_5", None, dict(rank_slack=0), "rank ≤ C", False),
]


# -- Lemma 5 ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params", [dict(), dict(C=2, M=1), dict(C=5, K=2, atoms=4, M=1), dict(C=6, K=2, M=3, d=3)])
def test_lemma_5_general_C(run, params):
    ev = run(L5, form=AP, **params)
    assert ev.holds, ev.explain()
    C = params.get("C", 3)
    assert ev.details["rank"] <= C - 1  # the class means average to 𝔼x̃
    assert ev.claim("within_blocks_off_diagonal").observed < 1e-12


@pytest.mark.parametrize("params, broken", [
    (dict(dependent=True), {"decomposition"}),
    (dict(power=1), {"decomposition"}),
    (dict(rank_slack=-2), {"between_class_rank"}),
])
def test_lemma_5_controls(run, params, broken):
    ev = run(L5, form=AP, allow_violation=True, **params)
    assert {c.name for c in ev.failed_bounds} == broken, ev.explain()


def test_lemma_5_tolerance_pinned_and_rare_class_binding(run):
    pin = run(L5, form=AP, formula_scale=1 + 1e-9, allow_violation=True)
    assert not pin.claim("decomposition").passed and 1e-11 < pin.claim("decomposition").observed < 1e-8
    rare = run(L5, form=AP, rare_class=1e-6)
    assert rare.holds and rare.details["min_p_c"] == pytest.approx(1e-6), rare.explain()


def test_lemma_5_dependent_control_has_off_diagonal_blocks(run):
    ev = run(L5, form=AP, dependent=True, allow_violation=True)
    assert ev.claim("within_blocks_off_diagonal").observed > 0.01


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, form, params, name, present", EDGE_NAMES, ids=short_row_ids(EDGE_NAMES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


def test_lemma_5_rank_counts_a_direction_five_rank_tolerances_up():
    """RANK_RTOL pinned from above: the registered pin's second singular value is 5e-9 of the first (a class of
    probability 2.5e-9), and the numerical rank must count it, so the deliberately wrong bound C − 2 fails."""
    result = registry.get("nonlinear_cl.lemma_5")
    control = dict(rare_class=2.5e-9, rank_slack=-2, allow_violation=True)
    assert control in [dict(c) for c in result.pin_instances()]

    ev = recording.expect(theorems.check(result.id, **control), recording.FAILS)
    sv = ev.details["singular_values"]
    assert 1e-9 < sv[1] / sv[0] <= 1e-8, sv  # literal window: 1–10 of RANK_RTOL = 1e-9
    assert ev.details["rank"] == 2 and not ev.claim("between_class_rank").passed, ev.explain()


def test_lemma_5_registered_binding_makes_a_class_rare(run):
    """The registered binding instance is where p_c > 0 nearly binds: p_0 of order 1e-6, not 1e-5 or above."""
    (binding,) = registry.get("nonlinear_cl.lemma_5").binding
    ev = run("nonlinear_cl.lemma_5", **binding.params)
    assert ev.holds and ev.details["min_p_c"] < 5e-6, ev.explain()


# monkeypatch, not a Pin: lemma_5.torch.linalg.svdvals is a function no parameter or module constant reaches
@pytest.mark.parametrize("second, rank", [(1e-9, 1), (1.1e-9, 2)])
def test_lemma_5_numerical_rank_at_its_edge(monkeypatch, second, rank):
    """RANK_RTOL = 1e-9: with the singular values of 𝕍_z[𝔼[x̃|z]] patched to (1, ``second``, 0, …), a value equal to
    1e-9 of the largest is not counted (the rank counts σ > RANK_RTOL·σ₁ strictly), 1.1e-9 is."""
    from theorems.nonlinear_cl import lemma_5

    real = torch.linalg.svdvals

    def fake(A):
        sv = torch.zeros_like(real(A))
        sv[0], sv[1] = 1.0, second
        return sv

    monkeypatch.setattr(lemma_5.torch.linalg, "svdvals", fake)
    c = uncached_probe("nonlinear_cl.lemma_5").claim("between_class_rank")
    assert c.observed == rank, c


def test_registered_controls_are_outside_the_hypotheses_and_fail(run):
    assert_registered_controls_step_over_and_fail(run, "nonlinear_cl.lemma_5")


def test_default_and_registered_binding_instances_hold(run):
    assert_default_and_bindings_hold(run, "nonlinear_cl.lemma_5")
