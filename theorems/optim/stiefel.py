"""Stiefel matrices and the constrained flows and steps of paper 002, batched over leading dimensions.

For L = Tr(W₂ᵀW₁CW₁ᵀW₂) with symmetric C (Definition 1, eq. (8)) the Euclidean gradients are
g₁ = 2W₂W₂ᵀW₁C, g₂ = 2W₁CW₁ᵀW₂. Velocities:

* ``grassmann``: −(I − WWᵀ)g, the flow of Theorem 2's proof (tangent-space projection, Edelman et al.);
* ``stiefel``:   −(g − W sym(Wᵀg)), the embedded-metric Stiefel gradient flow, which is the first-order
  limit of "Euclidean step + polar (SVD) projection" (the nearest point of the manifold);
* ``euclid_qr``: −(I − WWᵀ)g − W ρ(Wᵀg), ρ(A) = tril(A,−1) − tril(A,−1)ᵀ, the first-order limit of
  "Euclidean step + QR orthonormalisation", whose fixed points are wrong (ρ does not vanish on symmetric A).

Discrete steps with the same names: (a) ``grassmann`` tangent step + QR retraction (Riemannian GD),
(b) ``stiefel`` Euclidean step + polar projection, (c) ``euclid_qr`` Euclidean step + QR.

Everything here takes torch tensors (on any device) or numpy arrays alike: the dynamics of paper 002 are
sequences of thousands of operations on matrices of a few entries, where numpy's smaller per-operation
overhead matters on a CPU.

Reduced coordinates. Every gradient above lies in the span of the current columns of W₁ and W₂, and QR, polar
and the tangent projection commute with an isometry F: qf(FM) = F qf(M), polar(FM) = F polar(M). So a run started
from (W₁, W₂) stays in the (d+z)-dimensional span of their columns: W = F·Y with F ∈ St(h, d+z) fixed and
(Y₁, Y₂) a run of the same scheme in R^{(d+z)}. The width h only enters through the starting point
(``reduce_to_span``): at h = 1000 a step costs what it costs at h = d + z, exactly (not approximately).
"""

from __future__ import annotations

import numpy as np
import torch

FLOWS = ("grassmann", "stiefel", "euclid_qr")


def _is_np(x) -> bool:
    return isinstance(x, np.ndarray)


def mT(A):
    """Transpose of the last two dimensions (numpy or torch)."""
    return A.swapaxes(-1, -2) if _is_np(A) else A.transpose(-1, -2)


def cat(parts, dim: int = -1):
    return np.concatenate(parts, axis=dim) if _is_np(parts[0]) else torch.cat(parts, dim=dim)


def sym(A):
    return 0.5 * (A + mT(A))


def _unit_columns(A):
    nrm = (A * A).sum(-2, keepdims=True) ** 0.5 if _is_np(A) else A.norm(dim=-2, keepdim=True)
    return A / nrm


# Numpy matrices with at most this many columns are factorised by hand: LAPACK's per-matrix call costs ~10×
# the arithmetic of a (k×2) Gram–Schmidt or a 2×2 inverse square root, and these factors are near-orthonormal
# (one small step from the manifold), where Gram–Schmidt loses nothing.
SMALL_COLUMNS = 2


def _gram_schmidt(A):
    """Modified Gram–Schmidt on the columns (numpy, batched): the thin QR's Q with diag(R) > 0."""
    cols = []
    for j in range(A.shape[-1]):
        v = A[..., j:j + 1]
        for q in cols:
            v = v - q * (q * v).sum(-2, keepdims=True)
        cols.append(_unit_columns(v))
    return np.concatenate(cols, axis=-1)


def _polar_two_columns(A):
    """UVᵀ = A(AᵀA)^{−1/2} for two columns (numpy, batched): with S = AᵀA and s = √det S,
    S^{−1/2} = [[S₂₂ + s, −S₁₂], [−S₁₂, S₁₁ + s]] / (s·√(tr S + 2s))."""
    S = mT(A) @ A
    a, b, c = S[..., 0, 0], S[..., 0, 1], S[..., 1, 1]
    r = np.sqrt(a * c - b * b)
    scale = 1.0 / (r * np.sqrt(a + c + 2 * r))
    inv = np.stack([np.stack([c + r, -b], -1), np.stack([-b, a + r], -1)], -2) * scale[..., None, None]
    return A @ inv


def qf(A):
    """Q factor of a thin QR with the sign fix diag(R) > 0 (a continuous retraction)."""
    if A.shape[-1] == 1:  # one column: Q = a/‖a‖, R = ‖a‖ > 0 (no LAPACK call)
        return _unit_columns(A)
    if _is_np(A) and A.shape[-1] <= SMALL_COLUMNS:
        return _gram_schmidt(A)
    if _is_np(A):
        Q, R = np.linalg.qr(A)
        s = np.sign(np.diagonal(R, axis1=-2, axis2=-1))
        return Q * np.where(s == 0, 1.0, s)[..., None, :]
    Q, R = torch.linalg.qr(A)
    s = torch.sign(torch.diagonal(R, dim1=-2, dim2=-1))
    s = torch.where(s == 0, torch.ones_like(s), s)
    return Q * s.unsqueeze(-2)


def polar(A):
    """The nearest matrix with orthonormal columns, UVᵀ from a thin SVD."""
    if A.shape[-1] == 1:  # one column: UVᵀ = a/‖a‖
        return _unit_columns(A)
    if _is_np(A) and A.shape[-1] == 2:
        return _polar_two_columns(A)
    if _is_np(A):
        U, _, Vh = np.linalg.svd(A, full_matrices=False)
    else:
        U, _, Vh = torch.linalg.svd(A, full_matrices=False)
    return U @ Vh


