"""Worst-case search over the continuous data of a paper-003 instance (``adversarial_steps``).

The statements of paper 003 quantify over every population and every encoder; random draws sit far from the
boundary of the bounds. :func:`descend` runs Adam on a batch of restarts (the instance itself plus perturbed
copies, one tensor problem) that moves the instance data (the embedded views, and for Theorem 2 the view
weights) towards the smallest slack of a bound, and keeps for every restart the state with the smallest
objective seen. The verdict is never taken from the surrogate objective: the moved instances are handed back to
the result's own exact evaluation, which checks the bound there.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from ..optim.adam import Adam

# Restarts of the search: the instance itself and perturbed copies, optimised as one batch.
RESTARTS = 6
# Adam step size on unit-scale data (views on the unit sphere, BT features of unit second moment).
LEARNING_RATE = 0.02
# Scale of the perturbation that makes restarts 1.. differ from restart 0 (the instance as drawn).
RESTART_NOISE = 0.05


def restarts(x: torch.Tensor, ctx, count: int = RESTARTS, noise: float = RESTART_NOISE) -> torch.Tensor:
    """(count, *x.shape): x itself first, then copies perturbed by ``noise``·(scale of x) Gaussian noise."""
    scale = float(x.detach().abs().mean()) or 1.0
    jitter = ctx.randn(count - 1, *x.shape) * noise * scale
    return torch.cat([x[None], x[None] + jitter])


def descend(variables: Sequence[torch.Tensor], objective: Callable[..., torch.Tensor], steps: int,
            lr: float = LEARNING_RATE) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor]:
    """Minimise ``objective(*variables) -> (B,)`` over ``variables`` (leading dimension B = restarts) with Adam.

    Returns the best state of every restart (the lowest objective seen, the start included, so the search can
    only move towards the boundary), the objective at the start and at the best state, both (B,)."""
    xs = [v.detach().clone().requires_grad_(True) for v in variables]
    best = [v.detach().clone() for v in variables]
    with torch.no_grad():
        start = objective(*xs).detach()
    best_val = start.clone()
    opt = Adam(xs, lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        val = objective(*xs)
        better = val.detach() < best_val
        if bool(better.any()):
            for b, x in zip(best, xs):
                b[better] = x.detach()[better]
            best_val = torch.where(better, val.detach(), best_val)
        finite = torch.isfinite(val)
        if not bool(finite.any()):
            break
        val[finite].sum().backward()
        opt.step()
    with torch.no_grad():
        last = objective(*xs)
        better = last < best_val
        for b, x in zip(best, xs):
            b[better] = x.detach()[better]
        best_val = torch.where(better, last, best_val)
    return best, start, best_val
