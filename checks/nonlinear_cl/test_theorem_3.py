"""The checks particular to ``nonlinear_cl.theorem_3`` (Section 3.3, Theorem 3 (proof in Appendix B.4, Lemmas 7–11 in
Appendix G)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from checks.pinning import (
    assert_default_proof_steps_fail_only_at_errata,
    assert_hypothesis_edge,
    assert_out_of_domain_refused,
    excess,
    row_ids,
)
from theorems import HypothesisViolation
from theorems.core import recording
from theorems.core.registry import get
from theorems.nonlinear_cl import figure_8, theorem_3
from theorems.nonlinear_cl.theorem_3 import BINDING_TIGHT, BINDING_VARYING, estimate_kappa

T3, F8 = theorem_3.ID, figure_8.ID
ONE_PERCENT = 0.01  # the audit's floor for "A varies on the cap"
OUTSIDE_11_PARAMS = dict(sigma=0.4, radius=2.0, angle=90.0, theta0=0.2, gamma=0.2)  # literal: the registered control's
NL = "nonlinear_cl."
D = torch.float64


# -- theorem_3: Lemma 11's two conclusions on a hand-made c_t, and the 2-cycle certificate --------------------------
def _c(one_minus):
    return 1 - torch.tensor(one_minus, dtype=D)


# (result id, form, params, a fragment of the hypothesis named, or None: inside every hypothesis)
EDGES = [
    ("nonlinear_cl.theorem_3", None, dict(rate_bound_scale=0.99), "exact rate γ^t(1 − c₀)"),
    # theorem_3: the three scales, each off 1 either way
    (NL + "theorem_3", None, dict(cap_scale=1.001), "exact cap"),
    (NL + "theorem_3", None, dict(radius_scale=1.001), "exact radius"),
    (NL + "theorem_3", None, dict(rate_bound_scale=1.001), "exact rate γ^t(1 − c₀)"),
    ('nonlinear_cl.theorem_3', None, dict(cap_scale=0.01), 'exact cap B_γ'),
    ('nonlinear_cl.theorem_3', None, dict(radius_scale=0.01), 'exact radius R_γ'),
]


CASES = [
    ("nonlinear_cl.theorem_3", dict(cap_scale=0.98), "exact cap"),
    ("nonlinear_cl.theorem_3", dict(radius_scale=0.5), "exact radius"),
    ("nonlinear_cl.theorem_3", dict(sigma=0.4, radius=2.0, angle=90.0, theta0=0.2, gamma=0.2), "sup_"),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("index", [0, 1])
def test_theorem_3_registered_binding_varies_and_meets_11_on_every_seed(run, index, seed):
    binding = get(T3).binding[index]
    ev = run(T3, seed=seed, **binding.params)  # raises HypothesisViolation where (11) is not met
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("A_variation_on_cap").observed >= ONE_PERCENT
    assert 0.5 < ev.claim("cap_hypothesis_margin").observed <= 1  # binds: within a factor 2 of the edge
    for name in ("rate_bound", "radius_bound", "c_increases"):
        assert ev.claim(name).passed, ev.claim(name)


def test_theorem_3_rate_bound_does_not_judge_t_0(run):
    """t = 0 gives (1 − c₀)/(1 − c₀) = 1 exactly: judged, the claim could only ever observe 1.0."""
    for params in [{}] + [dict(b.params) for b in get(T3).binding]:
        assert run(T3, **params).claim("rate_bound").observed < 1.0


def test_theorem_3_every_registered_control_fails_a_claim(run):
    for spec in get(T3).controls:
        ev = run(T3, **spec)
        assert not ev.holds or ev.failed_claims, spec


def test_theorem_3_monotone_c_fails_outside_11(run):
    spec = [c for c in get(T3).controls if c.get("sigma") == 0.4][0]
    with pytest.raises(HypothesisViolation, match="sup_"):
        run(T3, **{k: v for k, v in spec.items() if k != "allow_violation"})
    ev = run(T3, **spec)
    assert not ev.claim("c_increases").passed and ev.claim("c_increases").observed < -1e-4


def test_theorem_3_rate_bound_is_the_worst_iteration(run):
    """rate_bound observes the max over t ≥ 1 of (1 − c_t)/(γ^t(1 − c₀)): recomputed from the recorded 1 − c_t."""
    for params in [dict(b.params) for b in get(T3).binding]:
        ev = run(T3, **params)
        one_minus, gamma = ev.details["one_minus_c_t"], ev.details["gamma"]
        ratios = [one_minus[t] / (gamma ** t * one_minus[0]) for t in range(1, len(one_minus)) if one_minus[t] > 1e-13]
        assert ratios and ev.claim("rate_bound").observed >= max(ratios)


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


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("theta0, inside", [(0.245, False), (0.217, True)])
def test_theorem_3_cap_hypothesis_at_its_edge(theta0, inside):
    """Theorem 3's (11), decided by the evaluation with a factor SAFETY = 0.5 of margin: on the tight binding instance
    (θ₀ = 0.217) the estimated sup ω is 0.88·SAFETY·γ (inside); θ₀ = 0.245 puts it at 3.4·SAFETY·γ, which must be
    refused (SAFETY ×10 would accept it; the OUTSIDE_11 control is 360× out and pins nothing)."""
    import theorems
    from theorems import HypothesisViolation

    params = dict(sigma=0.79, radius=3.07, angle=180.0, gamma=0.38, theta0=theta0)
    if inside:
        assert theorems.check(NL + "theorem_3", **params).claim("cap_hypothesis_margin").observed < 1
    else:
        with pytest.raises(HypothesisViolation, match="sup_"):
            theorems.check(NL + "theorem_3", **params)


@pytest.mark.parametrize("rid, params, name", CASES)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)


@pytest.mark.parametrize("size", [1e-2, 1e-3])
def test_theorem_3_kappa_is_a_second_order_constant(size):
    """Lemma 9's κ: ‖φ₁(A') − φ₁(A) − Dφ₁[δA]‖ ≤ κ‖δA‖². With the whole first-order term Dφ₁ (every eigen-gap,
    0.5 and 1.3 here) the estimate is O(1/gap²) and does not grow as δA shrinks; a first-order term left out
    (a gap dropped) leaves a residual of order ‖δA‖, i.e. an estimate of order 1/‖δA‖."""
    g = torch.Generator().manual_seed(0)
    A0 = torch.diag(torch.tensor([1.5, 1.0, 0.2], dtype=torch.float64))
    E = torch.randn(3, 3, generator=g, dtype=torch.float64)
    E = (E + E.T) / 2
    E = E / torch.linalg.matrix_norm(E, ord=2)
    kappa = estimate_kappa(torch.stack([A0, A0 + size * E]), torch.tensor([0]), torch.tensor([1]))
    assert 0.0 < kappa < 1 / 0.5**2


def test_theorem_3_rate_is_judged_at_its_worst_step_above_the_floor():
    """γ = 1e-5, 1 − c_t = (1e-3, 5e-9, 5e-13, 3e-14): the ratios (1 − c_t)/(γ^t(1 − c₀)) are 0.5, 5 and 3e4.
    The step at 5e-13 (5 × C_FLOOR = 1e-13) is judged and decides the claim; the one at 3e-14 (below the floor:
    rounding) is not. C_FLOOR ×10 drops the decisive step (rate 0.5, the claim holds), ÷10 judges the noise
    (rate 3e4); min in place of max reads 0.5."""
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3, 5e-9, 5e-13, 3e-14]), 1e-5)
    assert rate.observed == pytest.approx(5.0, rel=1e-2) and not rate.passed
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3, 5e-9, 5e-13, 3e-14]), 1e-5, rate_bound_scale=6.0)
    assert rate.passed  # the bound is what the scale says: 5 ≤ 6
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3, 5e-7]), 1e-5)  # t = 1 judged: 5e-7/(1e-5·1e-3) = 50
    assert rate.observed == pytest.approx(50.0, rel=1e-6)
    # t = 0 is never judged (its ratio is 1 by definition): a run of one point judges nothing
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3]), 0.5)
    assert rate.observed == 0.0 and rate.passed


def test_theorem_3_monotone_c_fails_by_three_floors():
    """c_t dropping by 3e-13 (3 × the atol C_FLOOR = 1e-13) on a step that starts at 1 − c = 1e-6 fails
    ``c_increases`` by 1–10 allowances (C_FLOOR ×10 passes it); the same drop on a step starting at 1 − c = 5e-14
    (below the floor) is not judged."""
    _, inc = theorem_3.lemma_11_claims(_c([1e-3, 1e-6, 1e-6 + 3e-13, 1e-7]), 0.5)
    assert not inc.passed and 1.0 < excess(inc) <= 10.0, (inc.observed, inc.allowance)
    _, inc = theorem_3.lemma_11_claims(_c([1e-3, 1e-6, 5e-14, 8e-14]), 0.5)
    assert inc.passed and inc.observed > 0


@pytest.mark.parametrize("closing, step, fixed, cycle", [
    (5e-9, 0.08, False, False),  # 5 × CYCLE_TOL (1e-9) from closing: not yet a cycle
    (2e-10, 0.08, False, True),  # closed to CYCLE_TOL/5, a full step wide: a certified 2-cycle
    (0.0, 3e-5, False, False),  # closed, but its two points only CYCLE_STEP/3 (1e-4) apart: a slow run, not a cycle
    (0.0, 3e-4, False, True),  # closed, 3 × CYCLE_STEP apart: a cycle
    (0.0, 0.08, True, False),  # a fixed point is converged, not a cycle
])
def test_theorem_3_two_cycle_certificate_at_its_edges(closing, step, fixed, cycle):
    a = torch.tensor([1.0, 0.0, 0.0], dtype=D)
    Wt = torch.stack([a, a, a + torch.tensor([0.0, step, 0.0], dtype=D), a + torch.tensor([closing, 0.0, 0.0], dtype=D)])
    gap, certified = theorem_3.two_cycle(Wt, fixed)
    assert gap == pytest.approx(closing, abs=1e-15) and certified is cycle
    # the shortest run that can show a cycle has three points: w(0), w(1), w(2) = w(0)
    assert theorem_3.two_cycle(Wt[1:], fixed) == (gap, cycle)
    assert theorem_3.two_cycle(Wt[2:], False) == (math.inf, False)


def test_default_proof_steps_fail_only_where_an_erratum_is_registered(run):
    # the default instance is cheap and carries proof steps
    assert_default_proof_steps_fail_only_at_errata(run, "nonlinear_cl.theorem_3")


# out-of-domain values (the last one of each row), refused with the parameter named
OUT_OF_DOMAIN = [dict(pi_iters=0), dict(theta0=0.0)]


@pytest.mark.parametrize("params", OUT_OF_DOMAIN)
def test_values_outside_the_domain_are_refused_with_the_parameter_named(params):
    assert_out_of_domain_refused("nonlinear_cl.theorem_3", params)
