"""The UFM solver's scaling machinery (issue 29): each fast path against the plain computation it replaces.

* the Gram-form Schur complement (large K·d) against forming F, and the whole arrow solve against a dense solve;
* restarts solved in chunks against one batch (same starts, same per-instance arithmetic);
* the dense (eigvalsh) curvature certificate against Lanczos, and both against a known saddle;
* float32 iterations + float64 polish: a stalled or starved run is never reported converged, and the answers are the
  float64 solver's optima.
"""

from __future__ import annotations

import math

import pytest
import torch

import theorems.neural_collapse.ufm as ufm
import theorems.optim.newton as newton
from theorems.core.context import Context
from theorems.data.frames import balanced_labels
from theorems.neural_collapse.ufm import (CURV_RTOL, _retract, closed_form, solve_ufm, ufm_curvature,
                                          ufm_newton_model)
from theorems.optim.lbfgs import GTOL, MAX_ITER, STALLED
from theorems.optim.manifolds import orthonormal_basis_of_ones_complement
from theorems.optim.newton import NewtonResult, arrow_solve, mixed_precision_newton, schur_complement

DT = torch.float64


def _point(K: int, n: int, d: int, B: int, seed: int, dtype=DT):
    g = torch.Generator().manual_seed(seed)
    Wp = torch.randn(B, K, d - 1, generator=g, dtype=DT)
    U = torch.randn(B, K * n, d - 1, generator=g, dtype=DT)
    U = math.sqrt(d) * U / U.norm(dim=-1, keepdim=True)
    return Wp.to(dtype), U.to(dtype), balanced_labels(K, n, device="cpu")


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_gram_form_schur_equals_formed_f_and_dense_solve(loss, monkeypatch):
    """K=10, d=12: the size rule picks the Gram form; forcing either branch gives the same S, and the arrow solve
    with the Gram form equals a dense solve of (H + μI)s = −g."""
    K, n, d, B = 10, 2, 12, 3
    Wp, U, labels = _point(K, n, d, B, seed=5)
    model = ufm_newton_model(Wp, U, labels, loss, 0.05)
    H = model.hessian()
    mu = torch.linalg.eigvalsh(H)[:, 0].abs() + 0.2
    Lx, _ = newton.block_cholesky(model.D + mu[:, None, None, None] * torch.eye(d - 2, dtype=DT))
    R = newton._forward(Lx, torch.cat([model.P, model.Q], dim=-1))
    alpha, beta = R[..., :K].contiguous(), R[..., K:].contiguous()
    monkeypatch.setattr(newton, "GRAM_OVERHEAD", 0)  # Gram form always
    S_gram = schur_complement(model, alpha, beta, mu)
    monkeypatch.setattr(newton, "GRAM_OVERHEAD", 1e12)  # F formed always
    S_f = schur_complement(model, alpha, beta, mu)
    torch.testing.assert_close(S_gram, S_f, rtol=1e-11, atol=1e-12)
    monkeypatch.undo()
    sw, sx, ok = arrow_solve(model, mu)
    assert bool(ok.all())
    g = torch.cat([model.gw, model.gx.reshape(B, -1)], dim=1)
    s_ref = torch.linalg.solve(H + mu[:, None, None] * torch.eye(H.shape[-1], dtype=DT), -g)
    torch.testing.assert_close(torch.cat([sw, sx.reshape(B, -1)], dim=1), s_ref, rtol=1e-9, atol=1e-11)


def test_size_rule_picks_each_form_where_measured():
    """The flop rule: formed F at Lemma 4.2's default (K=4, d=6), the Gram form at K=10, d=32."""
    def gram(K, d):
        p, q = d - 1, d - 2
        return 2 * q * K * K * p * p > newton.GRAM_OVERHEAD * (q * (K + p) ** 2 + 6 * K * K * p * p)
    assert not gram(4, 6) and not gram(4, 10) and gram(10, 32) and gram(10, 12)


