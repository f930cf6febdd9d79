"""optim.newton never reports convergence it did not earn (issue 26, item 9): a solver that stalls says so, and a
stationary saddle that passes its gradient test is caught by the second-order certificate."""

from __future__ import annotations

import math

import torch

from theorems.core.context import Context
from theorems.neural_collapse.ufm import CURV_RTOL, _retract, ufm_curvature, ufm_newton_model
from theorems.optim.lbfgs import GTOL, MAX_ITER, STALLED
from theorems.optim.manifolds import orthonormal_basis_of_ones_complement
from theorems.optim.newton import batched_arrow_newton

DT = torch.float64
K, n, d, LAM = 3, 2, 5, 0.1


def _start(seed: int, B: int = 2):
    g = torch.Generator().manual_seed(seed)
    Wp = torch.randn(B, K, d - 1, generator=g, dtype=DT)
    U = torch.randn(B, K * n, d - 1, generator=g, dtype=DT)
    return Wp.reshape(B, -1), math.sqrt(d) * U / U.norm(dim=-1, keepdim=True), torch.arange(K).repeat_interleave(n)


def test_a_wrong_gradient_makes_it_stall_and_it_says_so():
    """The model's gradient is off by a constant: every predicted decrease is wrong, every trial step is rejected,
    μ grows past mu_max. The status is 'stalled', never 'gtol', and the final gradient is far above gtol."""
    w0, U, labels = _start(1)

    def lying(w, u):
        m = ufm_newton_model(w.view(-1, K, d - 1), u, labels, "ce", LAM)
        m.gw = m.gw + 1.0
        return m

    res = batched_arrow_newton(lying, _retract, w0, U, max_iter=500, gtol=1e-9)
    assert res.status == [STALLED, STALLED], res.status
    assert not bool(res.converged.any())
    assert float(res.stationarity.min()) > 1e3 * 1e-9
    assert bool((res.mu > 1e20).all())


def test_an_unreachable_tolerance_is_never_reported_as_converged():
    w0, U, labels = _start(2)
    res = batched_arrow_newton(lambda w, u: ufm_newton_model(w.view(-1, K, d - 1), u, labels, "mse", LAM), _retract,
                               w0, U, max_iter=300, gtol=0.0)
    assert all(s in (STALLED, MAX_ITER) for s in res.status), res.status
    assert not bool(res.converged.any())


def test_too_small_a_budget_is_max_iter():
    w0, U, labels = _start(3)
    res = batched_arrow_newton(lambda w, u: ufm_newton_model(w.view(-1, K, d - 1), u, labels, "ce", LAM), _retract,
                               w0, U, max_iter=2, gtol=1e-9)
    assert res.status == [MAX_ITER, MAX_ITER] and not bool(res.converged.any())


def test_a_saddle_passes_the_gradient_test_and_fails_the_curvature_test():
    """MSE UFM at W = 0 with class means 0: Newton stops at once with 'gtol' (the gradient vanishes there); the
    Riemannian Hessian is indefinite, so the second-order certificate rejects the point."""
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    g = torch.Generator().manual_seed(4)
    u = torch.randn(K, d - 1, generator=g, dtype=DT)
    u = math.sqrt(d) * u / u.norm(dim=-1, keepdim=True)
    U = torch.stack([u, -u], 1).reshape(1, K * n, d - 1)  # class k: u_k, −u_k
    labels = torch.arange(K).repeat_interleave(n)
    res = batched_arrow_newton(lambda w, x: ufm_newton_model(w.view(-1, K, d - 1), x, labels, "mse", LAM), _retract,
                               torch.zeros(1, K * (d - 1), dtype=DT), U, gtol=1e-12)
    assert res.status == [GTOL] and int(res.iterations[0]) == 0
    W, X = res.w.view(1, K, d - 1) @ Q.T, Q @ res.x.transpose(-1, -2)
    assert float(ufm_curvature(W, X, labels, "mse", LAM, Context.make("cpu", seed=0))[0]) < -CURV_RTOL
