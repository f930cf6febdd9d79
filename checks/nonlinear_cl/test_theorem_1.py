"""The checks particular to ``nonlinear_cl.theorem_1`` (Section 3.2, Theorem 1 (proof in Appendix B.3)): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from checks.pinning import (
    assert_binding_near_its_edge,
    assert_default_proof_steps_fail_only_at_errata,
    assert_fails_within_ten_times_the_bound,
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_out_of_domain_refused,
    excess,
    row_ids,
)
from theorems import HypothesisViolation
from theorems.core import recording
from theorems.nonlinear_cl.theorem_1 import BINDING_2D, BINDING_3D, PAST_THRESHOLD

T1 = "nonlinear_cl.theorem_1"
NL = "nonlinear_cl."
D = torch.float64


EDGES = [
    # theorem_1: q below / above (3 − √5)/2 = 0.381966 on the summation model; the categorical model's atom
    (NL + "theorem_1", None, dict(model="summation", q=0.3819), None),
    (NL + "theorem_1", None, dict(model="summation", q=0.3821), "q < (3 − √5)/2"),
    (NL + "theorem_1", None, dict(model="mixture", q=0.3821), None),  # q is the summation model's parameter only
    (NL + "theorem_1", None, dict(model="categorical"), "ρ(w_*) finite"),
    (NL + "theorem_1", None, dict(rate_scale=1.001), "exact guaranteed rate"),
    (NL + "theorem_1", None, dict(rate_scale=0.999), "exact guaranteed rate"),
    (NL + "theorem_1", None, dict(closed_form_scale=1.001), "exact closed form of D"),
    ('nonlinear_cl.theorem_1', None, dict(model='categorical'), 'ρ(w_*) finite (no atom on w_*ᵀx = 0)'),
    ('nonlinear_cl.theorem_1', None, dict(rate_scale=0.0), 'exact guaranteed rate λ_gap − ρ'),
    ('nonlinear_cl.theorem_1', None, dict(closed_form_scale=0.0), 'exact closed form of D'),
    # edges of the comparisons (both sides: a flipped or strictness-changed comparison moves one row)
    ("nonlinear_cl.theorem_1", None, dict(model="summation", d=4, q=0.381), None),  # q < (3 − √5)/2 = 0.38197
    ("nonlinear_cl.theorem_1", None, dict(model="summation", d=4, q=0.3821), "is an LME (q < (3 − √5)/2)"),
]


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


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# -- Theorem 1: which candidates the theorem covers ------------------------------------------------------------------
def test_theorem_1_covers_an_lme_whose_gap_exceeds_rho_by_more_than_gap_min():
    """λ_gap − ρ = 5e-6 (5 × GAP_MIN = 1e-6) is covered, 2e-7 (GAP_MIN/5) is too close to call, a non-LME never is:
    GAP_MIN ×10 or ÷10 moves one of them."""
    from theorems.nonlinear_cl import theorem_1

    is_lme = torch.tensor([True, True, False, True])
    gap = torch.tensor([1.0 + 5e-6, 1.0 + 2e-7, 2.0, 0.5], dtype=D)
    rho = torch.tensor([1.0, 1.0, 1.0, 1.0], dtype=D)
    assert theorem_1.covered(is_lme, gap, rho).tolist() == [True, False, False, False]


def test_theorem_1_closed_form_of_d_floor_and_worst_candidate():
    """Two candidates, ‖A‖ = 1: the first exact, the second with D ≈ 0 off by 3e-9 in norm, i.e. 3e-9/(FD_ATOL/FD_RTOL
    = 1e-5) = 3e-4 = 3 FD_RTOLs relative to the floor: the claim fails by 1–10 allowances (FD_ATOL ×10 passes it; the
    best candidate, min for max, would pass)."""
    from theorems.nonlinear_cl import theorem_1

    A = torch.eye(3, dtype=D).expand(2, 3, 3)
    Dcf = torch.stack([torch.full((3, 2), 0.1, dtype=D), torch.zeros(3, 2, dtype=D)])
    Dfd = Dcf.clone()
    Dfd[1, 0, 0] = 3e-9
    c = theorem_1.closed_form_match(Dfd, Dcf, A)
    assert not c.passed and 1.0 < excess(c) <= 10.0, c
    assert theorem_1.closed_form_match(Dcf, Dcf, A).passed


# monkeypatch, not a Pin: T.projected_flow is a function no parameter or module constant reaches
def test_theorem_1_perturbation_claims_take_the_worst_start(monkeypatch):
    """Theorem 1's perturbed starts (PERTURBATIONS per LME): ONE start's end point after the flow patched to move
    away from w_* (reflected through its start), the others left as computed. perturbations_return is the max
    distance ratio and the contraction claim the worst fitted rate: both must fail there; the best start would pass
    both by far."""
    import dataclasses

    from theorems.nonlinear_cl import theorem_1 as T

    real = T.projected_flow

    def one_start_stuck(A_fn, W0, **kw):
        run = real(A_fn, W0, **kw)
        W = run.W.clone()
        W[3] = 2 * W0[3] - run.W[3]  # reflected through its start: about twice as far from w_* as it began
        W[3] = W[3] / W[3].norm()
        return dataclasses.replace(run, W=W)

    monkeypatch.setattr(T, "projected_flow", one_start_stuck)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched flow
    ret, rate = ev.claim("perturbations_return"), ev.claim("contraction_at_proof_rate")
    assert not ret.passed and 1.5 < ret.observed < 2.5, ret
    assert not rate.passed and rate.observed < 0, rate


# monkeypatch, not a Pin: T.linearisation is a function no parameter or module constant reaches
def test_theorem_1_weyl_ratio_is_judged_at_the_worst_lme(monkeypatch):
    """The default mixture has four LMEs, each with −λ_max(J) ≥ λ_gap − ρ: the linearisation of ONE of them halved
    (its rate falls to about half of the guarantee) must fail the Weyl claim, a min over the LMEs (the best LME, max
    for min, stays ≥ 1). The claim is an identity: failing inside the hypotheses, it raises (a suite bug)."""
    from theorems.core.errors import IdentityFailure
    from theorems.nonlinear_cl import theorem_1 as T

    real = T.linearisation

    def one_lme_off(A_fn, W, lam_star):
        J, Dm, Q = real(A_fn, W, lam_star)
        J = J.clone()
        J[1] = 0.5 * J[1]
        return J, Dm, Q

    monkeypatch.setattr(T, "linearisation", one_lme_off)
    with pytest.raises(IdentityFailure, match="linearised_rate_at_least_guaranteed"):
        theorems.check(T.ID)


def test_registered_instance_fails_within_ten_times_the_bound(run):
    """A bound constant (or a z-threshold) pinned by a registered failing instance whose observed value lies in
    (bound, 10·bound]: the constant loosened ×10 lets it pass."""
    assert_fails_within_ten_times_the_bound(
        run, "nonlinear_cl.theorem_1", "controls", dict(model="summation", d=4, q=0.45, allow_violation=True),
        ("perturbations_return",))  # 1.8


def test_registered_binding_is_near_its_edge(run):
    """The binding instance's registered margin is a bound claim's: the tightest bound claim is within the slack of
    its edge (normalised, as the Binding's margin says), so a binding moved off its edge fails."""
    assert_binding_near_its_edge(
        run, "nonlinear_cl.theorem_1",
        dict(model="leaky_pair", radius=1.0, sigma=1.0, neg_weight=0.9, leak=0.5, dt=0.02, steps=1000, d=3,
             tangent_sigma=1.3946), 0.05)  # λ_gap/ρ = 1.02


def test_default_proof_steps_fail_only_where_an_erratum_is_registered(run):
    # the default instance is cheap and carries proof steps
    assert_default_proof_steps_fail_only_at_errata(run, "nonlinear_cl.theorem_1")


# out-of-domain values (the last one of each row), refused with the parameter named
OUT_OF_DOMAIN = [dict(model="leaky_pair", neg_weight=1.0), dict(model="summation", q=1.5), dict(leak=1.0)]


@pytest.mark.parametrize("params", OUT_OF_DOMAIN)
def test_values_outside_the_domain_are_refused_with_the_parameter_named(params):
    assert_out_of_domain_refused("nonlinear_cl.theorem_1", params)


# inputs that step over a hypothesis, and the hypothesis the refusal names
REFUSED_NAMING = [(dict(model="summation", q=0.45), "is an LME"), (dict(model="categorical"), "ρ(w_*) finite")]


@pytest.mark.parametrize("params, hypothesis", REFUSED_NAMING)
def test_bad_input_names_the_hypothesis(params, hypothesis):
    assert_hypothesis_refused("nonlinear_cl.theorem_1", params, hypothesis)
