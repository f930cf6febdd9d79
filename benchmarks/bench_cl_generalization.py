"""Batched models vs a Python loop: the trainers of paper 003's encoders.

The trained-encoder checks of paper 003 train many independent MLPs on exact population losses as one batched
tensor problem: seeds of one loss (``train_infonce(..., seeds=S)``), and for the experiments E3/E4 every
(population, loss, seed) triple at once (``train_encoders(pops, ..., specs, seeds)``, with the losses of a kind
evaluated together, τ, λ and n per model). This measures both against the same models trained one call at a
time. Every variant must lower every model's loss; there are no timing assertions.

    pytest benchmarks/bench_cl_generalization.py -s     # prints the speed-ups
    python benchmarks/bench_cl_generalization.py
"""

from __future__ import annotations

import time

import torch

from theorems.cl_generalization.encoders import LossSpec, train_encoders, train_infonce
from theorems.core.context import Context
from theorems.data.finite_population import nuisance_block_population, style_content_population

SEEDS, STEPS = 8, 60
# E4's grid: two augmentation strengths, SimCLR at three temperatures and the revised loss, three seeds.
SPECS = [LossSpec("simclr", 1.0, negatives=16), LossSpec("simclr", 0.5, negatives=16),
         LossSpec("revised", 0.2, lam=1.0, negatives=16), LossSpec("simclr", 0.2, negatives=16)]


def _population():
    return style_content_population(Context.make(seed=0), [10, 10], 4, 0.5)


def _grid_populations():
    return [nuisance_block_population(Context.make(seed=0), [12, 12], 2, [1.0, 0.5, 1.5, 3.0, 0.6],
                                      [0, 1, 2, 3, 4], strength=s) for s in (0.6, 1.0)]


def run_batched():
    return [train_infonce(_population(), Context.make(seed=1), seeds=SEEDS, d=8, steps=STEPS)[2]]


def run_loop():
    return [train_infonce(_population(), Context.make(seed=100 + i), seeds=1, d=8, steps=STEPS)[2]
            for i in range(SEEDS)]


def run_grid_batched():
    return [train_encoders(_grid_populations(), Context.make(seed=1), SPECS, seeds=3, steps=STEPS).record]


def run_grid_loop():
    return [train_encoders(pop, Context.make(seed=100 + i), [spec], seeds=1, steps=STEPS).record
            for pop in _grid_populations() for spec in SPECS for i in range(3)]


def measure() -> dict:
    train_infonce(_population(), Context.make(seed=0), seeds=1, d=8, steps=2)  # warm-up: torch's lazy init
    out = {}
    for name, fn in (("batched", run_batched), ("loop", run_loop), ("grid_batched", run_grid_batched),
                     ("grid_loop", run_grid_loop)):
        start = time.perf_counter()
        records = fn()
        out[name] = time.perf_counter() - start
        assert all(bool((r.losses < r.initial).all()) for r in records)
    out["speedup"] = out["loop"] / out["batched"]
    out["grid_speedup"] = out["grid_loop"] / out["grid_batched"]
    return out


def test_batched_training_speedup():
    torch.set_num_threads(1)  # one core per process, as the report's workers run
    result = measure()
    print(f"\nInfoNCE training, {SEEDS} seeds x {STEPS} steps: batched {result['batched']:.2f}s, "
          f"loop {result['loop']:.2f}s, speed-up {result['speedup']:.2f}x")
    print(f"E4 grid (2 populations x 4 losses x 3 seeds) x {STEPS} steps: batched {result['grid_batched']:.2f}s, "
          f"loop {result['grid_loop']:.2f}s, speed-up {result['grid_speedup']:.2f}x")


if __name__ == "__main__":
    test_batched_training_speedup()
