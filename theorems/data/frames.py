"""Labels and the canonical frames that collapsed configurations are built from.

* ``balanced_labels(K, n)``: class-by-class ordering, x_{ki} is column k·n + i (paper 004, Section 3: the samples of class k).
* ``simplex_etf(K)``: K unit vectors in R^K with pairwise inner product −1/(K−1) spanning K−1 dims.
* ``embed_in_ones_complement(U, d, rotation)``: an isometric copy of the columns of U inside 1^⊥ ⊂ R^d,
  optionally rotated by a random orthogonal map of 1^⊥; raises when 1^⊥ is too small to hold them.
"""

from __future__ import annotations

import math

import torch

from ..optim.manifolds import orthonormal_basis_of_ones_complement


def balanced_labels(K: int, n: int, *, device=None) -> torch.Tensor:
    return torch.arange(K, device=device).repeat_interleave(n)


def one_hot(labels: torch.Tensor, K: int, dtype=torch.float64) -> torch.Tensor:
    """(K, N) one-hot targets Y."""
    return torch.nn.functional.one_hot(labels, K).T.to(dtype)


def simplex_etf(K: int, *, dtype=torch.float64, device=None) -> torch.Tensor:
    """(K, K) matrix whose columns are the simplex ETF: √(K/(K−1))(I − 11ᵀ/K)."""
    eye = torch.eye(K, dtype=dtype, device=device)
    return math.sqrt(K / (K - 1)) * (eye - 1.0 / K)


def span_rank(U: torch.Tensor, tol: float = 1e-9) -> int:
    return int(torch.linalg.matrix_rank(U, atol=tol).item())


def random_orthogonal(ctx, m: int) -> torch.Tensor:
    """Haar-random m×m orthogonal matrix (QR of a Gaussian with the sign fix)."""
    q, r = torch.linalg.qr(ctx.randn(m, m))
    return q * torch.sign(torch.diagonal(r)).unsqueeze(0)


def embed_in_ones_complement(U: torch.Tensor, d: int, rotation: torch.Tensor | None = None) -> torch.Tensor:
    """Map the columns of U (in R^k, spanning at most d−1 dims) isometrically into 1^⊥ ⊂ R^d.

    The columns are first reduced to coordinates in their own span (so a simplex ETF needs only K−1
    dims), then placed on the first coordinates of an orthonormal basis of 1^⊥, optionally rotated.
    """
    r = span_rank(U)
    if r > d - 1:
        raise ValueError(f"the frame spans {r} dimensions but 1^⊥ in R^{d} has only {d - 1}")
    # Coordinates of U in an orthonormal basis of its column span (U = A diag(S) Vh, so diag(S) Vh has
    # U's Gram); an SVD, unlike an unpivoted QR, is right when U's leading columns are dependent.
    _, S, Vh = torch.linalg.svd(U, full_matrices=False)
    coords = S[:r, None] * Vh[:r]  # (r, K): isometric coordinates
    basis = orthonormal_basis_of_ones_complement(d, dtype=U.dtype, device=U.device)  # (d, d−1)
    if rotation is not None:
        basis = basis @ rotation
    return basis[:, :r] @ coords
