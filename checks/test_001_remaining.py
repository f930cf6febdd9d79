"""Paper 001's remaining items (issue 28): Corollary 1, Lemma 3, monomial activations, Lemma 5 for general C, Figure 1
(right), and Theorem 3's control outside (11).

Each test runs the registered instances (controls, binding) through the shared cached runner and asserts what the
module docstring says they show; the tolerance pins are literal numbers, not built from the constants they pin.
"""

from __future__ import annotations

import pytest

import theorems
from theorems import HypothesisViolation
from theorems.core import recording

COR1 = "nonlinear_cl.corollary_1"
L3 = "nonlinear_cl.lemma_3"
MONO = "nonlinear_cl.monomial_activation"
L5 = "nonlinear_cl.lemma_5"
AP = "as_printed"


@pytest.mark.parametrize("rid, status", [(COR1, "trend"), (L3, "verified"), (MONO, "verified"), (L5, "verified")])
def test_statuses(rid, status):
    assert str(theorems.get(rid).status) == status


# -- Corollary 1 -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", ["gaussian", "uniform"])
def test_corollary_1_clt_rate_without_augmentation(run, alpha):
    ev = run(COR1, form=AP, alpha=alpha)
    assert ev.holds, ev.explain()
    assert -0.65 <= ev.claim("error_falls_at_clt_rate").observed <= -0.35
    assert ev.claim("lemma_2_limit_is_corollary_limit").observed <= 1e-12


def test_corollary_1_with_augmentation_the_error_plateaus(run):
    ev = run(COR1, form=AP, aug=0.7, allow_violation=True)
    assert not ev.claim("error_falls_at_clt_rate").passed
    assert ev.claim("error_falls_at_clt_rate").observed > -0.2  # a plateau, not a slower rate
    assert ev.claim("corollary_limit_minus_lemma_2_limit").observed > 0.05
    with pytest.raises(HypothesisViolation, match="no augmentation"):
        theorems.check(COR1, aug=0.7)


# -- Lemma 3 and monomial activations ------------------------------------------------------------------------------------
def test_lemma_3_holds_at_kinks(run):
    ev = run(L3, form=AP, kinks=True)
    assert ev.holds and ev.details["zero_preactivations"] > 0, ev.explain()


@pytest.mark.parametrize("params, broken", [
    (dict(activation="quadratic"), {"riemannian_gradient", "energy_identity"}),
    (dict(activation="tanh"), {"riemannian_gradient", "energy_identity"}),
    (dict(alpha="infonce", stop_gradient=False), {"riemannian_gradient"}),
])
def test_lemma_3_controls_break_what_they_target(run, params, broken):
    ev = run(L3, form=AP, allow_violation=True, **params)
    assert broken <= {c.name for c in ev.failed_bounds}, ev.explain()


def test_lemma_3_quadratic_is_off_by_the_constant_of_the_monomial_result(run):
    # h = s²: C_α[h] = wᵀAw/4, so the homogeneous energy formula is off by a relative 3 exactly
    ev = run(L3, form=AP, activation="quadratic", allow_violation=True)
    assert ev.claim("energy_identity").observed == pytest.approx(3.0, rel=1e-9)


@pytest.mark.parametrize("rid", [L3, MONO])
def test_tolerance_pinned_just_outside(run, rid):
    ev = run(rid, form=AP, formula_scale=1 + 1e-9, allow_violation=True)
    c = ev.claim("energy_identity")
    assert not c.passed and c.observed == pytest.approx(1e-9, rel=1e-3)  # 10× the 1e-10 tolerance
    assert ev.claim("riemannian_gradient").observed > 1e-10


@pytest.mark.parametrize("power", [2, 3, 5, 8])
def test_monomial_holds_with_one_over_p(run, power):
    ev = run(MONO, form=AP, power=power)
    assert ev.holds and ev.details["constant"] == 1 / power, ev.explain()


def test_monomial_without_the_constant_is_off_by_p(run):
    ev = run(MONO, form=AP, constant="one", allow_violation=True)  # p = 3
    assert ev.claim("eq_6_with_constant").observed == pytest.approx(2.0, rel=1e-9)  # p − 1
    assert ev.claim("energy_identity").observed == pytest.approx(8.0, rel=1e-9)  # p² − 1


