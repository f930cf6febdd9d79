"""scipy ODE integration with a reported certificate, and the eigen-coordinate ODEs of paper 002.

``integrate`` wraps ``scipy.integrate.solve_ivp`` (DOP853 by default): it returns the trajectory on a time
grid together with what a check needs to judge it (success flag, message, rtol, atol, number of right-hand
side evaluations). The ODEs run in numpy float64 on the CPU: they are d×z-sized, so a GPU would not help.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.integrate import solve_ivp

DEFAULT_RTOL = 1e-11
DEFAULT_ATOL = 1e-13


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
    """Integrate the autonomous ODE ẏ = rhs(y) (y of any shape) on [0, t_eval[-1]], sampled at ``t_eval``."""
    y0 = np.asarray(y0, dtype=float)
    shape = y0.shape
    t_eval = np.asarray(t_eval, dtype=float)
    sol = solve_ivp(lambda t, v: np.asarray(rhs(v.reshape(shape)), dtype=float).ravel(), (0.0, float(t_eval[-1])),
                    y0.ravel(), method=method, t_eval=t_eval, rtol=rtol, atol=atol)
    y = sol.y.T.reshape(len(sol.t), *shape)
    return OdeSolution(sol.t, y, bool(sol.success), str(sol.message), rtol, atol, int(sol.nfev), method)


# -- paper 002: eigen-coordinates q = (W₂ᵀW₁V)ᵀ ∈ R^{d×z}, Λ the (ascending) eigenvalues of C ---------------
def rhs_theorem2(lam: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(9): q̇ = −2[2Λq − Λqqᵀq − qqᵀΛq] (the Grassmann-projected flow)."""
    Lq = lam[:, None] * q
    return -2.0 * (2.0 * Lq - Lq @ (q.T @ q) - q @ (q.T @ Lq))


def rhs_stiefel(lam: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The embedded-metric Stiefel flow in q (digest §2, derived there): q̇ = −4Λq + Λqqᵀq + 3qqᵀΛq."""
    Lq = lam[:, None] * q
    return -4.0 * Lq + Lq @ (q.T @ q) + 3.0 * q @ (q.T @ Lq)


def rhs_theorem3(lam: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(10), z = 1: ½q̇ = −(1 − qᵀq)Λq − (I − qqᵀ)Λq, for q of shape (d,) or (d, 1)."""
    v = q.reshape(-1)
    Lq = lam * v
    out = -2.0 * ((1.0 - v @ v) * Lq + Lq - v * (v @ Lq))
    return out.reshape(q.shape)
