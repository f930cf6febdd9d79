"""Batching and algorithm choices of paper 001, measured (no timing assertions; numbers printed and stored in
``benchmark.extra_info``).

* LME search: one batched ``find_lmes`` over 256 starts against a Python loop over the starts, on a tetrahedral
  Gaussian mixture (d = 3, radius 3, σ = 0.3; 4 clusters, one LME each). Both find the same 4 LMEs.
* Corollary 2's population A(v) under a frozen 1-D Gaussian α: Gauss–Legendre along s = uᵀx with the gating in
  closed form (what the result uses) against polar 2-D quadrature of Lemma 2's feature expansion (the cross-check
  of tests/). Both agree to 1e-11 relative.
* Power-iteration per-step quantities of Lemmas 7–10: all starts and steps of a trajectory batch at once.

    pytest benchmarks/bench_nonlinear_cl.py --benchmark-only -s
    python benchmarks/bench_nonlinear_cl.py
"""

from __future__ import annotations

import time

import torch

from theorems.core.context import Context
from theorems.data.latents import random_gaussian_mixture, simplex_mixture
from theorems.nonlinear_cl.covariance import A_mixture
from theorems.nonlinear_cl.lme import distinct, find_lmes
from theorems.nonlinear_cl.quadrature import A_fixed_alpha, A_kernel_alpha, order_for, z_coefficients
from theorems.optim.sphere_flow import random_unit

STARTS = 256


def _setup():
    ctx = Context.make(seed=0)
    gm = simplex_mixture(ctx, 3, 3.0, 0.3)
    return gm, random_unit(ctx, STARTS, 3)


def run_batched(gm, W0):
    return find_lmes(lambda V: A_mixture(gm, V), W0).lmes


def run_loop(gm, W0):
    found = [find_lmes(lambda V: A_mixture(gm, V), W0[i:i + 1]).lmes for i in range(W0.shape[0])]
    allw = torch.cat(found)
    return allw[distinct(allw)]


def measure() -> dict:
    gm, W0 = _setup()
    t0 = time.perf_counter()
    a = run_batched(gm, W0)
    t1 = time.perf_counter()
    b = run_loop(gm, W0)
    t2 = time.perf_counter()
    return {"batched_s": t1 - t0, "loop_s": t2 - t1, "speedup": (t2 - t1) / (t1 - t0), "lmes_batched": a.shape[0],
            "lmes_loop": b.shape[0]}


def measure_quadrature(points: int = 8) -> dict:
    ctx = Context.make(seed=0)
    gm = random_gaussian_mixture(ctx, 2, 3, 2.5, 0.6)
    u = random_unit(ctx, 1, 2)[0]
    V = random_unit(ctx, points, 2)
    t0 = time.perf_counter()
    a = A_kernel_alpha(gm, V, u, 1.0)
    t1 = time.perf_counter()
    order = order_for(gm, 1.0)
    b = A_fixed_alpha(gm, V, u, 1.0, z_coefficients(gm, u, 1.0, order), order)
    t2 = time.perf_counter()
    return {"s_quadrature_s": t1 - t0, "polar_features_s": t2 - t1, "speedup": (t2 - t1) / (t1 - t0),
            "max_rel_diff": float((a - b).abs().max() / b.abs().max()), "features": order + 1}


def measure_pi_steps() -> dict:
    from theorems.nonlinear_cl.pi_steps import run

    p = dict(model="batch", d=3, clusters=3, radius=2.0, sigma=0.7, starts=64, pi_iters=60, N=64, aug=4.0, shift=0.1)
    t0 = time.perf_counter()
    st = run(p, Context.make(seed=0))
    return {"steps": int(st.c.numel()), "seconds": time.perf_counter() - t0}


def test_batched_lme_search_is_faster_and_agrees(benchmark):
    r = benchmark.pedantic(measure, rounds=1)
    benchmark.extra_info.update(r)
    print(r)
    assert r["lmes_batched"] == r["lmes_loop"] == 4


def test_s_quadrature_agrees_with_the_polar_feature_quadrature(benchmark):
    r = benchmark.pedantic(measure_quadrature, rounds=3)
    benchmark.extra_info.update(r)
    print(r)
    assert r["max_rel_diff"] < 1e-10


def test_pi_step_quantities_batched(benchmark):
    r = benchmark.pedantic(measure_pi_steps, rounds=3)
    benchmark.extra_info.update(r)
    print(r)
    assert r["steps"] > 0


if __name__ == "__main__":
    print(measure())
    print(measure_quadrature())
    print(measure_pi_steps())
