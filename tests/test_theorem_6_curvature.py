"""The second-order certificate of nonlinear_cl.theorem_6: a first-order (residual) certificate alone never makes an
end point of the sphere flow converged; saddles are caught, escaped, and counted as unconverged when they remain."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from theorems.nonlinear_cl import theorem_6 as T
from theorems.core import recording

D, B = 6, 1.5


def modulated(c: float, rows: int = 1) -> torch.Tensor:
    b = torch.full((rows, D), B, dtype=torch.float64)
    b[:, 0] += c
    return b


def unit(*coords: float) -> torch.Tensor:
    y = torch.zeros(1, D, dtype=torch.float64)
    y[0, :len(coords)] = torch.tensor(coords, dtype=torch.float64)
    return y / y.norm()


def test_curvature_matches_the_closed_forms():
    """Independent values: at u_l the tangent eigenvalues are b_j − b_l − 1 (j ≠ l); at the symmetric all-negative
    point −1/√d, where the Euclidean Hessian b − 2/√d is positive: dropping the −(yᵀ∇f)I term would call it a saddle."""
    c = 0.3
    Y = torch.cat([unit(1), unit(0, 1), -torch.full((1, D), 1 / math.sqrt(D), dtype=torch.float64)])
    b = modulated(c, 3)
    b[2, 0] = B  # the symmetric point is critical without modulation
    curv = T.end_point_curvature(Y, b)
    assert torch.allclose(curv["largest"], torch.tensor([-1 - c, c - 1, -1 / math.sqrt(D)], dtype=torch.float64))
    assert torch.allclose(curv["smallest"], torch.tensor([-1 - c, -1, -1 / math.sqrt(D)], dtype=torch.float64))
    assert not curv["saddle"].any()


@pytest.mark.parametrize("start, c", [((1, 1), 0.0), ((0, 1), 1.5), ((-1, -1, -1), 0.0)],
                         ids=["two-equal-positive", "u2-beyond-c=1", "negative-off-full-support"])
def test_a_saddle_end_point_is_caught_and_escaped(start, c):
    """Exact stationary points that are not local maxima: the flow does not move (residual ~0, the first-order
    certificate passes), the curvature calls them saddles; with escapes the flow leaves them for a maximum."""
    Y0, b = unit(*start), modulated(c)
    Y, res, curv, escapes = T.certified_flow(Y0[None], b[None], 0.2, 1000, max_escapes=0)
    assert float(res.max()) <= T.FLOW_TOL * 1e-3 and torch.allclose(Y[0], Y0)
    assert curv["saddle"].all() and float(curv["largest"].max()) > 0.1
    Y, res, curv, escapes = T.certified_flow(Y0[None], b[None], 0.2, 1000)
    assert escapes >= 1 and float(res.max()) <= T.FLOW_TOL and not curv["saddle"].any()
    assert float(curv["largest"].max()) < -0.1


@pytest.mark.parametrize("c, saddle", [(1.00012, True), (1.00008, False)])
def test_curvature_tolerance_is_pinned(c, saddle):
    """At u_2 the largest tangent curvature is c − 1 and the largest |·| is 1: relative c − 1 (literal pins 1.2e-4
    and 0.8e-4 either side of the tolerance)."""
    curv = T.end_point_curvature(unit(0, 1), modulated(c))
    assert bool(curv["saddle"][0]) is saddle


def test_a_remaining_saddle_makes_the_instance_unconverged(monkeypatch):
    """The registered evaluate: starts placed exactly on a saddle, escapes switched off, so the end points are saddles
    with zero residual; the evidence is not converged and counts them."""
    monkeypatch.setattr(T, "MAX_ESCAPES", 0)
    # (0, 1, 1, 0, …)/√2 is critical for every c (the modulated coordinate is 0), with tangent curvature 1/√2 along
    # e₂ − e₃
    monkeypatch.setattr(T, "random_unit", lambda ctx, n, d: unit(0, 1, 1).expand(n, d).clone())
    ev = recording.expect(theorems.check(T.ID, inits=10), recording.NOT_CONVERGED)  # saddles placed on purpose
    assert ev.converged is False and not ev.holds
    assert ev.details["saddle_end_points"] == 40 and ev.details["unconverged"] == 40
    assert ev.details["max_residual"] <= T.FLOW_TOL


def test_the_default_end_points_are_maxima():
    """The default instance: every end point a maximum; the symmetric all-negative maximum is reached at c = 0 (its
    tangent curvature −1/√d is then the largest over the end points, u_l giving −1), and the claims are the
    minimum / maximum over the grid of the fractions they name."""
    ev = theorems.check(T.ID)
    assert ev.converged and ev.details["saddle_end_points"] == 0
    assert max(ev.details["tangent_curvature_largest"]) < 0
    assert ev.details["symmetric_negative_fraction"][0] > 0
    assert math.isclose(ev.details["tangent_curvature_largest"][0], -1 / math.sqrt(D), rel_tol=1e-6)
    frac = ev.details["basin_fraction"]
    grows = next(c for c in ev.claims if c.name == "basin_grows")
    assert math.isclose(grows.observed, min(b - a for a, b in zip(frac, frac[1:], strict=False)), abs_tol=1e-12)


def end_points(c_max: float, inits: int = 1000) -> torch.Tensor:
    """The default starts (seed 0) flowed at each c of the grid, one c at a time (not the module's batch)."""
    from theorems.core.context import Context
    from theorems.optim.sphere_flow import random_unit

    Y0 = random_unit(Context.make("cpu", seed=0), inits, D)
    return torch.stack([T.flow(Y0, modulated(c_max * f), 0.2, 1000)[0] for f in T.GRID])


def test_negative_modulation_loses_starts_from_the_basin():
    """The registered control (c < 0): starts in the basin at c = 0 leave it, so basin_inclusion fails; its observed
    value is the largest loss over the grid, counted here from end points near u₁ (y₁ > 0.99)."""
    (control,) = [c for c in T.RESULT.controls if c not in T.RESULT.pin_instances(controls_only=True)]  # the pins are controls too
    ev = theorems.check(T.ID, **control)
    inclusion = next(c for c in ev.claims if c.name == "basin_inclusion")
    assert ev.converged and inclusion.observed > 0 and not inclusion.passed
    near = end_points(control["c_max"])[..., 0] > 0.99
    assert inclusion.observed == max(int((near[0] & ~near[k]).sum()) for k in range(1, len(T.GRID)))


def test_the_symmetric_share_counts_end_points_at_the_symmetric_point():
    """symmetric_negative_fraction at c = 0 against end points within 1e-3 of −1/√d·𝟙 (counted here)."""
    ev = theorems.check(T.ID)
    at_sym = ((end_points(0.0)[0] + 1 / math.sqrt(D)).abs() < 1e-3).all(-1).double().mean()
    assert at_sym > 0 and math.isclose(ev.details["symmetric_negative_fraction"][0], float(at_sym), abs_tol=1e-12)


def test_escapes_run_in_a_batch():
    """Several saddles and a maximum in one batch: each saddle row leaves for a maximum, the maximum stays put."""
    Y0 = torch.cat([unit(1, 1), unit(0, 1, 1, 1), unit(-1, -1, -1), unit(0, 0, 1)])
    Y, res, curv, escapes = T.certified_flow(Y0, modulated(0.0, 4), 0.2, 1000)
    assert escapes >= 1 and not curv["saddle"].any() and float(res.max()) <= T.FLOW_TOL
    assert torch.allclose(Y[3], Y0[3]) and float(curv["largest"].max()) < -0.1


def test_a_flow_stuck_on_a_saddle_stays_a_saddle(monkeypatch):
    """A flow that never leaves its start: the escapes are spent (two of them) and the end point is still reported a
    saddle, never a maximum."""
    monkeypatch.setattr(T, "flow", lambda Y0, b, dt, steps: (Y0, torch.zeros(Y0.shape[:-1], dtype=Y0.dtype)))
    Y, res, curv, escapes = T.certified_flow(unit(1, 1), modulated(0.0), 0.2, 1000)
    assert escapes == 2 and curv["saddle"].all()


def proof_steps(monkeypatch, name, wrap):
    """The 1-D proof-step claims on the default starts, with one of the module's closed forms replaced."""
    from theorems.core.context import Context
    from theorems.optim.sphere_flow import random_unit

    ctx = Context.make("cpu", seed=0)
    Y0 = random_unit(ctx, 1000, D)
    b = torch.stack([modulated(0.8 * f) for f in T.GRID])
    if name:
        monkeypatch.setattr(T, name, wrap(getattr(T, name)))
    claims, _ = T.one_d_proof_steps(Y0, b, ctx)
    return {c.name: c for c in claims}


@pytest.mark.parametrize("name, claim", [("closed_form", "ode_closed_form"), ("blowup_time_numeric", "blowup_time")])
@pytest.mark.parametrize("rel, passes", [(0.0, True), (0.5e-8, True), (2e-8, False)])
def test_ode_tolerance_is_pinned(monkeypatch, name, claim, rel, passes):
    """eq. (147) (or the numeric t*) off by a relative 2e-8 on one pair fails the 1e-8 tolerance, 0.5e-8 does not
    (literal pins; the RK4 error itself is ~1e-9). One pair only: the claim is the maximum over the pairs."""
    def wrap(f):
        def off(*args):
            out = f(*args)
            bump = torch.zeros_like(out)
            bump[0] = rel
            return out * (1 + bump)
        return off
    assert proof_steps(monkeypatch, name, wrap)[claim].passed is passes


def test_derivative_claims_are_judged_on_the_worst_point(monkeypatch):
    """t*(b) given a positive slope in b at y(0) ≥ 0.99 only: max ∂t*/∂b ≤ 0 and eq. (151) against autograd (the
    largest relative error) must both fail."""
    plain = proof_steps(monkeypatch, None, None)
    assert plain["blowup_time_decreasing_in_b"].passed and plain["blowup_time_derivative"].passed
    bent = proof_steps(monkeypatch, "blowup_time", lambda f: lambda y0, b: f(y0, b) + 10 * b * (y0 >= 0.99))
    assert not bent["blowup_time_decreasing_in_b"].passed and not bent["blowup_time_derivative"].passed
