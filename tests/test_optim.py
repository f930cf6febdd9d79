"""Batched L-BFGS, its autograd wrapper, and the LayerNorm sphere (theorems.optim).

References are independent: torch.linalg.solve for quadratics, scipy's L-BFGS-B for Rosenbrock,
central finite differences for gradients, torch's own layer_norm and explicit projection matrices for
the LN sphere.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from theorems.core.context import Context
from theorems.neural_collapse.ufm import riemannian_grad_norm, solve_ufm, ufm_objective
from theorems.optim.lbfgs import GTOL, MAX_ITER, NONFINITE, STALLED, autograd_objective, batched_lbfgs
from theorems.optim.manifolds import (
    center,
    feasibility_residual,
    ln,
    orthonormal_basis_of_ones_complement,
    random_point,
    tangent,
)

DT = torch.float64
CPU = "cpu"  # unit tests of the machinery compare with CPU references, whatever --device says
EXACT = 1e-12  # identities that hold to a few ulps (relative to O(√d) quantities)
SOLVE_RTOL = 1e-8  # minimiser from L-BFGS at gtol 1e-10 (Hessian eigenvalues ≥ 1) vs a direct solve
ROSEN_ATOL = 1e-6  # our minimiser vs scipy's L-BFGS-B minimiser (scipy's own accuracy is the limit)
FD_RTOL = 1e-7  # autograd gradient vs central differences with h = 1e-6


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# ----------------------------------------------------------------------------------------------------
# batched_lbfgs
# ----------------------------------------------------------------------------------------------------
def random_spd(B: int, P: int, seed: int, cond: float = 1e3) -> torch.Tensor:
    """B random SPD matrices with eigenvalues log-spaced in [1, cond] and random eigenvectors."""
    g = gen(seed)
    q, _ = torch.linalg.qr(torch.randn(B, P, P, generator=g, dtype=DT))
    ev = torch.logspace(0, math.log10(cond), P, dtype=DT)[torch.randperm(P, generator=g)]
    return q @ torch.diag_embed(ev.expand(B, P)) @ q.transpose(-1, -2)


def quadratic(A: torch.Tensor, b: torch.Tensor):
    def fun(x):
        Ax = (A @ x[..., None])[..., 0]
        return 0.5 * (x * Ax).sum(1) - (b * x).sum(1), Ax - b

    return fun


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quadratics_match_linear_solve(seed):
    """Condition number 1e2: f = ½xᵀAx − bᵀx is evaluated to ~1e-14 absolute, well inside what the
    Armijo search can resolve, so every instance must certify 'gtol' at 1e-10."""
    B, P = 8, 12
    A = random_spd(B, P, seed=seed, cond=1e2)
    g = gen(100 + seed)
    b = torch.randn(B, P, generator=g, dtype=DT)
    x0 = torch.randn(B, P, generator=g, dtype=DT)
    res = batched_lbfgs(quadratic(A, b), x0, gtol=1e-10, max_iter=2000)
    assert res.status == [GTOL] * B, res.status
    assert bool(res.converged.all())
    assert float(res.stationarity.max()) <= 1e-10
    x_star = torch.linalg.solve(A, b[..., None])[..., 0]
    torch.testing.assert_close(res.x, x_star, rtol=SOLVE_RTOL, atol=SOLVE_RTOL * float(x_star.abs().max()))
    # the reported gradient and value are those of the reported iterate
    f_ref, g_ref = quadratic(A, b)(res.x)
    torch.testing.assert_close(res.grad, g_ref, rtol=0, atol=1e-12)
    torch.testing.assert_close(res.f, f_ref, rtol=0, atol=0)
    assert res.x.shape == (B, P) and res.f.shape == (B,) and res.iterations.shape == (B,)
    assert (res.iterations > 0).all() and res.evaluations > int(res.iterations.max())


def test_certificate_is_honest_on_ill_conditioned_quadratics():
    """Condition number 1e4: the objective's rounding noise (~1e-13, from terms of size ~1e4) hides the
    remaining decrease, so a line search on f alone cannot always reach ‖g‖ ≤ 1e-10 (scipy's L-BFGS-B
    stops 'ABNORMAL' on the same problems). Whatever happens, 'gtol' must be reported exactly for the
    instances whose final measure is ≤ gtol, and every instance must still be close to optimal."""
    B, P, gtol = 16, 12, 1e-10
    A = random_spd(B, P, seed=3, cond=1e4)
    g = gen(103)
    b = torch.randn(B, P, generator=g, dtype=DT)
    x0 = torch.randn(B, P, generator=g, dtype=DT)
    res = batched_lbfgs(quadratic(A, b), x0, gtol=gtol, max_iter=5000)
    below = (res.stationarity <= gtol).tolist()
    assert [s == GTOL for s in res.status] == below, (res.status, res.stationarity)
    assert set(res.status) <= {GTOL, STALLED}, res.status
    x_star = torch.linalg.solve(A, b[..., None])[..., 0]
    f_star = quadratic(A, b)(x_star)[0]
    assert float((res.f - f_star).abs().max()) <= 1e-10


def rosenbrock(x: torch.Tensor) -> torch.Tensor:
    return (100 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1 - x[:, :-1]) ** 2).sum(1)


def rosenbrock_np(x: np.ndarray) -> tuple[float, np.ndarray]:
    """Value and hand-derived gradient (independent of autograd) for scipy."""
    f = float(np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))
    g = np.zeros_like(x)
    g[:-1] += -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200 * (x[1:] - x[:-1] ** 2)
    return f, g


@pytest.mark.parametrize("P", [2, 3])
def test_rosenbrock_matches_scipy(P):
    """Rosenbrock in 2 and 3 dims has the single minimiser 1; from every start both optimisers find it."""
    starts = torch.empty(6, P, dtype=DT).uniform_(-2.0, 2.0, generator=gen(P))
    res = batched_lbfgs(autograd_objective(rosenbrock), starts, gtol=1e-10, max_iter=5000)
    assert res.status == [GTOL] * len(starts), res.status
    for i, x0 in enumerate(starts.numpy()):
        ref = minimize(rosenbrock_np, x0, jac=True, method="L-BFGS-B",
                       options={"gtol": 1e-12, "ftol": 1e-16, "maxiter": 20000, "maxcor": 20})
        np.testing.assert_allclose(res.x[i].numpy(), ref.x, rtol=0, atol=ROSEN_ATOL)
        np.testing.assert_allclose(res.x[i].numpy(), np.ones(P), rtol=0, atol=1e-8)
        assert res.f[i].item() <= ref.fun + 1e-14


def test_frozen_instances_stay_frozen():
    """Row 0 starts at its minimiser (done at iteration 0); row 1 is an isotropic quadratic (done in a
    couple of steps); row 2 is ill-conditioned (many steps). Every evaluation after an instance stopped
    must see that instance's row unchanged."""
    P = 6
    A = torch.stack([torch.eye(P, dtype=DT), torch.eye(P, dtype=DT), random_spd(1, P, seed=5, cond=1e4)[0]])
    b = torch.randn(3, P, generator=gen(6), dtype=DT)
    x_star = torch.linalg.solve(A, b[..., None])[..., 0]
    x0 = torch.randn(3, P, generator=gen(7), dtype=DT)
    x0[0] = x_star[0]
    inner = quadratic(A, b)
    seen: list[torch.Tensor] = []

    def fun(x):
        seen.append(x.clone())
        return inner(x)

    res = batched_lbfgs(fun, x0, gtol=1e-10, max_iter=1000)
    assert res.status == [GTOL] * 3, res.status
    assert res.iterations[0].item() == 0
    assert 0 < res.iterations[1].item() < res.iterations[2].item()
    # row 0 never moved, bit for bit
    assert all(torch.equal(x[0], x0[0]) for x in seen)
    assert torch.equal(res.x[0], x0[0])
    # row 1: once it reached its final value it stays there for the rest of the run
    first = next(k for k, x in enumerate(seen) if torch.equal(x[1], res.x[1]))
    assert first < len(seen) - 1  # meaningful: row 2 went on after row 1 stopped
    assert all(torch.equal(x[1], res.x[1]) for x in seen[first:])


