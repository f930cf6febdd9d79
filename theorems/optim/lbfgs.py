"""Batched L-BFGS: B independent smooth problems solved as one tensor problem.

Every instance keeps its own curvature pairs, its own step length and its own stopping state; one
objective call evaluates all of them at once, so B restarts cost about as much Python overhead as one.
Instances that have stopped are frozen (their step is zero) while the others go on.

The line search is a backtracking Armijo search with a slack of a few ulps of the objective, so that
iterates can keep reducing the gradient once objective differences fall below float64 resolution (when
the objective's rounding error is of order ulp(|f|); on badly conditioned problems whose summands are
much larger than f it can still stop 'stalled' above gtol, an honest status, never a false 'gtol');
pairs that violate the curvature condition sᵀy > 0 are skipped, the standard safeguard without a
Wolfe search. 'nonfinite' marks a non-finite objective at the start; a non-finite trial point later
is backtracked over like any failed step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

Objective = Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]

GTOL = "gtol"  # stationarity measure below tolerance: the only status that counts as converged
STALLED = "stalled"  # line search found no acceptable step
MAX_ITER = "max_iter"
NONFINITE = "nonfinite"


@dataclass
class LbfgsResult:
    x: torch.Tensor  # (B, P) final iterates
    f: torch.Tensor  # (B,) final objective values
    grad: torch.Tensor  # (B, P) final gradients
    stationarity: torch.Tensor  # (B,) final stationarity measure (what gtol was compared with)
    iterations: torch.Tensor  # (B,) iterations each instance ran
    status: list[str]  # per instance: gtol | stalled | max_iter | nonfinite
    evaluations: int  # batched objective calls

    @property
    def converged(self) -> torch.Tensor:
        return torch.tensor([s == GTOL for s in self.status], device=self.x.device)


def batched_lbfgs(
    fun: Objective,
    x0: torch.Tensor,
    *,
    max_iter: int = 3000,
    history: int = 20,
    gtol: float = 1e-10,
    stationarity: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
    c1: float = 1e-4,
    max_backtracks: int = 50,
    speculate: int = 0,
) -> LbfgsResult:
    """Minimise ``fun`` from each row of ``x0`` (shape (B, P)).

    ``fun(x)`` returns ``(f, g)`` with shapes (B,) and (B, P): the B objectives and their gradients.
    ``stationarity(x, g)`` gives the (B,) measure compared with ``gtol`` (default: ‖g‖₂ per row); a
    problem on a manifold passes its Riemannian gradient norm here.

    ``speculate`` = m > 0: after a rejected first trial, the next m step lengths t/2, …, t/2^m of every pending
    instance are evaluated in one batched call (m rows per instance) and each takes the first that passes Armijo:
    the same step, point and values as m sequential halvings when ``fun``'s rows are independent to the last bit
    (a row's value does not depend on the other rows or on their number), in one call instead of up to m. For
    objectives whose cost is the per-call dispatch, not the rows (the tiny networks of paper 004), that removes
    most of the line search's cost; the count in ``evaluations`` is of calls.
    """
    if x0.ndim != 2:
        raise ValueError(f"x0 must have shape (B, P), got {tuple(x0.shape)}")
    measure = stationarity or (lambda x, g: g.norm(dim=1))
    B, P = x0.shape
    dev, dt = x0.device, x0.dtype
    eps = torch.finfo(dt).eps

    x = x0.clone()
    f, g = fun(x)
    evaluations = 1
    S = torch.zeros(history, B, P, dtype=dt, device=dev)
    Y = torch.zeros(history, B, P, dtype=dt, device=dev)
    rho = torch.zeros(history, B, dtype=dt, device=dev)  # 0 marks an empty or skipped slot
    n_slots = 0  # slots written so far (shared clock; per-instance validity lives in rho)
    gamma = 1.0 / g.norm(dim=1).clamp_min(1.0)  # initial inverse-Hessian scale
    iterations = torch.zeros(B, dtype=torch.long, device=dev)
    status = [MAX_ITER] * B
    active = torch.ones(B, dtype=torch.bool, device=dev)

    def finish(mask: torch.Tensor, why: str) -> None:
        for i in torch.nonzero(mask & active).flatten().tolist():
            status[i] = why
        active.logical_and_(~mask)

    finish(~torch.isfinite(f), NONFINITE)
    finish(measure(x, g) <= gtol, GTOL)

    for _ in range(max_iter):
        if not bool(active.any()):
            break
        # Two-loop recursion over the slots, newest first; empty slots have rho = 0 and do nothing.
        order = [(n_slots - 1 - j) % history for j in range(min(n_slots, history))]
        q = g.clone()
        alphas = []
        for j in order:
            a = rho[j] * (S[j] * q).sum(1)
            q -= a[:, None] * Y[j]
            alphas.append(a)
        r = gamma[:, None] * q
        for j, a in zip(reversed(order), reversed(alphas), strict=True):
            b = rho[j] * (Y[j] * r).sum(1)
            r += (a - b)[:, None] * S[j]
        d = -r
        gd = (g * d).sum(1)
        uphill = gd >= 0  # memory went stale for these instances: restart them on steepest descent
        if bool(uphill.any()):
            d[uphill] = -gamma[uphill, None] * g[uphill]
            rho[:, uphill] = 0
            gd = (g * d).sum(1)
        d[~active] = 0

        # Batched backtracking: every pending instance halves its own step until Armijo holds.
        t = torch.ones(B, dtype=dt, device=dev)
        pending = active.clone()
        x_new, f_new, g_new = x.clone(), f.clone(), g.clone()
        slack = 8 * eps * (f.abs() + 1)
        tried = 0
        while tried < max_backtracks:
            if tried == 0 or not speculate:
                x_try = x + t[:, None] * d
                f_try, g_try = fun(x_try)
                evaluations += 1
                tried += 1
                ok = pending & _sufficient_decrease(f_try, f, t, gd, slack, c1)
                x_new[ok], f_new[ok], g_new[ok] = x_try[ok], f_try[ok], g_try[ok]
                pending &= ~ok
            else:
                tried += _speculative_backtrack(fun, x, d, f, gd, slack, t, pending, x_new, f_new, g_new, c1,
                                                min(speculate, max_backtracks - tried))
                evaluations += 1
            if not bool(pending.any()):
                break
            t = torch.where(pending, t * 0.5, t)
        finish(pending, STALLED)

        moved = active.clone()
        s = x_new - x
        y = g_new - g
        sy = (s * y).sum(1)
        good = moved & (sy > eps * s.norm(dim=1) * y.norm(dim=1))
        slot = n_slots % history
        S[slot], Y[slot] = s, y
        rho[slot] = torch.where(good, 1.0 / torch.where(good, sy, torch.ones_like(sy)), torch.zeros_like(sy))
        gamma = torch.where(good, sy / (y * y).sum(1).clamp_min(torch.finfo(dt).tiny), gamma)
        n_slots += 1

        x, f, g = x_new, f_new, g_new
        iterations += moved.long()
        tiny_step = s.norm(dim=1) <= eps * (1 + x.norm(dim=1))
        finish(measure(x, g) <= gtol, GTOL)
        finish(moved & tiny_step, STALLED)

    return LbfgsResult(
        x=x, f=f, grad=g, stationarity=measure(x, g), iterations=iterations, status=status,
        evaluations=evaluations,
    )


def _sufficient_decrease(f_try, f, t, gd, slack, c1: float) -> torch.Tensor:
    """Armijo's test at step length t (a finite value at most f + c1·t·gd + slack): the one acceptance rule of the
    sequential and the speculative line search, so that both take the same steps."""
    return torch.isfinite(f_try) & (f_try <= f + c1 * t * gd + slack)


def _speculative_backtrack(fun, x, d, f, gd, slack, t, pending, x_new, f_new, g_new, c1: float, m: int) -> int:
    """Try the step lengths t, t/2, …, t/2^(m−1) of every pending row in one call of ``fun`` (``speculate`` of
    ``batched_lbfgs``), in place: accepted rows take their first passing step (x_new, f_new, g_new) and leave
    ``pending``, the others end with ``t`` at their last tried length. Returns m, the trials made per row."""
    idx = torch.nonzero(pending).flatten()
    n = idx.numel()
    # the exact powers of two the sequential halving t ← t·0.5 produces, and its trial points x + t·d row by row
    halvings = torch.tensor([0.5 ** k for k in range(m)], dtype=t.dtype, device=t.device)
    tc = t[idx, None] * halvings  # (n, m)
    xc = x[idx, None, :] + tc[..., None] * d[idx, None, :]
    fc, gc = fun(xc.reshape(n * m, -1))
    fc, gc = fc.reshape(n, m), gc.reshape(n, m, -1)
    ok = _sufficient_decrease(fc, f[idx, None], tc, gd[idx, None], slack[idx, None], c1)
    hit = ok.any(1)
    first = torch.where(hit, ok.long().argmax(1), m - 1)  # argmax of a bool row: its first True
    rows = torch.arange(n, device=idx.device)
    acc = idx[hit]
    x_new[acc], f_new[acc], g_new[acc] = xc[rows, first][hit], fc[rows, first][hit], gc[rows, first][hit]
    pending[acc] = False
    t[idx] = tc[rows, first]
    return m


def autograd_objective(fn: Callable[[torch.Tensor], torch.Tensor]) -> Objective:
    """Wrap ``fn: (B, P) -> (B,)`` (instances independent) into ``x -> (f, ∇f)`` via one backward pass."""

    def fun(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            f = fn(x)
            (g,) = torch.autograd.grad(f.sum(), x)
        return f.detach(), g.detach()

    return fun
