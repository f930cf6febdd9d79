"""CI gate for paper 001 (Tian, nonlinearity in contrastive learning): LMEs, their stability, the §3 examples.

Statuses asserted: theorem_1, categorical_model, summation_model, linear_vs_relu, theorem_3 ``verified``;
theorem_2 ``verified-corrected`` (printed C₀³ has a counterexample, C₀² holds); the 2-layer results and the
Fig. 8 check as registered. Every asserted claim is broken by at least one negative control (meta-test below).
"""

from __future__ import annotations

import functools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import theorems
from theorems import HypothesisViolation
from theorems.strategies import linear_vs_relu_params, lme_mixture_params, roughness_params, summation_params

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
SPEC = "nonlinear_cl.specialisation"
Q_STAR = (3 - math.sqrt(5)) / 2


@functools.lru_cache(maxsize=None)
def _cached(rid: str, items: tuple) -> theorems.Evidence:
    return theorems.check(rid, **dict(items))


def run(rid: str, **params) -> theorems.Evidence:
    """Fixed instances shared by several checks run once per session."""
    return _cached(rid, tuple(sorted(params.items())))


@pytest.mark.parametrize("rid, status", [(T1, "verified"), (T2, "verified-corrected"), (CAT, "verified"),
                                         (SUM, "verified"), (LIN, "verified"), (T3, "verified"),
                                         (T5, "verified-corrected"), (T4, "verified-corrected"), (T6, "verified"),
                                         (F8, "verified-corrected"), (SPEC, "verified")])
def test_registered_with_the_status_the_suite_asserts(rid, status):
    assert rid in theorems.ids()
    assert str(theorems.get(rid).status) == status


@pytest.mark.parametrize("rid", [T1, T2, CAT, SUM, LIN, T3, T5, T4, T6, F8, SPEC])
def test_default_instance_holds(rid):
    ev = run(rid)
    assert ev.holds, ev.explain()
    json.dumps(ev.to_dict(), allow_nan=False)


# -- Theorem 1 -------------------------------------------------------------------------------------------
@given(data=st.data())
def test_theorem_1_holds_on_generated_mixtures(data):
    ev = theorems.check(T1, **data.draw(lme_mixture_params(), label="params"))
    assert ev.converged is not False and ev.holds, ev.explain()
    assert 0 < ev.tightness <= 1 + 1e-6, ev.explain()
    # Derived fact (digest §2): for ReLU on a mixture D ⪯ 0, so the roughness only stabilises.
    assert ev.details["max_eig_sym_QtD"] <= 1e-9


@pytest.mark.parametrize("q", [0.1, 0.3, 0.37])
def test_theorem_1_on_the_summation_model_below_threshold(q):
    ev = run(T1, model="summation", d=4, q=q)
    assert ev.holds, ev.explain()
    # Discrete data away from kinks: A is locally constant, ρ = 0, and the rate is exactly λ_gap (tight).
    assert ev.details["rho_fd"][0] == 0.0
    assert ev.tightness == pytest.approx(1.0, rel=1e-9)
    assert ev.bound == pytest.approx(1 - 3 * q + q * q, rel=1e-9)


def test_theorem_1_control_summation_above_threshold_perturbations_grow():
    ev = run(T1, model="summation", d=4, q=0.45, allow_violation=True)
    assert not ev.holds
    assert not ev.claim("lme_found").passed
    assert ev.claim("perturbations_return").observed > 1  # the perturbation grows


def test_theorem_1_control_categorical_kink_is_reported_not_an_lme():
    ev = run(T1, model="categorical", d=4, allow_violation=True)
    assert ev.details["is_kink"] == [True] and ev.details["is_lme"] == [False]
    assert math.isinf(ev.details["rho_fd"][0])
    assert not ev.claim("lme_found").passed


# -- §3 examples ---------------------------------------------------------------------------------------------
@given(data=st.data())
def test_summation_threshold_on_both_sides(data):
    params = data.draw(summation_params(), label="params")
    ev = theorems.check(SUM, **params)
    assert ev.holds, ev.explain()
    assert (ev.observed > 0) == (params["q"] < Q_STAR)


