"""Fuzz-campaign edges of paper 002 (issue 26, item 8): each valid input the sweep (tools/fuzz.py --sweep) found
returning a silent "fails" must now end in a held verdict, "not converged", a declared hypothesis (Violation) or a
typed error. Each test replays the sweep's input and fails on the code before its fix."""

from __future__ import annotations

import math

import pytest

import theorems
from theorems.core.errors import ResourceLimit
from theorems.core import recording


@pytest.fixture(autouse=True)
def _edges_may_not_converge():
    """These tests replay edges of the domains; an edge that cannot converge (too short a horizon or budget, a
    cycle, a failed integration) is what several of them assert, so the run file records it as expected."""
    with recording.expecting(recording.NOT_CONVERGED):
        yield


def _claims(ev):
    return {c.name: c for c in ev.claims}


# 1. proposition_2 c2 = 1e-6: PGD step and certificate were scaled by max(c₁, c₂)²‖C‖, so every start was
# "certified" at a first-order point far from the minimum and the rank/alignment claims judged those points.
def test_proposition_2_tiny_radius_reaches_the_minimum_and_holds():
    ev = theorems.check("ssl_dynamics.proposition_2", c2=1e-6, allow_violation=True)
    assert ev.converged and ev.holds, ev.explain()
    assert ev.details["starts_reaching"] == ev.details["starts_converged"] > 0


def test_proposition_2_without_a_start_at_the_minimum_is_not_converged_and_judges_no_rank():
    # 1 iteration from random starts: no start reaches c₁²c₂²λ_min(C), so nothing may be said about minimisers.
    ev = theorems.check("ssl_dynamics.proposition_2", max_iter=1, allow_violation=True)
    assert ev.converged is False and not ev.holds
    assert "minimiser_rank_one" not in _claims(ev) and ev.details["starts_reaching"] == 0


# 3. proposition_1 eta = 1e-9: 5000 steps move Θ by ~1e-5, nowhere near the limit direction; the run said
# nothing about convergence and failed the collapse claims.
def test_proposition_1_too_short_a_horizon_is_not_converged():
    ev = theorems.check("ssl_dynamics.proposition_1", eta=1e-9, allow_violation=True)
    assert ev.converged is False and ev.details["horizon_resolves_collapse"] is False, ev.explain()
    two = theorems.check("ssl_dynamics.proposition_1", C="-1,0;0,0.5", d=2, z=2, eta=1e-9, steps=1000)
    assert two.converged is False  # one distinct eigenvalue above λ₁ is still a horizon to resolve
    scalar = theorems.check("ssl_dynamics.proposition_1", C="-1,0;0,-1", d=2, z=2, form="as_printed",
                            allow_violation=True)
    assert scalar.converged is True  # C ∝ I: the direction never moves, nothing to resolve


def test_proposition_1_repeated_eigenvalue_still_converges_and_fails():
    # the counterexample must stay a converged failure (the horizon criterion does not depend on the claims)
    ev = theorems.check("ssl_dynamics.proposition_1", C="-1,0,0;0,-1,0;0,0,0.5", d=3, form="as_printed")
    assert ev.converged is True and not ev.holds and _claims(ev)["collapsed_to_rank_one"].observed > 0.5
    # a gap of 1e-10 below is_simple's resolution is a repeated eigenvalue too: the horizon is judged on λ₃ = 0.5
    near = theorems.check("ssl_dynamics.proposition_1", C="-1,0,0;0,-0.9999999999,0;0,0,0.5", d=3,
                          form="as_printed")
    assert near.converged is True and near.details["horizon_resolves_collapse"] is True


# 4. proposition_1 flow_time = 1000: e^{−2λ₁T} overflowed to inf and the identity read NaN (IdentityFailure).
@pytest.mark.parametrize("flow_time", [1000.0, 400.0])
def test_proposition_1_long_flow_time_identity_holds(flow_time):
    ev = theorems.check("ssl_dynamics.proposition_1", flow_time=flow_time)
    flow = _claims(ev)["flow_matches_exponential"]
    assert math.isfinite(flow.observed) and flow.passed and ev.holds, ev.explain()


def test_proposition_1_long_flow_time_wrong_constant_still_fails_the_identity():
    ev = theorems.check("ssl_dynamics.proposition_1", flow_time=1000.0, closed_form_factor=2.2, allow_violation=True)
    flow = _claims(ev)["flow_matches_exponential"]
    assert math.isfinite(flow.observed) and flow.observed > 0.1


