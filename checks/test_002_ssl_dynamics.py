"""CI gate for paper 002 (Esser, Mukherjee, Ghoshdastidar): SSL learning dynamics.

Statuses asserted: lemma_1, proposition_2, theorem_2 ``verified``; proposition_1, proposition_3, theorem_1,
theorem_3 ``verified-corrected`` (corrected statement on generated instances + a counterexample to the printed
one); theorem_1_rate ``trend``. Every asserted claim is broken by some negative control (meta-test below).
"""

from __future__ import annotations

import functools

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
from theorems.ssl_dynamics.theorem_2 import q_velocity
from theorems.ssl_dynamics.trace_form import random_symmetric
from theorems.strategies import ssl_prop2_params, ssl_prop3_params, ssl_theorem3_params

P = "ssl_dynamics."


@functools.lru_cache(maxsize=None)
def _cached(rid: str, items: tuple) -> theorems.Evidence:
    return theorems.check(P + rid, **dict(items))


def run(rid: str, **params) -> theorems.Evidence:
    return _cached(rid, tuple(sorted(params.items())))


STATUSES = {"lemma_1": "verified", "proposition_1": "verified-corrected", "proposition_2": "verified",
            "proposition_3": "verified-corrected", "theorem_1": "verified-corrected", "theorem_1_rate": "trend",
            "theorem_2": "verified", "theorem_3": "verified-corrected", "conjecture_1": "trend"}


@pytest.mark.parametrize("rid, status", sorted(STATUSES.items()))
def test_registered_with_status(rid, status):
    res = theorems.get(P + rid)
    assert str(res.status) == status
    if status == "verified-corrected":
        assert res.correction and res.correction_reason and res.default_form == "corrected"


# -- default instances hold -----------------------------------------------------------------------------
@pytest.mark.parametrize("rid", ["lemma_1", "proposition_1", "proposition_2", "proposition_3", "theorem_1",
                                 "theorem_1_rate", "theorem_2", "theorem_3", "conjecture_1"])
def test_default_instance_holds(rid):
    ev = run(rid)
    assert ev.holds and ev.converged is not False, ev.explain()


# -- Lemma 1 --------------------------------------------------------------------------------------------
def test_lemma_1_kernel_exact_and_two_layer_control():
    assert run("lemma_1", model="kernel", h=64).holds
    ev = run("lemma_1", model="two_layer", h=50, allow_violation=True)
    assert not ev.claim("offdiagonal_blocks_vanish").passed and not ev.claim("diagonal_equals_kernel").passed
    # The appendix proof's claim that the first-layer block vanishes is wrong: the diagonal is ≈ 2xᵀx'.
    assert 1.5 < ev.details["mean_diag_over_kernel"] < 2.5


# -- Proposition 1 ----------------------------------------------------------------------------------------
def test_proposition_1_printed_convergence_fails_but_collapse_holds():
    ev = run("proposition_1", form="as_printed")
    assert [c.name for c in ev.failed_claims] == ["converges_to_fixed_point"]
    assert ev.details["norm_growth"] > 1e6  # Θ diverges: no fixed point


def test_proposition_1_moons_and_noncontrastive():
    assert run("proposition_1", data="moons", d=2, z=2, n=200).holds
    assert run("proposition_1", loss="noncontrastive").holds


def test_proposition_1_printed_noncontrastive_sign_is_wrong():
    # With the printed C̃ = +Σxx⁺ᵀ, GD on loss (2) does not follow Θ₀(I − 2ηC)^k, and nothing blows up.
    ev = run("proposition_1", loss="noncontrastive", nc_sign=1.0, max_steps=1000, allow_violation=True)
    assert not ev.claim("gd_matches_closed_form").passed and not ev.claim("two_layer_blows_up").passed


# -- Proposition 2 ----------------------------------------------------------------------------------------
@settings(max_examples=4)
@given(params=ssl_prop2_params())
def test_proposition_2_on_generated_instances(params):
    ev = theorems.check(P + "proposition_2", **params)
    assert ev.holds and ev.converged, ev.explain()


# -- Proposition 3 ----------------------------------------------------------------------------------------
@settings(max_examples=3)
@given(params=ssl_prop3_params())
def test_proposition_3_corrected_on_generated_instances(params):
    ev = theorems.check(P + "proposition_3", **params)
    assert ev.holds and ev.converged, ev.explain()


def test_proposition_3_printed_norm_objective_is_wrong():
    ev = run("proposition_3", form="as_printed")
    assert [c.name for c in ev.failed_claims] == ["printed_norm_objective_reaches_Lstar"]
    assert ev.details["printed_objective_min"] >= 0 > ev.bound