def test_nonfinite_objective_is_reported():
    """Instances whose objective is nan or inf at the start are 'nonfinite' and untouched; the others
    are unaffected."""
    P = 4
    A = random_spd(4, P, seed=8, cond=10)
    b = torch.randn(4, P, generator=gen(9), dtype=DT)
    inner = quadratic(A, b)

    def fun(x):
        f, g = inner(x)
        bad = x[:, 0] > 100  # a region where the objective is not finite
        f = torch.where(bad, torch.full_like(f, float("nan")), f)
        f[2] = torch.where(x[2, 0] > 100, torch.tensor(float("inf"), dtype=DT), f[2])
        return f, g

    x0 = torch.randn(4, P, generator=gen(10), dtype=DT)
    x0[[1, 2], 0] = 1e3
    res = batched_lbfgs(fun, x0, gtol=1e-10)
    assert res.status[1] == NONFINITE and res.status[2] == NONFINITE, res.status
    assert res.status[0] == GTOL and res.status[3] == GTOL, res.status
    assert not bool(res.converged[1]) and not bool(res.converged[2])
    assert torch.equal(res.x[1:3], x0[1:3])
    assert res.iterations[1].item() == 0 and res.iterations[2].item() == 0


def test_max_iter_when_gtol_is_unreachable():
    """A stationarity measure that never drops below gtol must end in 'max_iter' after exactly
    max_iter iterations, never 'gtol'."""
    starts = torch.empty(5, 2, dtype=DT).uniform_(-2.0, 2.0, generator=gen(11))
    res = batched_lbfgs(autograd_objective(rosenbrock), starts, max_iter=7, gtol=1e-10,
                        stationarity=lambda x, g: torch.ones(x.shape[0], dtype=x.dtype))
    assert res.status == [MAX_ITER] * 5, res.status
    assert res.iterations.tolist() == [7] * 5
    assert not bool(res.converged.any())
    # and with a real but too small budget on a problem whose gradient never vanishes exactly
    res = batched_lbfgs(autograd_objective(lambda x: torch.exp(x).sum(1)), starts, max_iter=10, gtol=0.0)
    assert GTOL not in res.status
    assert res.status == [MAX_ITER] * 5, res.status