@pytest.mark.parametrize("M", [2, 5, 8])
def test_categorical_identity_and_kinks(M):
    ev = run(CAT, M=M, seed=M)
    assert ev.holds, ev.explain()
    assert all(ev.details["is_kink"])  # u_m is an LME by Definition 3 but a kink: Theorem 1 does not apply


@given(data=st.data())
def test_linear_learns_one_pattern_relu_several(data):
    ev = theorems.check(LIN, **data.draw(linear_vs_relu_params(), label="params"))
    assert ev.converged and ev.holds, ev.explain()


# -- Theorem 2: corrected C₀² holds, printed C₀³ fails for small C₀ -------------------------------------------
@given(data=st.data())
def test_theorem_2_corrected_bound_holds_at_every_scale(data):
    ev = theorems.check(T2, **data.draw(roughness_params(), label="params"))
    assert ev.holds, ev.explain()


@pytest.mark.parametrize("C0", [0.01, 0.05, 0.1, 0.14])
def test_theorem_2_printed_bound_has_a_counterexample(C0):
    ev = run(T2, C0=C0, form="as_printed")
    assert not ev.holds and ev.observed > ev.bound
    assert ev.claim("fd_matches_exact_formula").passed  # ρ itself is right; only the printed constant fails
    assert ev.observed == pytest.approx((2 * C0 / (3 * math.pi)) ** 2, rel=1e-6)  # uniform disk, exact


def test_theorem_2_printed_holds_above_the_break_point():
    assert run(T2, C0=0.2, form="as_printed").holds


def test_theorem_2_scales_quadratically():
    # ρ(s·x) = s²ρ(x): the dimensional argument behind the correction, measured.
    a, b = run(T2, C0=0.3, profile="bump"), run(T2, C0=30.0, profile="bump")
    assert b.observed / a.observed == pytest.approx(100.0 ** 2, rel=1e-6)


# -- Theorem 3 ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params", [dict(theta0=0.02, seed=1), dict(theta0=0.2, seed=2),
                                    dict(sigma=0.5, gamma=0.01, theta0=0.2), dict(sigma=0.3, gamma=2e-3, theta0=0.1)])
def test_theorem_3_conclusions_hold_where_the_hypothesis_holds(params):
    ev = run(T3, **params)
    assert ev.converged and ev.holds, ev.explain()
    # the asymptotic PI ratio is μ(w_*) = (λ₂/λ₁)² (digest §6 C): the μ-part of ω is tight
    assert ev.details["observed_ratio_(1-c_t+1)/(1-c_t)"] == pytest.approx(ev.details["mu_at_limit"], rel=0.05)


def test_theorem_3_is_conservative_pi_converges_where_the_hypothesis_fails():
    with pytest.raises(HypothesisViolation, match="sup_"):
        run(T3, sigma=1.0, angle=109.5, gamma=0.1, theta0=0.05)  # decided by the evaluation, still an error
    ev = run(T3, sigma=1.0, angle=109.5, gamma=0.1, theta0=0.05, allow_violation=True)
    assert not ev.claim("cap_hypothesis_met").passed and any("sup_" in v for v in ev.violations)
    assert ev.details["pi_converged"] and ev.claim("rate_bound").passed and ev.claim("radius_bound").passed


# -- Theorem 5 (2-layer, global modulation) ---------------------------------------------------------------------
@given(K=st.integers(2, 4), d=st.integers(2, 4), atoms=st.integers(2, 3), p1=st.floats(0.05, 0.95),
       seed=st.integers(0, 2**16))
def test_theorem_5_holds_on_generated_instances(K, d, atoms, p1, seed):
    ev = theorems.check(T5, K=K, d=d, atoms=atoms, p1=round(p1, 4), seed=seed)
    assert ev.holds, ev.explain()


def test_theorem_5_printed_alternative_delta_is_wrong():
    ev = run(T5, form="as_printed")
    assert not ev.holds and not ev.claim("alternative_delta_as_printed").passed
    assert all(c.passed for c in ev.claims if c.name != "alternative_delta_as_printed")  # only the erratum fails
    assert ev.details["secular_equation"] == pytest.approx(1.0, abs=1e-12)