def test_proposition_3_width_counterexample():
    ev = run("proposition_3", form="as_printed", h=5, max_iter=600)
    assert not ev.claim("problem_4_reaches_Lstar").passed
    lam = np.sort(np.array([-2, -1, 0.5, 1, 2.0]))
    assert ev.details["problem_4_best"] == pytest.approx(lam[:3].sum(), rel=1e-6)  # Ky Fan: z smallest of spec(C)
    with pytest.raises(HypothesisViolation, match="width condition"):
        theorems.check(P + "proposition_3", h=5)


# -- Theorem 1 --------------------------------------------------------------------------------------------
def test_theorem_1_adversarial_counterexample():
    ev = run("theorem_1", form="as_printed", h=10**6, d=1, draws=2)
    assert ev.claim("bound_holds_every_draw").passed
    assert not ev.claim("bound_holds_adversarial_W1").passed
    assert ev.details["adversarial_gap"] == pytest.approx(abs(np.tanh(2.0) - 2.0), rel=1e-12)


@pytest.mark.parametrize("act, w2", [("tanh", "random"), ("tanh", "worst"), ("softplus2", "worst")])
def test_theorem_1_rate_in_predicted_range(act, w2):
    assert run("theorem_1_rate", activation=act, w2=w2).holds


# -- Theorem 2 --------------------------------------------------------------------------------------------
@settings(max_examples=15)
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


def test_theorem_2_polar_follows_a_different_ode():
    ev = run("theorem_2", flow="stiefel", T_discrete=10.0, allow_violation=True)
    assert ev.details["velocity_rel_err_stiefel_ode"] < 1e-10 < 1e-3 < ev.details["velocity_rel_err_ode9"]
    assert ev.claim("discrete_scheme_reaches_Lstar").passed  # same optimal fixed points


def test_theorem_2_euclid_qr_is_biased_independently_of_eta():
    ev = run("theorem_2", flow="euclid_qr", z=1, T_discrete=10.0, allow_violation=True)
    g1, g4 = ev.details["discrete_gap_eta"], ev.details["discrete_gap_eta_over_4"]
    assert g1 > 1e-3 and g4 > 1e-3 and abs(g1 - g4) < 0.05 * g1


# -- Theorem 3 --------------------------------------------------------------------------------------------
@settings(max_examples=6)
@given(params=ssl_theorem3_params())
def test_theorem_3_corrected_on_generated_instances(params):
    ev = theorems.check(P + "theorem_3", **params)
    assert ev.holds and ev.converged, ev.explain()


def test_theorem_3_counterexamples():
    sign = run("theorem_3", form="as_printed", e1_sign=-1)
    assert not sign.claim("limit").passed and sign.details["q_T"][0] == pytest.approx(-1, abs=1e-6)
    ortho = run("theorem_3", form="as_printed", e1_sign=0)
    qT = np.array(ortho.details["q_T"])
    assert abs(abs(qT[1]) - 1) < 1e-6 and not ortho.claim("limit").passed  # → ±e₂ since λ₂ < 0
    square = run("theorem_3", form="as_printed", lams="0.5,1,2,3", start="network", h=4)
    qT = np.array(square.details["q_T"])
    assert not square.claim("limit").passed and abs(abs(qT[0]) - 1) < 1e-6  # ‖q‖ ≡ 1, Oja flow to ±e₁
    rep = run("theorem_3", form="as_printed", lams="-1,-1,0.5,2")
    q0 = np.array(rep.details["q0"])
    proj = np.r_[q0[:2], 0, 0] / np.linalg.norm(q0[:2])
    assert not rep.claim("limit").passed
    assert np.abs(np.array(rep.details["q_T"]) - proj).max() < 1e-6


def test_theorem_3_network_start_above_d():
    assert run("theorem_3", start="network", h=10).holds


@pytest.mark.parametrize("params", [dict(), dict(lams="0.5,1,2,3"), dict(start="network", h=10), dict(e1_sign=-1)])
def test_theorem_3_asymptotic_rate_matches_two_sided(params):
    # Generic starts: the fitted rate equals min(8|λ₁|, 2(λ₂ − λ₁)) (or 4λ_min) within 2%.
    assert run("theorem_3", **params).details["rate_rel_err"] < 0.02


# -- Conjecture 1 (measured) ------------------------------------------------------------------------------
def test_conjecture_1_measurement_and_sigmoid_control():
    tanh = run("conjecture_1")
    assert tanh.holds  # on this sweep the trained tanh gap shrinks with width: evidence, not a proof
    sig = run("conjecture_1", activation="sigmoid", allow_violation=True)
    assert not sig.holds and sig.observed > tanh.observed  # φ(0) ≠ 0: the trained gap does not shrink
    assert min(sig.details["gap_trained"]) > 10 * tanh.details["gap_trained"][-1]


