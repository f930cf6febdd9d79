"""Batched LME search vs a Python loop over starts (paper 001).

The LME finder runs power iteration from many starts as one (B, d) tensor problem. This measures it on the
tetrahedral Gaussian mixture (d = 3, radius 3, σ = 0.3; 4 clusters, one LME each), 256 starts:

* batched: one ``find_lmes`` call over all 256 starts;
* loop:    256 calls, one start each.

Both must find the same 4 LMEs; the speed-up is printed (no timing assertions).

    pytest benchmarks/bench_nonlinear_cl.py -q -s
    python benchmarks/bench_nonlinear_cl.py
"""

from __future__ import annotations

import time

import torch

from theorems.core.context import Context
from theorems.data.latents import simplex_mixture
from theorems.nonlinear_cl.covariance import A_mixture
from theorems.nonlinear_cl.lme import distinct, find_lmes
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


def test_batched_lme_search_is_faster_and_agrees():
    r = measure()
    print(r)
    assert r["lmes_batched"] == r["lmes_loop"] == 4


if __name__ == "__main__":
    print(measure())
