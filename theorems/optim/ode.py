"""ODE integration with a reported certificate, and the eigen-coordinate ODEs of paper 002.

Two integrators, the same method (Dormand–Prince 8(5,3), Hairer's DOP853, with scipy's coefficients and step
control):

* ``integrate_batched`` (torch): one integration of a *batch* of independent systems, y of shape (B, …), on
  the batch's device. The step size is shared by the batch and accepted only when every member's error
  estimate is within tolerance, so each member is integrated at least as accurately as alone. This is how the
  suite integrates restarts, widths and instances at once (one Python step loop for all of them instead of
  one per member). ``certify=True`` re-integrates at tolerances ÷ ``CERTIFY_FACTOR`` on the recorded times and
  reports the largest difference per member: an a-posteriori estimate of the *global* error, which a check
  compares with its tolerance (the embedded estimate only bounds the local error).
* ``integrate`` (numpy): ``scipy.integrate.solve_ivp`` on one system, what a user would write; kept as the
  reference the benchmark and the unit tests compare the batched integrator with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
from scipy.integrate import solve_ivp
from scipy.integrate._ivp import dop853_coefficients as _dop

DEFAULT_RTOL = 1e-11
DEFAULT_ATOL = 1e-13
# Step-size control of DOP853 (Hairer, Nørsett, Wanner, Solving ODEs I, II.4; the values scipy uses).
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / 8.0
# The certifying re-run is this much tighter: its own error is then ≲ 1/100 of the first run's.
CERTIFY_FACTOR = 100.0


@dataclass
class OdeSolution:
    t: np.ndarray  # (T,)
    y: np.ndarray  # (T, *shape)
    success: bool
    message: str
    rtol: float
    atol: float
    nfev: int
    method: str

    def certificate(self) -> dict:
        return {"ode_success": self.success, "ode_message": self.message, "ode_rtol": self.rtol,
                "ode_atol": self.atol, "ode_nfev": self.nfev, "ode_method": self.method}


def integrate(rhs: Callable[[np.ndarray], np.ndarray], y0: np.ndarray, t_eval, *, rtol: float = DEFAULT_RTOL,
              atol: float = DEFAULT_ATOL, method: str = "DOP853") -> OdeSolution:
    """Integrate the autonomous ODE ẏ = rhs(y) (y of any shape) on [0, t_eval[-1]], sampled at ``t_eval``
    (scipy, one system; the reference for ``integrate_batched``)."""
    y0 = np.asarray(y0, dtype=float)
    shape = y0.shape
    t_eval = np.asarray(t_eval, dtype=float)
    sol = solve_ivp(lambda t, v: np.asarray(rhs(v.reshape(shape)), dtype=float).ravel(), (0.0, float(t_eval[-1])),
                    y0.ravel(), method=method, t_eval=t_eval, rtol=rtol, atol=atol)
    y = sol.y.T.reshape(len(sol.t), *shape)
    return OdeSolution(sol.t, y, bool(sol.success), str(sol.message), rtol, atol, int(sol.nfev), method)


# -- the batched integrator -----------------------------------------------------------------------------------
@dataclass
class BatchedOdeSolution:
    """Recorded states ``y[k]`` (shape (B, …)) at times ``t[k]``, and how the integration went."""

    t: "torch.Tensor | np.ndarray"  # (T,)
    y: "torch.Tensor | np.ndarray"  # (T, B, ...), the same kind of array as y0
    success: bool
    message: str
    rtol: float
    atol: float
    steps: int
    rejected: int
    nfev: int
    # Per member: largest difference to the re-run at tolerances ÷ CERTIFY_FACTOR (None without certify).
    global_error: "torch.Tensor | np.ndarray | None" = None
    method: str = field(default="DOP853 (batched, shared step)")

    def certificate(self, prefix: str = "ode") -> dict:
        out = {f"{prefix}_success": self.success, f"{prefix}_message": self.message, f"{prefix}_rtol": self.rtol,
               f"{prefix}_atol": self.atol, f"{prefix}_steps": self.steps, f"{prefix}_rejected": self.rejected,
               f"{prefix}_nfev": self.nfev, f"{prefix}_method": self.method}
        if self.global_error is not None:
            out[f"{prefix}_global_error"] = float(self.global_error.max())
        return out


class _Numpy:
    """The few array operations the step loop needs, on numpy (CPU: a few times less overhead per operation
    than torch on tensors of a few hundred elements) ..."""

    @staticmethod
    def tableau(like):
        n = _dop.N_STAGES
        return _dop.A[:n, :n], _dop.B, _dop.C[:n], _dop.E3, _dop.E5

    empty = staticmethod(lambda shape, like: np.empty(shape, dtype=like.dtype))
    dot = staticmethod(lambda a, K: np.tensordot(a, K, axes=1))
    maximum = staticmethod(np.maximum)
    where = staticmethod(np.where)
    stack = staticmethod(np.stack)
    times = staticmethod(lambda t, like: np.asarray(t, dtype=like.dtype))
    member_max = staticmethod(lambda x: x.max(axis=(0, 2)))  # (T, B, n) -> (B,)

    @staticmethod
    def member_norm2(x):
        return (x * x).reshape(x.shape[0], -1).sum(-1)


class _Torch:
    """... and on torch (any device: the loop stays on the batch's device)."""

    @staticmethod
    def tableau(like):
        n = _dop.N_STAGES
        as_t = lambda a: torch.as_tensor(a, dtype=like.dtype, device=like.device)  # noqa: E731
        return as_t(_dop.A[:n, :n]), as_t(_dop.B), as_t(_dop.C[:n]), as_t(_dop.E3), as_t(_dop.E5)

    empty = staticmethod(lambda shape, like: torch.empty(shape, dtype=like.dtype, device=like.device))
    dot = staticmethod(lambda a, K: torch.tensordot(a, K, dims=1))
    maximum = staticmethod(torch.maximum)
    where = staticmethod(torch.where)
    stack = staticmethod(torch.stack)
    times = staticmethod(lambda t, like: torch.tensor(t, dtype=like.dtype, device=like.device))
    member_max = staticmethod(lambda x: x.amax(dim=(0, 2)))

    @staticmethod
    def member_norm2(x):
        return (x * x).reshape(x.shape[0], -1).sum(-1)


def _xp(y):
    return _Numpy if isinstance(y, np.ndarray) else _Torch


def _initial_step(xp, rhs, y0, f0, T, rtol, atol) -> float:
    """Hairer's starting step (scipy's ``select_initial_step``), the smallest over the batch."""
    per = y0[0].size if isinstance(y0, np.ndarray) else y0[0].numel()
    scale = atol + abs(y0) * rtol
    d0 = (xp.member_norm2(y0 / scale) / per) ** 0.5
    d1 = (xp.member_norm2(f0 / scale) / per) ** 0.5
    small = (d0 < 1e-5) | (d1 < 1e-5)
    h0 = min(float(xp.where(small, 1e-6 + 0.0 * d0, 0.01 * d0 / xp.where(small, 1.0, d1)).min()), T)
    f1 = rhs(y0 + h0 * f0)
    d2 = float(((xp.member_norm2((f1 - f0) / scale) / per) ** 0.5).max()) / h0
    d1m = float(d1.max())
    h1 = max(1e-6, h0 * 1e-3) if max(d1m, d2) <= 1e-15 else (0.01 / max(d1m, d2)) ** (1.0 / 8.0)
    return min(100 * h0, h1, T)


def _run(rhs, y0, T, t_eval, rtol, atol, max_steps, record_all):
    xp = _xp(y0)
    A, B, C, E3, E5 = xp.tableau(y0)
    n = _dop.N_STAGES
    per = y0[0].size if isinstance(y0, np.ndarray) else y0[0].numel()
    K = xp.empty((n + 1, *y0.shape), y0)
    y, t = y0, 0.0
    f = rhs(y)
    nfev, steps, rejected = 2, 0, 0
    h = _initial_step(xp, rhs, y0, f, T, rtol, atol)
    stops = [float(v) for v in t_eval] if t_eval is not None else [T]
    times, states = [0.0], [y0]
    if stops and stops[0] == 0.0:
        stops = stops[1:]
    while stops:
        if steps + rejected >= max_steps:
            return times, states, False, f"more than {max_steps} steps", nfev, steps, rejected
        target = stops[0]
        h_try = min(h, target - t)
        land = h_try >= target - t
        K[0] = f
        for s in range(1, n):
            K[s] = rhs(y + h_try * xp.dot(A[s, :s], K[:s]))
        y_new = y + h_try * xp.dot(B, K[:n])
        f_new = rhs(y_new)
        K[n] = f_new
        nfev += n
        scale = atol + xp.maximum(abs(y), abs(y_new)) * rtol
        e5 = xp.member_norm2(xp.dot(E5, K) / scale)
        e3 = xp.member_norm2(xp.dot(E3, K) / scale)
        denom = (e5 + 0.01 * e3) * per
        safe = denom > 0
        error = h_try * float(xp.where(safe, e5 / xp.where(safe, denom, 1.0) ** 0.5, 0.0 * e5).max())
        if not math.isfinite(error):
            return times, states, False, "non-finite state or error estimate", nfev, steps, rejected
        if error <= 1.0:
            factor = MAX_FACTOR if error == 0 else min(MAX_FACTOR, SAFETY * error**ERROR_EXPONENT)
            t = target if land else t + h_try
            y, f = y_new, f_new
            steps += 1
            if land:
                stops.pop(0)
            if land or record_all:
                times.append(t)
                states.append(y)
            # A step shortened to land on a time says nothing about the step the error would allow.
            h = max(h, h_try * factor) if land else h_try * factor
        else:
            rejected += 1
            h = h_try * max(MIN_FACTOR, SAFETY * error**ERROR_EXPONENT)
            if h < 1e-14 * max(1.0, abs(t)):
                return times, states, False, "step size underflow", nfev, steps, rejected
    return times, states, True, "reached the final time", nfev, steps, rejected


def integrate_batched(rhs: Callable, y0, T: float, *,
                      t_eval=None, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL,
                      max_steps: int = 200_000, certify: bool = False) -> BatchedOdeSolution:
    """Integrate ẏ = rhs(y) for a batch y0 of shape (B, …) on [0, T] (DOP853, one step size for the batch).

    ``y0`` is a torch tensor (the loop runs on its device) or a numpy array (CPU, less overhead per step for
    small systems); ``rhs`` maps a (B, …) array to one of the same shape, member by member. With ``t_eval`` (increasing, in
    [0, T], ending at T) the steps land exactly on those times and only they are recorded; without it every
    accepted step is recorded. ``certify`` adds the global-error estimate (see the module docstring).
    """
    if y0.ndim < 1 or y0.shape[0] < 1:
        raise ValueError(f"y0 must have a leading batch dimension, got shape {tuple(y0.shape)}")
    if not (math.isfinite(T) and T > 0):
        raise ValueError(f"T must be a positive finite time, got {T}")
    if t_eval is not None:
        t_eval = [float(v) for v in t_eval]
        if any(b <= a for a, b in zip(t_eval, t_eval[1:], strict=False)) or t_eval[0] < 0 or abs(t_eval[-1] - T) > 1e-12 * T:
            raise ValueError("t_eval must increase strictly from ≥ 0 to T")
    xp = _xp(y0)
    # A blow-up is detected (non-finite error estimate) and reported in ``message``: numpy's warnings on the way
    # there would only be noise.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        times, states, ok, msg, nfev, steps, rejected = _run(rhs, y0, float(T), t_eval, rtol, atol, max_steps,
                                                             record_all=t_eval is None)
    y = xp.stack(states)
    sol = BatchedOdeSolution(xp.times(times, y0), y, ok, msg, rtol, atol, steps, rejected, nfev)
    if certify and ok:
        _, ref_y, ok2, msg2, nfev2, _, _ = _run(rhs, y0, float(T), times, rtol / CERTIFY_FACTOR,
                                                atol / CERTIFY_FACTOR, max_steps, record_all=False)
        if not ok2:
            sol.success, sol.message = False, f"certifying re-run failed: {msg2}"
        else:
            diff = abs(xp.stack(ref_y) - y)
            sol.global_error = xp.member_max(diff.reshape(diff.shape[0], diff.shape[1], -1))
        sol.nfev += nfev2
    return sol


