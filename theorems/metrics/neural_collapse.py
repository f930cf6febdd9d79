"""Neural-collapse metrics exactly as paper 004's Definition 3.4 (digest §1.5).

All functions are batched over leading dimensions: ``W`` has shape (..., K, d), ``X`` (..., d, N), and
``labels`` (N,) holds class indices 0..K−1 (every class non-empty). Reading choices, following the digest:

* NC1 = tr(Σ_W)/tr(Σ_B), the paper's ratio of traces (not Papyan's tr(Σ_W Σ_B^†)/K). It is +inf when
  every class mean coincides but samples vary, and nan when all samples coincide (undefined).
* NC2A = min_{c≥0} ‖WWᵀ − cE_K‖_F/‖WWᵀ‖_F with E_K = I − 11ᵀ/K: the printed E_K = I − 11ᵀ is a typo
  (erratum A1) under which even a simplex ETF would not be collapsed; ``literal_ek=True`` gives the
  printed matrix, for documenting the typo. The minimising c has the closed form max(0, ⟨G,E⟩/‖E‖²).
* NC2B = min_{c≥0} ‖WWᵀ − cI‖_F/‖WWᵀ‖_F, minimiser c = max(0, tr G/K).
* NC3 = 1 − mean cos(x_ki, w_k), on raw (uncentred) features. A zero row of W makes it nan.
"""

from __future__ import annotations

import torch


def class_means(X: torch.Tensor, labels: torch.Tensor, K: int) -> torch.Tensor:
    """(..., d, K) class means."""
    onehot = torch.nn.functional.one_hot(labels, K).to(X.dtype)  # (N, K)
    counts = onehot.sum(0)
    return X @ onehot / counts


def nc1(X: torch.Tensor, labels: torch.Tensor, K: int) -> torch.Tensor:
    means = class_means(X, labels, K)  # (..., d, K)
    within = (X - means[..., labels]).pow(2).sum(dim=(-2, -1)) / X.shape[-1]
    glob = means.mean(dim=-1, keepdim=True)
    between = (means - glob).pow(2).sum(dim=(-2, -1)) / K
    return within / between  # x/0 -> inf, 0/0 -> nan: both are the honest value of the ratio


def etf_matrix(K: int, *, literal: bool = False, dtype=torch.float64, device=None) -> torch.Tensor:
    """E_K = I − 11ᵀ/K (corrected), or the printed I − 11ᵀ with ``literal=True``."""
    ones = torch.ones(K, K, dtype=dtype, device=device)
    return torch.eye(K, dtype=dtype, device=device) - (ones if literal else ones / K)


def _nc2(W: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    G = W @ W.transpose(-1, -2)
    c = ((G * target).sum(dim=(-2, -1)) / target.pow(2).sum()).clamp_min(0.0)
    return (G - c[..., None, None] * target).norm(dim=(-2, -1)) / G.norm(dim=(-2, -1))


def nc2a(W: torch.Tensor, *, literal_ek: bool = False) -> torch.Tensor:
    K = W.shape[-2]
    return _nc2(W, etf_matrix(K, literal=literal_ek, dtype=W.dtype, device=W.device))


def nc2b(W: torch.Tensor) -> torch.Tensor:
    K = W.shape[-2]
    return _nc2(W, torch.eye(K, dtype=W.dtype, device=W.device))


def nc3(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    rows = W[..., labels, :]  # (..., N, d): the row of each sample's class
    Xt = X.transpose(-1, -2)  # (..., N, d)
    cos = (rows * Xt).sum(-1) / (rows.norm(dim=-1) * Xt.norm(dim=-1))
    return 1.0 - cos.mean(dim=-1)


def nc_metrics(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
    """All four metrics of Definition 3.4, batched."""
    K = W.shape[-2]
    return {"nc1": nc1(X, labels, K), "nc2a": nc2a(W), "nc2b": nc2b(W), "nc3": nc3(W, X, labels)}