def haar_stiefel(ctx, *batch: int, h: int, k: int) -> torch.Tensor:
    """Haar-uniform points of St(h, k), shape (*batch, h, k): qf of a Gaussian."""
    return qf(ctx.randn(*batch, h, k))


def orthonormality_error(W):
    """max |WᵀW − I| per batch element."""
    k = W.shape[-1]
    if _is_np(W):
        return np.abs(mT(W) @ W - np.eye(k)).max(axis=(-1, -2))
    eye = torch.eye(k, dtype=W.dtype, device=W.device)
    return (W.transpose(-1, -2) @ W - eye).abs().amax(dim=(-1, -2))


def trace_loss(W1, W2, C):
    """Tr(W₂ᵀW₁CW₁ᵀW₂) per batch element."""
    P = mT(W2) @ W1
    return (P @ C * P).sum(-1).sum(-1)


def euclid_grads(W1, W2, C):
    """(∇_{W₁}L, ∇_{W₂}L) = (2W₂W₂ᵀW₁C, 2W₁CW₁ᵀW₂) for symmetric C."""
    P = mT(W2) @ W1
    return 2 * W2 @ P @ C, 2 * W1 @ (C @ mT(P))


def _rho(A):
    low = np.tril(A, -1) if _is_np(A) else torch.tril(A, -1)
    return low - mT(low)


def velocity(W, g, flow: str):
    """dW/dt of the named flow for one factor W with Euclidean gradient g."""
    WtG = mT(W) @ g
    if flow == "grassmann":
        return -(g - W @ WtG)
    if flow == "stiefel":
        return -(g - W @ sym(WtG))
    if flow == "euclid_qr":
        return -(g - W @ WtG) - W @ _rho(WtG)
    raise ValueError(f"unknown flow {flow!r}; choose one of {FLOWS}")


def velocities(W1, W2, C, flow: str = "grassmann", grads=None):
    """(dW₁/dt, dW₂/dt) of the named flow; ``grads`` overrides the closed-form Euclidean gradients."""
    g1, g2 = grads if grads is not None else euclid_grads(W1, W2, C)
    return velocity(W1, g1, flow), velocity(W2, g2, flow)


def flow_rhs(C, d: int, flow: str = "grassmann"):
    """The named flow as a right-hand side on Y = [W₁ | W₂] of shape (…, h, d + z), for
    ``optim.ode.integrate_batched``. Zero rows stay zero, so runs of different widths can share one batch
    padded with zero rows."""

    def rhs(Y):
        W1, W2 = Y[..., :d], Y[..., d:]
        v1, v2 = velocities(W1, W2, C, flow)
        return cat([v1, v2])

    return rhs


def step(W1, W2, C, eta: float, scheme: str, sign: float = -1.0):
    """One discrete step: 'grassmann' (a) tangent step + qf, 'stiefel' (b) Euclid + polar, 'euclid_qr' (c).

    ``sign`` = −1 is descent; +1 is eq. (11) as printed (W + η∇L: ascent). ``eta`` may be an array/tensor
    broadcasting against the batch (one step size per member)."""
    g1, g2 = euclid_grads(W1, W2, C)
    e = -sign * eta
    if scheme == "grassmann":
        return qf(W1 + e * velocity(W1, g1, "grassmann")), qf(W2 + e * velocity(W2, g2, "grassmann"))
    if scheme == "stiefel":
        return polar(W1 - e * g1), polar(W2 - e * g2)
    if scheme == "euclid_qr":
        return qf(W1 - e * g1), qf(W2 - e * g2)
    raise ValueError(f"unknown scheme {scheme!r}; choose one of {FLOWS}")


def reduce_to_span(W1, W2):
    """(F, Y₁, Y₂) with W₁ = FY₁, W₂ = FY₂ and F ∈ St(h, k), k = min(h, d + z): the coordinates in which every
    flow and step of this module runs at a cost independent of h (module docstring)."""
    h, d, z = W1.shape[-2], W1.shape[-1], W2.shape[-1]
    if h <= d + z:
        eye = np.eye(h) if _is_np(W1) else torch.eye(h, dtype=W1.dtype, device=W1.device)
        return eye, W1, W2
    F = qf(cat([W1, W2]))
    return F, mT(F) @ W1, mT(F) @ W2


def realise_q(ctx, q0: torch.Tensor, V: torch.Tensor, h: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Stiefel (W₁, W₂) with (W₂ᵀW₁V)ᵀ = q₀, for ‖q₀‖₂ ≤ 1 and h ≥ d + z:
    [W₁ | N] ∈ St(h, d+z), W₂ = W₁Vq₀ + N(I − q₀ᵀq₀)^{1/2} (then W₂ᵀW₂ = q₀ᵀq₀ + I − q₀ᵀq₀ = I)."""
    d, z = q0.shape
    F = haar_stiefel(ctx, h=h, k=d + z)
    W1, N = F[:, :d], F[:, d:]
    M = torch.eye(z, dtype=q0.dtype, device=q0.device) - q0.T @ q0
    evals, evecs = torch.linalg.eigh(sym(M))
    root = evecs @ torch.diag(evals.clamp_min(0).sqrt()) @ evecs.T
    return W1, W1 @ V @ q0 + N @ root