# -- Theorem 4 (linear 2-layer: co-linearity, repaired part 2) -------------------------------------------------
@given(K=st.integers(1, 3), M=st.integers(2, 4), d=st.integers(2, 5), seed=st.integers(0, 2**16))
def test_theorem_4_holds_on_generated_instances(K, M, d, seed):
    ev = theorems.check(T4, K=K, M=M, d=d, N=16, seed=seed)
    assert ev.holds, ev.explain()


def test_theorem_4_swap_construction_of_the_proof_is_not_critical():
    ev = run(T4, form="as_printed")
    assert not ev.claim("swap_path_critical").passed
    assert ev.details["grad_at_W_star"] <= 1e-12 * ev.details["grad_scale"]  # while W* itself is critical
    assert ev.claim("colinear_within_rf").passed  # part (1) is right


# -- Theorem 6 (basin grows with c, on the sphere) ----------------------------------------------------------------
@pytest.mark.parametrize("params", [dict(d=3, b=1.2), dict(d=8, b=3.0, seed=1), dict(c_max=2.0, inits=400)])
def test_theorem_6_basin_grows(params):
    ev = run(T6, **params)
    assert ev.converged and ev.holds, ev.explain()
    assert ev.observed > 0  # strictly larger at c_max


# -- Fig. 8: the paper's own illustration contradicts its theory (digest §0 item 5) ------------------------------
def test_figure_8_maxima_are_kinks_not_lmes():
    printed, corrected = run(F8, form="as_printed"), run(F8)
    assert corrected.holds and not printed.holds
    assert not printed.claim("maxima_are_lmes").passed
    assert len(corrected.details["relu_maxima_theta/pi"]) == 9 and all(corrected.details["maxima_at_kinks"])
    assert corrected.details["exact_lmes_theta/pi"] == []


# -- Filter specialisation (§5 simulation, scaled down) ------------------------------------------------------------
def test_specialisation_relu_filters_capture_the_candidate_tokens():
    ev = run(SPEC)
    assert ev.converged and ev.holds, ev.explain()
    d = ev.details
    # ReLU filters specialise on single candidate tokens more than linear ones (cosine with the best candidate)
    assert d["one_token_cosine_relu"] > d["one_token_cosine_linear"]
    assert d["loss_end"][0] < d["loss_start"][0]  # training did something


def test_specialisation_control_without_shared_generators_learns_nothing():
    ev = run(SPEC, shuffle_pairs=True, allow_violation=True)
    assert not ev.holds
    assert abs(ev.details["chi_plus_relu"][0] - ev.details["chi_plus_linear"][0]) < 0.05


# -- negative controls: every asserted claim fails on one of them ---------------------------------------------
CONTROLS = {
    T1: [dict(model="summation", d=4, q=0.45, allow_violation=True), dict(model="categorical", d=4, allow_violation=True),
         dict(rate_scale=1.05, allow_violation=True), dict(closed_form_scale=1.01, allow_violation=True)],
    T2: [dict(bound_radius_scale=0.5, allow_violation=True), dict(closed_form_scale=1.001, allow_violation=True),
         dict(C0=0.1, form="as_printed")],
    CAT: [dict(h_prime_at_zero=1.0, allow_violation=True)],
    SUM: [dict(q=0.45, threshold=0.5, allow_violation=True), dict(q=0.3, threshold=0.25, allow_violation=True),
          dict(closed_form_scale=1.05, allow_violation=True), dict(q=0.45, closed_form_scale=1.05, allow_violation=True)],
    LIN: [dict(isotropic=True, allow_violation=True), dict(leak=1.0, allow_violation=True)],
    T5: [dict(dependent=True, allow_violation=True), dict(delta_scale=-1.0, allow_violation=True)],
    T4: [dict(activation="relu", allow_violation=True), dict(top_rank=3, allow_violation=True),
         dict(critical_start=False, allow_violation=True)],
    T6: [dict(c_max=-0.5, allow_violation=True)],
    SPEC: [dict(shuffle_pairs=True, allow_violation=True)],
    F8: [dict(points="uniform", allow_violation=True), dict(points="clusters", allow_violation=True),
         dict(leak=1.0, allow_violation=True)],
    T3: [dict(gamma=1e-7, allow_violation=True), dict(sigma=1.0, angle=109.5, gamma=0.1, theta0=0.05, allow_violation=True),
         dict(radius_scale=0.5, allow_violation=True)],
}
DEFAULTS = {T1: [{}, dict(model="summation", d=4, q=0.3)], T2: [{}], CAT: [{}], SUM: [{}, dict(q=0.45)], LIN: [{}], T3: [{}], T5: [{}], T4: [{}], T6: [{}], F8: [{}], SPEC: [{}]}


