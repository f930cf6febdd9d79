"""Batched seeds vs a Python loop of single seeds: InfoNCE training of paper 003's MLP encoders.

The trained-encoder checks of paper 003 train S independent MLPs on the exact population InfoNCE as one batched
tensor problem (``train_infonce(..., seeds=S)``). This measures the speed-up against S calls with ``seeds=1`` on
the same style–content population (20 points, 4 views). Both variants must lower every seed's loss; there are no
timing assertions.

    pytest benchmarks/bench_cl_generalization.py -s     # prints the speed-up
    python benchmarks/bench_cl_generalization.py
"""

from __future__ import annotations

import time

from theorems.cl_generalization.encoders import train_infonce
from theorems.core.context import Context
from theorems.data.finite_population import style_content_population

SEEDS, STEPS = 8, 60


def _population():
    return style_content_population(Context.make(seed=0), [10, 10], 4, 0.5)


def run_batched():
    return [train_infonce(_population(), Context.make(seed=1), seeds=SEEDS, d=8, steps=STEPS)[2]]


def run_loop():
    return [train_infonce(_population(), Context.make(seed=100 + i), seeds=1, d=8, steps=STEPS)[2]
            for i in range(SEEDS)]


def measure() -> dict:
    train_infonce(_population(), Context.make(seed=0), seeds=1, d=8, steps=2)  # warm-up: torch's lazy init
    out = {}
    for name, fn in (("batched", run_batched), ("loop", run_loop)):
        start = time.perf_counter()
        records = fn()
        out[name] = time.perf_counter() - start
        assert all(bool((r.losses < r.initial).all()) for r in records)
    out["speedup"] = out["loop"] / out["batched"]
    return out


def test_batched_training_speedup():
    result = measure()
    print(f"\nInfoNCE training, {SEEDS} seeds x {STEPS} steps: batched {result['batched']:.2f}s, "
          f"loop {result['loop']:.2f}s, speed-up {result['speedup']:.2f}x")


if __name__ == "__main__":
    test_batched_training_speedup()
