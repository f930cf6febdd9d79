"""The UFM solver's second-order certificate as a proven bound (issue 29): ``optim.curvature.arrow_shift_certificate``
and ``neural_collapse.ufm.ufm_second_order`` against the dense spectrum.

Reference: the dense arrow Hessian (ArrowModel.hessian, tested against autograd in tests/test_optim.py) and its
eigvalsh, computed independently of the block Cholesky. The inertia fact the certificate rests on, "H + μI is
positive definite iff μ > −λ_min(H)", is pinned from both sides at a relative 1e-6 of λ_min. Both cases here have
fewer than UNROLL_MIN_BLOCKS blocks, so LAPACK factors them; the entry-by-entry path (q ≤ UNROLL_MAX, full batches)
is pinned the same way by tests/test_solver_speed_small_batches.py.
"""

from __future__ import annotations

import math

import pytest
import torch

import theorems.neural_collapse.ufm as ufm
from theorems.core.context import Context
from theorems.data.frames import balanced_labels
from theorems.neural_collapse.ufm import (CURV_RTOL, DENSE, INERTIA, riemannian_grad_norm, second_order_details,
                                          solve_ufm, ufm_newton_model, ufm_second_order)
from theorems.optim.curvature import arrow_column_norm, arrow_shift_certificate
from theorems.optim.manifolds import orthonormal_basis_of_ones_complement
from theorems.optim.newton import UNROLL_MAX, arrow_solve

DT = torch.float64