@pytest.mark.parametrize("rid", list(CONTROLS))
def test_every_claim_has_a_negative_control(rid):
    asserted = {c.name.replace("_printed_", "_corrected_") for p in DEFAULTS[rid] for c in run(rid, **p).claims}
    broken = {c.name.replace("_printed_", "_corrected_") for p in CONTROLS[rid] for c in run(rid, **p).failed_claims}
    assert asserted <= broken, f"{rid}: claims no control breaks: {sorted(asserted - broken)}"


def test_summation_control_wrong_threshold_fails_on_the_iff():
    ev = run(SUM, q=0.45, threshold=0.5, allow_violation=True)
    assert not ev.claim("lme_iff_below_threshold").passed and ev.observed < 0


# -- bad input ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        (SUM, dict(q=1.5), "0 < q < 1"),
        (SUM, dict(q=-0.1), "0 < q < 1"),
        (SUM, dict(q=0.0), "0 < q < 1"),
        (SUM, dict(q=Q_STAR), "threshold"),
        (SUM, dict(M=1), "M ≥ 2"),
        (CAT, dict(M=1), "M ≥ 2"),
        (T1, dict(model="summation", q=1.2), "0 < q < 1"),
        (T1, dict(model="summation", q=0.45), "is an LME"),
        (T1, dict(sigma=0.0), "σ > 0"),
        (T1, dict(d=1), "d ≥ 2"),
        (T1, dict(model="categorical"), "ρ(w_*) finite"),
        (T2, dict(C0=-1.0), "C₀ > 0"),
        (T2, dict(bound_radius_scale=0.5), "‖x‖₂ ≤ C₀"),
        (LIN, dict(leak=1.5), "0 ≤ leak ≤ 1"),
        (LIN, dict(isotropic=True), "distinct top eigenvalue"),
        (T1, dict(model="mixtures"), "model is one of"),
        (T3, dict(gamma=1.0), "0 < γ < 1"),
        (T5, dict(p1=1.0), "probabilities in the simplex"),
        (T4, dict(activation="relu"), "linear activation"),
        (T4, dict(top_rank=2), "rank-1 top layer"),
        (T6, dict(c_max=-1.0), "c > 0"),
        (T6, dict(b=0.5), "b > 1"),
        (SPEC, dict(tau=0.0), "τ > 0"),
        (SPEC, dict(P=1), "P > 1 and β > 1"),
        (T5, dict(p1=-0.2), "probabilities in the simplex"),
        (T5, dict(dependent=True), "conditionally independent"),
        (T3, dict(theta0=0.0), "c₀ ≠ 0"),
        (T3, dict(radius_scale=0.9), "exact radius"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(rid, **params)
    assert hypothesis in str(err.value)


@pytest.mark.parametrize("rid, params", [(SUM, dict(q=2.0)), (T1, dict(d=1)), (T2, dict(C0=0.0))])
def test_structural_violations_are_not_bypassable(rid, params):
    with pytest.raises(HypothesisViolation):
        theorems.check(rid, allow_violation=True, **params)


# -- determinism ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params", [(T1, dict(seed=3, starts=16)), (LIN, dict(seed=5, starts=16))])
def test_seeded_runs_give_the_same_numbers(rid, params):
    a, b = theorems.check(rid, **params).to_dict(), theorems.check(rid, **params).to_dict()
    for ev in (a, b):
        ev.pop("elapsed_s")
    assert a == b