def test_max_iter_zero_returns_start():
    x0 = torch.randn(3, 2, generator=gen(12), dtype=DT)
    res = batched_lbfgs(autograd_objective(rosenbrock), x0, max_iter=0)
    assert torch.equal(res.x, x0)
    assert res.status == [MAX_ITER] * 3
    torch.testing.assert_close(res.f, rosenbrock(x0), rtol=0, atol=0)


def test_rejects_non_batched_start():
    with pytest.raises(ValueError, match=r"\(B, P\)"):
        batched_lbfgs(autograd_objective(rosenbrock), torch.zeros(2, dtype=DT))


# ----------------------------------------------------------------------------------------------------
# autograd_objective
# ----------------------------------------------------------------------------------------------------
def test_autograd_objective_matches_central_differences():
    def fn(x):  # instances independent, nonlinear and coupled across coordinates
        return (torch.sin(x) * x**2).sum(1) + x[:, 0] * x[:, 1] * torch.exp(0.3 * x[:, 2]) + torch.log1p(x.pow(2).sum(1))

    x = torch.randn(4, 5, generator=gen(13), dtype=DT)
    f, g = autograd_objective(fn)(x)
    assert not f.requires_grad and not g.requires_grad
    torch.testing.assert_close(f, fn(x), rtol=0, atol=0)
    h = 1e-6
    fd = torch.zeros_like(x)
    for j in range(x.shape[1]):
        e = torch.zeros_like(x)
        e[:, j] = h
        fd[:, j] = (fn(x + e) - fn(x - e)) / (2 * h)
    torch.testing.assert_close(g, fd, rtol=FD_RTOL, atol=FD_RTOL)


def test_autograd_objective_does_not_touch_input():
    x = torch.randn(2, 3, generator=gen(14), dtype=DT)
    x_copy = x.clone()
    autograd_objective(lambda v: v.pow(2).sum(1))(x)
    assert torch.equal(x, x_copy) and not x.requires_grad


