"""Batched restarts vs a Python loop of single restarts, on one UFM instance.

The suite's speed rests on optimising many instances as one batched tensor problem (DESIGN.md,
'Numerics'). This measures it on the main instance of paper 004's Lemma 4.2: UFM-CE with K=4, n=3,
d=6, λ=0.05, 64 random restarts,

* batched: one ``solve_ufm(..., restarts=64)`` call (one batched L-BFGS run over all 64 restarts);
* loop:    64 calls ``solve_ufm(..., restarts=1)``, one seed each (the same optimiser, one start at a time).

Both must converge (every restart certifies 'gtol' and the best value equals the closed form); the
speed-up (loop time / batched time) is stored in ``benchmark.extra_info['speedup']`` and printed.
There are no timing assertions.

    pytest benchmarks/ --benchmark-only          # pytest-benchmark table + the printed speed-up
    python benchmarks/bench_ufm_batching.py      # plain timing, prints the speed-up
"""

from __future__ import annotations

import time

import torch

from theorems.core.context import Context
from theorems.neural_collapse.ufm import GTOL, closed_form, solve_ufm

LOSS, K, N_PER_CLASS, D, LAM = "ce", 4, 3, 6, 0.05
RESTARTS = 64
SEED = 0
VALUE_RTOL = 1e-9  # best value vs the closed form (digest 004 §5.1: observed ≤ 6e-9)

# mean seconds per round of each variant, filled in as the benchmarks run (batched first)
_MEANS: dict[str, float] = {}
_FIXTURES: dict[str, object] = {}


def run_batched(seed: int = SEED):
    return solve_ufm(LOSS, K, N_PER_CLASS, D, LAM, restarts=RESTARTS, ctx=Context.make(seed=seed))


def run_loop(seed: int = SEED):
    return [solve_ufm(LOSS, K, N_PER_CLASS, D, LAM, restarts=1, ctx=Context.make(seed=seed * 100_003 + i))
            for i in range(RESTARTS)]


def _check_batched(sol) -> dict:
    best = float(sol.values.min())
    target = closed_form(LOSS, K, D, LAM).value
    assert sol.status == [GTOL] * RESTARTS, sol.status
    assert best / target - 1 <= VALUE_RTOL
    return {"iterations_max": int(sol.iterations.max()), "iterations_total": int(sol.iterations.sum()),
            "objective_calls": sol.raw.evaluations, "best_value": best, "closed_form": target}


def _check_loop(sols) -> dict:
    best = min(float(s.values.min()) for s in sols)
    target = closed_form(LOSS, K, D, LAM).value
    assert all(s.status == [GTOL] for s in sols), [s.status for s in sols]
    assert best / target - 1 <= VALUE_RTOL
    return {"iterations_max": max(int(s.iterations.max()) for s in sols),
            "iterations_total": sum(int(s.iterations.sum()) for s in sols),
            "objective_calls": sum(s.raw.evaluations for s in sols), "best_value": best, "closed_form": target}


def _mean(benchmark) -> float | None:
    stats = getattr(benchmark, "stats", None)  # None under --benchmark-disable
    return None if stats is None else float(stats.stats.mean)


def _common_info(benchmark) -> None:
    benchmark.extra_info.update(
        problem=f"UFM-{LOSS.upper()} K={K} n={N_PER_CLASS} d={D} lam={LAM}", restarts=RESTARTS,
        torch_threads=torch.get_num_threads(), torch=torch.__version__, device=str(Context.make(seed=0).device),
    )


def test_batched_64_restarts(benchmark):
    benchmark.group = "ufm-batching"
    _common_info(benchmark)
    sol = benchmark.pedantic(run_batched, rounds=3, iterations=1, warmup_rounds=1)
    benchmark.extra_info.update(_check_batched(sol))
    mean = _mean(benchmark)
    if mean is not None:
        _MEANS["batched"] = mean
        _FIXTURES["batched"] = benchmark


def test_loop_of_64_single_restarts(benchmark, capsys):
    benchmark.group = "ufm-batching"
    _common_info(benchmark)
    # the loop takes ~20x longer than the batched run: two rounds keep this under a minute on 2 cores
    sols = benchmark.pedantic(run_loop, rounds=2, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(_check_loop(sols))
    mean = _mean(benchmark)
    if mean is None or "batched" not in _MEANS:
        return  # benchmarks disabled, or run without the batched one: nothing to compare
    ratio = mean / _MEANS["batched"]
    benchmark.extra_info["speedup"] = ratio
    _FIXTURES["batched"].extra_info["speedup"] = ratio
    with capsys.disabled():
        print(f"\n[ufm-batching] loop of {RESTARTS} single restarts: {mean:.3f} s, one batched call: "
              f"{_MEANS['batched']:.3f} s -> speed-up {ratio:.1f}x (torch threads: {torch.get_num_threads()})")


def main() -> None:
    """Time one warm-up and then one run of each variant and print the speed-up."""
    run_batched(seed=1)  # warm-up (first-call overheads)
    t0 = time.perf_counter()
    info_b = _check_batched(run_batched())
    t_batched = time.perf_counter() - t0
    t0 = time.perf_counter()
    info_l = _check_loop(run_loop())
    t_loop = time.perf_counter() - t0
    print(f"UFM-{LOSS.upper()} K={K} n={N_PER_CLASS} d={D} lam={LAM}, {RESTARTS} restarts, "
          f"torch threads {torch.get_num_threads()}")
    print(f"  batched : {t_batched:8.3f} s  ({info_b['objective_calls']} batched objective calls, "
          f"max {info_b['iterations_max']} iterations)")
    print(f"  loop    : {t_loop:8.3f} s  ({info_l['objective_calls']} objective calls in all)")
    print(f"  speed-up: {t_loop / t_batched:.1f}x")


if __name__ == "__main__":
    main()
