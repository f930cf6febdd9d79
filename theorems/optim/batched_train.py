"""Training many small networks at once to a stated plateau, and what that costs.

``train_to_plateau`` minimises B independent objectives (the rows of one (B, P) parameter tensor: seeds, starts
and, padded to one layout, depths) with the batched L-BFGS of ``optim.lbfgs``, in windows of ``window``
iterations. After each window every instance's *gap* f − reference (``reference`` a lower bound of the objective,
e.g. an exact optimum of a relaxation) is compared with the gap before the window; an instance whose relative
decrease over the last window is ≤ ``rtol`` is certified ('plateau') and frozen, one whose gradient falls below
``gtol`` is certified ('gtol'), the others go on until ``max_iter`` ('max_iter': not certified). Each window
starts with a fresh L-BFGS memory, which also restarts instances whose line search stalled at a kink of a ReLU
network (they are certified only by a later window that barely moves them).

The plateau certificate says that the optimiser at hand no longer improves the gap at a relative rate above
``rtol`` per window: weaker than a KKT residual (out of reach at ReLU kinks), and stated as such. What it does
*not* weaken: every f is the exact objective of an explicit parameter vector, hence an upper bound on the
minimum whatever the status.

``training_cost`` is the cost model of such a run, in floating-point-operation equivalents: the batched
arithmetic of the forward and backward passes and, dominant for the tiny networks of the depth sweeps, a fixed
per-layer dispatch overhead of the autograd graph (measured ≈ 0.3 ms per residual block per forward+backward
pass on one CPU core, ~0.6 ms on a shared one, i.e. ~10⁶ operations at the ~1.7 Gflop/s the ceiling of
``core.params`` assumes) and ~1 ms of L-BFGS bookkeeping per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from .lbfgs import GTOL, MAX_ITER, STALLED, batched_lbfgs

PLATEAU = "plateau"
CERTIFIED = (GTOL, PLATEAU)
# One forward+backward pass of one residual block of a tiny batched network costs ~0.3 ms of autograd dispatch
# on one idle core whatever its size (measured: 10.5 ms for 37 blocks at B = 3, d = 8, N = 6), ~0.6 ms on the
# shared CI machine; at the ~1.7 Gflop/s of core.params' ceiling that is ~1e6 operations. Each L-BFGS iteration
# adds ~100 small tensor operations of its own (two-loop recursion, line search bookkeeping): ~1 ms, 2e6.
LAYER_OVERHEAD = 1e6
ITER_OVERHEAD = 2e6
# The line search's backtracking tries this many halvings of the step per batched call (``optim.lbfgs``'s
# ``speculate``): the same steps and numbers as one halving per call (the rows of a network batch are independent),
# and a call of these tiny networks costs mostly its few hundred dispatches, so k halvings cost ⌈k/4⌉ calls
# instead of k. Measured on paper 004's default sweeps: ~1 in 4 iterations backtracks, 40–60 % of those more than
# once, chains up to ~20 halvings; 4 rather than 8 because a transformer row is not free (one call of 8 rows costs
# ~1.5 calls of 3 rows there) and most chains are 1–4 halvings long.
SPECULATE = 4
# Batched L-BFGS: ~1.3 batched objective+gradient calls per iteration (measured on paper 004's default sweeps: 1.2–1.4
# with SPECULATE = 4, 1.7–1.8 with one halving per call), plus the two-loop
# recursion over ``history`` pairs (4·history·P operations per instance).
EVALS_PER_ITER = 1.5
# A forward+backward pass costs ~3 forward passes; a forward pass of a block ~2 operations per weight and sample.
FLOPS_PER_MAC = 6


@dataclass
class PlateauRun:
    x: torch.Tensor  # (B, P) final parameters
    f: torch.Tensor  # (B,) final objectives (exact, float64)
    status: list[str]  # per instance: 'plateau' | 'gtol' (certified) | 'max_iter' | 'stalled' | 'nonfinite'
    iterations: torch.Tensor  # (B,) L-BFGS iterations run
    drop: torch.Tensor  # (B,) relative decrease of the gap over the instance's last window
    windows: int  # windows run (the longest instance)

    @property
    def certified(self) -> torch.Tensor:
        return torch.tensor([s in CERTIFIED for s in self.status], device=self.f.device)


def train_to_plateau(fun: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]], x0: torch.Tensor, *,
                     reference: float, window: int, rtol: float, max_iter: int, gtol: float = 1e-10,
                     history: int = 20, plateaued: Callable[[float], bool] | None = None,
                     stationary: Callable[[float], bool] | None = None, speculate: int = SPECULATE) -> PlateauRun:
    """Minimise ``fun`` ((B, P) → ((B,), (B, P))) from the rows of ``x0`` to the plateau certificate of the
    module docstring; only instances still active are evaluated in each window.

    ``plateaued(relative drop of the gap over a full window)`` and ``stationary(final stationarity measure)``
    are the two certificate decisions (defaults: drop ≤ ``rtol``, measure ≤ ``gtol``). A caller passes its own
    named functions so that its tolerances are pinned where they decide (a literal drop, a literal gradient
    norm), and a 'gtol' stop of L-BFGS counts only if ``stationary`` confirms it."""
    if window < 1 or max_iter < 0 or not rtol >= 0:
        raise ValueError(f"train_to_plateau: window={window}, max_iter={max_iter}, rtol={rtol}")
    plateaued = plateaued or (lambda drop: drop <= rtol)
    stationary = stationary or (lambda measure: measure <= gtol)
    B = x0.shape[0]
    dev = x0.device
    x = x0.clone()
    f = fun(x)[0]
    status = [MAX_ITER] * B
    iterations = torch.zeros(B, dtype=torch.long, device=dev)
    drop = torch.full((B,), float("nan"), dtype=x0.dtype, device=dev)
    active = torch.isfinite(f)
    for i in torch.nonzero(~active).flatten().tolist():
        status[i] = "nonfinite"
    windows = 0
    while bool(active.any()) and int(iterations.max()) < max_iter:
        idx = torch.nonzero(active).flatten()
        steps = min(window, max_iter - int(iterations[idx].max()))
        # instances are independent rows: the active ones alone are trained, the others stay as they are
        res = batched_lbfgs(fun, x[idx], max_iter=steps, gtol=gtol, history=history, speculate=speculate)
        windows += 1
        gap0 = (f[idx] - reference).clamp_min(torch.finfo(x0.dtype).tiny)
        rel = (f[idx] - res.f) / gap0
        x[idx], f[idx] = res.x, res.f
        iterations[idx] += res.iterations
        drop[idx] = rel
        for j, i in enumerate(idx.tolist()):
            if res.status[j] == GTOL and stationary(float(res.stationarity[j])):
                status[i] = GTOL
            elif res.status[j] == GTOL:  # L-BFGS stops at once again in every window: frozen, not certified
                status[i] = STALLED
                active[i] = False
            elif steps == window and plateaued(float(rel[j])):
                status[i] = PLATEAU
            if status[i] in CERTIFIED:
                active[i] = False
            elif res.status[j] == "nonfinite":
                status[i] = "nonfinite"
                active[i] = False
    return PlateauRun(x=x, f=f, status=status, iterations=iterations, drop=drop, windows=windows)


def training_cost(*, instances: int, blocks: int, width: int, samples: int, params: int, iterations: int,
                  history: int = 20) -> float:
    """Operation equivalents of ``iterations`` batched L-BFGS steps of ``instances`` networks of ``blocks``
    residual blocks (width ``width``, ``samples`` columns, ``params`` parameters each): per evaluation and
    block, the batched arithmetic or the dispatch overhead, whichever is larger, plus the recursion."""
    per_block = max(LAYER_OVERHEAD, FLOPS_PER_MAC * instances * width * width * samples)
    per_eval = max(blocks, 1) * per_block
    return float(iterations) * (EVALS_PER_ITER * per_eval + 4 * history * params * instances + ITER_OVERHEAD)
