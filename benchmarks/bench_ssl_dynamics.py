"""Paper 002 (Fig. 4 left, digest §5 R8 'Runtime'): per-step cost of the eigen-coordinate ODE (12) vs projected GD
(11) on the network, across widths, and batched vs looped Riemannian GD over seeds.

* ODE step: q ← q − 2η[2Λq − Λqqᵀq − qqᵀΛq] on q ∈ R^{d×z}: independent of the width h.
* Network step: tangent step + QR retraction on (W₁, W₂) ∈ St(h, d) × St(h, z): grows with h.
* Batched: one ``step`` call on S seeds stacked, vs S calls on one seed each.
No timing assertions; the numbers are printed and stored in ``benchmark.extra_info``.

    pytest benchmarks/bench_ssl_dynamics.py --benchmark-only
    python benchmarks/bench_ssl_dynamics.py
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from theorems.core.context import Context
from theorems.optim.stiefel import haar_stiefel, step
from theorems.ssl_dynamics.trace_form import random_symmetric

D, Z, ETA, STEPS, SEEDS = 5, 2, 0.01, 50, 32
WIDTHS = (10, 100, 1000, 10000)


def _setup(h: int, seeds: int = 0):
    ctx = Context.make(seed=0)
    C = random_symmetric(ctx, [-1.5, -0.6, 0.2, 0.8, 1.4])
    batch = (seeds,) if seeds else ()
    return C, haar_stiefel(ctx, *batch, h=h, k=D), haar_stiefel(ctx, *batch, h=h, k=Z)


def network_steps(h: int) -> float:
    C, W1, W2 = _setup(h)
    start = time.perf_counter()
    for _ in range(STEPS):
        W1, W2 = step(W1, W2, C, ETA, "grassmann")
    return (time.perf_counter() - start) / STEPS


def ode_steps() -> float:
    lam = np.array([-1.5, -0.6, 0.2, 0.8, 1.4])
    q = np.full((D, Z), 0.1)
    start = time.perf_counter()
    for _ in range(STEPS):
        Lq = lam[:, None] * q
        q = q - 2 * ETA * (2 * Lq - Lq @ (q.T @ q) - q @ (q.T @ Lq))
    return (time.perf_counter() - start) / STEPS


def batched_vs_loop(h: int = 200) -> tuple[float, float]:
    C, W1, W2 = _setup(h, SEEDS)
    t0 = time.perf_counter()
    A1, A2 = W1, W2
    for _ in range(STEPS):
        A1, A2 = step(A1, A2, C, ETA, "grassmann")
    batched = time.perf_counter() - t0
    t0 = time.perf_counter()
    outs = []
    for s in range(SEEDS):
        B1, B2 = W1[s], W2[s]
        for _ in range(STEPS):
            B1, B2 = step(B1, B2, C, ETA, "grassmann")
        outs.append(B1)
    loop = time.perf_counter() - t0
    assert torch.allclose(torch.stack(outs), A1, atol=1e-10)  # same numbers either way
    return batched, loop


@pytest.mark.parametrize("h", WIDTHS)
def test_network_step_time(benchmark, h):
    benchmark.extra_info["seconds_per_step"] = benchmark.pedantic(network_steps, args=(h,), rounds=3)


def test_ode_step_time(benchmark):
    benchmark.extra_info["seconds_per_step"] = benchmark.pedantic(ode_steps, rounds=3)


def test_batched_speedup(benchmark):
    batched, loop = benchmark.pedantic(batched_vs_loop, rounds=1)
    benchmark.extra_info["speedup"] = loop / batched
    print(f"\nbatched {batched:.3f}s  loop {loop:.3f}s  speed-up {loop / batched:.1f}x")


if __name__ == "__main__":
    print(f"ODE (12) step: {ode_steps() * 1e6:.1f} µs")
    for h in WIDTHS:
        print(f"network step h={h:>6}: {network_steps(h) * 1e6:.1f} µs")
    b, lp = batched_vs_loop()
    print(f"{SEEDS} seeds, h=200: batched {b:.3f}s, loop {lp:.3f}s, speed-up {lp / b:.1f}x")
