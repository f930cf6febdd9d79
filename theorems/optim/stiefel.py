"""Stiefel matrices and the constrained flows of paper 002 (digest 002 §1.8), batched over leading dims.

For L = Tr(W₂ᵀW₁CW₁ᵀW₂) with symmetric C the Euclidean gradients are g₁ = 2W₂W₂ᵀW₁C, g₂ = 2W₁CW₁ᵀW₂.
Velocities:
* ``grassmann``: −(I − WWᵀ)g, the flow of Theorem 2's proof (tangent-space projection);
* ``stiefel``:   −(g − W sym(Wᵀg)), the embedded-metric Stiefel gradient flow, which is the first-order
  limit of "Euclidean step + polar (SVD) projection";
* ``euclid_qr``: −(I − WWᵀ)g − W ρ(Wᵀg), ρ(A) = tril(A,−1) − tril(A,−1)ᵀ, the first-order limit of
  "Euclidean step + QR projection", whose fixed points are wrong (ρ does not vanish on symmetric A).
Discrete steps: (a) tangent step + qf, (b) Euclidean step + polar, (c) Euclidean step + qf.
"""

from __future__ import annotations

import torch

FLOWS = ("grassmann", "stiefel", "euclid_qr")


def sym(A: torch.Tensor) -> torch.Tensor:
    return 0.5 * (A + A.transpose(-1, -2))


def qf(A: torch.Tensor) -> torch.Tensor:
    """Q factor of a thin QR with the sign fix diag(R) > 0 (a continuous retraction)."""
    Q, R = torch.linalg.qr(A)
    s = torch.sign(torch.diagonal(R, dim1=-2, dim2=-1))
    s = torch.where(s == 0, torch.ones_like(s), s)
    return Q * s.unsqueeze(-2)


def polar(A: torch.Tensor) -> torch.Tensor:
    """The nearest matrix with orthonormal columns, UVᵀ from a thin SVD."""
    U, _, Vh = torch.linalg.svd(A, full_matrices=False)
    return U @ Vh


def haar_stiefel(ctx, *batch: int, h: int, k: int) -> torch.Tensor:
    """Haar-uniform points of St(h, k), shape (*batch, h, k): qf of a Gaussian."""
    return qf(ctx.randn(*batch, h, k))


def orthonormality_error(W: torch.Tensor) -> torch.Tensor:
    """max |WᵀW − I| per batch element."""
    k = W.shape[-1]
    eye = torch.eye(k, dtype=W.dtype, device=W.device)
    return (W.transpose(-1, -2) @ W - eye).abs().amax(dim=(-1, -2))


def trace_loss(W1: torch.Tensor, W2: torch.Tensor, C: torch.Tensor) -> torch.Tensor:
    """Tr(W₂ᵀW₁CW₁ᵀW₂) per batch element."""
    P = W2.transpose(-1, -2) @ W1
    return (P @ C * P).sum(dim=(-1, -2))


def euclid_grads(W1: torch.Tensor, W2: torch.Tensor, C: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(∇_{W₁}L, ∇_{W₂}L) = (2W₂W₂ᵀW₁C, 2W₁CW₁ᵀW₂) for symmetric C."""
    g1 = 2 * W2 @ (W2.transpose(-1, -2) @ W1) @ C
    g2 = 2 * W1 @ (C @ (W1.transpose(-1, -2) @ W2))
    return g1, g2


def _rho(A: torch.Tensor) -> torch.Tensor:
    low = torch.tril(A, -1)
    return low - low.transpose(-1, -2)


def velocity(W: torch.Tensor, g: torch.Tensor, flow: str) -> torch.Tensor:
    """dW/dt of the named flow for one factor W with Euclidean gradient g."""
    WtG = W.transpose(-1, -2) @ g
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


def step(W1, W2, C, eta: float, scheme: str):
    """One discrete step: 'grassmann' (a) tangent step + qf, 'stiefel' (b) Euclid + polar, 'euclid_qr' (c)."""
    g1, g2 = euclid_grads(W1, W2, C)
    if scheme == "grassmann":
        return qf(W1 + eta * velocity(W1, g1, "grassmann")), qf(W2 + eta * velocity(W2, g2, "grassmann"))
    if scheme == "stiefel":
        return polar(W1 - eta * g1), polar(W2 - eta * g2)
    if scheme == "euclid_qr":
        return qf(W1 - eta * g1), qf(W2 - eta * g2)
    raise ValueError(f"unknown scheme {scheme!r}; choose one of {FLOWS}")


def run_steps(W1, W2, C, eta: float, steps: int, scheme: str, record_every: int = 0):
    """``steps`` discrete steps; returns final (W1, W2) and, if asked, the recorded q-free loss history."""
    losses = []
    for k in range(steps):
        if record_every and k % record_every == 0:
            losses.append(trace_loss(W1, W2, C))
        W1, W2 = step(W1, W2, C, eta, scheme)
    losses.append(trace_loss(W1, W2, C))
    return W1, W2, torch.stack(losses, -1)


def realise_q(ctx, q0: torch.Tensor, V: torch.Tensor, h: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Stiefel (W₁, W₂) with (W₂ᵀW₁V)ᵀ = q₀, for ‖q₀‖₂ ≤ 1 and h ≥ d + z (digest §1.9):
    [W₁ | N] ∈ St(h, d+z), W₂ = W₁Vq₀ + N(I − q₀ᵀq₀)^{1/2}."""
    d, z = q0.shape
    F = haar_stiefel(ctx, h=h, k=d + z)
    W1, N = F[:, :d], F[:, d:]
    M = torch.eye(z, dtype=q0.dtype, device=q0.device) - q0.T @ q0
    evals, evecs = torch.linalg.eigh(sym(M))
    root = evecs @ torch.diag(evals.clamp_min(0).sqrt()) @ evecs.T
    return W1, W1 @ V @ q0 + N @ root


def w_flow_rhs(C, h: int, d: int, z: int, flow: str = "grassmann"):
    """The flow of ``velocity`` on vec(W₁, W₂) as a numpy right-hand side for ``optim.ode.integrate``
    (y has shape (h·d + h·z,)); C is a numpy array. The ODE is small, so it runs in numpy on the CPU."""
    import numpy as np

    C = np.asarray(C, dtype=float)

    def vel(W, g):
        WtG = W.T @ g
        if flow == "grassmann":
            return -(g - W @ WtG)
        if flow == "stiefel":
            return -(g - W @ (0.5 * (WtG + WtG.T)))
        low = np.tril(WtG, -1)
        return -(g - W @ WtG) - W @ (low - low.T)

    def rhs(y):
        W1, W2 = y[: h * d].reshape(h, d), y[h * d:].reshape(h, z)
        P = W2.T @ W1
        g1, g2 = 2 * W2 @ P @ C, 2 * W1 @ C @ P.T
        return np.concatenate([vel(W1, g1).ravel(), vel(W2, g2).ravel()])

    return rhs
