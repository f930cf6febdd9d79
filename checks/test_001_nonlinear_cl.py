"""Checks particular to paper 001 (Tian, nonlinearity in contrastive learning).

What every result must pass (status derived from the evidence, every bound broken by a control, counterexamples
and proof errata replayed, worst-case search over ``Result.strategy``, bad input, JSON, determinism) lives in
``checks/test_conformance.py``. Here: hand cases with numbers from independent closed forms, the instance families
where a hypothesis bites (Theorem 1's LeakyReLU pair, Theorem 3's varying cap), tolerance pins just outside each
tolerance, and unconverged runs that must not hold. All runs go through the session's cached ``run`` fixture.
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems import HypothesisViolation, ParameterError
from theorems.core import recording
from theorems.nonlinear_cl.examples import CAT_BINDING, LIN_BINDING, SUM_BINDING_ABOVE, SUM_BINDING_BELOW
from theorems.nonlinear_cl.theorem_1 import BINDING_2D, BINDING_3D, PAST_THRESHOLD
from theorems.nonlinear_cl.theorem_3 import BINDING_TIGHT, BINDING_VARYING

T1 = "nonlinear_cl.theorem_1"
T2 = "nonlinear_cl.theorem_2"
CAT = "nonlinear_cl.categorical_model"
SUM = "nonlinear_cl.summation_model"
LIN = "nonlinear_cl.linear_vs_relu"
T3 = "nonlinear_cl.theorem_3"
T5 = "nonlinear_cl.theorem_5"
T4 = "nonlinear_cl.theorem_4"
T6 = "nonlinear_cl.theorem_6"
F8 = "nonlinear_cl.figure_8"
Q_STAR = (3 - math.sqrt(5)) / 2


@pytest.mark.parametrize("rid, status", [(T1, "verified"), (T2, "verified-corrected"), (CAT, "verified"),
                                         (SUM, "verified"), (LIN, "verified"), (T3, "verified"), (T5, "verified"),
                                         (T4, "verified"), (T6, "verified"), (F8, "verified")])
def test_statuses_of_the_issue_14_note(rid, status):
    assert str(theorems.get(rid).status) == status


# -- Theorem 1: the LeakyReLU pair, where λ_gap > ρ bites ------------------------------------------------------------
@pytest.mark.parametrize("params, ratio", [(BINDING_2D, 1.10), (BINDING_3D, 1.02)])
def test_theorem_1_stable_where_the_gap_barely_exceeds_the_roughness(run, params, ratio):
    ev = run(T1, **params)
    assert ev.holds, ev.explain()
    assert ev.details["gap_over_rho"][0] == pytest.approx(ratio, abs=5e-3)
    # 𝔼[h] < 0: the roughness term destabilises (D ⪰ 0 on w_*⊥) and the linearisation is exactly −(λ_gap − ρ)I
    assert ev.details["max_eig_sym_QtD"] > 0
    assert ev.details["worst_linearised_rate"] == pytest.approx(ev.details["guaranteed_rate_there"], rel=1e-6)
    assert ev.claim("contraction_at_proof_rate").passed  # eq. (65)'s rate is attained, and holds


def test_theorem_1_unstable_just_past_the_threshold(run):
    with pytest.raises(HypothesisViolation, match="λ_gap"):
        run(T1, **PAST_THRESHOLD)  # λ_gap < ρ is decided by the evaluation
    ev = run(T1, allow_violation=True, **PAST_THRESHOLD)
    assert ev.details["gap_over_rho"][0] == pytest.approx(0.90, abs=5e-3) and ev.details["is_lme"] == [True]
    assert not ev.claim("perturbations_return").passed and ev.claim("perturbations_return").observed > 1.05


def test_theorem_1_relu_mixture_roughness_only_stabilises(run):
    ev = run(T1)
    assert ev.holds and min(ev.details["gap_over_rho"]) > 50  # the slack regime of the old evidence
    assert ev.details["max_eig_sym_QtD"] <= 1e-9  # 𝔼[ReLU] > 0: D ⪯ 0


@pytest.mark.parametrize("q", [0.1, 0.3])
def test_theorem_1_on_the_summation_model_rate_is_exactly_the_gap(run, q):
    ev = run(T1, model="summation", d=4, q=q)
    assert ev.holds, ev.explain()
    assert ev.details["rho_fd"][0] == 0.0  # discrete data away from kinks: A is locally constant
    assert ev.details["guaranteed_rate_there"] == pytest.approx(1 - 3 * q + q * q, rel=1e-9)  # λ_gap of eq. (9)
    assert ev.details["worst_linearised_rate"] == pytest.approx(1 - 3 * q + q * q, rel=1e-9)


def test_theorem_1_summation_above_threshold_perturbations_grow(run):
    ev = run(T1, model="summation", d=4, q=0.45, allow_violation=True)
    assert not ev.holds and ev.claim("perturbations_return").observed > 1


def test_theorem_1_categorical_kink_is_reported_not_an_lme(run):
    ev = run(T1, model="categorical", d=4, allow_violation=True)
    assert ev.details["is_kink"] == [True] and ev.details["is_lme"] == [False]
    assert math.isinf(ev.details["rho_fd"][0])


def test_theorem_1_tolerances_are_pinned(run):
    # 10× RATE_RTOL on the Weyl identity (exactly attained on the leaky pair), 10× FD_RTOL on the closed form of D,
    # and an inflated rate breaks the proof's contraction step (FLOW_RTOL).
    ev = run(T1, allow_violation=True, rate_scale=1 + 1e-5, **BINDING_2D)
    assert not ev.claim("linearised_rate_at_least_guaranteed").passed
    ev = run(T1, allow_violation=True, closed_form_scale=1 + 1e-3)
    assert not ev.claim("roughness_closed_form_matches_fd").passed
    ev = run(T1, allow_violation=True, rate_scale=1.05)
    assert not ev.claim("contraction_at_proof_rate").passed and ev.claim("perturbations_return").passed


# -- §3 examples -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params, is_lme", [(SUM_BINDING_BELOW, True), (SUM_BINDING_ABOVE, False)])
def test_summation_threshold_on_both_sides_of_it(run, params, is_lme):
    ev = run(SUM, **params)
    assert ev.holds, ev.explain()
    q = params["q"]
    assert ev.details["signed_gap_u1"] == pytest.approx(1 - 3 * q + q * q, abs=1e-12)  # signed gap, eq. (9)
    assert all(ev.details["is_lme"]) is is_lme


def test_summation_wrong_threshold_fails_the_iff(run):
    ev = run(SUM, q=0.45, threshold=0.5, allow_violation=True)
    assert not ev.claim("lme_iff_below_threshold").passed and ev.details["signed_gap_u1"] < 0


@pytest.mark.parametrize("M", [2, 5])
def test_categorical_identity_and_kinks(run, M):
    ev = run(CAT, M=M, seed=M)
    assert ev.holds, ev.explain()
    assert all(ev.details["is_kink"])  # u_m is an LME by Definition 3 but a kink: Theorem 1 does not apply


def test_categorical_rare_pattern_is_still_an_lme(run):
    ev = run(CAT, **CAT_BINDING)
    assert ev.holds and ev.details["min_p(1-p)"] == pytest.approx(1e-6 * (1 - 1e-6), rel=1e-9)


@pytest.mark.parametrize("rid, params", [(CAT, {}), (SUM, dict(q=0.2))])
def test_closed_form_tolerance_is_pinned(run, rid, params):
    ev = run(rid, allow_violation=True, closed_form_scale=1 + 1e-9, **params)
    assert not ev.claim("closed_form_A_um").passed


def test_linear_vs_relu_small_eigengap(run):
    ev = run(LIN, **LIN_BINDING)
    assert ev.holds and ev.details["linear_relative_eigengap"] < 0.05


def test_linear_vs_relu_unconverged_run_does_not_hold(run):
    # eigengap 0.02: the linear power iteration runs out of budget (on purpose: the report expects it)
    ev = recording.expect(run(LIN, weight_mix=0.05), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds


# -- Theorem 2 ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("C0", [0.01, 0.1, 0.14])
def test_theorem_2_printed_bound_fails_by_the_closed_form(run, C0):
    ev = run(T2, C0=C0, form="as_printed")
    assert not ev.holds
    assert ev.observed == pytest.approx((2 * C0 / (3 * math.pi)) ** 2, rel=1e-6)  # uniform disk, exact
    assert ev.observed / ev.bound == pytest.approx(4 / (9 * math.pi * C0), rel=1e-6)


def test_theorem_2_printed_holds_above_the_break_point(run):
    assert run(T2, C0=0.2, form="as_printed").holds


def test_theorem_2_corrected_ratio_is_scale_free(run):
    for C0 in (0.1, 1.0):
        assert run(T2, C0=C0).tightness == pytest.approx(4 / (9 * math.pi), rel=1e-6)
    a, b = run(T2, C0=0.3, profile="bump"), run(T2, C0=30.0, profile="bump")
    assert b.observed / a.observed == pytest.approx(100.0**2, rel=1e-6)  # ρ(s·x) = s²ρ(x)


def test_theorem_2_reference_formula_tolerance_is_pinned(run):
    ev = run(T2, closed_form_scale=1 + 1e-5, allow_violation=True)
    assert not ev.claim("fd_matches_exact_formula").passed


# -- Theorem 3 ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params", [BINDING_VARYING, BINDING_TIGHT])
def test_theorem_3_holds_where_a_varies_and_the_hypothesis_nearly_binds(run, params):
    ev = run(T3, **params)
    assert ev.converged and ev.holds, ev.explain()
    assert ev.details["A_variation_on_cap"] > 5e-5  # not textbook power iteration on one matrix
    assert 0.6 < ev.claim("cap_hypothesis_margin").observed <= 1
    assert ev.claim("rate_bound").passed and ev.claim("radius_bound").passed  # Lemma 11


def test_theorem_3_default_instance_is_constant_on_the_cap(run):
    ev = run(T3)
    assert ev.holds and ev.details["A_variation_on_cap"] < 1e-12
    # A constant: the limit is φ₁(w(0)), so w_∞ᵀw(0) = c₀ and limit_in_cap is nearly attained
    assert ev.details["limit_cos_w0"] == pytest.approx(ev.details["c0"], abs=1e-12)
    assert ev.claim("rate_bound").observed < 1.0  # t = 0 (the ratio 1 by definition) is no longer judged
    limit_dist = ev.details["limit_distance_over_R_gamma"] * ev.details["R_gamma"]
    assert ev.claim("radius_bound").observed >= limit_dist > 0  # max_t ‖w(t) − w(0)‖ ≥ ‖w_∞ − w(0)‖


def test_theorem_3_is_conservative(run):
    with pytest.raises(HypothesisViolation, match="sup_"):
        run(T3, sigma=1.0, angle=109.5, gamma=0.1, theta0=0.05)
    ev = recording.expect(run(T3, sigma=1.0, angle=109.5, gamma=0.1, theta0=0.05, allow_violation=True),
                          recording.HOLDS)  # a conservative hypothesis: the conclusions hold outside it
    assert ev.holds and ev.details["pi_converged"]  # (11) fails, the conclusions still hold


def test_theorem_3_unconverged_run_does_not_hold(run):
    ev = recording.expect(run(T3, sigma=0.5, gamma=0.01, theta0=0.2, pi_iters=4), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds


def test_theorem_3_cap_2_percent_too_small_excludes_the_limit(run):
    assert not run(T3, cap_scale=0.98, allow_violation=True).claim("limit_in_cap").passed


# -- Theorem 4 ----------------------------------------------------------------------------------------------------------
def test_theorem_4_swap_path_of_the_proof_is_not_critical_but_the_statement_holds(run):
    ev = run(T4)
    assert ev.holds
    assert not ev.claim("swap_path_critical").passed and ev.claim("swap_path_critical").observed > 1e-3
    assert ev.details["grad_at_W_star"] <= 1e-12 * ev.details["grad_scale"]  # W* itself is critical


def test_theorem_4_controls(run):
    assert not run(T4, formula_scale=1 + 1e-9, allow_violation=True).claim("gradient_formula").passed  # 10 × RTOL
    assert not run(T4, critical_start=False, allow_violation=True).claim("identical_weights_path_critical").passed
    assert not run(T4, activation="relu", allow_violation=True).claim("colinear_within_rf").passed


def test_theorem_4_near_zero_s_km(run):
    ev = run(T4, s_small=1e-3)
    assert ev.holds and abs(ev.details["s_11"]) < 1e-3


# -- Theorem 5 ----------------------------------------------------------------------------------------------------------
def test_theorem_5_alternative_delta_of_the_proof_is_wrong_and_the_corrected_one_right(run):
    ev = run(T5)
    assert ev.holds
    assert not ev.claim("alternative_delta_as_printed").passed
    assert ev.claim("alternative_delta_corrected").passed
    assert ev.details["secular_equation"] == pytest.approx(1.0, abs=1e-12)


def test_theorem_5_delta_nearly_zero(run):
    ev = run(T5, weak_rf=0.01)
    assert ev.holds and 0 <= ev.details["min_delta_over_max"] < 1e-3
    delta, alt = ev.details["delta"], ev.details["delta_alt_printed"]
    assert ev.claim("delta_nonnegative").observed == min(delta)  # the smallest δ_k is the one judged
    worst = max(abs(a - b) for a, b in zip(alt, delta)) / max(abs(x) for x in delta)
    assert ev.claim("alternative_delta_as_printed").observed == pytest.approx(worst, rel=1e-12)


def test_theorem_5_tolerances_are_pinned(run):
    # 1 + 1e-9 on δ_k moves eq. (15) by ~6e-11 (≈ 65 × ATOL); 1 + 1e-7 moves the corrected alternative by 1e-7
    # (10 × DELTA_RTOL); δ_k < 0 breaks δ_k ≥ 0
    assert not run(T5, delta_scale=1 + 1e-9, allow_violation=True).claim("theorem_5_equals_lemma_4").passed
    assert not run(T5, delta_scale=1 + 1e-7, allow_violation=True).claim("alternative_delta_corrected").passed
    assert not run(T5, delta_scale=-1.0, allow_violation=True).claim("delta_nonnegative").passed
    assert not run(T5, dependent=True, allow_violation=True).claim("theorem_5_equals_lemma_4").passed


# -- Theorem 6 ----------------------------------------------------------------------------------------------------------
def test_theorem_6_basin_fraction_does_not_depend_on_b(run):
    # g(y) = y + b adds b·I to A, which P⊥_w removes: the hypothesis g > 0 cannot bind on the sphere
    assert run(T6, b=1.05).details["basin_fraction"] == run(T6).details["basin_fraction"]


def test_theorem_6_negative_modulation_shrinks_the_basin(run):
    ev = run(T6, c_max=-0.5, allow_violation=True)
    assert not ev.claim("basin_grows").passed and not ev.claim("basin_inclusion").passed
    assert not ev.claim("basin_strictly_larger").passed


def test_theorem_6_small_c_still_grows(run):
    ev = run(T6, c_max=0.02)
    assert ev.converged and ev.holds, ev.explain()


# -- Fig. 8 ------------------------------------------------------------------------------------------------------------
def test_figure_8_counts_and_where_the_maxima_sit(run):
    ev = run(F8)
    assert ev.holds
    assert len(ev.details["relu_maxima_theta/pi"]) == 9 and all(ev.details["maxima_at_kinks"])
    assert ev.details["exact_lmes_theta/pi"] == []  # recorded: none of the optima is an LME
    assert len(ev.details["linear_maxima_theta/pi"]) == 2


@pytest.mark.parametrize("params, n_maxima", [(dict(points="clusters"), 3), (dict(leak=1.0), 2)])
def test_figure_8_controls_have_few_maxima(run, params, n_maxima):
    ev = run(F8, allow_violation=True, **params)
    assert not ev.claim("relu_at_least_8_maxima").passed and ev.observed == n_maxima


# -- hypotheses and domains named in the errors ----------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params", [(T5, dict(weak_rf=0.0)), (T1, dict(model="leaky_pair", neg_weight=1.0)),
                                         (T1, dict(model="summation", q=1.5)), (T1, dict(leak=1.0)),
                                         (T3, dict(pi_iters=0)), (T3, dict(theta0=0.0)), (T4, dict(s_small=1.5)),
                                         (SUM, dict(q=0.0))])
def test_values_outside_the_domain_are_refused_with_the_parameter_named(rid, params):
    with pytest.raises(ParameterError, match=list(params)[-1]):  # the out-of-domain value is the last one
        theorems.check(rid, allow_violation=True, **params)


def test_structural_hypotheses_are_not_bypassable():
    with pytest.raises(HypothesisViolation, match="p_min"):
        theorems.check(CAT, allow_violation=True, M=2, p_min=0.5)


@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        (SUM, dict(q=Q_STAR), "threshold"),
        (T1, dict(model="summation", q=0.45), "is an LME"),
        (T1, dict(model="categorical"), "ρ(w_*) finite"),
        (T2, dict(bound_radius_scale=0.5), "‖x‖₂ ≤ C₀"),
        (LIN, dict(isotropic=True), "distinct top eigenvalue"),
        (T5, dict(dependent=True), "conditionally independent"),
        (T4, dict(top_rank=2), "rank-1 top layer"),
        (T6, dict(c_max=-1.0), "c > 0"),
        ("nonlinear_cl.figure_4", dict(Ps="1", betas="5"), "a regime of Fig. 4"),
        (CAT, dict(p_min=0.5), "p_min"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(rid, **params)
    assert hypothesis in str(err.value)


# =====================================================================================================================
# Issue 16, part p001a: Lemmas 1, 2, 4, 7–10, Corollary 2, the α-CL correspondence, Theorem 6's proof steps and the
# remark after Theorem 6. (The block of part p001b, BatchNorm and the specialisation experiments, follows it.)
# =====================================================================================================================
L1 = "nonlinear_cl.lemma_1"
L2 = "nonlinear_cl.lemma_2"
L4 = "nonlinear_cl.lemma_4"
L7 = "nonlinear_cl.lemma_7"
L8 = "nonlinear_cl.lemma_8"
L10 = "nonlinear_cl.lemma_10"
ACL = "nonlinear_cl.alpha_cl_gradient"
C2 = "nonlinear_cl.corollary_2"
T6R = "nonlinear_cl.theorem_6_remark"


@pytest.mark.parametrize("rid, status", [(L1, "verified"), (L2, "trend"), (L4, "verified"), (L7, "verified-corrected"),
                                         (L8, "verified"), (L10, "verified"), (ACL, "verified"), (C2, "verified"),
                                         (T6R, "verified-corrected")])
def test_statuses_of_the_issue_16_results(rid, status):
    assert str(theorems.get(rid).status) == status


# -- Lemma 1 ------------------------------------------------------------------------------------------------------------
def test_lemma_1_two_points_have_the_closed_form_spectrum(run):
    # n = 2: α = [[1, a], [a, 1]] with a = exp(∓d²/2τ); λ_min/λ_max = (1 − a)/(1 + a), < 0 exactly when a > 1
    ev = run(L1, n=2, k=1)
    d2 = ev.details["lambda_max"] - 1  # λ_max = 1 + a
    assert ev.claim("gram_psd").observed == pytest.approx((1 - d2) / (1 + d2), rel=1e-12)
    neg = run(L1, n=2, k=1, sign=1, allow_violation=True)
    a = neg.details["lambda_max"] - 1
    assert a > 1 and neg.claim("gram_psd").observed == pytest.approx((1 - a) / (1 + a), rel=1e-12)


def test_lemma_1_psd_edge_and_its_tolerance_pin(run):
    ev = run(L1, near=1e-4)
    assert ev.holds and 0 <= ev.claim("gram_psd").observed < 1e-12  # singular to rounding
    assert not run(L1, near=1e-4, psd_shift=1e-11, allow_violation=True).claim("gram_psd").passed  # 10× PSD_RTOL


def test_lemma_1_without_the_lower_bound_the_map_has_negative_features(run):
    ev = run(L1, shift="none", allow_violation=True)
    assert ev.details["negative_features"] > 0 and ev.claim("feature_map_reproduces_alpha").passed


# -- Lemma 2 ------------------------------------------------------------------------------------------------------------
def test_lemma_2_error_falls_at_the_clt_rate_and_plateaus_in_the_controls(run):
    ev = run(L2)
    assert ev.holds and -0.65 <= ev.observed <= -0.35
    errs = ev.details["relative_rms_error"]
    assert errs == sorted(errs, reverse=True)
    plain = run(L2, limit="plain", allow_violation=True)
    # the plateau is the intra term Σ z_l²𝔼V_aug that the plain variance keeps: ‖plain − L‖/‖L‖
    assert plain.details["relative_rms_error"][-1] == pytest.approx(plain.details["plain_minus_limit_norm"], rel=0.1)
    assert not plain.holds and plain.observed > -0.15


def test_lemma_2_uniform_alpha_is_the_variance_of_the_conditional_mean(run):
    ev = run(L2, alpha="uniform")
    assert ev.holds and ev.claim("representation_4").observed < 1e-14


def test_lemma_2_tau_so_small_that_alpha_underflows_names_tau():
    # found by tools/fuzz.py (seed 0): at τ = 1e-3 α(a, b) = 0 between distinct atoms, L = 0, and the relative error
    # divided by zero
    with pytest.raises(ParameterError, match="tau") as err:
        theorems.check(L2, N_min=4, doublings=2, replicates=8, tau=0.001, allow_violation=True)
    assert err.value.name == "tau"


# -- α-CL correspondence ---------------------------------------------------------------------------------------------
def test_alpha_cl_gradient_extends_to_eps_with_the_eps_in_alpha(run):
    ev = run(ACL, eps=0.5, allow_violation=True)
    assert not ev.claim("gradient_matches_energy").passed  # the printed α (no ε term)
    assert ev.claim("eps_generalisation").observed < 1e-12  # α with ε·e^{−d_i²/τ} in its denominator


def test_alpha_cl_gradient_tolerance_is_pinned(run):
    assert not run(ACL, energy_scale=1 + 1e-9, allow_violation=True).holds  # 10× RTOL
    assert run(ACL, tau=0.001).details["max_alpha_row_mean"] > 0.95  # the binding instance is nearly one-hot


# -- Lemma 4 ------------------------------------------------------------------------------------------------------------
def test_lemma_4_quadratic_activation_doubles_the_w_formula(run):
    ev = run(L4, activation="quadratic", allow_violation=True)
    assert ev.claim("W_gradient").observed == pytest.approx(1.0, rel=1e-9)  # ‖2g − g‖/‖g‖: h'(s)s = 2h
    assert ev.claim("V_gradient").passed  # V̇ = V C_α[f₁] needs no homogeneity


def test_lemma_4_binding_instance_has_exact_kinks(run):
    ev = run(L4, kinks=True)
    assert ev.holds and ev.details["zero_preactivations"] > 0


# -- Lemmas 7–10 ---------------------------------------------------------------------------------------------------------
def test_lemma_7_fails_on_indefinite_steps_and_holds_once_corrected(run):
    cx = run(L7, form="as_printed", model="batch", N=16, aug=4.0)
    assert not cx.holds and cx.observed > 1000 and cx.details["lambda_min_min"] < -1
    assert not cx.claim("parseval_step_184").passed  # the step that needs |λ_i| ≤ |λ₂|
    fixed = run(L7, model="batch", N=16, aug=4.0)
    assert fixed.holds and 0.99 < fixed.observed <= 1


def test_lemma_7_is_nearly_attained_near_convergence(run):
    assert run(L7, model="batch", N=32, aug=5.0).observed > 0.999


@pytest.mark.parametrize("rid, ratio", [(L8, 2.89), (L10, 1.62)])
def test_lemmas_8_and_10_fail_on_the_indefinite_steps(run, rid, ratio):
    spec = next(iter(theorems.get(rid).controls))
    ev = run(rid, **spec)
    assert not ev.holds and ev.observed == pytest.approx(ratio, abs=0.01)


def test_lemma_10_kappa_is_of_order_one_over_the_gap_squared(run):
    ev = run(L10)
    assert ev.holds and 0.1 < ev.claim("max_kappa_gap2").observed < 10


# -- Corollary 2 -------------------------------------------------------------------------------------------------------
def test_corollary_2_z0_against_monte_carlo(run):
    import torch

    from theorems.core.context import Context
    from theorems.nonlinear_cl.corollary_2 import instance

    ev = run(C2)
    ctx = Context.make(seed=0)
    gm, w, _ = instance({"clusters": 3, "radius": 2.5, "sigma": 0.6}, ctx)
    h = torch.relu(gm.sample(ctx, 200_000) @ w[0])
    z0_mc = float(torch.exp(-h**2 / 2).mean())  # τ = 1
    assert ev.details["z0"] == pytest.approx(z0_mc, abs=5 * 0.5 / 200_000**0.5)
    assert ev.details["rho_ratio"] <= ev.details["z0"]  # the roughness drops at least by z₀ (Chebyshev)


def test_corollary_2_tolerance_is_pinned(run):
    assert run(C2, alpha_offset=1e-9, allow_violation=True).claim("r_identity").passed
    assert not run(C2, alpha_offset=1e-8, allow_violation=True).claim("r_identity").passed  # 9e-9 > R_RTOL


def test_corollary_2_the_roughness_only_stabilises(run):
    ev = run(C2)
    assert ev.details["qDq_u"] < ev.details["qDq_g"] < 0  # both stabilising, Gaussian α less so


# -- Theorem 6's proof steps and the remark after it --------------------------------------------------------------------
def test_theorem_6_one_dimensional_proof_steps_hold_and_the_winner_rule_does_not(run):
    ev = run(T6)
    for name in ("ode_closed_form", "blowup_time", "blowup_time_derivative", "blowup_time_decreasing_in_b"):
        assert ev.claim(name).passed, name
    assert ev.details["winner_rule_agreement"] == pytest.approx(0.938, abs=0.002)


def test_theorem_6_remark_counterexamples_by_closed_form(run):
    ev = run(T6R, form="as_printed", eps_max=1.5)
    assert ev.claim("positive_modulation").observed == pytest.approx(0.5 / 0.75, rel=1e-12)  # P = 1/2 at ε = 1.5
    ev = run(T6R, form="as_printed", gap=0.8, d=5)
    # r = 5, r' = 2: (1/3)(1 − (ε_c(2) − ε_c(5))/2)³ = (1/3)(1 − 1.2)³ < 0 = P[E_c(5)]
    assert ev.claim("general_rank_157").observed == pytest.approx(-(1 / 3) * (-0.2) ** 3, rel=1e-9)
    assert ev.claim("general_top_156").passed  # the gap 0.8 ≤ 1 keeps (156)


def test_theorem_6_remark_no_modulation_is_one_over_d(run):
    ev = run(T6R, d=10)
    assert ev.claim("d_times_P0").observed == pytest.approx(1 - 2.0**-10, rel=1e-12)


# -- bookkeeping of the new results: report instances, defaults and the claims' own arithmetic -------------------------
NEW_IDS = (L1, L2, L4, L7, L8, L10, ACL, C2, T6R)


@pytest.mark.parametrize("rid", NEW_IDS)
def test_report_instances_flag_exactly_the_negative_controls(rid):
    # allow_violation=True on a report instance iff its parameters step over a hypothesis (no evaluation needed)
    from theorems.core.registry import validate
    from theorems.core.suite import get_suite

    result = theorems.get(rid)
    for form, params, allow in result.report_instances(get_suite("ci")):
        _, violations = validate(result, params, form)
        assert bool(violations) == allow, (rid, form, params, violations)


def test_generic_defaults_are_generic(run):
    assert run(L4).details["zero_preactivations"] == 0  # kinks are the binding instance's, not the default's
    assert run(L2).claim("representation_4").passed  # the printed form (4) is computed on the default


def test_theorem_6_claims_are_the_grid_statistics(run):
    ev = run(T6)
    frac = ev.details["basin_fraction"]
    assert ev.claim("basin_grows").observed == pytest.approx(min(b - a for a, b in zip(frac, frac[1:])), abs=1e-12)
    with pytest.raises(HypothesisViolation, match="c_max ≠ 0"):
        theorems.check(T6, c_max=0.0, allow_violation=True)  # no grid at all: not a control


def test_theorem_6_unconverged_flow_never_holds(run):
    # residuals ≈ 1e-4: 100× FLOW_TOL, so the certificate (and the verdict) is withheld
    ev = recording.expect(run(T6, steps=250), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds and 1e-5 < ev.details["max_residual"] < 1e-3
    with pytest.raises(HypothesisViolation, match="c_max − 1"):
        theorems.check(T6, c_max=1.0, allow_violation=True)  # no convergence certificate at c = 1: not a control


@pytest.mark.parametrize("rid", (T2, T4, T5, T6, CAT, SUM, LIN, F8))
def test_report_instances_flag_exactly_the_negative_controls_of_the_older_results(rid):
    test_report_instances_flag_exactly_the_negative_controls(rid)


def test_lemma_2_mean_matches_the_finite_n_expectation(run):
    assert run(L2).claim("mean_at_largest_N").observed < 3
    assert not run(L2, alpha_on_views=True, replicates=32, allow_violation=True).claim("mean_at_largest_N").passed


# ======================================================================================================================
# p001b: BatchNorm (App. D: Def. 5, Lemma 6, Corollary 3), Table 1, Figures 4/9/10, filter specialisation (suite's
# reading). Runs ask for form="as_printed", the key the conformance checks use, so each instance is computed once.
# ======================================================================================================================
BN = "nonlinear_cl.batchnorm"
F4 = "nonlinear_cl.figure_4"
TAB1 = "nonlinear_cl.table_1"
AP = "as_printed"


@pytest.mark.parametrize("rid, status", [(BN, "verified"), (F4, "verified-corrected"), (TAB1, "verified")])
def test_p001b_statuses(rid, status):
    assert str(theorems.get(rid).status) == status


# -- BatchNorm -----------------------------------------------------------------------------------------------------------
def test_batchnorm_lemma_6_is_the_def_5_gradient_only(run):
    ev = run(BN, form=AP)
    assert ev.holds, ev.explain()
    assert ev.details["lemma_6_w_rel_err"] < 1e-13
    # eq. (166) is the gradient of mean-backprop BN only: vanilla BN (σ² backpropagated) differs by O(1)
    assert ev.details["vanilla_bn_vs_eq_166"] > 0.1


def test_batchnorm_detaching_mu_is_inert_for_the_stated_loss_not_for_the_authors_code(run):
    ev = run(BN, form=AP)
    assert ev.claim("mean_detach_inert_energy").observed < 1e-13
    assert ev.claim("mean_detach_inert_infonce").observed < 1e-13
    # the released implementation: per-view statistics and ℓ2-normalised outputs each make μ matter
    assert ev.details["mu_detach_change_authors"] > 0.1
    assert ev.details["mu_detach_change_l2_only"] > 0.1
    assert ev.details["mu_detach_change_per_view_only"] > 1e-3


@pytest.mark.parametrize("params, broken", [
    (dict(activation="tanh"), {"lemma_6_w"}),
    (dict(var_backprop=True), {"lemma_6_w"}),
    (dict(bn_stats="per_view"), {"mean_detach_inert_energy"}),
    (dict(l2_normalise=True), {"mean_detach_inert_infonce", "mean_detach_inert_energy"}),
    (dict(dependent=True), {"corollary_3_dynamics", "s_bn_eigenvector"}),
])
def test_batchnorm_each_control_breaks_what_it_targets(run, params, broken):
    ev = run(BN, form=AP, allow_violation=True, **params)
    assert broken <= {c.name for c in ev.failed_bounds}, ev.explain()


def test_batchnorm_tolerance_pinned_just_outside(run):
    ev = run(BN, form=AP, allow_violation=True, formula_scale=1 + 1e-9)
    c = ev.claim("lemma_6_w")
    assert not c.passed and c.observed == pytest.approx(1e-9, rel=1e-3)  # 10× above RTOL = 1e-10
    assert not ev.claim("corollary_3_dynamics").passed


def test_batchnorm_binding_instances(run):
    small = run(BN, form=AP, n_small=True)
    assert small.holds and small.details["min_sigma"] < 0.01 * run(BN, form=AP).details["min_sigma"], small.explain()
    weak = run(BN, form=AP, weak_rf=0.01)
    assert weak.holds and weak.details["lambda_gap_bn"] < 0.05 * weak.details["lambda_bn"], weak.explain()


def test_batchnorm_rf_uniformity_is_not_general(run):
    """App. D: with BN, λ^bn − d^bn_k is 'almost constant across RFs'. Recorded: on the default instance BN makes the
    spread larger (5.5 vs 1.2); where one RF dominates (weak_rf = 0.01) it makes it far smaller (39 vs 1e4)."""
    ev = run(BN, form=AP)
    assert ev.claim("rf_spread_bn").observed > ev.claim("rf_spread_plain").observed
    weak = run(BN, form=AP, weak_rf=0.01)
    assert weak.claim("rf_spread_bn").observed < 0.01 * weak.claim("rf_spread_plain").observed


# -- Figures 4/9/10 (authors' protocol, ci miniature) ---------------------------------------------------------------------
def test_figure_4_ci_instance_shows_the_contrasts(run):
    ev = run(F4)
    assert ev.holds and ev.converged, ev.explain()
    t = ev.details["table"]
    # P = 1: linear learns the single pattern at β = 1, ReLU does not; P = 3, β = 5: ReLU ahead
    assert min(t["P=1 beta=1 linear infonce"]["chi_plus"]) > 0.9 > 0.5 > max(t["P=1 beta=1 relu infonce"]["chi_plus"])
    assert ev.claim("relu_beta_effect_at_init").observed > 0  # the chance part of the β effect, recorded


def test_figure_4_controls(run):
    shuffled = run(F4, shuffle_pairs=True, allow_violation=True)
    assert "relu_lowest_chi_minus" in {c.name for c in shuffled.failed_bounds}, shuffled.explain()
    assert shuffled.details["loss_end_mean"] > 2 * run(F4).details["loss_end_mean"]
    wrong = run(F4, margin=0.1, allow_violation=True)
    assert {"relu_beats_linear", "relu_gains_from_beta"} <= {c.name for c in wrong.failed_bounds}
    lead = run(F4, margin=0.7, allow_violation=True)
    assert "linear_beats_relu_at_P1" in {c.name for c in lead.failed_bounds}
    # the miniature records linear's β-drift, the printed length asserts it
    assert run(F4).claim("linear_less_affected").kind == "measurement"


def test_figure_4_needs_a_regime_and_its_forms_their_learning_rates():
    with pytest.raises(HypothesisViolation, match="a regime of Fig. 4"):
        theorems.check(F4, Ps="3", betas="1")
    with pytest.raises(HypothesisViolation, match="printed protocol"):
        theorems.check(F4, form=AP)  # the ci miniature is not the printed protocol
    with pytest.raises(HypothesisViolation, match="lr 0.02"):
        theorems.check(F4, lr=2e-3)
    with pytest.raises(HypothesisViolation, match="ReLU and linear"):
        theorems.check(F4, activations="relu,leaky")


# -- Table 1 (ζ = 10, ci miniature) --------------------------------------------------------------------------------------------
def test_table_1_ci_instance(run):
    ev = run(TAB1, form=AP)
    assert ev.holds, ev.explain()
    row = ev.details["table"]["P=3 beta=2"]
    for mu in ("mu_no", "mu_bp"):  # σ² detached ahead for each seed and μ setting
        assert all(a > b for a, b in zip(row[f"{mu}_var_no"], row[f"{mu}_var_bp"]))
    assert not run(TAB1, form=AP, margin=0.3, allow_violation=True).holds