# -- negative controls ----------------------------------------------------------------------------------
CONTROLS = {
    "lemma_1": [dict(model="two_layer", h=50, allow_violation=True)],
    "proposition_1": [dict(closed_form_factor=2.2, allow_violation=True),
                      dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3, allow_violation=True),
                      dict(loss="noncontrastive", nc_sign=1.0, max_steps=1000, allow_violation=True),
                      dict(form="as_printed")],
    "proposition_2": [dict(constraint="spectral", allow_violation=True), dict(bound_scale=0.999, allow_violation=True),
                      dict(bound_scale=1.001, allow_violation=True)],
    "proposition_3": [dict(form="as_printed", h=5, max_iter=600), dict(bound_scale=1.001, allow_violation=True),
                      dict(bound_scale=0.999, allow_violation=True)],
    "theorem_1": [dict(activation="sigmoid", w2="worst", h=3000, allow_violation=True)],
    "theorem_1_rate": [dict(activation="relu", w2="worst", allow_violation=True),
                       dict(activation="tanh", phi_class="generic", allow_violation=True)],
    "theorem_2": [dict(init_perturb=0.05, allow_violation=True),
                  dict(flow="euclid_qr", z=1, T_discrete=10.0, allow_violation=True)],
    "conjecture_1": [dict(activation="sigmoid", allow_violation=True)],
    "theorem_3": [dict(e1_sign=0, allow_violation=True), dict(lams="-0.5,-0.4", q0_norm=1.5, allow_violation=True),
                  dict(lams="0.5,1,2,3", start="network", h=4, allow_violation=True)],
}


@pytest.mark.parametrize("rid", sorted(CONTROLS))
def test_every_claim_has_a_negative_control(rid):
    asserted = {c.name for c in run(rid).claims}
    broken = {c.name for params in CONTROLS[rid] for c in run(rid, **params).failed_claims}
    assert asserted <= broken, f"{rid}: claims no control breaks: {sorted(asserted - broken)}"


# -- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("theorem_2", dict(init_perturb=0.1), "orthonormal initialisation"),
        ("theorem_2", dict(h=1, z=2), "h ≥ z"),
        ("proposition_3", dict(h=2, z=3), "h ≥ z"),
        ("theorem_1", dict(h=1, z=2), "h ≥ z"),
        ("theorem_2", dict(C="1,2;0,1"), "C symmetric"),
        ("proposition_1", dict(C="-1,2;0,1", d=2), "C symmetric"),
        ("proposition_3", dict(C="-1,0.5;0,1"), "C symmetric"),
        ("proposition_1", dict(eta=0.0), "eta > 0"),
        ("proposition_1", dict(eta=-0.01), "eta > 0"),
        ("theorem_2", dict(eta=-1.0), "eta > 0"),
        ("theorem_1", dict(activation="sigmoid"), "φ(0) = 0"),
        ("theorem_1", dict(activation="relu"), "φ'(0) = 1"),
        ("theorem_1_rate", dict(activation="relu"), "φ'(0) = 1"),
        ("theorem_1_rate", dict(activation="sigmoid"), "φ(0) = 0"),
        ("theorem_3", dict(e1_sign=0), "e₁ᵀq₀ ≠ 0"),
        ("theorem_3", dict(q0_norm=1.5), "‖q₀‖ ≤ 1"),
        ("theorem_3", dict(q0_norm=-0.5), "‖q₀‖ ≤ 2"),
        ("theorem_3", dict(lams="-1,-1,2"), "λ₁ simple"),
        ("proposition_2", dict(c1=0.0), "c1 > 0"),
        ("conjecture_1", dict(activation="relu"), "φ'(0) = 1"),
        ("conjecture_1", dict(eta=0.0), "eta > 0"),
        ("conjecture_1", dict(widths="1,10,100", z=2), "h ≥ max(d, z)"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(P + rid, **params)
    assert hypothesis in str(err.value)


@pytest.mark.parametrize("rid, params", [("theorem_2", dict(h=1, z=2)), ("theorem_2", dict(C="1,2;0,1")),
                                         ("proposition_1", dict(eta=0.0))])
def test_structural_violations_are_not_bypassable(rid, params):
    with pytest.raises(HypothesisViolation):
        theorems.check(P + rid, allow_violation=True, **params)


# -- determinism ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params", [("proposition_2", dict(seed=3)), ("theorem_3", dict(seed=5)),
                                         ("theorem_1", dict(seed=2))])
def test_seeded_runs_give_the_same_numbers(rid, params):
    a, b = (theorems.check(P + rid, **params).to_dict() for _ in range(2))
    for ev in (a, b):
        ev.pop("elapsed_s")
    assert a == b
