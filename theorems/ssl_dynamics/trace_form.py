"""The trace form of paper 002 (eq. (7), Definition 1 (8)) and shared pieces of its results.

For u(x) = W₂ᵀW₁x (or Θx), both SSL losses are L = Tr(W₂ᵀW₁CW₁ᵀW₂), C = ½(C̃ + C̃ᵀ), with
* contrastive (1):     C̃ = Σᵢ xᵢ(xᵢ⁻ − xᵢ⁺)ᵀ,
* non-contrastive (2): C̃ = −Σᵢ xᵢ(xᵢ⁺)ᵀ  (the paper prints +Σ; the minus follows from loss (2)'s sign,
  as in its own appendix, proof of Proposition 1).
C is divided by n (the mean loss), which the paper leaves open: with a sum over n and η = 0.01 its own
experiment is unstable. E[C̃ | X] = −n Cov̂(X), not −n E[xxᵀ] as printed after Theorem 3.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.result import Violation
from ..data.ssl_pairs import Triplets

LOSSES = ("contrastive", "noncontrastive")


def sym(A: torch.Tensor) -> torch.Tensor:
    return 0.5 * (A + A.transpose(-1, -2))


def c_tilde(t: Triplets, loss: str, sign: float = -1.0) -> torch.Tensor:
    """C̃/n. ``sign`` is the sign of the non-contrastive sum: −1 corrected, +1 as printed."""
    if loss == "contrastive":
        return t.x.T @ (t.neg - t.pos) / t.n
    if loss == "noncontrastive":
        return sign * (t.x.T @ t.pos) / t.n
    raise ValueError(f"unknown loss {loss!r}; choose one of {LOSSES}")


def trace_matrix(t: Triplets, loss: str, sign: float = -1.0) -> torch.Tensor:
    """C = sym(C̃)/n: the matrix of the trace form of the mean loss."""
    return sym(c_tilde(t, loss, sign))


def ssl_loss(u, t: Triplets, loss: str) -> torch.Tensor:
    """The mean SSL loss evaluated directly on the embedding map u: (n, d) -> (..., n, z)."""
    ux, up = u(t.x), u(t.pos)
    if loss == "contrastive":
        return (ux * (u(t.neg) - up)).sum(dim=(-1, -2)) / t.n
    return -(ux * up).sum(dim=(-1, -2)) / t.n


def eig_ascending(C: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.linalg.eigh(C)


def random_symmetric(ctx, spectrum) -> torch.Tensor:
    """Q diag(spectrum) Qᵀ for a random rotation Q."""
    lam = ctx.tensor(list(spectrum))
    d = lam.numel()
    Q, R = torch.linalg.qr(ctx.randn(d, d))
    Q = Q * torch.sign(torch.diagonal(R))
    return sym(Q @ torch.diag(lam) @ Q.T)


def matrix_from_text(text: str) -> np.ndarray | None:
    """'a,b;c,d' -> a 2-D array (rows separated by ';'); None if malformed."""
    try:
        rows = [[float(v) for v in r.split(",")] for r in text.split(";")]
        A = np.array(rows, dtype=float)
    except ValueError:
        return None
    return A if A.ndim == 2 and np.isfinite(A).all() else None


# -- shared hypothesis checks ----------------------------------------------------------------------------------
def width_violations(h: int, d: int, z: int) -> list[Violation]:
    out = []
    if h < z:
        out.append(Violation("h ≥ z (W₂ ∈ St(h, z) needs at least z rows)",
                             f"width h = {h} is smaller than the output dimension z = {z}", ("h", "z"),
                             bypassable=False))
    if h < d:
        out.append(Violation("h ≥ d (W₁ ∈ St(h, d) needs at least d rows)",
                             f"width h = {h} is smaller than the input dimension d = {d}", ("h", "d"),
                             bypassable=False))
    return out


def symmetric_C_violations(p: dict, key: str = "C") -> tuple[list[Violation], np.ndarray | None]:
    """An explicit C ('a,b;c,d') must be square and symmetric (the trace form only sees sym(C))."""
    text = p.get(key, "")
    if not text:
        return [], None
    A = matrix_from_text(text)
    if A is None or A.shape[0] != A.shape[1]:
        return [Violation("C a square real matrix", f"cannot read {key} = {text!r} as a square matrix "
                          "(rows separated by ';', entries by ',')", (key,), bypassable=False)], None
    if not np.allclose(A, A.T, rtol=0, atol=1e-12 * max(1.0, np.abs(A).max())):
        return [Violation("C symmetric (C = ½(C̃ + C̃ᵀ))", f"{key} = {text!r} is not symmetric: "
                          f"max |C − Cᵀ| = {np.abs(A - A.T).max():.3g}", (key,), bypassable=False)], None
    return [], A


ACTIVATIONS = ("identity", "tanh", "softplus2", "relu", "sigmoid")


def activation(name: str):
    """φ as a torch function. softplus2(a) = 2(softplus(a) − log 2): φ(0) = 0, φ'(0) = 1, φ''(0) = ½."""
    if name == "identity":
        return lambda a: a
    if name == "tanh":
        return torch.tanh
    if name == "softplus2":
        return lambda a: 2.0 * (torch.nn.functional.softplus(a) - math.log(2.0))
    if name == "relu":
        return torch.relu
    if name == "sigmoid":
        return torch.sigmoid
    raise ValueError(name)


# sup |φ''| (the constant c of Theorem 1) and φ''(0), computed for the smooth activations.
SECOND_DERIVATIVE = {"identity": (0.0, 0.0), "tanh": (4 / (3 * math.sqrt(3)), 0.0), "softplus2": (0.5, 0.5)}


def activation_violations(name: str) -> list[Violation]:
    """φ(0) = 0 and φ'(0) = 1 (Theorem 1, Conjecture 1), checked numerically on φ itself."""
    phi = activation(name)
    eps = 1e-6
    x = torch.tensor([-eps, 0.0, eps], dtype=torch.float64, device="cpu")  # a hypothesis check, on the host
    y = phi(x)
    out = []
    if abs(float(y[1])) > 1e-12:
        out.append(Violation("φ(0) = 0", f"activation {name!r} has φ(0) = {float(y[1]):.6g}", ("activation",)))
    left, right = float((y[1] - y[0]) / eps), float((y[2] - y[1]) / eps)
    if abs(left - 1) > 1e-4 or abs(right - 1) > 1e-4:
        out.append(Violation("φ'(0) = 1", f"activation {name!r} has one-sided slopes {left:.4g}, {right:.4g} at 0",
                             ("activation",)))
    return out
