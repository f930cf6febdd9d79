"""The 2-layer network of paper 001 §4 (K disjoint receptive fields, M filters each, top layer V) and the gradient
formulas of Lemma 4.

Shapes: W (K, M, d) with w_km = W[k, m]; inputs x (N, K, d) (x_k = x[:, k]); f₁ (N, KM) in the order (k, m);
V (d_out, KM), f₂ = f₁Vᵀ; the energy is ℰ = ½ tr C_α[f₂] (eq. 3, two views, α fixed).

Activations: the homogeneous ones of Assumption 1 (``relu`` with h'(0) = 0 as in B.1, ``leaky`` with slope ``leak``
below 0 and h'(0) = leak, which is also what torch's backward uses, ``linear``) and two that violate it
(``quadratic`` h = s², for which h'(s)s = 2h, and ``tanh``), used as negative controls.
"""

from __future__ import annotations

import torch

from .covariance import contrastive_covariance

HOMOGENEOUS = ("relu", "leaky", "linear")
ACTIVATIONS = HOMOGENEOUS + ("quadratic", "tanh")


def act(name: str, s: torch.Tensor, leak: float = 0.1) -> torch.Tensor:
    if name == "relu":
        return torch.relu(s)
    if name == "leaky":
        return torch.nn.functional.leaky_relu(s, leak)
    if name == "linear":
        return s
    if name == "quadratic":
        return s * s
    if name == "tanh":
        return torch.tanh(s)
    raise ValueError(f"unknown activation {name!r}: one of {ACTIVATIONS}")


def act_prime(name: str, s: torch.Tensor, leak: float = 0.1) -> torch.Tensor:
    """h'(s), with h'(0) = 0 for ReLU (B.1) and h'(0) = leak for LeakyReLU."""
    if name == "relu":
        return (s > 0).to(s.dtype)
    if name == "leaky":
        return torch.where(s > 0, torch.ones_like(s), torch.full_like(s, leak))
    if name == "linear":
        return torch.ones_like(s)
    if name == "quadratic":
        return 2 * s
    if name == "tanh":
        return 1 - torch.tanh(s) ** 2
    raise ValueError(f"unknown activation {name!r}: one of {ACTIVATIONS}")


def preact(W: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """w_kmᵀx_k for every sample: (N, K, M)."""
    return torch.einsum("kmd,nkd->nkm", W, x)


def hidden(W: torch.Tensor, x: torch.Tensor, name: str, leak: float = 0.1) -> torch.Tensor:
    """f₁ (N, KM)."""
    return act(name, preact(W, x), leak).flatten(1)


def gated(W: torch.Tensor, x: torch.Tensor, name: str, leak: float = 0.1) -> torch.Tensor:
    """x̃ (N, KMd): x̃_km = x_k·h'(w_kmᵀx_k), stacked in the order (k, m, d)."""
    g = act_prime(name, preact(W, x), leak)  # (N, K, M)
    return (g[..., None] * x[:, :, None, :]).flatten(1)


def energy(W, V, x1, x2, alpha, name: str, leak: float = 0.1) -> torch.Tensor:
    """ℰ = ½ tr C_α[V f₁] on a batch with two views (α fixed or None for α ≡ 1)."""
    f2a, f2b = hidden(W, x1, name, leak) @ V.T, hidden(W, x2, name, leak) @ V.T
    return 0.5 * torch.trace(contrastive_covariance(f2a, f2a, f2b, f2b, alpha))


def lemma_4_gradients(W, V, x1, x2, alpha, name: str, leak: float = 0.1):
    """Lemma 4 (eq. 12), unprojected: ∂ℰ/∂V = V C_α[f₁] and ∂ℰ/∂w = [(S ⊗ 1_d1_dᵀ) ∘ C_α[x̃]]w, S = VᵀV."""
    K, M, d = W.shape
    f1a, f1b = hidden(W, x1, name, leak), hidden(W, x2, name, leak)
    gV = V @ contrastive_covariance(f1a, f1a, f1b, f1b, alpha)
    ta, tb = gated(W, x1, name, leak), gated(W, x2, name, leak)
    Cx = contrastive_covariance(ta, ta, tb, tb, alpha)  # (KMd, KMd)
    S = V.T @ V
    mask = torch.kron(S, torch.ones(d, d, dtype=S.dtype, device=S.device))
    gW = ((mask * Cx) @ W.reshape(-1)).reshape(K, M, d)
    return gV, gW


def project(W: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """P⊥_w per filter (the block-diagonal projection of Lemma 4), for unit or non-unit w_km."""
    u = W / W.norm(dim=-1, keepdim=True)
    return G - (G * u).sum(-1, keepdim=True) * u
