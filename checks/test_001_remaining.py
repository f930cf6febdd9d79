"""Paper 001's remaining items (issue 28): Corollary 1, Lemma 3, monomial activations, Lemma 5 for general C.

Each test runs the registered instances (controls, binding) through the shared cached runner and asserts what the
module docstring says they show; the tolerance pins are literal numbers, not built from the constants they pin.
"""

from __future__ import annotations

import pytest

import theorems
from theorems.core import recording
from theorems import HypothesisViolation

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
def test_figure_1_right_pi_finds_an_lme_near_each_pattern(run, eps):
    ev = run(F1R, form=AP, eps=eps)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("max_angle_to_own_pattern").observed < eps  # within an angle O(‖UᵀU − I‖) (observed ≈ 0.3·eps)
    assert ev.claim("step_ratio").observed < 1


def test_figure_1_right_above_the_lme_threshold_pi_leaves_u_m(run):
    ev = run(F1R, form=AP, q=0.45, allow_violation=True)
    assert {"limits_are_lmes", "limit_nearest_its_own_pattern"} <= {c.name for c in ev.failed_bounds}
    with pytest.raises(HypothesisViolation, match="half the orthogonal model's gap"):
        theorems.check(F1R, eps=0.1, q=0.37)
    with pytest.raises(HypothesisViolation, match="M ≤ d"):
        theorems.check(F1R, M=5, d=3)


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