# 2. example_1 eta = 1.0: the loss stopped changing (last change ≤ GTOL) on a cycle of equal loss 0.46·max|λ(C)|
# above L*, and the run called itself converged. The end point must also be first-order critical.
@pytest.mark.parametrize("eta", [1.0, 0.6])
def test_example_1_large_step_stall_is_not_converged(eta):
    ev = theorems.check("ssl_dynamics.example_1", eta=eta, allow_violation=True)
    assert ev.converged is False, ev.explain()
    assert ev.details["orthogonal_riemannian_grad_max"] > 0.1


def test_example_1_default_and_largest_good_step_stay_converged_and_hold():
    for eta in (0.05, 0.5):
        ev = theorems.check("ssl_dynamics.example_1", eta=eta)
        assert ev.converged is True and ev.holds, ev.explain()
        assert ev.details["orthogonal_riemannian_grad_max"] < 1e-5


# 5. theorem_2 spectrum = −1e6: the explicit integrator's stable step is ~1/‖C‖, so the run needs ~‖C‖T steps;
# the cost model ignored ‖C‖ (predicted 0.2 s, ran > 60 s). It must now be refused before any computation.
def test_theorem_2_stiff_spectrum_is_refused_by_the_cost_model():
    with pytest.raises(ResourceLimit):
        theorems.check("ssl_dynamics.theorem_2", spectrum="-1000000.0")


def test_theorem_2_cost_grows_at_least_like_the_measured_evaluations():
    # same d, z, h, T: only ‖C‖ differs, so the ratio of right-hand-side evaluations is the ratio of run times
    res = theorems.get("ssl_dynamics.theorem_2")
    runs = {s: theorems.check(res.id, spectrum=s, T=1.0) for s in ("-1.5", "-300")}
    nfev = {s: ev.details["w_ode_nfev"] + ev.details["q_ode_nfev"] for s, ev in runs.items()}
    work = {s: res.cost({**res.defaults, "spectrum": (float(s),), "T": 1.0}).work for s in runs}
    assert all(ev.holds and ev.converged for ev in runs.values())
    assert work["-300"] / work["-1.5"] >= nfev["-300"] / nfev["-1.5"] > 5


def test_example_1_riemannian_gradient_keeps_the_skew_part():
    # g = WK, K skew, is tangent to the Stiefel manifold: its Riemannian gradient is itself (a normal projection
    # (I − WWᵀ)g alone would report 0); g = WS, S symmetric, is normal: gradient 0.
    import torch

    from theorems.ssl_dynamics.example_1 import _riem_sq

    W = torch.linalg.qr(torch.randn(7, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)))[0]
    A = torch.tensor([[0.0, 1.0, -2.0], [0.5, 0.0, 3.0], [1.5, -1.0, 0.0]], dtype=torch.float64)
    K, S = A - A.T, A + A.T
    assert float(_riem_sq(W, W @ K)) == pytest.approx(float((K ** 2).sum()), rel=1e-12)
    assert float(_riem_sq(W, W @ S)) == pytest.approx(0.0, abs=1e-24)


# Found by re-running the sweep on the four results after the fixes above (tools/fuzz.py --sweep --only ...):
# proposition_1's 2-layer blow-up with too small a budget, or too large a step; theorem_2 with a failed integration.
@pytest.mark.parametrize("params", [dict(max_steps=1), dict(eta_two_layer=1e-12)])
def test_proposition_1_two_layer_budget_too_short_is_not_converged(params):
    ev = theorems.check("ssl_dynamics.proposition_1", **params)
    assert ev.converged is False and not ev.violations, ev.explain()


def test_proposition_1_two_layer_overshooting_step_is_outside_the_hypotheses():
    ev = theorems.check("ssl_dynamics.proposition_1", eta_two_layer=10.0, allow_violation=True)
    assert any("η₂" in str(v) for v in ev.violations), ev.explain()
    ok = theorems.check("ssl_dynamics.proposition_1", eta_two_layer=0.115)  # 2·η₂·max|λ| = 0.94 < 1: inside
    assert not ok.violations and ok.holds


def test_theorem_2_failed_integration_is_not_converged_not_a_traceback():
    ev = theorems.check("ssl_dynamics.theorem_2", init_perturb=1.0, allow_violation=True)
    assert ev.converged is False and math.isinf(_claims(ev)["ode_global_error"].observed)


def test_proposition_1_fast_divergence_stops_before_overflow():
    # eta = 10: Θ grows ×81 a step; the iterates overflowed to inf and the GD identities read NaN (IdentityFailure)
    ev = theorems.check("ssl_dynamics.proposition_1", eta=10.0, allow_violation=True)
    c = _claims(ev)
    assert math.isfinite(c["gd_is_gradient_descent"].observed) and c["gd_matches_closed_form"].passed
    assert ev.details["norm_growth"] < 1e110 and ev.holds
