"""Remark 2: InfoNCE neither decouples the outputs nor collapses in general (refuted); the spectral loss couples them
(paper 002, `ssl_dynamics.remark_2`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation
from theorems.core import recording
from theorems.core.context import Context
from theorems.data.ssl_pairs import dataset
from theorems.optim.curvature import rotation_orbit
from theorems.ssl_dynamics import remark_2 as R

NAMED_VIOLATIONS = [
    ("ssl_dynamics.remark_2", dict(coupling_at=0.5), "coupling measured at the trained weights"),
    ("ssl_dynamics.remark_2", dict(expansion_scale=1.0003), "the expansion InfoNCE(0)"),
    ("ssl_dynamics.remark_2", dict(spectrum=(1.0, 0.0, 0.0), z=2), "anchors spanning at least two directions"),
]


@pytest.mark.parametrize("rid, params, hypothesis", NAMED_VIOLATIONS, ids=row_ids(NAMED_VIOLATIONS))
def test_check_names_the_violated_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, theorems.HypothesisViolation)


ID = "ssl_dynamics.remark_2"


def test_default_counterexample_rests_on_a_certified_minimiser(run):
    ev = run(ID)
    assert ev.converged and not ev.holds
    assert {c.name for c in ev.failed_bounds} == {"infonce_decoupled", "infonce_collapses"}, ev.explain()
    d = ev.details
    assert d["minimiser_infonce"] and d["first_order_infonce"] and d["ray_rises_infonce"]
    assert d["relative_min_eig_infonce"] > 0
    assert d["certified_starts_infonce"] == 2 * R.RESULT.param("restarts").default


def _problem(seed=0, spectrum=(4.0, 2.0, 1.0, 0.5, 0.25), z=3, n=400, sigma2=0.1):
    ctx = Context.make("cpu", seed=seed)
    d = len(spectrum)
    t = dataset(ctx, "gaussian", n, d=d, spectrum=list(spectrum), sigma2=sigma2)
    return ctx, R._losses(t, z, d, "one"), z, d


def _dense_tangent_eigs(fn, theta, z, d):
    H = torch.autograd.functional.hessian(lambda w: fn(w[None])[0], theta)
    G = rotation_orbit(theta[None], z, d)[0]
    Q, _ = torch.linalg.qr(torch.cat([G, torch.eye(z * d, dtype=theta.dtype)], 1))
    B = Q[:, G.shape[1]:z * d]
    return torch.linalg.eigvalsh(B.T @ H @ B)


def test_certificate_matches_a_dense_tangent_hessian():
    ctx, fns, z, d = _problem()
    x0 = torch.cat([0.01 * ctx.randn(4, z * d), ctx.randn(4, z * d)])
    theta, ok, cert = R._train(fns["infonce"], x0, z, d, ctx)
    ev = _dense_tangent_eigs(fns["infonce"], theta, z, d)
    assert ok and float(ev[0]) > 0  # a strict minimiser off the orbit, by the dense reference
    assert cert["tangent_min_eig"] == pytest.approx(float(ev[0]), rel=1e-8)
    assert cert["tangent_max_eig"] == pytest.approx(float(ev[-1]), rel=1e-8)
    sv = torch.linalg.svdvals(theta.reshape(z, d))
    assert float(sv[1] / sv[0]) > 10 * R.COLLAPSE_TOL  # full rank: the printed collapse fails at a minimiser


def test_theta_zero_is_a_stationary_saddle_that_the_certificate_escapes():
    """Θ = 0 is stationary (every gradient is 2ΘM_i = 0) and InfoNCE(0) = log 2: the gradient test passes there. The
    tangent curvature is negative (½L₍₁₎ is indefinite), so the solver escapes and reaches a lower minimiser."""
    ctx, fns, z, d = _problem()
    zero = torch.zeros(1, z * d, dtype=torch.float64)
    assert float(fns["infonce"](zero)) == pytest.approx(math.log(2), rel=1e-15)
    theta, ok, cert = R._train(fns["infonce"], zero, z, d, ctx)
    assert cert["escapes"] >= 1 and ok and cert["minimiser"]
    assert cert["loss"] < math.log(2) - 0.1


def test_collapsing_minimiser_withdraws_the_former_correction(run):
    """The former correction 'InfoNCE trained to stationarity does not collapse (σ₂/σ₁ ≥ 0.1)' fails at a certified
    minimiser on data spanning two directions: every start reaches the same loss, a rank-one Θ."""
    ev = run(ID, **R.COLLAPSING_MINIMISER)
    d = ev.details
    assert ev.converged and d["minimiser_infonce"] and d["relative_min_eig_infonce"] > 0
    assert ev.claim("infonce_collapses").passed and d["singular_values_infonce"][1] < 1e-6
    assert d["certified_starts_infonce"] == 2 * R.RESULT.param("restarts").default
    assert d["loss_spread_infonce"] <= 1e-12
    ctx = Context.make("cpu", seed=R.COLLAPSING_MINIMISER["seed"])
    t = dataset(ctx, "gaussian", 400, d=2, spectrum=list(R.COLLAPSING_MINIMISER["spectrum"]), sigma2=1.0)
    sx = torch.linalg.svdvals(t.x)
    assert float(sx[1] / sx[0]) > 0.1  # the anchors themselves span two directions


def test_saturated_point_passes_the_gradient_test_but_is_not_converged(run):
    """Ten anchors, no noise: the data are separable, InfoNCE's infimum (log 2/10: one anchor drew itself as its
    negative) is at infinity. The gradient underflows to 1e-16 and the tangent curvature is positive, but the loss
    does not rise along Θ → 2Θ: no minimiser, reported as not converged, never as a verdict."""
    ev = recording.expect(run(ID, spectrum=(68.916, 0.007913), z=2, n=10, sigma2=0.0, seed=86), recording.NOT_CONVERGED)
    d = ev.details
    assert d["first_order_infonce"] and d["gradient_norm_infonce"] <= R.GTOL
    assert not d["ray_rises_infonce"] and not d["minimiser_infonce"]
    assert ev.converged is False and not ev.holds


def test_expansion_tolerance_is_pinned_just_outside(run):
    ev = run(ID, **R.PIN_EXPANSION)
    c = ev.claim("infonce_second_order")
    assert not c.passed and abs(c.observed - c.bound) <= 3 * c.allowance, ev.explain()
    inside = run(ID, expansion_scale=1.0002, allow_violation=True).claim("infonce_second_order")
    assert inside.passed  # the literal one step inside still passes: the pin is at the edge


def test_controls_break_the_spectral_coupling(run):
    for spec in R.CONTROLS:
        ev = run(ID, **spec)
        assert "spectral_coupled" in {c.name for c in ev.failed_bounds}, ev.explain()


def test_status_is_refuted_with_no_corrected_form():
    res = theorems.get(ID)
    assert res.status.value == "refuted" and res.forms == ("as_printed",) and res.correction is None


@pytest.mark.parametrize("name, params", [("z ≥ 2 outputs", dict(z=1)),
                                          ("anchors spanning at least two directions",
                                           dict(spectrum=(1.0, 0.0, 0.0)))])
def test_each_hypothesis_is_named(name, params):
    with pytest.raises(theorems.HypothesisViolation, match=name):
        theorems.check(ID, **params)


def test_curvature_tolerance_is_pinned_by_a_shallow_saddle():
    """f = (x₀ − 1)² − 10⁻⁶x₁² + x₁⁴: stationary at (1, 0), where the gradient test passes and the ray rises, with
    relative curvature −10⁻⁶ (100× CURV_RTOL = 1e-8): the certificate escapes to the minimum x₁² ≈ ½·10⁻⁶ (a looser
    tolerance, 1e-5, would keep the saddle)."""
    def fn(v):
        return (v[:, 0] - 1) ** 2 - 1e-6 * v[:, 1] ** 2 + v[:, 1] ** 4

    ctx = Context.make("cpu", seed=0)
    x, ok, cert = R._train(fn, torch.tensor([[1.0, 0.0]], dtype=torch.float64), 1, 2, ctx)
    assert cert["escapes"] >= 1 and ok and abs(float(x[1])) > 1e-4
    assert cert["loss"] < 0.0  # below the saddle's value f(1, 0) = 0


P = "ssl_dynamics."


# -- Remarks 2 and 3 ------------------------------------------------------------------------------------------
def test_remark_2_infonce_keeps_rank_where_loss_1_collapses(run):
    ev = run(P + "remark_2", form="as_printed")
    assert ev.converged and ev.details["coupling_loss2"] == 0.0
    assert min(ev.details["singular_values_infonce"]) > 0.4  # σ₃/σ₁ = 0.49 at a certified minimiser: no collapse
    assert ev.details["expansion_ratio"] == pytest.approx(16, rel=1e-3)


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [("remark_2", dict(z=1), "z ≥ 2 outputs")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, hypothesis", [("remark_2", dict(z=6), "z ≤ d")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


HYPOTHESIS_EDGES = [
    # remark_2: z ≥ 2 outputs (collapse is of several outputs onto one)
    ("ssl_dynamics.remark_2", None, dict(z=2), None),
    ("ssl_dynamics.remark_2", None, dict(z=1), "z ≥ 2 outputs"),
    # remark_2: the anchors span at least two directions (two positive covariance eigenvalues)
    ("ssl_dynamics.remark_2", None, dict(spectrum=(1.0, 0.5, 0.0), z=2), None),
    ("ssl_dynamics.remark_2", None, dict(spectrum=(1.0, 0.0, 0.0), z=2), "anchors spanning at least two directions"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
