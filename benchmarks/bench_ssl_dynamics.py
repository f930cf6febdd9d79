"""Paper 002: the batched integrators and reduced coordinates against what a user would otherwise write.

1. ``test_batched_ode_vs_scipy_loop``: ODE (9) for B random instances (Λ, q₀) to T = 3 at rtol 1e-11 — a loop of
   ``scipy.integrate.solve_ivp(method="DOP853")`` calls against one ``optim.ode.integrate_batched`` call (the same
   method and step control, one step size for the batch), on numpy and on torch. Same numbers to 1e-8.
2. ``test_theorem3_starts_vs_scipy_loop``: (10) from R starting points over a long horizon (the slow rate of a nearly
   repeated λ₁), as Theorem 3's check runs them.
3. ``test_figure3_reduced_vs_full_width``: Figure 3's schemes (polar-projected GD, Riemannian GD, eq. (12)) at
   h ∈ {10, 100, 1000} × 4 initialisations × {η, 2η}: a loop over widths, initialisations and step sizes of
   full-width torch steps (what the old check did) against one batched numpy loop in the (d + z)-dimensional span of
   the starting columns (exact: ``tests/test_ssl_dynamics_machinery.py`` replays it).
4. Figure 4 (left) of the paper: per-step time of (12) (independent of h) against a network step (grows with h).
No timing is asserted; the ratios are printed and stored in ``benchmark.extra_info``.

    pytest benchmarks/bench_ssl_dynamics.py --benchmark-only -s
    python benchmarks/bench_ssl_dynamics.py

Measured on the shared 2-core development machine under load (numbers vary ±30 % between runs), one torch thread:
see the printed table; the report of issue 17 lists the figures of the run it quotes.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from theorems.core.context import Context
from theorems.optim.ode import integrate, integrate_batched, rhs_theorem2, rhs_theorem3
from theorems.optim.stiefel import haar_stiefel, mT, reduce_to_span, step
from theorems.ssl_dynamics.trace_form import random_symmetric

B, D, Z, T = 256, 4, 2, 3.0
ETA, STEPS = 0.01, 50
WIDTHS = (10, 100, 1000, 10000)


def _instances(b: int = B):
    rng = np.random.default_rng(0)
    lam = np.sort(rng.uniform(-2, 2, (b, D)), axis=1)
    q0 = rng.normal(size=(b, D, Z))
    return lam, 0.5 * q0 / np.linalg.norm(q0, ord=2, axis=(1, 2), keepdims=True)


def scipy_loop(lam, q0, t):
    return np.stack([integrate(lambda v, lb=lam[i]: rhs_theorem2(lb, v), q0[i], t).y for i in range(len(lam))], 1)


def batched(lam, q0, t, backend="numpy"):
    if backend == "torch":
        L, Q = torch.tensor(lam), torch.tensor(q0)
        return integrate_batched(lambda v: rhs_theorem2(L, v), Q, T, t_eval=t).y.numpy()
    return integrate_batched(lambda v: rhs_theorem2(lam, v), q0, T, t_eval=t).y


def ode_comparison(b: int = B) -> dict:
    lam, q0 = _instances(b)
    t = np.linspace(0, T, 31)
    out = {}
    for name, fn in (("scipy loop", lambda: scipy_loop(lam, q0, t)), ("batched numpy", lambda: batched(lam, q0, t)),
                     ("batched torch", lambda: batched(lam, q0, t, "torch"))):
        t0 = time.perf_counter()
        y = fn()
        out[name] = (time.perf_counter() - t0, y)
    ref = out["scipy loop"][1]
    assert all(np.abs(v[1] - ref).max() < 1e-8 for v in out.values())
    return {k: v[0] for k, v in out.items()}


def theorem3_comparison(R: int = 64) -> dict:
    lam = np.array([-1.0, -0.9, 0.5, 2.0])
    rng = np.random.default_rng(1)
    q0 = rng.normal(size=(R, 4))
    q0 = 0.5 * q0 / np.linalg.norm(q0, axis=1, keepdims=True)
    horizon = 150.0
    t0 = time.perf_counter()
    for r in range(R):
        integrate(lambda v: rhs_theorem3(lam, v), q0[r], np.array([0.0, horizon]), rtol=1e-11, atol=1e-14)
    loop = time.perf_counter() - t0
    t0 = time.perf_counter()
    integrate_batched(lambda v: rhs_theorem3(lam, v), q0, horizon, rtol=1e-11, atol=1e-14)
    return {"scipy loop": loop, "batched numpy": time.perf_counter() - t0}


def figure3_comparison(steps: int = 300) -> dict:
    ctx = Context.make(seed=0)
    C = random_symmetric(ctx, [-0.93, -0.17])
    lam, V = torch.linalg.eigh(C)
    starts = [(haar_stiefel(ctx, 4, h=h, k=2), haar_stiefel(ctx, 4, h=h, k=1)) for h in (10, 100, 1000)]
    t0 = time.perf_counter()  # what the old check did: one full-width torch run per width, seed, step size, scheme
    for W1, W2 in starts:
        for s in range(4):
            for eta in (ETA, 2 * ETA):
                for scheme in ("stiefel", "grassmann"):
                    A1, A2 = W1[s], W2[s]
                    for _ in range(steps):
                        A1, A2 = step(A1, A2, C, eta, scheme)
    loop = time.perf_counter() - t0
    t0 = time.perf_counter()  # one batched numpy loop in the span of the starting columns
    Y1 = np.concatenate([reduce_to_span(W1.numpy(), W2.numpy())[1] for W1, W2 in starts])
    Y2 = np.concatenate([reduce_to_span(W1.numpy(), W2.numpy())[2] for W1, W2 in starts])
    Cn, lam_n = C.numpy(), lam.numpy()
    eta = ETA * np.repeat([1.0, 2.0], len(Y1))[:, None, None]
    runs = {k: (np.concatenate([Y1, Y1]), np.concatenate([Y2, Y2])) for k in ("stiefel", "grassmann")}
    q = np.einsum("bkz,bkd,de->bez", runs["grassmann"][1], runs["grassmann"][0], V.numpy())
    for _ in range(steps):
        for scheme, (A1, A2) in runs.items():
            runs[scheme] = step(A1, A2, Cn, eta, scheme)
        Lq = lam_n[:, None] * q
        q = q - 2 * eta * (2 * Lq - Lq @ (mT(q) @ q) - q @ (mT(q) @ Lq))
    return {"full-width loop": loop, "reduced batch": time.perf_counter() - t0}


def network_steps(h: int) -> float:
    ctx = Context.make(seed=0)
    C = random_symmetric(ctx, [-1.5, -0.6, 0.2, 0.8, 1.4])
    W1, W2 = haar_stiefel(ctx, h=h, k=5), haar_stiefel(ctx, h=h, k=Z)
    start = time.perf_counter()
    for _ in range(STEPS):
        W1, W2 = step(W1, W2, C, ETA, "grassmann")
    return (time.perf_counter() - start) / STEPS


def ode_steps() -> float:
    lam = np.array([-1.5, -0.6, 0.2, 0.8, 1.4])
    q = np.full((5, Z), 0.1)
    start = time.perf_counter()
    for _ in range(STEPS):
        Lq = lam[:, None] * q
        q = q - 2 * ETA * (2 * Lq - Lq @ (q.T @ q) - q @ (q.T @ Lq))
    return (time.perf_counter() - start) / STEPS


def _report(name: str, times: dict, benchmark=None) -> None:
    base = next(iter(times.values()))
    line = ", ".join(f"{k} {v:.3f}s ({base / v:.1f}x)" for k, v in times.items())
    print(f"\n{name}: {line}")
    if benchmark is not None:
        benchmark.extra_info.update({k: v for k, v in times.items()})


@pytest.fixture(autouse=True)
def _one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def test_batched_ode_vs_scipy_loop(benchmark):
    _report(f"ODE (9), {B} instances", benchmark.pedantic(ode_comparison, rounds=1), benchmark)


def test_theorem3_starts_vs_scipy_loop(benchmark):
    _report("ODE (10), 64 starts, T = 150", benchmark.pedantic(theorem3_comparison, rounds=1), benchmark)


def test_figure3_reduced_vs_full_width(benchmark):
    _report("Figure 3 schemes, 300 steps", benchmark.pedantic(figure3_comparison, rounds=1), benchmark)


@pytest.mark.parametrize("h", WIDTHS)
def test_network_step_time(benchmark, h):
    benchmark.extra_info["seconds_per_step"] = benchmark.pedantic(network_steps, args=(h,), rounds=3)


def test_ode_step_time(benchmark):
    benchmark.extra_info["seconds_per_step"] = benchmark.pedantic(ode_steps, rounds=3)


if __name__ == "__main__":
    torch.set_num_threads(1)
    _report(f"ODE (9), {B} instances", ode_comparison())
    _report("ODE (10), 64 starts, T = 150", theorem3_comparison())
    _report("Figure 3 schemes, 300 steps", figure3_comparison())
    print(f"ODE (12) step: {ode_steps() * 1e6:.1f} µs")
    for h in WIDTHS:
        print(f"network step h={h:>6}: {network_steps(h) * 1e6:.1f} µs")
