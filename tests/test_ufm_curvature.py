"""The UFM solver's second-order certificate (neural_collapse.ufm.ufm_curvature, optim.newton.ArrowModel.matvec).

References: the dense arrow Hessian (ArrowModel.hessian, itself tested against autograd in tests/test_optim.py) and
its eigvalsh; a known saddle of the MSE UFM: W = 0 with features whose class means vanish. There the feature gradient
Wᵀg_i is 0 and the W gradient G Xᵀ = −Y Xᵀ/N is 0 (each class sums to 0), so the gradient certificate passes, while
the W–feature block g_i ⊗ T_i of the Hessian (g_i = −y_i/N ≠ 0) makes it indefinite.
"""

from __future__ import annotations

import math

import pytest
import torch

from theorems.core.context import Context
from theorems.data.frames import balanced_labels
from theorems.neural_collapse.ufm import (CURV_RTOL, best_start, riemannian_grad_norm, solve_ufm, ufm_curvature,
                                          ufm_newton_model)
from theorems.optim.curvature import arrow_curvature
from theorems.optim.manifolds import orthonormal_basis_of_ones_complement

DT = torch.float64


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_arrow_matvec_matches_dense_hessian(loss):
    g = torch.Generator().manual_seed(3)
    K, n, d, B = 3, 2, 5, 2
    N = K * n
    labels = balanced_labels(K, n, device="cpu")
    Wp = torch.randn(B, K, d - 1, generator=g, dtype=DT)
    U = torch.randn(B, N, d - 1, generator=g, dtype=DT)
    U = math.sqrt(d) * U / U.norm(dim=-1, keepdim=True)
    model = ufm_newton_model(Wp, U, labels, loss, 0.05)
    H = model.hessian()
    v = torch.randn(B, H.shape[-1], generator=g, dtype=DT)
    torch.testing.assert_close(model.matvec(v), (H @ v[..., None])[..., 0], rtol=1e-12, atol=1e-12)
    c = arrow_curvature(model, generator=torch.Generator().manual_seed(0))
    ev = torch.linalg.eigvalsh(H)
    torch.testing.assert_close(c.lam_min, ev[:, 0], rtol=1e-9, atol=1e-12)
    torch.testing.assert_close(c.lam_max, ev[:, -1], rtol=1e-9, atol=1e-12)


def test_mse_saddle_with_zero_class_means_fails_the_certificate():
    """W = 0, class means 0: stationary (the gradient certificate passes), indefinite Hessian (the certificate fails)."""
    K, n, d = 3, 2, 5
    labels = balanced_labels(K, n, device="cpu")
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    g = torch.Generator().manual_seed(1)
    u = torch.randn(K, d - 1, generator=g, dtype=DT)
    u = math.sqrt(d) * u / u.norm(dim=-1, keepdim=True)
    U = torch.cat([u, -u])[torch.argsort(torch.cat([torch.arange(K), torch.arange(K)]), stable=True)]  # ±u per class
    X = (U @ Q.T).T[None]  # (1, d, N): class k holds u_k and −u_k
    W = torch.zeros(1, K, d, dtype=DT)
    assert float(riemannian_grad_norm(W, X, labels, "mse", 0.05)) <= 1e-14
    ctx = Context.make("cpu", seed=0)
    curv = ufm_curvature(W, X, labels, "mse", 0.05, ctx)
    assert float(curv) < -CURV_RTOL


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_solver_optima_carry_a_second_order_certificate(loss):
    """Certified (inertia test) ⇒ the exact spectrum of that start, computed here independently per start, has no
    eigenvalue below −CURV_RTOL·max|λ|; the measured number is the exact one at the best start, NaN elsewhere."""
    sol = solve_ufm(loss, 3, 2, 5, 0.05, restarts=4, ctx=Context.make("cpu", seed=0))
    assert sol.min_curvature is not None and sol.first_order is not None
    assert bool(sol.converged.any())
    exact = ufm_curvature(sol.W, sol.X, sol.labels, loss, 0.05, Context.make("cpu", seed=0))  # dense at this size
    assert bool((exact[sol.converged] >= -CURV_RTOL).all())
    assert bool((sol.converged <= sol.first_order).all())
    best = best_start(sol)
    assert float(sol.min_curvature[best]) == float(exact[best])
    assert int(sol.min_curvature.isnan().sum()) == 3
    assert bool((sol.min_curvature_lower_bound <= exact).all())