def test_monomial_non_monomial_breaks_all(run):
    ev = run(MONO, form=AP, shift=1.0, allow_violation=True)
    assert {"eq_6_with_constant", "energy_identity", "riemannian_gradient"} <= {c.name for c in ev.failed_bounds}


def test_monomial_binding_has_a_large_dynamic_range(run):
    ev = run(MONO, form=AP, power=8, scale=3.0)
    assert ev.holds and ev.details["energy_min"] > 1e6, ev.explain()


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


# -- App. B.5: augmentation by a rotation group --------------------------------------------------------------------------
B5 = "nonlinear_cl.augmentation_b5"


def test_b5_status():
    assert str(theorems.get(B5).status) == "verified"


@pytest.mark.parametrize("params", [dict(), dict(axis_bias=0.5, axis_scale=0.5, seed=1), dict(axis_bias=1.0)])
def test_b5_maximiser_is_a_flat_orbit(run, params):
    ev = run(B5, form=AP, **params)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("orbit_flat_at_maximiser").observed < 1e-7
    assert ev.claim("transverse_curvature").observed < -0.5  # a maximum across the orbit
    assert ev.claim("orbit_speed").observed > 0.5


def test_b5_interval_is_not_a_group_and_keeps_a_strict_maximum(run):
    ev = run(B5, form=AP, half_width_deficit=5 / 6, allow_violation=True)
    assert ev.claim("energy_invariant").observed > 0.1
    assert ev.claim("orbit_flat_at_maximiser").observed > 0.1


@pytest.mark.parametrize("params, claim, low, high", [
    (dict(half_width_deficit=1e-12), "energy_invariant", 1e-12, 1e-10),
    (dict(orbit_tilt=1e-3), "orbit_flat_at_maximiser", 1e-7, 1e-5),
])
def test_b5_tolerances_pinned_just_outside(run, params, claim, low, high):
    c = run(B5, form=AP, allow_violation=True, **params).claim(claim)
    assert not c.passed and low < c.observed < high
    inside = recording.expect(run(B5, form=AP, allow_violation=True, orbit_tilt=1e-4), recording.HOLDS).claim(
        "orbit_flat_at_maximiser")  # inside the tolerance: this instance holds
    assert inside.passed and inside.observed > 1e-9


# -- Figure 1 (right) -----------------------------------------------------------------------------------------------------
F1R = "nonlinear_cl.figure_1_right"


@pytest.mark.parametrize("eps", [0.02, 0.05, 0.1, 0.2])
def test_figure_1_right_an_lme_is_nearest_each_pattern(run, eps):
    ev = run(F1R, form=AP, eps=eps)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("max_angle_to_own_pattern").observed < eps  # within an angle O(‖UᵀU − I‖) (observed ≈ 0.35·eps)
    assert ev.claim("pi_reaches_best_lme_share").observed == 1.0  # PI from u_m finds the enumerated LME
    assert ev.claim("step_ratio").observed < 1
    assert ev.details["enumeration_residual"] < 1e-12


def test_figure_1_right_enumeration_is_complete_on_a_hand_case():
    """Orthonormal U (eps = 0), M = 2: by symmetry of the atoms the LMEs are ±-free and each u_m is one of them
    (the orthogonal model, q below the threshold): the enumeration returns u_1 and u_2 up to rounding."""
    import torch

    from theorems.data.latents import summation_model
    from theorems.nonlinear_cl.figure_1_right import all_lmes

    U = torch.eye(3, dtype=torch.float64)[:, :2]
    lmes = all_lmes(summation_model(U, torch.tensor([0.2, 0.2], dtype=torch.float64)))
    best = (lmes @ U).max(dim=0).values
    assert torch.allclose(best, torch.ones(2, dtype=torch.float64), atol=1e-12), lmes


