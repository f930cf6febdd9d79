"""Batched vs looped: the Theorem-1 construction (min-norm points with certificates) and one fusion block.

Problem: 128 random unions of K=3 subspaces (r=2, m=12, ν=(4,5,6)), cone data.

* batched: one ``construct_w`` call over all 128 instances, then one batched fusion block;
* loop:    128 calls on one instance each (the same code, one instance at a time).

Both must certify every min-norm point (duality gap ≤ GAP_TOL) and give the same ρ̃; the speed-up is stored in
``benchmark.extra_info['speedup']``. No timing assertions.

    pytest benchmarks/bench_deep_fusion.py --benchmark-only
    python benchmarks/bench_deep_fusion.py
"""

from __future__ import annotations

import time

import torch

from theorems.core.context import Context
from theorems.data.subspaces import subspace_instances
from theorems.deep_fusion.fusion import fusion_block
from theorems.metrics.cluster_integrity import construct_w

B, M, K, R, SIZES = 128, 12, 3, 2, (4, 5, 6)
_MEANS: dict[str, float] = {}


def instances(seed: int = 0):
    return subspace_instances(Context.make(seed=seed), B, M, K, R, SIZES)


def run_batched(inst):
    con = construct_w(inst.X, inst.labels, inst.bases)
    fusion_block(inst.X, con.W, residual=False, normalise=True)
    return con


def run_loop(inst):
    out = []
    for b in range(inst.B):
        con = construct_w(inst.X[b:b + 1], inst.labels, inst.bases[b:b + 1])
        fusion_block(inst.X[b:b + 1], con.W, residual=False, normalise=True)
        out.append(con)
    return out


def _check(batched, looped) -> None:
    assert bool(batched.converged.all()) and all(bool(c.converged.all()) for c in looped)
    rho_loop = torch.cat([c.rho_tilde_c for c in looped])
    assert torch.allclose(batched.rho_tilde_c, rho_loop, atol=1e-10)


def test_batched(benchmark):
    inst = instances()
    benchmark.group = "deep-fusion-construction"
    con = benchmark.pedantic(run_batched, args=(inst,), rounds=3, iterations=1, warmup_rounds=1)
    _check(con, run_loop(inst))
    if getattr(benchmark, "stats", None) is not None:
        _MEANS["batched"] = float(benchmark.stats.stats.mean)


def test_loop(benchmark):
    inst = instances()
    benchmark.group = "deep-fusion-construction"
    benchmark.pedantic(run_loop, args=(inst,), rounds=1, iterations=1)
    if getattr(benchmark, "stats", None) is not None and "batched" in _MEANS:
        speedup = float(benchmark.stats.stats.mean) / _MEANS["batched"]
        benchmark.extra_info["speedup"] = speedup
        print(f"\nbatched construction speed-up over a loop of {B} instances: {speedup:.1f}x")


if __name__ == "__main__":
    inst = instances()
    t0 = time.perf_counter()
    con = run_batched(inst)
    t1 = time.perf_counter()
    looped = run_loop(inst)
    t2 = time.perf_counter()
    _check(con, looped)
    print(f"batched {t1 - t0:.3f}s, loop {t2 - t1:.3f}s, speed-up {(t2 - t1) / (t1 - t0):.1f}x over {B} instances")


# -- trained heads: S seeds as one tensor problem vs one seed at a time ----------------------------------------
HEAD_SEEDS, HEAD_STEPS = 16, 50


def _train(seeds: int, seed: int):
    from theorems.deep_fusion.head import HeadShape, train_head

    ctx = Context.make(seed=seed)
    return train_head(ctx, HeadShape(seeds, 3, 12, 2), (6, 6, 6), 2, 0.05, HEAD_STEPS, 1e-2, 0.2, "views")


def run_heads_batched():
    return _train(HEAD_SEEDS, 0)


def run_heads_loop():
    return [_train(1, s) for s in range(HEAD_SEEDS)]


def test_heads_batched(benchmark):
    benchmark.group = "deep-fusion-trained-heads"
    out = benchmark.pedantic(run_heads_batched, rounds=2, iterations=1, warmup_rounds=1)
    assert out.theta.shape[0] == HEAD_SEEDS and bool(out.loss_last.isfinite().all())
    if getattr(benchmark, "stats", None) is not None:
        _MEANS["heads_batched"] = float(benchmark.stats.stats.mean)


def test_heads_loop(benchmark):
    benchmark.group = "deep-fusion-trained-heads"
    benchmark.pedantic(run_heads_loop, rounds=1, iterations=1)
    if getattr(benchmark, "stats", None) is not None and "heads_batched" in _MEANS:
        speedup = float(benchmark.stats.stats.mean) / _MEANS["heads_batched"]
        benchmark.extra_info["speedup"] = speedup
        print(f"\nbatched training speed-up over a loop of {HEAD_SEEDS} seeds: {speedup:.1f}x")
