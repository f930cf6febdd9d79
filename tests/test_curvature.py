"""Second-order certificates (theorems.optim.curvature) against a dense-Hessian reference and known saddles.

References are independent of the Lanczos code: torch.autograd.functional.hessian + eigvalsh, and hand-computed
curvatures of f(x, y) = x² − y² + y⁴ (saddle at 0 with eigenvalues 2, −2; minima at y² = ½ with 2, 4).
"""

from __future__ import annotations

import math

import pytest
import torch

from theorems.optim.curvature import (escape_step, hvp, lanczos_extremes, rotation_orbit, second_order_solve,
                                      tangent_curvature)
from theorems.optim.lbfgs import autograd_objective, batched_lbfgs

DT = torch.float64
EIG_RTOL = 1e-9  # full-reorthogonalised Lanczos run to the tangent dimension is exact up to rounding
CERT_RTOL = 1e-6  # what counts as "no negative curvature" relative to the Hessian's scale


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def quartic(P: int, seed: int):
    """(B, P) -> (B,): ½xᵀAx + Σ_k (c_kᵀx)⁴/4 with an indefinite A: a non-quadratic objective with saddles."""
    g = gen(seed)
    A = torch.randn(P, P, generator=g, dtype=DT)
    A = A + A.T
    C = torch.randn(3, P, generator=g, dtype=DT)
    return lambda x: 0.5 * ((x @ A) * x).sum(-1) + ((x @ C.T) ** 4).sum(-1) / 4


def dense_eigs(fn, x, basis=None):
    H = torch.autograd.functional.hessian(lambda w: fn(w[None])[0], x)
    if basis is not None:
        H = basis.T @ H @ basis
    return torch.linalg.eigvalsh(H)


def saddle_fn(x):
    return x[:, 0] ** 2 - x[:, 1] ** 2 + x[:, 1] ** 4


@pytest.mark.parametrize("seed", [0, 1])
def test_extreme_eigenvalues_match_dense_hessian(seed):
    P, B = 7, 3
    fn = quartic(P, seed)
    x = torch.randn(B, P, generator=gen(seed + 10), dtype=DT)
    c = tangent_curvature(fn, x, generator=gen(0))
    for b in range(B):
        ev = dense_eigs(fn, x[b])
        scale = float(ev.abs().max())
        assert abs(float(c.lam_min[b] - ev[0])) <= EIG_RTOL * scale
        assert abs(float(c.lam_max[b] - ev[-1])) <= EIG_RTOL * scale
        # The Ritz vector is an eigenvector: Hv = λv.
        Hv = hvp(fn, x[b:b + 1])(c.vec_min[b:b + 1])[0]
        assert float((Hv - c.lam_min[b] * c.vec_min[b]).norm()) <= 1e-7 * scale


def test_tangent_restriction_matches_projected_dense_hessian():
    P, B, r = 6, 2, 2
    fn = quartic(P, 3)
    x = torch.randn(B, P, generator=gen(4), dtype=DT)
    G = torch.randn(B, P, r, generator=gen(5), dtype=DT)
    c = tangent_curvature(fn, x, directions=G, generator=gen(0))
    assert c.tangent_dim == P - r
    for b in range(B):
        Q, _ = torch.linalg.qr(torch.cat([G[b], torch.eye(P, dtype=DT)], 1))
        ev = dense_eigs(fn, x[b], Q[:, r:P])
        scale = float(ev.abs().max())
        assert abs(float(c.lam_min[b] - ev[0])) <= EIG_RTOL * scale
        assert abs(float(c.lam_max[b] - ev[-1])) <= EIG_RTOL * scale
        assert float((G[b].T @ c.vec_min[b]).abs().max()) <= 1e-10  # the Ritz vector is tangent


def test_breakdown_on_identity_hessian_still_exact():
    """½‖x‖²: the Krylov space breaks down after one step; the random restart keeps the Ritz values exact."""
    x = torch.randn(2, 5, generator=gen(1), dtype=DT)
    c = tangent_curvature(lambda v: 0.5 * (v * v).sum(-1), x, generator=gen(0))
    torch.testing.assert_close(c.lam_min, torch.ones(2, dtype=DT), rtol=EIG_RTOL, atol=0)
    torch.testing.assert_close(c.lam_max, torch.ones(2, dtype=DT), rtol=EIG_RTOL, atol=0)


