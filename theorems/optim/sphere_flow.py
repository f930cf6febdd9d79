"""Batched dynamics on the unit sphere for w ↦ A(w) (paper 001): the projected flow ẇ = (I − wwᵀ)A(w)w
and power iteration w ← A(w)w/‖A(w)w‖, over many filters / starts at once.

``A_fn`` maps (B, d) unit rows to (B, d, d) symmetric matrices. Both routines return a per-start
certificate: the residual ‖A(w)w − (wᵀA(w)w)w‖ (zero exactly at critical points of the flow), relative to
‖A(w)‖₂, and a converged flag that is True only when that residual is below the tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

AFn = Callable[[torch.Tensor], torch.Tensor]


def normalize(W: torch.Tensor) -> torch.Tensor:
    return W / W.norm(dim=-1, keepdim=True)


def retract(w: torch.Tensor, u: torch.Tensor, eps: float | torch.Tensor) -> torch.Tensor:
    """cos ε·w + sin ε·u for unit u ⊥ w: the point at angle ε along the great circle."""
    eps = torch.as_tensor(eps, dtype=w.dtype, device=w.device)
    if eps.dim() == 1:
        eps = eps[:, None]
    return torch.cos(eps) * w + torch.sin(eps) * u


def random_unit(ctx, B: int, d: int) -> torch.Tensor:
    return normalize(ctx.randn(B, d))


def random_tangent(ctx, w: torch.Tensor) -> torch.Tensor:
    """A random unit vector orthogonal to each row of w."""
    g = ctx.randn(*w.shape)
    g = g - (g * w).sum(1, keepdim=True) * w
    return normalize(g)


def critical_residual(A: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """‖A w − (wᵀAw) w‖ / max(‖A‖₂, tiny) per row: 0 iff w is an eigenvector of A(w)."""
    g = (A @ W[:, :, None])[:, :, 0]
    r = g - (g * W).sum(1, keepdim=True) * W
    scale = torch.linalg.matrix_norm(A, ord=2).clamp_min(torch.finfo(A.dtype).tiny)
    return r.norm(dim=1) / scale


@dataclass
class SphereRun:
    W: torch.Tensor  # (B, d) final iterates
    residual: torch.Tensor  # (B,) relative critical residual at the end
    converged: torch.Tensor  # (B,) residual ≤ tol
    steps: int  # iterations (PI) or Euler steps (flow) run
    history: torch.Tensor | None  # (T+1, B, d) trajectory when recorded
    tol: float
    dead: torch.Tensor | None = None  # (B,) PI only: A(w)w = 0 (no active input), the map is undefined

    @property
    def certificate(self) -> dict:
        return {"max_relative_residual": float(self.residual.max()), "tol": self.tol, "steps": self.steps,
                "converged": int(self.converged.sum()), "starts": int(self.converged.numel())}


def power_iteration(A_fn: AFn, W0: torch.Tensor, *, max_iter: int = 500, tol: float = 1e-11,
                    record: bool = False) -> SphereRun:
    """w(t+1) = A(w(t))w(t)/‖A(w(t))w(t)‖ for every row of W0, until all relative residuals are ≤ tol
    (or max_iter). Rows whose A(w)w vanishes are frozen and flagged ``dead``."""
    W = normalize(W0)
    hist = [W] if record else None
    dead = torch.zeros(W.shape[0], dtype=torch.bool, device=W.device)
    t = 0
    for t in range(1, max_iter + 1):
        A = A_fn(W)
        g = (A @ W[:, :, None])[:, :, 0]
        n = g.norm(dim=1, keepdim=True)
        dead = dead | (n[:, 0] <= 1e-300)
        W = torch.where(dead[:, None], W, g / n.clamp_min(1e-300))
        if record:
            hist.append(W)
        if t % 5 == 0 or t == max_iter:
            res = critical_residual(A_fn(W), W)
            if bool((res[~dead] <= tol).all()):
                break
    res = critical_residual(A_fn(W), W)
    return SphereRun(W, res, (res <= tol) & ~dead, t, torch.stack(hist) if record else None, tol, dead)


def projected_flow(A_fn: AFn, W0: torch.Tensor, *, dt: float = 0.01, steps: int = 1000, tol: float = 1e-9,
                   record_every: int = 0, stop_early: bool = False) -> SphereRun:
    """Projected Euler for ẇ = P⊥_w A(w) w with renormalisation, a fixed number of steps (no early stop, so
    that trajectories of all starts are comparable in time). Mode j of a locally constant A contracts by
    1 − dt·(λ₁ − λ_j) per step, so a fitted rate r_fit relates to the continuous rate r by
    r_fit = −ln(1 − dt·r)/dt (see :func:`euler_rate`). ``stop_early`` stops once every residual is ≤ tol
    (checked every 10 steps; used to *find* critical points, where time comparability does not matter)."""
    W = normalize(W0)
    hist = [W] if record_every else None
    for t in range(1, steps + 1):
        A = A_fn(W)
        g = (A @ W[:, :, None])[:, :, 0]
        g = g - (g * W).sum(1, keepdim=True) * W
        W = normalize(W + dt * g)
        if record_every and t % record_every == 0:
            hist.append(W)
        if stop_early and t % 10 == 0 and bool((critical_residual(A_fn(W), W) <= tol).all()):
            steps = t
            break
    res = critical_residual(A_fn(W), W)
    return SphereRun(W, res, res <= tol, steps, torch.stack(hist) if record_every else None, tol)


def euler_rate(rate: float | torch.Tensor, dt: float):
    """The per-unit-time log-contraction of projected Euler for a mode of continuous rate ``rate``."""
    if isinstance(rate, torch.Tensor):
        return -torch.log1p(-dt * rate) / dt
    import math
    return -math.log1p(-dt * rate) / dt


def rk4(f: Callable[[torch.Tensor], torch.Tensor], y0: torch.Tensor, horizon: torch.Tensor | float,
        steps: int) -> torch.Tensor:
    """Classical Runge–Kutta for the autonomous ẏ = f(y), batched over rows, each row to its own ``horizon``
    (a tensor broadcastable against y0, or a float) in ``steps`` equal steps; returns y(horizon)."""
    h = torch.as_tensor(horizon, dtype=y0.dtype, device=y0.device) / steps
    y = y0
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y