def test_figure_1_right_above_the_lme_threshold_no_lme_is_near_its_pattern(run):
    ev = run(F1R, form=AP, q=0.45, allow_violation=True)
    assert ev.converged is True  # exact enumeration: a decided outcome, not a starved optimiser
    assert [c.name for c in ev.failed_bounds] == ["lme_near_each_pattern"]
    assert ev.claim("lme_near_each_pattern").observed < -0.5
    with pytest.raises(HypothesisViolation, match="half the orthogonal model's gap"):
        theorems.check(F1R, eps=0.1, q=0.37)
    with pytest.raises(HypothesisViolation, match="M ≤ d"):
        theorems.check(F1R, M=4, d=3)
    with pytest.raises(HypothesisViolation, match="M ≤ d"):  # not bypassable: U cannot have M > d such columns
        theorems.check(F1R, M=4, d=3, allow_violation=True)


def test_figure_1_right_searched_instance_is_settled_and_keeps_the_status_open(run):
    """The worst-case search's instance: no LME is nearest u_3 (exact), PI from u_3 cycles; the run is settled
    (converged), so a report does not flag it, and the status stays open for the reasons given."""
    result = theorems.get(F1R)
    assert str(result.status) == "open" and result.searched
    ev = run(F1R, form=AP, **result.searched[0])
    assert ev.converged is True and not ev.holds
    scores = ev.details["best_score_per_pattern"]
    assert scores[0] > 0.5 and scores[1] > 0.5 and scores[2] < -0.5
    assert ev.claim("pi_settled_share").observed < 1.0


# -- Theorem 3: outside (11) PI settles into a certified 2-cycle ------------------------------------------------------
T3 = "nonlinear_cl.theorem_3"


def test_theorem_3_outside_11_control_is_a_settled_two_cycle(run):
    from theorems.nonlinear_cl.theorem_3 import CONTROLS, OUTSIDE_11

    assert dict(OUTSIDE_11, allow_violation=True) in [dict(c) for c in CONTROLS]
    ev = run(T3, allow_violation=True, **OUTSIDE_11)
    assert ev.converged is True and ev.details["pi_two_cycle"] and not ev.details["pi_converged"]
    assert {"converges_to_critical_point", "c_increases"} <= {c.name for c in ev.failed_claims}
    assert ev.claim("converges_to_critical_point").observed > 0.05  # the cycle is a full step wide, not a near-miss
    assert ev.details["two_cycle_gap"] < 1e-9


def test_theorem_3_a_cycle_not_yet_closed_is_not_certified(run):
    """At 500 steps the same orbit is 1.11e-9 from closing, just outside CYCLE_TOL = 1e-9: not a certified cycle,
    so the run is unconverged (pins CYCLE_TOL: a tolerance 10 × looser would certify it)."""
    params = {**OUTSIDE_11_PARAMS, "pi_iters": 500}
    ev = recording.expect(run(T3, allow_violation=True, **params), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.details["pi_two_cycle"]
    assert 1.0e-9 < ev.details["two_cycle_gap"] < 1.3e-9


OUTSIDE_11_PARAMS = dict(sigma=0.4, radius=2.0, angle=90.0, theta0=0.2, gamma=0.2)  # literal: the registered control's


# -- the REGISTERED controls of every new result break a bound claim, and only with allow_violation -------------------
@pytest.mark.parametrize("rid", [L3, MONO, L5, B5, F1R])
def test_registered_controls_are_outside_the_hypotheses_and_fail(run, rid):
    from theorems.core.verdict import run_spec

    result = theorems.get(rid)
    assert result.controls
    for spec in result.controls:
        assert spec.get("allow_violation") is True, spec
        params = {k: v for k, v in spec.items() if k != "allow_violation"}
        with pytest.raises(HypothesisViolation):
            theorems.check(rid, **params)
        assert run_spec(run, result, spec).failed_bounds, spec


def test_lemma_5_dependent_control_has_off_diagonal_blocks(run):
    ev = run(L5, form=AP, dependent=True, allow_violation=True)
    assert ev.claim("within_blocks_off_diagonal").observed > 0.01


@pytest.mark.parametrize("rid", [L3, MONO, L5, B5, F1R])
def test_default_and_registered_binding_instances_hold(run, rid):
    result = theorems.get(rid)
    assert run(rid).holds
    for b in result.binding:
        ev = run(rid, **b.params)
        assert ev.holds, ev.explain()
    if rid == L3:  # the binding puts pre-activations exactly on the kink
        assert run(rid, **result.binding[0].params).details["zero_preactivations"] > 0