def test_chunked_restarts_equal_one_batch(monkeypatch):
    """Chunks of one restart each against one batch of 6: same iterates, statuses and certificates; counts summed."""
    args = ("ce", 3, 2, 5, 0.05)
    whole = solve_ufm(*args, restarts=6, ctx=Context.make("cpu", seed=3))
    monkeypatch.setattr(ufm, "CHUNK_FLOATS", 1)
    assert len(ufm._chunks(6, ufm._model_floats(3, 6, 5))) == 6
    chunked = solve_ufm(*args, restarts=6, ctx=Context.make("cpu", seed=3))
    torch.testing.assert_close(chunked.W, whole.W, rtol=0, atol=1e-12)
    torch.testing.assert_close(chunked.X, whole.X, rtol=0, atol=1e-12)
    assert chunked.status == whole.status and torch.equal(chunked.converged, whole.converged)
    assert torch.equal(chunked.iterations, whole.iterations)
    assert chunked.raw.evaluations > whole.raw.evaluations  # one batched call per chunk and iteration


def test_newton_result_concat_keeps_rows_in_order():
    w0, U, labels = _point(3, 2, 5, 4, seed=8)
    ev = lambda w, u: ufm_newton_model(w.view(-1, 3, 4), u, labels, "ce", 0.1)  # noqa: E731
    parts = [newton.batched_arrow_newton(ev, _retract, w0.reshape(4, -1)[s], U[s], max_iter=50) for s in
             (slice(0, 1), slice(1, 4))]
    both = NewtonResult.concat(parts)
    whole = newton.batched_arrow_newton(ev, _retract, w0.reshape(4, -1), U, max_iter=50)
    assert both.status == whole.status and both.w.shape == whole.w.shape
    torch.testing.assert_close(both.w, whole.w, rtol=0, atol=1e-12)
    assert both.evaluations == parts[0].evaluations + parts[1].evaluations


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_dense_certificate_equals_lanczos(loss, monkeypatch):
    """Tangent dimension 4·4 + 6·3 = 34 ≤ CURV_ITERS: Lanczos runs to the full dimension and is exact, so the two
    paths must agree to rounding at random (indefinite) points."""
    K, n, d = 4, 2, 5
    Wp, U, labels = _point(K, n, d, 5, seed=11)
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    W, X = Wp @ Q.T, Q @ U.transpose(-1, -2)
    dense = ufm_curvature(W, X, labels, loss, 0.05, Context.make("cpu", seed=0))
    monkeypatch.setattr(ufm, "DENSE_CURV_MAX", 0)
    lanczos = ufm_curvature(W, X, labels, loss, 0.05, Context.make("cpu", seed=0))
    torch.testing.assert_close(dense, lanczos, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("dense_max", [0, 10**6])
def test_both_certificate_paths_reject_the_zero_class_mean_saddle(dense_max, monkeypatch):
    """MSE, W = 0, each class holding ±u_k: stationary, indefinite (tests/test_ufm_curvature.py); both paths fail it."""
    monkeypatch.setattr(ufm, "DENSE_CURV_MAX", dense_max)
    K, n, d = 3, 2, 5
    labels = balanced_labels(K, n, device="cpu")
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    u = torch.randn(K, d - 1, generator=torch.Generator().manual_seed(1), dtype=DT)
    u = math.sqrt(d) * u / u.norm(dim=-1, keepdim=True)
    X = (torch.stack([u, -u], 1).reshape(K * n, d - 1) @ Q.T).T[None]
    curv = ufm_curvature(torch.zeros(1, K, d, dtype=DT), X, labels, "mse", 0.05, Context.make("cpu", seed=0))
    assert float(curv[0]) < -CURV_RTOL


def _evaluate(loss, K, d, labels, lam=0.1):
    return lambda w, u: ufm_newton_model(w.view(-1, K, d - 1), u, labels, loss, lam)


def test_mixed_precision_never_certifies_a_stall():
    """A model with a wrong gradient at every precision: both stages stall; the status is the float64 stage's,
    'stalled', never 'gtol'."""
    K, d = 3, 5
    Wp, U, labels = _point(K, 2, d, 2, seed=1)

    def lying(w, u):
        m = _evaluate("ce", K, d, labels)(w, u)
        m.gw = m.gw + 1.0
        return m

    res = mixed_precision_newton(lying, _retract, Wp.reshape(2, -1), U, max_iter=500, gtol=1e-9)
    assert res.status == [STALLED, STALLED] and not bool(res.converged.any())
    assert float(res.stationarity.min()) > 1e-6


def test_mixed_precision_budget_and_unreachable_tolerance():
    K, d = 3, 5
    Wp, U, labels = _point(K, 2, d, 2, seed=2)
    ev = _evaluate("mse", K, d, labels)
    res = mixed_precision_newton(ev, _retract, Wp.reshape(2, -1), U, max_iter=300, gtol=0.0)
    assert all(s in (STALLED, MAX_ITER) for s in res.status) and not bool(res.converged.any())
    assert int(res.iterations.max()) <= 300  # the two stages share the budget
    res = mixed_precision_newton(ev, _retract, Wp.reshape(2, -1), U, max_iter=4, gtol=1e-9)
    assert res.status == [MAX_ITER, MAX_ITER] and int(res.iterations.max()) <= 4
    # starts that need different float32 counts: the polish budget is what the slowest start left
    res = mixed_precision_newton(ev, _retract, Wp.reshape(2, -1), U, max_iter=14, gtol=1e-9)
    assert int(res.iterations.max()) <= 14
    res = mixed_precision_newton(ev, _retract, Wp.reshape(2, -1), U, max_iter=1, gtol=1e-9)
    assert res.w.dtype == DT and int(res.iterations.max()) <= 1


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_mixed_precision_reaches_the_float64_optima(loss):
    """Same starts, float64-only Newton vs float32 + polish: every start certified by both, values equal to the
    float64 run's to 1e-12 relative and to the closed-form L* on the best start."""
    K, n, d, lam, R = 4, 3, 6, 0.05, 12
    ctx = Context.make("cpu", seed=4)
    labels = balanced_labels(K, n, device="cpu")
    W0, V0 = ctx.randn(R, K * d), ctx.randn(R, d * K * n)
    Q = orthonormal_basis_of_ones_complement(d, dtype=DT, device="cpu")
    from theorems.optim.manifolds import ln
    w0 = (W0.view(R, K, d) @ Q).reshape(R, -1)
    u0 = ln(V0.view(R, d, K * n)).transpose(-1, -2) @ Q
    ev = _evaluate(loss, K, d, labels, lam)
    ref = newton.batched_arrow_newton(ev, _retract, w0, u0, max_iter=3000, gtol=1e-9)
    mix = mixed_precision_newton(ev, _retract, w0, u0, max_iter=3000, gtol=1e-9)
    assert ref.status == [GTOL] * R and mix.status == [GTOL] * R
    assert float(mix.stationarity.max()) <= 1e-9
    # the float32 stage does the global phase, the float64 one only Newton's local steps from gradient 1e-4 to 1e-9
    assert int(mix.polish_iterations.max()) <= 4 < int(ref.iterations.max())
    assert torch.equal(mix.iterations - mix.polish_iterations > 0, torch.ones(R, dtype=torch.bool))
    # the same optimum per start where both runs reach the global one (a start may end in another basin)
    target = closed_form(loss, K, d, lam).value
    both = (ref.f <= target * (1 + 1e-9)) & (mix.f <= target * (1 + 1e-9))
    assert int(both.sum()) >= R // 2
    assert float(mix.f.min()) / target - 1 <= 1e-12


def test_solver_runs_on_one_thread_and_restores_the_callers_count(monkeypatch):
    """solve_ufm is pinned to one intra-op thread (an unpinned solve oversubscribed a shared machine ~10×) and gives
    the caller its thread count back; the numbers do not depend on the caller's count."""
    import theorems.neural_collapse.ufm as ufm
    seen = []
    real = ufm.mixed_precision_newton

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(ufm, "mixed_precision_newton", spy)
    previous = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        two = solve_ufm("ce", 3, 2, 5, 0.05, restarts=2, ctx=Context.make("cpu", seed=0))
        assert torch.get_num_threads() == 2
        torch.set_num_threads(1)
        one = solve_ufm("ce", 3, 2, 5, 0.05, restarts=2, ctx=Context.make("cpu", seed=0))
    finally:
        torch.set_num_threads(previous)
    assert seen == [1, 1]
    assert torch.equal(two.values, one.values) and torch.equal(two.W, one.W)