# -- paper 002: eigen-coordinates q = (W₂ᵀW₁V)ᵀ ∈ R^{d×z}, Λ the (ascending) eigenvalues of C ---------------
# Written for numpy arrays and for batched torch tensors alike (lam broadcasts against q's rows).
def rhs_theorem2(lam, q):
    """(9): q̇ = −2[2Λq − Λqqᵀq − qqᵀΛq] (the Grassmann-projected flow). q: (…, d, z), lam: (…, d)."""
    Lq = lam[..., :, None] * q
    qt = q.swapaxes(-1, -2) if isinstance(q, np.ndarray) else q.transpose(-1, -2)
    return -2.0 * (2.0 * Lq - Lq @ (qt @ q) - q @ (qt @ Lq))


def rhs_stiefel(lam, q):
    """The embedded-metric Stiefel flow in q (the first-order limit of 'Euclidean step + polar projection'):
    q̇ = −4Λq + Λqqᵀq + 3qqᵀΛq (derived from Ẇ = −(∇ − W sym(Wᵀ∇)) as (9) is in Theorem 2's proof)."""
    Lq = lam[..., :, None] * q
    qt = q.swapaxes(-1, -2) if isinstance(q, np.ndarray) else q.transpose(-1, -2)
    return -4.0 * Lq + Lq @ (qt @ q) + 3.0 * q @ (qt @ Lq)


def rhs_theorem3(lam, q):
    """(10), z = 1: ½q̇ = −(1 − qᵀq)Λq − (I − qqᵀ)Λq, for q of shape (…, d) (batched) or (d, 1).

    A numpy (d, 1) array is one column vector only where d = len(λ) > 1: with one eigenvalue an (R, 1) array is a
    batch of R one-dimensional starts (read as a column it would mix them into one R-dimensional q)."""
    column = isinstance(q, np.ndarray) and q.ndim == 2 and q.shape[-1] == 1 and np.size(lam) > 1
    v = q.reshape(-1) if column else q
    Lq = lam * v
    qq = (v * v).sum(-1, keepdims=True) if isinstance(v, np.ndarray) else (v * v).sum(-1, keepdim=True)
    qLq = (v * Lq).sum(-1, keepdims=True) if isinstance(v, np.ndarray) else (v * Lq).sum(-1, keepdim=True)
    out = -2.0 * ((1.0 - qq) * Lq + Lq - v * qLq)
    return out.reshape(q.shape)
