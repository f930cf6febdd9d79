"""One warm-started depth sweep of paper 004's L-RN1 (Theorem 4.3 depth trend), batched over seeds vs a loop.

The sweep (depths 2, 3, 5, 8; K=3, n=3, d0=4, d=5, CE, λ=0.05; 100 L-BFGS iterations + a 20-iteration
plateau probe per depth) is the slowest part of the suite. It is run

* batched: ``SEEDS`` initialisations trained as one batched L-BFGS problem per depth;
* loop:    the same sweep once per seed (batch of one).

Both must give a gap that never increases with depth (warm starts by identity padding) and is ≥ 0 (the
exact half of Thm 4.3). The speed-up (loop / batched) is stored in ``extra_info['speedup']``; no timing
assertion. On a GPU pass ``--device cuda`` (or set THEOREMS_DEVICE) to time it there.

A second group times the certified side of the depth results: the proof's explicit network of Theorem 4.3
(``construction.build_resnet``) built in closed form and run forward at the depths of ``theorem_4_3_depth``
(19 … 577), against the same sweep of the transformer construction; no training, so its cost is the forward
passes (Σ depths blocks).

    pytest benchmarks/bench_depth_sweep.py --benchmark-only
    python benchmarks/bench_depth_sweep.py
"""

from __future__ import annotations

import time

import torch

from theorems.core.context import Context
from theorems.data.classification import gaussian_mixture
from theorems.neural_collapse.depth_sweep import depth_sweep
from theorems.neural_collapse.models import ModelSpec, init_params
from theorems.neural_collapse.ufm import closed_form

K, N_PER_CLASS, D0, D, LAM, LOSS = 3, 3, 4, 5, 0.05, "ce"
DEPTHS = (2, 3, 5, 8)
SEEDS = 8
ITERS, PROBE = 100, 20
_MEANS: dict[str, float] = {}
_FIXTURES: dict[str, object] = {}


def _problem(seed: int = 0):
    ctx = Context.make(seed=seed)
    X0, labels = gaussian_mixture(ctx, K, N_PER_CLASS, D0)
    spec = ModelSpec("rn1", DEPTHS[0], D, K, d0=D0)
    return ctx, spec, X0, labels


def _sweep(ctx, spec, X0, labels, theta0):
    ref = closed_form(LOSS, K, D, LAM).value
    return depth_sweep(spec, ctx, X0, labels, LOSS, DEPTHS, theta0.shape[0], lambda L: (LAM, LAM), lambda _: ref,
                       max_iter=ITERS, gtol=1e-9, probe_iter=PROBE, plateau_rtol=0.05, theta0=theta0)


def run_batched():
    ctx, spec, X0, labels = _problem()
    return [_sweep(ctx, spec, X0, labels, init_params(spec, ctx, SEEDS))]


def run_loop():
    ctx, spec, X0, labels = _problem()
    theta = init_params(spec, ctx, SEEDS)  # the same initialisations, one at a time
    return [_sweep(ctx, spec, X0, labels, theta[i:i + 1]) for i in range(SEEDS)]


def _check(sweeps) -> dict:
    best = []
    for points in sweeps:
        for a, b in zip(points, points[1:], strict=False):
            assert bool((b.run.objective <= a.run.objective * (1 + 1e-12)).all())
        assert all(bool((p.gap >= 0).all()) for p in points)
        best.append([p.best_value("gap") for p in points])
    gaps = [min(g[i] for g in best) for i in range(len(DEPTHS))]
    return {"best_gap_by_depth": gaps, "depths": list(DEPTHS)}


def _info(benchmark):
    benchmark.extra_info.update(problem=f"L-RN1 K={K} n={N_PER_CLASS} d0={D0} d={D} {LOSS} lam={LAM}",
                                depths=list(DEPTHS), seeds=SEEDS, torch_threads=torch.get_num_threads(),
                                device=str(Context.make(seed=0).device))


def test_depth_sweep_batched(benchmark):
    benchmark.group = "depth-sweep"
    _info(benchmark)
    out = benchmark.pedantic(run_batched, rounds=1, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(_check(out))
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        _MEANS["batched"] = float(stats.stats.mean)
        _FIXTURES["batched"] = benchmark


def test_depth_sweep_loop(benchmark, capsys):
    benchmark.group = "depth-sweep"
    _info(benchmark)
    out = benchmark.pedantic(run_loop, rounds=1, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(_check(out))
    stats = getattr(benchmark, "stats", None)
    if stats is None or "batched" not in _MEANS:
        return
    ratio = float(stats.stats.mean) / _MEANS["batched"]
    benchmark.extra_info["speedup"] = ratio
    _FIXTURES["batched"].extra_info["speedup"] = ratio
    with capsys.disabled():
        print(f"\n[depth-sweep] loop over {SEEDS} seeds: {stats.stats.mean:.2f} s, batched: {_MEANS['batched']:.2f} s "
              f"-> speed-up {ratio:.1f}x")


CONSTRUCTION_DEPTHS = (19, 37, 73, 145, 289, 577)


def run_construction_sweep():
    """U(L) of the proof's L-RN1 at every depth of theorem_4_3_depth's default instance."""
    from theorems.neural_collapse.construction import build_resnet

    ctx = Context.make(seed=0)
    X0, labels = gaussian_mixture(ctx, 3, 2, 8)
    spec = ModelSpec("rn1", 2, 8, 3, d0=8)
    theta0 = init_params(spec, ctx, 1)
    return [build_resnet(spec.with_depth(L), theta0, X0, labels, "ce", 0.05, 0.05) for L in CONSTRUCTION_DEPTHS]


def test_construction_sweep(benchmark):
    benchmark.group = "construction"
    benchmark.extra_info.update(depths=list(CONSTRUCTION_DEPTHS), torch_threads=torch.get_num_threads())
    built = benchmark.pedantic(run_construction_sweep, rounds=1, iterations=1, warmup_rounds=0)
    excess = [b.objective - closed_form("ce", 3, 8, 0.05).value for b in built]
    assert all(b.landing_error < 1e-10 for b in built) and excess[-1] < excess[0]
    benchmark.extra_info["excess_by_depth"] = excess


def main() -> None:
    t0 = time.perf_counter()
    info = _check(run_batched())
    t_b = time.perf_counter() - t0
    t0 = time.perf_counter()
    _check(run_loop())
    t_l = time.perf_counter() - t0
    print(f"L-RN1 depth sweep {DEPTHS}, {SEEDS} seeds: batched {t_b:.2f} s, loop {t_l:.2f} s, "
          f"speed-up {t_l / t_b:.1f}x; best gap by depth {[f'{g:.2e}' for g in info['best_gap_by_depth']]}")


if __name__ == "__main__":
    main()
