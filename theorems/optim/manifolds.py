"""The LayerNorm sphere: {x ∈ R^d : 1ᵀx = 0, ‖x‖ = √d}, the feasible set of LN outputs.

LayerNorm without affine parameters and with the population std is exactly ``ln(v) = √d·Pv/‖Pv‖`` with
``P = I − 11ᵀ/d`` (paper 004, Section 3: LayerNorm without affine parameters). Optimising over free ``V`` with ``X = ln(V)`` is therefore optimising
over the product of these spheres, one per column; the map is onto, so nothing is lost. For d = 2 the
sphere is the two points ±(1, −1)/… and is not connected, which is why optimisers need d ≥ 3 here.
"""

from __future__ import annotations

import math

import torch


def center(v: torch.Tensor) -> torch.Tensor:
    """Columns projected onto 1^⊥ (dim -2 is the feature dimension)."""
    return v - v.mean(dim=-2, keepdim=True)


def ln(v: torch.Tensor) -> torch.Tensor:
    """Column-wise LayerNorm with no affine parameters and no eps: √d·Pv/‖Pv‖."""
    d = v.shape[-2]
    pv = center(v)
    norm = pv.norm(dim=-2, keepdim=True).clamp_min(torch.finfo(v.dtype).tiny)
    return math.sqrt(d) * pv / norm


def tangent(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """Project ambient gradients ``g`` onto the tangent space of the LN sphere at ``x`` (columns).

    The tangent space at x is {u ∈ 1^⊥ : uᵀx = 0}; with ‖x‖² = d this is Pg − x (xᵀPg)/d.
    """
    d = x.shape[-2]
    pg = center(g)
    return pg - x * (x * pg).sum(dim=-2, keepdim=True) / d


def feasibility_residual(x: torch.Tensor) -> torch.Tensor:
    """max over columns of |1ᵀx| and |‖x‖ − √d|, per leading batch index (for checks of feasibility)."""
    d = x.shape[-2]
    mean_dev = x.sum(dim=-2).abs()
    norm_dev = (x.norm(dim=-2) - math.sqrt(d)).abs()
    return torch.maximum(mean_dev, norm_dev).amax(dim=-1)


def random_point(ctx, *batch: int, d: int, n: int) -> torch.Tensor:
    """Uniform random points on the LN sphere, shape (*batch, d, n) (LN of a Gaussian is uniform)."""
    return ln(ctx.randn(*batch, d, n))


def orthonormal_basis_of_ones_complement(d: int, *, dtype=torch.float64, device=None) -> torch.Tensor:
    """A d×(d−1) matrix whose orthonormal columns span 1^⊥ (Helmert-style, deterministic)."""
    eye = torch.eye(d, dtype=dtype, device=device)
    p = eye - torch.full((d, d), 1.0 / d, dtype=dtype, device=device)
    q, _ = torch.linalg.qr(p[:, : d - 1])
    return q