def test_known_saddle_is_flagged_and_a_minimum_is_not():
    x = torch.tensor([[0.0, 0.0], [0.0, math.sqrt(0.5)]], dtype=DT)
    c = tangent_curvature(saddle_fn, x, generator=gen(0))
    torch.testing.assert_close(c.lam_min, torch.tensor([-2.0, 2.0], dtype=DT), rtol=EIG_RTOL, atol=0)
    torch.testing.assert_close(c.lam_max, torch.tensor([2.0, 4.0], dtype=DT), rtol=EIG_RTOL, atol=0)
    assert c.is_minimiser(CERT_RTOL).tolist() == [False, True]
    assert abs(float(c.vec_min[0, 1])) == pytest.approx(1.0, rel=1e-12)  # the descent direction is y


def test_gradient_certificate_alone_accepts_the_saddle_and_escape_finds_the_minimum():
    solve = lambda x: batched_lbfgs(autograd_objective(saddle_fn), x, gtol=1e-10)  # noqa: E731
    x0 = torch.zeros(1, 2, dtype=DT)
    first = solve(x0)
    assert bool(first.converged[0]) and float(first.x.abs().max()) == 0.0  # gtol at the saddle: first order passes
    so = second_order_solve(saddle_fn, x0, solve, rtol=CERT_RTOL, generator=gen(0))
    assert int(so.escapes[0]) == 1
    assert bool(so.minimiser[0])
    assert float(so.x[0, 1] ** 2) == pytest.approx(0.5, rel=1e-8)
    assert float(so.curvature.lam_min[0]) == pytest.approx(2.0, rel=1e-6)


def test_escape_budget_zero_reports_the_saddle():
    solve = lambda x: batched_lbfgs(autograd_objective(saddle_fn), x, gtol=1e-10)  # noqa: E731
    so = second_order_solve(saddle_fn, torch.zeros(1, 2, dtype=DT), solve, rtol=CERT_RTOL, max_escapes=0,
                            generator=gen(0))
    assert bool(so.first_order[0]) and not bool(so.minimiser[0])


def test_escape_step_lowers_f_and_stays_put_without_negative_curvature():
    x = torch.zeros(2, 2, dtype=DT)
    v = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=DT)
    out = escape_step(saddle_fn, x, v, torch.tensor([-2.0, 2.0], dtype=DT))
    assert float(saddle_fn(out[:1])) < 0.0
    assert out[1].tolist() == [0.0, 0.0]


def test_rotation_orbit_is_flat_for_inner_product_losses():
    z, d = 3, 4
    X = torch.randn(10, d, generator=gen(2), dtype=DT)

    def fn(v):
        U = X @ v.reshape(-1, z, d).transpose(-1, -2)
        return torch.nn.functional.softplus(U @ U.transpose(-1, -2)).sum((-1, -2))

    th = torch.randn(2, z * d, generator=gen(3), dtype=DT)
    G = rotation_orbit(th, z, d)
    assert G.shape == (2, z * d, 3)
    with torch.enable_grad():
        t = th.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(fn(t).sum(), t)
    assert float((g[:, None, :] @ G).abs().max()) <= 1e-10 * float(g.norm())
    # Without removing the orbit the full Hessian has (numerically) zero curvature along it at a stationary point;
    # here, away from stationarity, the restricted spectrum lies inside the full one (Cauchy interlacing).
    full, tan = tangent_curvature(fn, th, generator=gen(0)), tangent_curvature(fn, th, directions=G, generator=gen(0))
    assert bool((tan.lam_min >= full.lam_min - 1e-9 * full.lam_max.abs()).all())
    assert bool((tan.lam_max <= full.lam_max + 1e-9 * full.lam_max.abs()).all())


def test_lanczos_on_explicit_matrix_and_few_iterations_bracket():
    """Ritz values of a partial run lie inside the spectrum (Rayleigh–Ritz), and the full run is exact."""
    g = gen(7)
    Q, _ = torch.linalg.qr(torch.randn(12, 12, generator=g, dtype=DT))
    ev = torch.linspace(-3, 5, 12, dtype=DT)
    M = Q @ torch.diag(ev) @ Q.T
    mv = lambda v: v @ M  # noqa: E731
    part = lanczos_extremes(mv, 1, 12, iters=3, like=M, generator=gen(0))
    assert part.iterations == 3  # the cap is honoured (three Hessian-vector products)
    assert float(part.lam_min) >= -3 - 1e-12 and float(part.lam_max) <= 5 + 1e-12
    assert float(part.lam_min) > -3 + 1e-3  # three steps do not reach the extreme: a genuine partial run
    full = lanczos_extremes(mv, 1, 12, like=M, generator=gen(0))
    assert float(full.lam_min) == pytest.approx(-3.0, rel=EIG_RTOL)
    assert float(full.lam_max) == pytest.approx(5.0, rel=EIG_RTOL)