# ----------------------------------------------------------------------------------------------------
# The LayerNorm sphere
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [2, 3, 6, 17])
def test_ln_lands_on_the_sphere_and_is_idempotent(d):
    V = torch.randn(3, d, 9, generator=gen(d), dtype=DT) * 5 + 2  # batch of 3, 9 columns, off-centre
    X = ln(V)
    assert X.shape == V.shape
    torch.testing.assert_close(X.sum(dim=-2), torch.zeros(3, 9, dtype=DT), rtol=0, atol=EXACT * math.sqrt(d))
    torch.testing.assert_close(X.norm(dim=-2), torch.full((3, 9), math.sqrt(d), dtype=DT), rtol=EXACT, atol=0)
    assert float(feasibility_residual(X).max()) <= EXACT * d
    torch.testing.assert_close(ln(X), X, rtol=EXACT, atol=EXACT)
    # positively homogeneous of degree 0 and invariant under adding a multiple of 1
    torch.testing.assert_close(ln(3.7 * V + 11.0), X, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("d", [3, 8])
def test_ln_equals_torch_layer_norm(d):
    """Population-std LayerNorm without affine parameters and with eps = 0 (digest §1.2)."""
    V = torch.randn(d, 7, generator=gen(20 + d), dtype=DT)
    ref = torch.nn.functional.layer_norm(V.T, (d,), eps=0.0).T
    torch.testing.assert_close(ln(V), ref, rtol=1e-12, atol=1e-12)


def test_feasibility_residual_hand_values():
    d = 4
    X = torch.zeros(d, 3, dtype=DT)
    X[:, 0] = torch.tensor([1.0, -1.0, 1.0, -1.0])  # feasible: sum 0, norm 2 = √4
    X[:, 1] = torch.tensor([2.0, 0.0, 0.0, 0.0])  # sum 2, norm 2: residual 2
    X[:, 2] = torch.tensor([3.0, -3.0, 0.0, 0.0])  # sum 0, norm 3√2: residual 3√2 − 2
    assert feasibility_residual(X[:, :1]).item() == 0.0
    assert feasibility_residual(X[:, :2]).item() == pytest.approx(2.0, rel=1e-15)
    assert feasibility_residual(X).item() == pytest.approx(3 * math.sqrt(2) - 2, rel=1e-14)
    assert feasibility_residual(torch.stack([X[:, :1], X[:, 1:2]])).tolist() == [0.0, 2.0]


def projector_onto_complement_of(x: np.ndarray) -> np.ndarray:
    """Orthogonal projector onto span{1, x}^⊥, from an explicit QR (independent of tangent())."""
    d = x.shape[0]
    q, _ = np.linalg.qr(np.stack([np.ones(d), x], axis=1))
    return np.eye(d) - q @ q.T


@pytest.mark.parametrize("d", [3, 5, 10])
def test_tangent_projection(d):
    g_ = gen(30 + d)
    X = ln(torch.randn(d, 6, generator=g_, dtype=DT))
    G = torch.randn(d, 6, generator=g_, dtype=DT) * 3
    T = tangent(X, G)
    # orthogonal to 1 and to x, column by column
    torch.testing.assert_close(T.sum(0), torch.zeros(6, dtype=DT), rtol=0, atol=1e-12)
    torch.testing.assert_close((T * X).sum(0), torch.zeros(6, dtype=DT), rtol=0, atol=1e-12)
    # a projection (idempotent) and orthogonal (the residual is orthogonal to the image)
    torch.testing.assert_close(tangent(X, T), T, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(((G - T) * T).sum(0), torch.zeros(6, dtype=DT), rtol=0, atol=1e-11)
    # equals the explicit projector onto span{1, x}^⊥
    for i in range(6):
        ref = projector_onto_complement_of(X[:, i].numpy()) @ G[:, i].numpy()
        np.testing.assert_allclose(T[:, i].numpy(), ref, rtol=0, atol=1e-12)


def test_center_projects_onto_ones_complement():
    V = torch.randn(2, 5, 3, generator=gen(40), dtype=DT)
    P = torch.eye(5, dtype=DT) - 1 / 5
    torch.testing.assert_close(center(V), P @ V, rtol=0, atol=1e-14)


def test_random_point_feasible_and_seeded():
    a = random_point(Context.make(CPU, seed=3), 2, 4, d=6, n=5)
    b = random_point(Context.make(CPU, seed=3), 2, 4, d=6, n=5)
    c = random_point(Context.make(CPU, seed=4), 2, 4, d=6, n=5)
    assert a.shape == (2, 4, 6, 5) and a.dtype == DT
    assert float(feasibility_residual(a).max()) <= 1e-12
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_random_point_is_isotropic():
    """Uniform on the sphere of radius √d in 1^⊥: mean 0 and E[xxᵀ] = (d/(d−1))·P, because x/√d is
    uniform on the unit sphere of the (d−1)-dimensional space 1^⊥, whose second moment is P/(d−1)."""
    d, n = 4, 20000
    X = random_point(Context.make(CPU, seed=5), d=d, n=n)
    P = torch.eye(d, dtype=DT) - 1 / d
    mc = 4.0 / math.sqrt(n)  # a few Monte-Carlo standard errors
    torch.testing.assert_close(X.mean(1), torch.zeros(d, dtype=DT), rtol=0, atol=mc)
    torch.testing.assert_close(X @ X.T / n, d / (d - 1) * P, rtol=0, atol=4 * mc)


@pytest.mark.parametrize("d", [2, 3, 7])
def test_orthonormal_basis_of_ones_complement(d):
    Bm = orthonormal_basis_of_ones_complement(d)
    assert Bm.shape == (d, d - 1) and Bm.dtype == DT
    torch.testing.assert_close(Bm.T @ Bm, torch.eye(d - 1, dtype=DT), rtol=0, atol=1e-14)
    torch.testing.assert_close(Bm.sum(0), torch.zeros(d - 1, dtype=DT), rtol=0, atol=1e-14)
    torch.testing.assert_close(Bm @ Bm.T, torch.eye(d, dtype=DT) - 1 / d, rtol=0, atol=1e-14)
    assert torch.equal(Bm, orthonormal_basis_of_ones_complement(d))  # deterministic


# ----------------------------------------------------------------------------------------------------
# The Riemannian gradient in V-coordinates, as solve_ufm measures it
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss", ["mse", "ce"])
@pytest.mark.parametrize("seed", [0, 1])
def test_v_coordinate_gradient_is_tangent_projection(loss, seed):
    """For X = ln(V): ∇_V f(ln V) scaled column-wise by ‖PV‖/√d equals tangent(X, ∇_X f).

    (The VJP of ln is (√d/r)(P g − X diag(XᵀPg)/d), r = ‖PV‖; digest §5.0.) This is the identity
    behind solve_ufm's stopping measure.
    """
    K, n, d, lam = 3, 2, 5, 0.1
    g_ = gen(50 + seed)
    labels = torch.arange(K).repeat_interleave(n)
    W = torch.randn(4, K, d, generator=g_, dtype=DT)
    V = torch.randn(4, d, K * n, generator=g_, dtype=DT) * 2 + 1
    V.requires_grad_(True)
    (gV,) = torch.autograd.grad(ufm_objective(W, ln(V), labels, loss, lam).sum(), V)
    X = ln(V.detach()).requires_grad_(True)
    (gX,) = torch.autograd.grad(ufm_objective(W, X, labels, loss, lam).sum(), X)
    r = (V.detach() - V.detach().mean(dim=-2, keepdim=True)).norm(dim=-2, keepdim=True)
    torch.testing.assert_close(gV * r / math.sqrt(d), tangent(X.detach(), gX), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_solve_ufm_stopping_measure_equals_riemannian_grad_norm(loss):
    """solve_ufm's internal measure (in V-coordinates) at the random starts, max_iter = 0, must equal
    the Riemannian gradient norm recomputed from (W, X) by riemannian_grad_norm."""
    sol = solve_ufm(loss, 3, 2, 5, 0.1, restarts=6, ctx=Context.make(CPU, seed=2), max_iter=0)
    assert sol.status == [MAX_ITER] * 6
    assert not bool(sol.converged.any())
    torch.testing.assert_close(sol.raw.stationarity, sol.grad_norm, rtol=1e-10, atol=0)
    torch.testing.assert_close(sol.grad_norm, riemannian_grad_norm(sol.W, sol.X, sol.labels, loss, 0.1),
                               rtol=0, atol=0)


# ----------------------------------------------------------------------------------------------------
# Batched Riemannian Newton (theorems.optim.newton) and the UFM's analytic derivatives
# ----------------------------------------------------------------------------------------------------
from theorems.neural_collapse.ufm import _retract, sphere_tangent_basis, ufm_newton_model  # noqa: E402
from theorems.optim.newton import arrow_solve, batched_arrow_newton, block_cholesky  # noqa: E402

HESS_RTOL = 1e-10  # closed-form derivatives vs autograd in float64 (sums of O(1) terms)


def ufm_point(loss: str, K: int, n: int, d: int, seed: int, B: int = 3):
    """Random (Wp, U) in 1^⊥ coordinates, the labels, and the basis Q of 1^⊥."""
    g_ = gen(seed)
    Q = orthonormal_basis_of_ones_complement(d)
    Wp = torch.randn(B, K, d - 1, generator=g_, dtype=DT)
    U = torch.randn(B, K * n, d - 1, generator=g_, dtype=DT)
    U = math.sqrt(d) * U / U.norm(dim=-1, keepdim=True)
    return Wp, U, torch.arange(K).repeat_interleave(n), Q


def pullback(loss: str, lam: float, labels, Q, Wp_i, U_i, T_i):
    """f(Wp + s_W, R(u_i, T_i s_i)) as a function of the flat tangent vector (s_W, s_1, ..., s_N)."""
    K, p = Wp_i.shape
    N, q = U_i.shape[0], T_i.shape[-1]
    d = p + 1

    def f(s):
        W = Wp_i + s[: K * p].view(K, p)
        V = U_i + (T_i @ s[K * p:].view(N, q, 1))[..., 0]
        U = math.sqrt(d) * V / V.norm(dim=-1, keepdim=True)
        return ufm_objective(W @ Q.T, Q @ U.T, labels, loss, lam)

    return f, K * p + N * q


@pytest.mark.parametrize("loss", ["mse", "ce"])
@pytest.mark.parametrize("K,n,d", [(4, 3, 6), (3, 2, 5), (2, 1, 3)])
def test_ufm_newton_model_gradient_matches_autograd(loss, K, n, d):
    lam = 0.07
    Wp, U, labels, Q = ufm_point(loss, K, n, d, seed=60 + K + d)
    model = ufm_newton_model(Wp, U, labels, loss, lam)
    Wr, Ur = Wp.clone().requires_grad_(True), U.clone().requires_grad_(True)
    f = ufm_objective(Wr @ Q.T, Q @ Ur.transpose(-1, -2), labels, loss, lam)
    gW, gU = torch.autograd.grad(f.sum(), (Wr, Ur))
    torch.testing.assert_close(model.f, f.detach(), rtol=1e-13, atol=0)
    torch.testing.assert_close(model.gw, gW.reshape(Wp.shape[0], -1), rtol=HESS_RTOL, atol=1e-13)
    T = sphere_tangent_basis(U)
    torch.testing.assert_close(model.gx, (T.transpose(-1, -2) @ gU[..., None])[..., 0], rtol=HESS_RTOL, atol=1e-13)
    # its norm is the Riemannian gradient norm of the UFM in the original coordinates
    torch.testing.assert_close(model.grad_norm(), riemannian_grad_norm(Wp @ Q.T, Q @ U.transpose(-1, -2), labels,
                                                                       loss, lam), rtol=1e-12, atol=0)


def test_sphere_tangent_basis_is_orthonormal_and_tangent():
    u = torch.randn(50, 7, generator=gen(61), dtype=DT)
    u[0] = torch.tensor([-3.0, 0, 0, 0, 0, 0, 0], dtype=DT)  # on an axis, both signs of the pivot
    u[1] = torch.tensor([3.0, 0, 0, 0, 0, 0, 0], dtype=DT)
    T = sphere_tangent_basis(u)
    assert T.shape == (50, 7, 6)
    torch.testing.assert_close(T.transpose(-1, -2) @ T, torch.eye(6, dtype=DT).expand(50, 6, 6), rtol=0, atol=1e-14)
    torch.testing.assert_close((u[:, None, :] @ T)[:, 0], torch.zeros(50, 6, dtype=DT), rtol=0, atol=1e-14)


@pytest.mark.parametrize("loss", ["mse", "ce"])
@pytest.mark.parametrize("K,n,d", [(4, 3, 6), (3, 2, 4)])
def test_ufm_newton_model_hessian_matches_autograd(loss, K, n, d):
    """The Riemannian Hessian in tangent coordinates equals the Euclidean Hessian of the pullback through
    a second-order retraction (Absil–Mahony–Sepulchre, Prop. 5.5.5), computed here by autograd."""
    lam = 0.05
    Wp, U, labels, Q = ufm_point(loss, K, n, d, seed=70 + K + d, B=2)
    model = ufm_newton_model(Wp, U, labels, loss, lam)
    H = model.hessian()
    T = sphere_tangent_basis(U)
    for i in range(Wp.shape[0]):
        f, P = pullback(loss, lam, labels, Q, Wp[i], U[i], T[i])
        H_ref = torch.autograd.functional.hessian(f, torch.zeros(P, dtype=DT))
        torch.testing.assert_close(H[i], H_ref, rtol=HESS_RTOL, atol=1e-12)
        g_ref = torch.autograd.functional.jacobian(f, torch.zeros(P, dtype=DT))
        torch.testing.assert_close(torch.cat([model.gw[i], model.gx[i].reshape(-1)]), g_ref, rtol=HESS_RTOL,
                                   atol=1e-13)


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_arrow_solve_matches_dense_solve(loss):
    Wp, U, labels, _ = ufm_point(loss, 4, 3, 6, seed=80, B=4)
    model = ufm_newton_model(Wp, U, labels, loss, 0.05)
    H = model.hessian()
    lam_min = torch.linalg.eigvalsh(H)[:, 0]
    mu = (lam_min.abs() + 0.3).to(DT)  # positive definite shift
    sw, sx, ok = arrow_solve(model, mu)
    assert bool(ok.all())
    g = torch.cat([model.gw, model.gx.reshape(4, -1)], dim=1)
    s_ref = torch.linalg.solve(H + mu[:, None, None] * torch.eye(H.shape[-1], dtype=DT), -g)
    torch.testing.assert_close(torch.cat([sw, sx.reshape(4, -1)], dim=1), s_ref, rtol=1e-10, atol=1e-12)
    # a shift that leaves H + μI indefinite is reported as such (instances where H has a negative eigenvalue)
    assert bool((lam_min < 0).any())
    _, _, ok = arrow_solve(model, torch.where(lam_min < 0, -lam_min / 2, 1.0))
    assert ok.tolist() == (lam_min >= 0).tolist()


@pytest.mark.parametrize("q", [1, 4, 8, 11])
def test_block_cholesky_matches_lapack_and_flags_indefinite(q):
    g_ = gen(90 + q)
    M = torch.randn(6, 5, q, q, generator=g_, dtype=DT)
    M = M @ M.transpose(-1, -2) + 0.1 * torch.eye(q, dtype=DT)
    M[0, 0] -= 10 * torch.eye(q, dtype=DT)  # indefinite
    L, ok = block_cholesky(M)
    assert ok.shape == (6, 5) and not bool(ok[0, 0]) and bool(ok.flatten()[1:].all())
    torch.testing.assert_close(L.flatten(0, 1)[1:], torch.linalg.cholesky(M.flatten(0, 1)[1:]), rtol=1e-12, atol=1e-12)


def test_newton_statuses_and_frozen_rows():
    """max_iter = 0 returns the starts untouched; a non-finite start is 'nonfinite' and never moves while
    the others converge; every 'gtol' instance has its measure ≤ gtol."""
    K, n, d, lam = 3, 2, 5, 0.1
    Wp, U, labels, _ = ufm_point("ce", K, n, d, seed=95, B=3)
    Wp[1, 0, 0] = float("nan")
    w0 = Wp.reshape(3, -1)

    def evaluate(w, u):
        return ufm_newton_model(w.view(-1, K, d - 1), u, labels, "ce", lam)

    res = batched_arrow_newton(evaluate, _retract, w0, U, max_iter=0)
    assert res.status == [MAX_ITER, NONFINITE, MAX_ITER], res.status
    assert torch.equal(res.w.nan_to_num(), w0.nan_to_num()) and torch.equal(res.x, U)
    res = batched_arrow_newton(evaluate, _retract, w0, U, max_iter=200, gtol=1e-10)
    assert res.status == [GTOL, NONFINITE, GTOL], res.status
    assert torch.equal(res.w[1].nan_to_num(), w0[1].nan_to_num()) and torch.equal(res.x[1], U[1])
    assert res.iterations.tolist()[1] == 0 and bool((res.iterations[[0, 2]] > 0).all())
    assert float(res.stationarity[[0, 2]].max()) <= 1e-10
    torch.testing.assert_close(res.stationarity[[0, 2]], torch.sqrt(res.gw.pow(2).sum(-1) + res.gx.pow(2).sum((-2, -1)))[[0, 2]])
    assert res.converged.tolist() == [True, False, True]