def _model(loss: str, K: int, n: int, d: int, B: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    Wp = torch.randn(B, K, d - 1, generator=g, dtype=DT)
    U = torch.randn(B, K * n, d - 1, generator=g, dtype=DT)
    return ufm_newton_model(Wp, math.sqrt(d) * U / U.norm(dim=-1, keepdim=True), balanced_labels(K, n, device="cpu"),
                            loss, 0.05)


@pytest.mark.parametrize("loss", ["ce", "mse"])
@pytest.mark.parametrize("K,n,d", [(3, 2, 5), (3, 2, 12)])  # q = 3 and q = 10 > UNROLL_MAX
def test_inertia_pinned_from_both_sides(loss, K, n, d):
    """Random points are indefinite: the shift μ = −λ_min(1 − 1e-6) leaves H + μI indefinite (must fail), μ =
    −λ_min(1 + 1e-6) makes it positive definite (must pass)."""
    model = _model(loss, K, n, d, 4, seed=3)
    assert (d - 2 > UNROLL_MAX) == (d == 12)
    lam_min = torch.linalg.eigvalsh(model.hessian())[:, 0]
    assert bool((lam_min < 0).all())
    for frac, want in ((1 - 1e-6, False), (1 + 1e-6, True), (0.5, False), (2.0, True)):
        _, _, ok = arrow_solve(model, -lam_min * frac)
        assert ok.tolist() == [want] * 4, frac


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_shift_is_below_rtol_times_the_true_scale_and_decides_like_the_spectrum(loss):
    """σ = rtol·ŝ with ŝ ≤ max|λ| (Ritz values lie inside the spectrum); shifting H so that λ_min sits at −σ·(1 ± 1e-3)
    of the certificate's own σ flips it. The shift by c·I leaves the Lanczos scale estimate moving with H, so σ is
    recomputed on the shifted model each time."""
    model = _model(loss, 3, 2, 5, 3, seed=5)
    ev = torch.linalg.eigvalsh(model.hessian())
    rtol = 1e-3
    _, sigma = arrow_shift_certificate(model, rtol, generator=torch.Generator().manual_seed(0))
    assert bool((sigma <= rtol * ev.abs().amax(-1) * (1 + 1e-12)).all())
    assert bool((sigma > 0).all())
    m, q = model.A.shape[-1], model.D.shape[-1]
    for frac, want in ((1 - 1e-3, True), (1 + 1e-3, False)):
        # fixed point: c such that λ_min + c = −frac·σ(c); σ(c) barely moves with c, iterate
        c = -ev[:, 0]
        for _ in range(5):
            shifted = type(model)(**{**model.__dict__, "A": model.A + c[:, None, None] * torch.eye(m, dtype=DT),
                                     "D": model.D + c[:, None, None, None] * torch.eye(q, dtype=DT)})
            _, s = arrow_shift_certificate(shifted, rtol, generator=torch.Generator().manual_seed(0))
            c = -ev[:, 0] - frac * s
        shifted = type(model)(**{**model.__dict__, "A": model.A + c[:, None, None] * torch.eye(m, dtype=DT),
                                 "D": model.D + c[:, None, None, None] * torch.eye(q, dtype=DT)})
        ok, s = arrow_shift_certificate(shifted, rtol, generator=torch.Generator().manual_seed(0))
        lam = torch.linalg.eigvalsh(shifted.hessian())[:, 0]
        torch.testing.assert_close(lam, -frac * s, rtol=1e-6, atol=0)
        assert ok.tolist() == [want] * 3, frac


def _saddle(K: int, n: int, d: int):
    """MSE, W = 0, class k holding ±u_k: stationary and indefinite (tests/test_ufm_curvature.py)."""
    labels = balanced_labels(K, n, device="cpu")
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    u = torch.randn(K, d - 1, generator=torch.Generator().manual_seed(1), dtype=DT)
    u = math.sqrt(d) * u / u.norm(dim=-1, keepdim=True)
    X = (torch.stack([u, -u], 1).reshape(K * n, d - 1) @ Q.T).T[None]
    return torch.zeros(1, K, d, dtype=DT), X, labels


@pytest.mark.parametrize("dense_max", [0, 10**6])
def test_saddle_is_never_certified_and_its_bound_is_true(dense_max, monkeypatch):
    monkeypatch.setattr(ufm, "DENSE_CURV_MAX", dense_max)
    W, X, labels = _saddle(3, 2, 5)
    assert float(riemannian_grad_norm(W, X, labels, "mse", 0.05)) <= 1e-14
    ev = ufm_second_order(W, X, labels, "mse", 0.05, Context.make("cpu", seed=0))
    assert ev.method == (INERTIA if dense_max == 0 else DENSE)
    assert not bool(ev.certified[0])
    assert float(ev.lower_bound[0]) < -CURV_RTOL
    if dense_max == 0:  # nothing proven: the trivial bound λ_min/max|λ| ≥ −1, not an invented sharper or looser one
        assert float(ev.lower_bound[0]) == -1.0


@pytest.mark.parametrize("dense_max,method", [(30, DENSE), (29, INERTIA)])
def test_dense_limit_is_inclusive(dense_max, method, monkeypatch):
    """K=3 n=2 d=5 has tangent dimension 3·4 + 6·3 = 30: dense up to and including DENSE_CURV_MAX."""
    monkeypatch.setattr(ufm, "DENSE_CURV_MAX", dense_max)
    W, X, labels = _saddle(3, 2, 5)
    assert ufm_second_order(W, X, labels, "mse", 0.05, Context.make("cpu", seed=0)).method == method


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_bound_never_exceeds_the_exact_ratio_on_either_path(loss, monkeypatch):
    """On solver end points (certified) and random points (mostly not): lower bound ≤ exact λ_min/max|λ|, and certified
    ⇒ exact ratio ≥ −CURV_RTOL, on the dense path and on the inertia path (forced at this size)."""
    K, n, d = 3, 2, 5
    sol = solve_ufm(loss, K, n, d, 0.05, restarts=4, ctx=Context.make("cpu", seed=0))
    m = _model(loss, K, n, d, 4, seed=7)
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    Wr = torch.randn(4, K, d - 1, generator=torch.Generator().manual_seed(2), dtype=DT)
    Ur = m.a  # random points on the spheres
    W = torch.cat([sol.W, Wr @ Q.T])
    X = torch.cat([sol.X, Q @ Ur.transpose(-1, -2)])
    ctx = Context.make("cpu", seed=0)
    exact = ufm_second_order(W, X, sol.labels, loss, 0.05, ctx)
    assert exact.method == DENSE
    assert bool((exact.lower_bound <= exact.min_curvature).all())
    monkeypatch.setattr(ufm, "DENSE_CURV_MAX", 0)
    inertia = ufm_second_order(W, X, sol.labels, loss, 0.05, ctx)
    assert inertia.method == INERTIA and bool(inertia.min_curvature.isnan().all())
    assert bool((inertia.lower_bound <= exact.min_curvature).all())
    assert bool((exact.min_curvature[inertia.certified] >= -CURV_RTOL).all())
    assert bool(inertia.certified[:4].all()) and not bool(inertia.certified[4:].all())
    assert bool((inertia.lower_bound[~inertia.certified] == -1.0).all())


def test_solver_beyond_the_dense_size_reports_bound_and_measurement(monkeypatch):
    monkeypatch.setattr(ufm, "DENSE_CURV_MAX", 0)
    sol = solve_ufm("ce", 3, 2, 5, 0.05, restarts=3, ctx=Context.make("cpu", seed=0))
    assert sol.curvature_method == INERTIA and bool(sol.converged.all())
    best = ufm.best_start(sol)
    measured = sol.min_curvature.clone()
    assert math.isfinite(float(measured[best])) and int(measured.isnan().sum()) == 2
    assert float(measured[best]) >= float(sol.min_curvature_lower_bound[best]) == -CURV_RTOL
    det = second_order_details(sol, best)
    assert det["best_min_curvature_lower_bound"] == -CURV_RTOL and "proven by inertia" in det["best_second_order"]


def test_details_never_call_an_uncertified_start_proven():
    W, X, labels = _saddle(3, 2, 5)
    sol = solve_ufm("mse", 3, 2, 5, 0.05, restarts=2, ctx=Context.make("cpu", seed=0))
    ev = ufm_second_order(W, X, labels, "mse", 0.05, Context.make("cpu", seed=0))
    sol.min_curvature_lower_bound, sol.min_curvature = ev.lower_bound.expand(2), ev.min_curvature.expand(2)
    det = second_order_details(sol, 0)
    assert det["best_second_order"].startswith("not certified")


@pytest.mark.parametrize("loss,d", [("ce", 5), ("mse", 5), ("ce", 12)])
def test_column_norm_scale_is_the_dense_one(loss, d):
    model = _model(loss, 3, 2, d, 3, seed=9)
    H = model.hessian()
    torch.testing.assert_close(arrow_column_norm(model), H.norm(dim=-2).amax(-1), rtol=1e-12, atol=0)


def test_column_norm_scale_is_below_the_spectral_scale_and_pins_the_inertia():
    """scale_iters=0: ŝ = max_j ‖H e_j‖ ≤ max|λ| (so σ ≤ rtol·max|λ|), and shifting H so that λ_min sits at −σ·(1 ± 1e-3)
    flips the certificate (H + cI moves the diagonal with it: σ recomputed on the shifted model)."""
    model = _model("ce", 3, 2, 5, 3, seed=5)
    ev = torch.linalg.eigvalsh(model.hessian())
    rtol = 1e-3
    _, sigma = arrow_shift_certificate(model, rtol, scale_iters=0)
    torch.testing.assert_close(sigma, rtol * model.hessian().norm(dim=-2).amax(-1), rtol=1e-12, atol=0)
    assert bool((sigma <= rtol * ev.abs().amax(-1) * (1 + 1e-12)).all()) and bool((sigma > 0).all())
    m, q = model.A.shape[-1], model.D.shape[-1]

    def shifted(c):
        return type(model)(**{**model.__dict__, "A": model.A + c[:, None, None] * torch.eye(m, dtype=DT),
                              "D": model.D + c[:, None, None, None] * torch.eye(q, dtype=DT)})

    for frac, want in ((1 - 1e-3, True), (1 + 1e-3, False)):
        c = -ev[:, 0]
        for _ in range(8):
            c = -ev[:, 0] - frac * arrow_shift_certificate(shifted(c), rtol, scale_iters=0)[1]
        ok, s = arrow_shift_certificate(shifted(c), rtol, scale_iters=0)
        torch.testing.assert_close(torch.linalg.eigvalsh(shifted(c).hessian())[:, 0], -frac * s, rtol=1e-6, atol=0)
        assert ok.tolist() == [want] * 3, frac


def test_solver_path_at_dense_size_rejects_the_saddle():
    """What solve_ufm runs at every start (spectra=False): inertia with the column-norm scale, even below DENSE_CURV_MAX."""
    W, X, labels = _saddle(3, 2, 5)
    ev = ufm_second_order(W, X, labels, "mse", 0.05, Context.make("cpu", seed=0), spectra=False)
    assert ev.method == INERTIA and not bool(ev.certified[0]) and float(ev.lower_bound[0]) == -1.0


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_solver_reports_the_exact_number_and_bound_at_the_best_start(loss):
    sol = solve_ufm(loss, 3, 2, 5, 0.05, restarts=3, ctx=Context.make("cpu", seed=0))
    assert sol.curvature_method == ufm.INERTIA_BEST_DENSE and bool(sol.converged.all())
    best = ufm.best_start(sol)
    exact = ufm_second_order(sol.W, sol.X, sol.labels, loss, 0.05, Context.make("cpu", seed=0))  # every spectrum
    assert exact.method == DENSE
    assert float(sol.min_curvature[best]) == float(exact.min_curvature[best])
    assert float(sol.min_curvature_lower_bound[best]) == float(exact.lower_bound[best]) > -CURV_RTOL
    others = torch.arange(3) != best
    assert bool((sol.min_curvature_lower_bound[others] == -CURV_RTOL).all())
    assert "proven by inertia" in second_order_details(sol, best)["best_second_order"]
