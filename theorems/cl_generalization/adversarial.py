"""Worst-case search over the continuous data of a paper-003 instance (``adversarial_steps``).

The statements of paper 003 quantify over every population and every encoder; random draws sit far from the
boundary of the bounds. :func:`descend` runs Adam on a batch of restarts (the instance itself plus perturbed
copies, one tensor problem) that moves the instance data (the embedded views, and for Theorem 2 the view
weights) towards the smallest slack of a bound, and keeps for every restart the state with the smallest
objective seen. The verdict is never taken from the surrogate objective: the moved instances are handed back to
the result's own exact evaluation, which checks the bound there.

Second order (issue 26, item 2). A search that stops where the gradient vanishes may sit on a saddle of the slack,
with a worse instance one step away along a direction of negative curvature; a small gradient says nothing about
that. After the Adam run, :func:`descend` estimates the smallest eigenvalue of the objective's Hessian at each
restart's best state (Lanczos on Hessian-vector products by central differences of the gradient, ``optim.curvature``), steps down the direction of
negative curvature wherever it is below ``−CURVATURE_RTOL`` of the Hessian's scale, and runs Adam again from there
(at most ``ESCAPES`` times). The smallest relative eigenvalue at the end, the escapes taken and whether a restart
still ends on a saddle are recorded (``record``); the results put them in their details. The
surrogates are piecewise smooth (max/min over pairs and settings): the Hessian is that of the active piece, which
is what a local search can use.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import torch

from ..optim.adam import Adam
from ..optim.curvature import escape_step, lanczos_extremes

# Restarts of the search: the instance itself and perturbed copies, optimised as one batch.
RESTARTS = 6
# Adam step size on unit-scale data (views on the unit sphere, BT features of unit second moment).
LEARNING_RATE = 0.02
# Scale of the perturbation that makes restarts 1.. differ from restart 0 (the instance as drawn).
RESTART_NOISE = 0.05
# Saddle escapes after the Adam run, and the Lanczos steps of each curvature estimate (Ritz values: λ_min is an
# upper estimate, so a saddle can be missed, never invented; the surrogates have hundreds to thousands of variables).
ESCAPES = 1
CURVATURE_ITERS = 8
# Hessian-vector products by central differences of the gradient (the surrogates use cdist, which has no double
# backward): step FD_STEP·max(1, ‖x‖∞) per row, error O(step²) relative to the third derivative, far below
# CURVATURE_RTOL on unit-scale data.
FD_STEP = 1e-5
# Negative curvature below this fraction of the Hessian's scale (max |λ|) counts as a saddle: far above the
# rounding of double-backward products (~1e-12 relative), far below the curvature of a real descent direction.
CURVATURE_RTOL = 1e-6


def restarts(x: torch.Tensor, ctx, count: int = RESTARTS, noise: float = RESTART_NOISE) -> torch.Tensor:
    """(count, *x.shape): x itself first, then copies perturbed by ``noise``·(scale of x) Gaussian noise."""
    scale = float(x.detach().abs().mean()) or 1.0
    jitter = ctx.randn(count - 1, *x.shape) * noise * scale
    return torch.cat([x[None], x[None] + jitter])


def _adam(xs: list[torch.Tensor], best: list[torch.Tensor], best_val: torch.Tensor,
          objective: Callable[..., torch.Tensor], steps: int, lr: float) -> torch.Tensor:
    """Adam from ``xs`` for ``steps`` steps; ``best`` (updated in place) keeps each restart's lowest state seen."""
    opt = Adam(xs, lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        val = objective(*xs)
        better = val.detach() < best_val
        if bool(better.any()):
            for b, x in zip(best, xs, strict=True):
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
        for b, x in zip(best, xs, strict=True):
            b[better] = x.detach()[better]
        best_val = torch.where(better, last, best_val)
    return best_val


def _flat(variables: Sequence[torch.Tensor]) -> tuple[torch.Tensor, Callable[[torch.Tensor], torch.Tensor]]:
    """(B, P) concatenation of the variables and the map back to them."""
    shapes = [v.shape for v in variables]
    x = torch.cat([v.detach().reshape(v.shape[0], -1) for v in variables], 1)

    def split(flat: torch.Tensor) -> list[torch.Tensor]:
        out, at = [], 0
        for shape in shapes:
            k = math.prod(shape[1:])
            out.append(flat[:, at:at + k].reshape(flat.shape[0], *shape[1:]))
            at += k
        return out

    return x, split


def curvature_at(variables: Sequence[torch.Tensor], objective: Callable[..., torch.Tensor],
                 iters: int = CURVATURE_ITERS):
    """The tangent curvature (``optim.curvature.Curvature``) of ``objective`` at each restart of ``variables``
    (the full space: the surrogates have no symmetry the search must leave out), with a fixed start vector."""
    x, split = _flat(variables)
    gen = torch.Generator().manual_seed(0)

    def grad(z: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            zr = z.detach().requires_grad_(True)
            val = objective(*split(zr))
            (g,) = torch.autograd.grad(torch.where(torch.isfinite(val), val, torch.zeros_like(val)).sum(), zr,
                                       allow_unused=True)
        return torch.zeros_like(z) if g is None else g

    h = FD_STEP * x.abs().amax(-1, keepdim=True).clamp_min(1.0)

    def hvp(v: torch.Tensor) -> torch.Tensor:
        return (grad(x + h * v) - grad(x - h * v)) / (2 * h)

    B, P = x.shape
    return lanczos_extremes(hvp, B, P, iters=iters, like=x, generator=gen), x, split


def descend(variables: Sequence[torch.Tensor], objective: Callable[..., torch.Tensor], steps: int,
            lr: float = LEARNING_RATE, *, escapes: int = ESCAPES,
            record: dict | None = None) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor]:
    """Minimise ``objective(*variables) -> (B,)`` over ``variables`` (leading dimension B = restarts) with Adam,
    then escape saddles (see the module docstring) and run Adam again, at most ``escapes`` times.

    Returns the best state of every restart (the lowest objective seen, the start included, so the search can
    only move towards the boundary), the objective at the start and at the best state, both (B,). ``record``,
    when given, receives the second-order record: ``curvature_min_rel`` (the smallest λ_min/max|λ| over the
    restarts with a finite objective, a Ritz value: an upper estimate), ``saddle_escapes`` and ``saddle_left``
    (some restart still ends where the curvature is certainly negative)."""
    xs = [v.detach().clone().requires_grad_(True) for v in variables]
    best = [v.detach().clone() for v in variables]
    with torch.no_grad():
        start = objective(*xs).detach()
    best_val = _adam(xs, best, start.clone(), objective, steps, lr)
    taken = 0
    rel = None
    for attempt in range(escapes + 1 if steps > 0 else 0):
        finite = torch.isfinite(best_val)
        if not bool(finite.any()):
            break
        curv, x, split = curvature_at(best, objective)
        rel = torch.where(finite, curv.relative_min(), torch.zeros_like(best_val))
        saddle = finite & (rel < -CURVATURE_RTOL)
        if attempt == escapes or not bool(saddle.any()):
            break
        x1 = torch.where(saddle[:, None], escape_step(lambda z, split=split: objective(*split(z)), x, curv.vec_min,
                                                      curv.lam_min), x)
        moved = (x1 != x).any(-1)
        if not bool(moved.any()):
            break
        taken += int(moved.sum())
        xs = [v.detach().clone().requires_grad_(True) for v in split(x1)]
        best_val = _adam(xs, best, best_val, objective, max(1, steps // 4), lr)
    if record is not None and rel is not None:
        record["curvature_min_rel"] = float(rel.min())
        record["saddle_escapes"] = taken
        record["saddle_left"] = bool((rel < -CURVATURE_RTOL).any())
    return best, start, best_val
