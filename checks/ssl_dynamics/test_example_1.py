"""Example 1 / Fig. 1: on half moons the unconstrained linear SSL dynamics diverge; orthogonal ones converge to the
minimum from every start (paper 002, `ssl_dynamics.example_1`): the checks particular to this result, its hand cases
against independent references, pins and hypothesis edges. What every result passes runs in
checks/test_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, excess, row_ids
from checks.probes import evaluate_claims
from theorems.core import recording, registry
from theorems.core.context import Context
from theorems.core.verdict import run_spec


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


# ======================================================================================================
# Example 1 (Figure 1)
# ======================================================================================================
E1 = "ssl_dynamics.example_1"


def test_example_1_orthogonal_dynamics_reach_numpys_minimum_on_an_explicit_C(run):
    C = np.array([[-2.0, 0.5], [0.5, -0.3]])
    ev = run(E1, C="-2,0.5;0.5,-0.3", z=1, h=3)
    assert ev.holds and ev.converged
    np.testing.assert_allclose(ev.details["orthogonal_final_losses"], np.linalg.eigvalsh(C)[0], rtol=1e-9)


def test_example_1_default_and_controls(run):
    from theorems.ssl_dynamics import example_1

    ev = run(E1)
    assert str(theorems.get(E1).status) == "verified" and ev.holds and ev.converged
    assert ev.details["negative_eigenvalues"] == 2  # half moons: both eigenvalues of C negative
    psd, narrow = (run(E1, **spec) for spec in example_1.CONTROLS[:2])  # the others pin tolerances (test_pins_*)
    assert [c.name for c in psd.failed_bounds] == ["unconstrained_diverges"]
    assert psd.details["unconstrained_log10_growth_max"] < 0  # it decays
    assert {c.name for c in narrow.failed_bounds} == {"orthogonal_reaches_the_minimum",
                                                      "fixed_point_independent_of_init"}
    assert narrow.details["orthogonal_final_losses"][0] == pytest.approx(-0.5, rel=1e-9)  # λ₁ + λ₂, not λ₁ = −1
    assert run(E1, h=2).holds  # the narrowest admissible width


def test_example_1_short_run_is_not_converged(run):
    ev = recording.expect(run(E1, steps=5), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds


HYPOTHESIS_EDGES = [
    # ssl_dynamics.example_1: the width condition h ≥ d + z − min(z, ℓ) on an explicit C
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,-0.5", z=2, h=2), None),  # ℓ = 2: h = 2 suffices
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,0.5", z=2, h=2), "width condition"),  # ℓ = 1: h ≥ 3
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,0.5", z=2, h=3), None),
    ("ssl_dynamics.example_1", None, dict(C="0.5,0;0,0.2", h=4), "negative eigenvalue"),
    # example_1 (explicit C): symmetric, and the Stiefel widths h ≥ max(d, z)
    ("ssl_dynamics.example_1", None, dict(C="-1,1;0,-0.5", z=2, h=2), "C symmetric"),
    ("ssl_dynamics.example_1", None, dict(C="-1,0,0;0,-0.5,0;0,0,-0.2", z=1, h=3), None),
    ("ssl_dynamics.example_1", None, dict(C="-1,0,0;0,-0.5,0;0,0,-0.2", z=1, h=2), "h ≥ max(d, z)"),
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,-0.5", z=3, h=2), "h ≥ max(d, z)"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


WIDTH = "h ≥ max(d, z) and h ≥ d + z − min(z, ℓ)"


@pytest.mark.parametrize("z,h,name", [(1, 1, WIDTH), (1, 2, None), (3, 2, WIDTH), (3, 3, None),
                                      (5, 4, WIDTH), (5, 5, None)])
def test_half_moon_width_edge(z, h, name):
    assert_hypothesis_edge("ssl_dynamics.example_1", None, dict(z=z, h=h), name)


def test_example_1_growth_threshold_is_pinned_from_both_sides(run):
    """'Diverge' is growth by GROWTH = 10³ within the run. The unconstrained 2-layer model blows up in finite time:
    after 23 steps the slowest start has grown 10^2.23 (the registered pin: fails, not converged), after 24 steps at
    η = 0.0495 10^3.65 (holds): GROWTH ÷10 passes the first, ×10 fails the second."""
    result = registry.get("ssl_dynamics.example_1")
    assert dict(steps=23) in [dict(c) for c in result.controls]
    short = recording.expect(run_spec(run, result, dict(steps=23)), recording.NOT_CONVERGED)
    c = short.claim("unconstrained_diverges")
    assert not c.passed and 2.0 < c.observed < 3.0 == c.bound, c
    longer = recording.expect(run("ssl_dynamics.example_1", steps=24, eta=0.0495), recording.NOT_CONVERGED)
    c = longer.claim("unconstrained_diverges")
    assert c.passed and 3.0 < c.observed < 4.0, c


EX1 = dict(C="-1,0;0,-0.5", z=1, h=4, inits=4, steps=400)  # L* = λ₁ = −1 and max|λ| = 1: the scale is 1


# monkeypatch, not a Pin: it replaces R.trace_loss: code, which a Pin cannot move
def test_example_1_reach_takes_the_worst_start_and_pins_reach_rtol(monkeypatch):
    """Explicit C = diag(−1, −0.5), z = 1 (L* = −1, scale 1), four starts: every start reaches L* to rounding; ONE
    start's loss read 5e-6 above its value (a literal, on every evaluation, so the certificate's changes are
    unmoved) is 5 REACH_RTOLs from L*: the claim fails (REACH_RTOL ×10 passes it; a best-start aggregation too)."""
    from theorems.ssl_dynamics import example_1 as R

    c = evaluate_claims(R.ID, **EX1)
    assert c["orthogonal_reaches_the_minimum"].passed and c["unconstrained_diverges"].passed
    exact = R.trace_loss

    def one_off(W1, W2, C):
        out = exact(W1, W2, C).clone()
        out[2] += 5e-6
        return out

    monkeypatch.setattr(R, "trace_loss", one_off)
    c = evaluate_claims(R.ID, **EX1)["orthogonal_reaches_the_minimum"]
    assert not c.passed and 4.5 < excess(c) < 5.5, (c.observed, c.allowance)


# monkeypatch, not a Pin: it replaces R.euclid_grads: code, which a Pin cannot move
def test_example_1_divergence_takes_the_slowest_start(monkeypatch):
    """The same instance: ONE start held still through the unconstrained run (its gradient zeroed in the first
    ``steps`` gradient calls, which are the unconstrained loop's) grows by 10⁰: 'every start diverges' fails for it
    (a fastest-start aggregation, min → max, would pass)."""
    from theorems.ssl_dynamics import example_1 as R

    exact, calls = R.euclid_grads, []

    def held(W1, W2, C):
        g1, g2 = exact(W1, W2, C)
        calls.append(1)
        if len(calls) <= EX1["steps"]:
            g1, g2 = g1.clone(), g2.clone()
            g1[1], g2[1] = 0.0, 0.0
        return g1, g2

    monkeypatch.setattr(R, "euclid_grads", held)
    c = evaluate_claims(R.ID, **EX1)["unconstrained_diverges"]
    assert not c.passed and abs(c.observed) < 1e-12, c.observed


# monkeypatch, not a Pin: it replaces R._riem_sq, code that a Pin (a parameter or constant set to a literal) cannot move
def test_example_1_certificate_takes_the_worst_start_and_pins_rgrad_tol(monkeypatch):
    """The explicit-C instance (scale 1): ONE start's squared Riemannian gradient raised to (3e-4)² (a literal, split
    over W₁ and W₂) leaves it 3 RGRAD_TOLs from first-order optimality: the run is not converged (RGRAD_TOL ×10
    would call it converged, and so would a best-start certificate); (3e-5)² is inside. Only the certificate reads
    the patched value (its loss and iterates are unmoved)."""
    from theorems.ssl_dynamics import example_1 as R

    exact = R._riem_sq

    def run(value):
        def raised(W, g):
            out = exact(W, g).clone()
            out[1] = out[1] + value ** 2 / 2
            return out

        monkeypatch.setattr(R, "_riem_sq", raised)
        result = registry.get(R.ID)
        full, _ = registry.validate(result, dict(EX1), result.default_form)
        return result.evaluate(full, result.default_form, Context.make(None, seed=0))

    out = run(3e-4)
    assert out.converged is False and 2.9e-4 < out.details["orthogonal_riemannian_grad_max"] < 3.1e-4
    assert run(3e-5).converged is True


# monkeypatch, not a Pin: it replaces R.trace_loss: code, which a Pin cannot move
@pytest.mark.parametrize("drift,converged", [(3e-13, False), (3e-14, True)])
def test_example_1_stopping_rule_takes_the_worst_start_and_pins_gtol(monkeypatch, drift, converged):
    """The explicit-C instance (scale 1): ONE start's loss made to drift by a literal amount per step. At 3e-13 a
    step (3 GTOLs) that start never settles: the run ends at its budget not converged (GTOL ×10, or a stopping rule
    on the best start, would call it converged); at 3e-14 a step it stops on its certificate, converged."""
    from theorems.ssl_dynamics import example_1 as R

    exact, calls = R.trace_loss, []

    def drifting(W1, W2, C):
        calls.append(1)
        out = exact(W1, W2, C).clone()
        out[1] = out[1] + drift * len(calls)
        return out

    monkeypatch.setattr(R, "trace_loss", drifting)
    result = registry.get(R.ID)
    full, _ = registry.validate(result, dict(EX1), result.default_form)
    out = result.evaluate(full, result.default_form, Context.make(None, seed=0))
    assert out.converged is converged
    assert (out.details["orthogonal_steps"] == EX1["steps"]) is not converged
