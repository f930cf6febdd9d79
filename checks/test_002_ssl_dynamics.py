"""Checks particular to paper 002 (Esser, Mukherjee, Ghoshdastidar): SSL learning dynamics.

What every result must pass (status derived from the evidence, every bound broken by a control, counterexamples
and proof errata replayed, worst-case search over ``Result.strategy``, bad input, JSON, determinism) lives in
``checks/test_conformance.py``. Here: hand cases whose numbers come from an independent computation, the controls
that pin each tolerance (a tolerance loosened ×1000 must let a control pass, so these must fail), and the
negative controls whose specific numbers the verdicts rely on.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import theorems
from theorems import HypothesisViolation
from theorems.core.context import Context
from theorems.optim.ode import rhs_stiefel, rhs_theorem2
from theorems.optim.stiefel import haar_stiefel
from theorems.ssl_dynamics import (figure_3, lemma_2, proposition_3,
                                   remark_3, theorem_1)
from theorems.ssl_dynamics.theorem_2 import q_velocity
from theorems.ssl_dynamics.trace_form import random_symmetric

P = "ssl_dynamics."


# The tolerances pinned by registered controls just outside them: checks/test_pins_000_002.py.


# -- Lemma 1 --------------------------------------------------------------------------------------------
def test_lemma_1_two_layer_control_refutes_the_appendix_claim(run):
    ev = run(P + "lemma_1", model="two_layer", h=50, allow_violation=True)
    assert not ev.claim("offdiagonal_blocks_vanish").passed and not ev.claim("diagonal_equals_kernel").passed
    # The appendix proof says the first-layer block vanishes; it adds xᵀx', so the diagonal is ≈ 2xᵀx'.
    assert 1.5 < ev.details["mean_diag_over_kernel"] < 2.5


# -- Proposition 1 ----------------------------------------------------------------------------------------
def test_proposition_1_repeated_eigenvalue_keeps_two_dimensions(run):
    ev = run(P + "proposition_1", form="as_printed", C="-1,0,0;0,-1,0;0,0,0.5", d=3)
    assert ev.claim("collapsed_to_rank_one").observed > 0.1 and ev.details["predicted_log_ratio_slope"] == 0.0
    assert ev.claim("gd_matches_closed_form").passed  # the dynamics are the identical ones; only the collapse fails
    assert ev.details["norm_growth"] > 1e6  # and Θ diverges: no fixed point


def test_proposition_1_moons_and_noncontrastive(run):
    assert run(P + "proposition_1", data="moons", d=2, z=2, n=200).holds
    assert run(P + "proposition_1", loss="noncontrastive").holds


def test_proposition_1_printed_noncontrastive_sign_is_wrong(run):
    # With the printed C̃ = +Σxx⁺ᵀ, GD on loss (2) does not follow Θ₀(I − 2ηC)^k, and nothing blows up.
    ev = run(P + "proposition_1", loss="noncontrastive", nc_sign=1.0, max_steps=1000, allow_violation=True)
    assert not ev.claim("gd_matches_closed_form").passed and not ev.claim("two_layer_blows_up").passed


# -- Proposition 3 ----------------------------------------------------------------------------------------
def test_proposition_3_width_counterexample_against_ky_fan(run):
    ev = run(P + "proposition_3", form="as_printed", **proposition_3.COUNTEREXAMPLE)
    lam = np.sort(np.array([-2, -1, 0.5, 1, 2.0]))
    # h = d: W₁CW₁ᵀ has spectrum spec(C) for every feasible W₁; Ky Fan gives (4)'s optimum, the 3 smallest.
    assert ev.details["problem_4_best"] == pytest.approx(lam[:3].sum(), rel=1e-6)
    assert ev.details["problem_2_best"] == pytest.approx(lam[:2].sum(), rel=1e-6)
    assert [c.name for c in ev.failed_bounds] == ["problem_4_matches_problem_2"]
    with pytest.raises(HypothesisViolation, match="width condition"):
        theorems.check(P + "proposition_3", h=5)


def test_proposition_3_norm_flag_changes_problems_1_and_3(run):
    # Frobenius norms turn (1) and (3) into Proposition 2's problem: optimum λ_min = −2 instead of −3.
    ev = run(P + "proposition_3", norm="frobenius", allow_violation=True)
    assert ev.details["problem_1_best"] == pytest.approx(-2.0, rel=1e-6)
    assert ev.details["problem_3_best"] == pytest.approx(-2.0, rel=1e-6)
    assert ev.details["problem_2_best"] == pytest.approx(-3.0, rel=1e-6)


def test_proposition_3_ratio_is_solved_on_its_own():
    ctx = Context.make("cpu", 3)
    C = random_symmetric(ctx, [-2.0, -1.0, 0.5, 1.0, 2.0])
    vals, res, seen = proposition_3.solve_ratio(ctx, C, 8, 3, 4, "spectral", 1e-10)
    assert float(vals.min()) == pytest.approx(-3.0, rel=1e-9) and bool((res <= 1e-10).all())
    assert float(seen.min()) >= -3.0 - 1e-9  # no visited point beats L*


# -- Theorem 1 --------------------------------------------------------------------------------------------
def test_theorem_1_random_W1_is_what_the_bound_needs(run):
    ev = run(P + "theorem_1", **theorem_1.BINDING_RANDOM)
    assert ev.holds and ev.details["bound_implied_for_every_W1"] is False
    # The measure-zero W₁x = ‖x‖e₁ would break the bound here: |tanh 2 − 2| = 1.036 > 0.894.
    assert ev.details["adversarial_gap"] == pytest.approx(abs(math.tanh(2.0) - 2.0), rel=1e-12)
    assert ev.details["adversarial_gap"] > ev.bound
    assert ev.bound == pytest.approx(4 / (3 * math.sqrt(3)) * 4 * math.log(3e5) ** 2 / math.sqrt(3e5), rel=1e-12)


def test_theorem_1_proof_constant_and_d_invariance(run):
    ev = run(P + "theorem_1")
    assert ev.claim("proof_constant_chain").passed
    assert ev.details["K_proof_over_K_needed"] > 100  # the chain (13)-(14) with Lemma 2's L leaves that much slack
    wide = run(P + "theorem_1", d=20, h=500, draws=400)
    assert wide.claim("d_invariance_ks_pvalue").observed > 0.01 and abs(wide.details["d_median_ratio"] - 1) < 0.2


def test_theorem_1_width_one_has_a_zero_bound(run):
    ev = run(P + "theorem_1", h=1, d=1, z=1, allow_violation=True)
    assert ev.bound == 0.0 and ev.observed == pytest.approx(abs(math.tanh(2.0) - 2.0), rel=1e-12)


@pytest.mark.parametrize("act, w2", [("tanh", "random"), ("tanh", "worst"), ("softplus2", "worst")])
def test_theorem_1_rate_in_predicted_range(run, act, w2):
    ev = run(P + "theorem_1_rate", activation=act, w2=w2)
    assert ev.holds
    # The second-order slopes (measurement) agree within 0.1 with the fit on these widths.
    assert abs(ev.observed - ev.details["second_order_slope"]) < 0.1


# -- Theorem 2 --------------------------------------------------------------------------------------------
@settings(max_examples=10)
@given(d=st.integers(1, 5), z=st.integers(1, 3), extra=st.integers(0, 12), seed=st.integers(0, 2**16))
def test_theorem_2_identity_and_stiefel_ode(d, z, extra, seed):
    ctx = Context.make("cpu", seed)
    C = random_symmetric(ctx, (3 * torch.rand(d, generator=ctx.generator, dtype=torch.float64) - 1.5).tolist())
    lam, V = torch.linalg.eigh(C)
    W1, W2 = haar_stiefel(ctx, h=d + z + extra, k=d), haar_stiefel(ctx, h=d + z + extra, k=z)
    q = ((W2.T @ W1) @ V).T.numpy()
    for flow, rhs in (("grassmann", rhs_theorem2), ("stiefel", rhs_stiefel)):
        qd = q_velocity(W1, W2, C, V, flow).numpy()
        ref = rhs(lam.numpy(), q)
        assert np.linalg.norm(qd - ref) <= 1e-10 * max(np.linalg.norm(ref), 1e-300)


# -- Figure 3 ---------------------------------------------------------------------------------------------
def test_figure_3_projections_against_ode_12(run):
    ev = run(P + "figure_3")
    # Riemannian GD is a first-order discretisation of (9), like (12): halving η halves the gap. The polar-projected
    # GD discretises the Stiefel flow instead: its gap to (12) is larger and does not halve.
    assert all(1.6 <= r <= 2.4 for r in ev.details["ratio_riemannian"])
    assert ev.claim("gap_ratio_projected").observed < 1.6
    assert ev.claim("max_output_gap_projected").observed > 10 * ev.claim("max_output_gap_riemannian").observed
    # Both reach the smallest eigenvalue of C (Theorem 3, z = 1).
    lam0 = ev.details["eigenvalues"][0]
    assert max(abs(v - lam0) for v in ev.details["final_loss_projected"]) < 1e-9 * abs(lam0)


def test_figure_3_qr_projection_is_biased_independently_of_eta(run):
    a = run(P + "figure_3", projection="qr", allow_violation=True)
    b = run(P + "figure_3", projection="qr", eta=0.005, allow_violation=True)
    lam0 = a.details["eigenvalues"][0]
    bias_a = max(v - lam0 for v in a.details["final_loss_projected"])
    bias_b = max(v - lam0 for v in b.details["final_loss_projected"])
    assert bias_a > 1e-3 * abs(lam0) and abs(bias_a - bias_b) < 0.05 * bias_a


def test_figure_3_printed_sign_is_ascent(run):
    ev = run(P + "figure_3", step_sign=1.0, allow_violation=True)
    # W + η∇L climbs: with both eigenvalues of C negative the largest loss, 0, is at q = 0: the outputs vanish.
    assert max(ev.details["eigenvalues"]) < 0 and max(abs(v) for v in ev.details["final_loss_projected"]) < 1e-6


# -- Lemma 2 --------------------------------------------------------------------------------------------------
def test_lemma_2_printed_tail_bound_fails_at_small_width():
    # h = 2, t = 1: the exact P(max(|X₁|, |X₂|) ≥ log 2) against the printed (2/√(2π))e^{−log²2/2}.
    a = math.log(2)
    exact = 1 - (1 - math.erfc(a / math.sqrt(2))) ** 2
    printed = 2 * math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    assert exact == pytest.approx(0.738, abs=1e-3) and printed == pytest.approx(0.628, abs=1e-3)
    ev = theorems.check(P + "lemma_2", **lemma_2.ERRATUM_TAIL)
    assert ev.claim("gaussian_tail_step").observed == pytest.approx(exact - printed, rel=1e-9)


def test_lemma_2_epsilon_vanishes_and_coordinate_frame_fails(run):
    eps = [lemma_2.epsilon(h, 3, 1.0, 0.5) for h in (100, 1000, 10_000)]
    assert eps[0] > eps[1] > eps[2] and eps[2] < 1e-5
    ev = run(P + "lemma_2", law="coordinate", allow_violation=True)
    assert ev.details["exceedances"] == [ev.params["draws"]] * 4


# -- E[C̃] -----------------------------------------------------------------------------------------------------
def test_expected_c_half_moons_are_not_centred(run):
    ev = run(P + "expected_c", form="as_printed")
    assert ev.details["data_mean"] == pytest.approx([0.5, 0.25], abs=0.02)
    assert ev.details["z_against_second_moment"] > 50 > 5 > ev.details["z_against_covariance"]


# -- Remarks 2 and 3 ------------------------------------------------------------------------------------------
def test_remark_2_infonce_keeps_rank_where_loss_1_collapses(run):
    ev = run(P + "remark_2", form="as_printed")
    assert ev.converged and ev.details["coupling_loss2"] == 0.0
    assert min(ev.details["singular_values_infonce"]) > 0.4  # σ₃/σ₁ = 0.49 at a certified minimiser: no collapse
    assert ev.details["expansion_ratio"] == pytest.approx(16, rel=1e-3)


def test_remark_3_fixed_projector(run):
    cx = run(P + "remark_3", form="as_printed", **remark_3.COUNTEREXAMPLE)
    assert cx.details["singular_values_end"][1] > 0.1 and cx.details["eigenvalues_AAt"] == pytest.approx([1.0] * 3)
    generic = run(P + "remark_3")
    assert not generic.claim("components_identical").passed and generic.holds
    given = run(P + "remark_3", eta=generic.details["eta"] / 2)  # a given step size is the one used
    assert given.details["eta"] == generic.details["eta"] / 2 and given.holds


# -- new data point -------------------------------------------------------------------------------------------
def test_new_data_point_polar_flow_misses(run):
    ev = run(P + "new_data_point", flow="stiefel", allow_violation=True)
    assert 1e-3 < ev.claim("ode_predicts_new_points").observed < 0.2
    assert ev.claim("limit_on_new_points").passed  # same limit, another path


# -- Theorem 3 --------------------------------------------------------------------------------------------
def test_theorem_3_counterexamples_and_readings(run):
    ortho = run(P + "theorem_3", form="as_printed", e1_sign=0)
    qT = np.array(ortho.details["q_T"])
    assert abs(abs(qT[1]) - 1) < 1e-6 and not ortho.claim("limit").passed  # → ±e₂ since λ₂ < 0
    square = run(P + "theorem_3", form="as_printed", lams="0.5,1,2,3", start="network", h=4)
    qT = np.array(square.details["q_T"])
    assert not square.claim("limit").passed and abs(abs(qT[0]) - 1) < 1e-6  # ‖q‖ ≡ 1, Oja flow to ±e₁
    # Not counterexamples on the paper's reading: −e₁ and a unit vector of a repeated λ₁'s eigenspace.
    sign = run(P + "theorem_3", form="as_printed", e1_sign=-1)
    assert sign.holds and sign.details["q_T"][0] == pytest.approx(-1, abs=1e-6)
    assert not sign.claim("e1_component_nondecreasing").passed  # the proof's step fails (proof erratum)
    rep = run(P + "theorem_3", form="as_printed", lams="-1,-1,0.5,2")
    q0 = np.array(rep.details["q0"])
    proj = np.r_[q0[:2], 0, 0] / np.linalg.norm(q0[:2])
    assert rep.holds and np.abs(np.array(rep.details["q_T"]) - proj).max() < 1e-6


@pytest.mark.parametrize("params", [dict(), dict(lams="0.5,1,2,3"), dict(start="network", h=10), dict(e1_sign=-1)])
def test_theorem_3_asymptotic_rate_matches_two_sided(run, params):
    # Generic starts: the fitted rate equals min(8|λ₁|, 2(λ₂ − λ₁)) (or 4λ_min) within 2%.
    ev = run(P + "theorem_3", **params)
    assert ev.details["rate_rel_err"] < 0.02
    # What the corrected proof step says for λ₁ < 0 (and only there): |e₁ᵀq| never decreases, whatever the sign.
    names = [c.name for c in ev.claims]
    assert ("abs_e1_component_nondecreasing" in names) == (params.get("lams") is None)
    assert "abs_e1_component_nondecreasing" not in names or ev.claim("abs_e1_component_nondecreasing").passed


# -- Conjecture 1 ---------------------------------------------------------------------------------------
def test_conjecture_1_sigmoid_trend_control(run):
    tanh = run(P + "conjecture_1")
    sig = run(P + "conjecture_1", activation="sigmoid", allow_violation=True)
    assert tanh.holds and not sig.holds and sig.observed > 0 > tanh.observed
    assert min(sig.details["gap_trained"]) > 10 * tanh.details["gap_trained"][-1]


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("theorem_2", dict(init_perturb=0.1), "orthonormal initialisation"),
        ("theorem_2", dict(h=1, z=2), "h ≥ z"),
        ("proposition_3", dict(h=2, z=3), "h ≥ z"),
        ("proposition_3", dict(norm="frobenius"), "operator norms"),
        ("theorem_1", dict(h=1, z=2), "h ≥ z"),
        ("theorem_1", dict(h=2, d=1, z=1), "h ≥ 3"),
        ("theorem_2", dict(C="1,2;0,1"), "C symmetric"),
        ("proposition_1", dict(C="-1,2;0,1", d=2), "C symmetric"),
        ("proposition_1", dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3), "λ₁(C) simple"),
        ("theorem_1", dict(activation="sigmoid"), "φ(0) = 0"),
        ("theorem_1", dict(activation="relu"), "φ'(0) = 1"),
        ("theorem_1_rate", dict(activation="sigmoid"), "φ(0) = 0"),
        ("theorem_3", dict(e1_sign=0), "e₁ᵀq₀ ≠ 0"),
        ("theorem_3", dict(q0_norm=1.5), "‖q₀‖ ≤ 1"),
        ("theorem_3", dict(lams="-1,-1,2"), "λ₁ simple"),
        ("lemma_1", dict(kernel_scale=1.1), "closed form"),
        ("conjecture_1", dict(activation="relu"), "φ'(0) = 1"),
        ("conjecture_1", dict(widths="2,10,100", z=3), "h ≥ max(d, z)"),
        ("figure_3", dict(projection="qr"), "projection onto WᵀW = I"),
        ("figure_3", dict(step_sign=1.0), "descent step"),
        ("figure_3", dict(T=3.0), "T long enough"),
        ("lemma_2", dict(law="coordinate"), "Q uniformly random"),
        ("lemma_2", dict(d=40), "d ≤ h"),
        ("expected_c", dict(noise_mean=0.1), "zero-mean augmentation noise"),
        ("remark_2", dict(z=1), "z ≥ 2 outputs"),
        ("remark_3", remark_3.COUNTEREXAMPLE, "μ₁(AAᵀ) or λ₁(C) simple"),
        ("remark_3", dict(r=1), "r ≥ 2"),
        ("new_data_point", dict(flow="stiefel"), "Theorem 2's proof"),
        ("figure_2", dict(widths="10,20"), "≥ 3 widths"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(P + rid, **params)
    assert hypothesis in str(err.value)


@pytest.mark.parametrize("rid, params, name", [
    ("proposition_1", dict(eta=0.0), "eta"),
    ("proposition_2", dict(c1=0.0), "c1"),
    ("theorem_3", dict(lams="-1,x"), "lams"),
    ("figure_3", dict(widths="100,10"), "widths"),
    ("lemma_2", dict(s=1.0), "s"),
])
def test_structural_domains_are_parameter_errors(rid, params, name):
    with pytest.raises(theorems.ParameterError, match=name):
        theorems.check(P + rid, **params)


# -- what every result of the paper declares ---------------------------------------------------------------
SSL_IDS = [i for i in theorems.ids() if i.startswith(P)]


@pytest.mark.parametrize("rid", SSL_IDS)
def test_report_instances_are_marked_as_their_hypotheses_say(rid):
    """A report instance is a negative control (allow_violation) exactly when it violates a hypothesis."""
    from theorems.core.registry import validate
    from theorems.core.suite import get_suite

    result = theorems.get(rid)
    for suite in ("ci", "thorough"):
        for form, params, allow in result.report_instances(get_suite(suite)):
            violations = validate(result, dict(params), form)[1]
            assert bool(violations) == allow, f"{rid} {form} {params}: allow_violation={allow}, violates {violations}"


@pytest.mark.parametrize("rid, params, hypothesis", [
    ("lemma_2", dict(d=40), "d ≤ h"),
    ("expected_c", dict(data="moons", d=3), "d = 2 for half moons"),
    ("figure_3", dict(widths=(1, 10, 100)), "h ≥ max(d, z)"),
    ("theorem_1", dict(h=2, d=3), "h ≥ d"),
    ("proposition_3", dict(h=2, z=3), "h ≥ z"),
    ("remark_3", dict(r=4, z=3), "r ≤ z"),
    ("remark_2", dict(z=6), "z ≤ d"),
    ("new_data_point", dict(h=2), "h ≥ d + z"),
    ("theorem_3", dict(start="network", h=2), "h ≥ d"),
])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(P + rid, allow_violation=True, **params)
    assert hypothesis in str(err.value)


def test_figure_3_step_size_is_judged_at_the_largest_eigenvalue():
    # The 2η runs must be stable for the largest |λ|: η 1% above 1/(16|λ|_max) is outside.
    from theorems.ssl_dynamics.instances import spectrum_of

    base = {p.name: p.default for p in figure_3.RESULT.params}
    lam = spectrum_of(base)
    eta = 1.01 / (16 * max(abs(lam[0]), abs(lam[-1])))
    assert 16 * eta * min(abs(lam[0]), abs(lam[-1])) < 1  # a check at the smaller |λ| would let it through
    with pytest.raises(HypothesisViolation, match="the 2η runs are stable"):
        theorems.check(P + "figure_3", eta=eta)


def test_figure_3_horizon_is_judged_at_the_widest_width():
    # The horizon grows with log h: T = 9.8 is enough for h = 10 (9.52) and not for h = 1000 (10.13).
    with pytest.raises(HypothesisViolation, match="T long enough"):
        theorems.check(P + "figure_3", T=9.8)


COST_SIZES = {"h": 2, "n": 2, "draws": 2, "steps": 2, "seeds": 2, "restarts": 2, "max_iter": 2, "resamples": 2,
              "n_test": 2, "starts": 2, "pairs": 2}


@pytest.mark.parametrize("rid", SSL_IDS)
def test_cost_grows_with_every_size(rid):
    """Result.cost is what keeps an instance on the machine: doubling a size (or the widest width) must raise it."""
    result = theorems.get(rid)
    base = {p.name: p.default for p in result.params}
    if rid == P + "theorem_3":
        base["start"] = "network"  # the width h is only used by the network start
    cost0 = result.cost(base)
    grown = [(name, {**base, name: base[name] * factor}) for name, factor in COST_SIZES.items() if name in base]
    if "widths" in base:
        grown.append(("widths", {**base, "widths": tuple(base["widths"][:-1]) + (2 * base["widths"][-1],)}))
    for name, params in grown:
        cost = result.cost(params)
        assert cost.elements > cost0.elements or cost.work > cost0.work, f"{rid}: doubling {name} costs nothing"
