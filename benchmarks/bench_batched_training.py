"""Paper 001's §5 token networks: one tensor program over many networks (``token_training.train`` on
``optim.batched_sgd``) against the per-network loop (``token_training.train_each``: each network alone, in the
authors' row form, its own optimiser), on the same draws. No timing assertion: the CPU seconds of each side
(``time.process_time``, one thread, so a shared machine's waiting does not count) and their ratio go to
``benchmark.extra_info``; both sides must end on the same weights (float32 tolerance).

Cases (the authors' protocol: BatchNorm per view, ℓ2-normalised InfoNCE, τ = 0.1, d_out = 50, batch 128):

* ``grid``: a slice of the Fig. 4 grid, P ∈ {1, 3}, β ∈ {1, 2, 5}, ReLU and linear, 1 seed (12 networks), 20 steps;
* ``small``: P = 3, β = 2, ReLU and linear, 3 seeds (6 networks), 20 steps: the size of a ci replay.

Measured (this project's 2-core machine shared by 8 sessions at load ≈ 20, so absolute CPU seconds are inflated;
each ratio is of one run, after a warm-up): loop/batched ≈ 2.9–3.3× (``grid``) and 2.6–3.0× (``small``). Against the
engine it replaces (the same batching over the 2N rows of every unit, commit b006e2a; not kept in the tree), per
step of the printed protocol (batch 128) on the paper's whole β × P grid with 3 seeds: Fig. 4's ReLU and linear
with InfoNCE (96 networks) 86 vs 260 ms (3.0×, 430 s CPU for 5000 steps), Table 1's four BatchNorm variants at
ζ = 10 (192 networks) 184 vs 1178 ms (6.4×, 920 s CPU for 5000 steps).

    pytest benchmarks/bench_batched_training.py --benchmark-only -s
    python benchmarks/bench_batched_training.py
"""

from __future__ import annotations

import time

import torch

from theorems.nonlinear_cl.token_task import make_tasks
from theorems.nonlinear_cl.token_training import Model, Protocol, train, train_each

CASES = {
    "grid": dict(Ps=(1, 3), betas=(1, 2, 5), seeds=1, steps=20),
    "small": dict(Ps=(3,), betas=(2,), seeds=3, steps=20),
}


def _setup(Ps, betas, seeds, steps):
    pairs = [(s, P) for s in range(seeds) for P in Ps]
    tasks = make_tasks(torch.Generator().manual_seed(0), [P for _, P in pairs], 1.0, torch.float32, "cpu")
    models = [Model(i, b * P, a, "infonce") for i, (_, P) in enumerate(pairs) for b in betas for a in ("relu", "linear")]
    return tasks, models, Protocol(steps=steps, batch=128, lr=2e-3)


def measure(case: str) -> dict:
    tasks, models, proto = _setup(**CASES[case])
    warm = Protocol(steps=2, batch=16)  # first calls pay one-time costs (allocator, thread pool)
    train(torch.Generator().manual_seed(1), tasks, models[:2], warm, "cpu")
    train_each(torch.Generator().manual_seed(1), tasks, models[:2], warm, "cpu")
    t0 = time.process_time()
    a = train(torch.Generator().manual_seed(1), tasks, models, proto, "cpu")
    t1 = time.process_time()
    b = train_each(torch.Generator().manual_seed(1), tasks, models, proto, "cpu")
    t2 = time.process_time()
    return {"networks": len(models), "steps": proto.steps, "batched_cpu_s": t1 - t0, "loop_cpu_s": t2 - t1,
            "speedup": (t2 - t1) / (t1 - t0), "max_weight_diff": float((a.W - b.W).abs().max())}


def test_batched_grid_slice(benchmark):
    r = benchmark.pedantic(measure, args=("grid",), rounds=1)
    benchmark.extra_info.update(r)
    print(r)
    assert r["max_weight_diff"] < 1e-3


def test_batched_small(benchmark):
    r = benchmark.pedantic(measure, args=("small",), rounds=1)
    benchmark.extra_info.update(r)
    print(r)
    assert r["max_weight_diff"] < 1e-3


if __name__ == "__main__":
    for case in CASES:
        print(case, measure(case))
