"""SSL triplets (anchor, positive, negative) for paper 002: half moons and Gaussian data of a chosen covariance.

Positives are augmentations x⁺ = x + ε with ε ~ N(0, σ²I) (Example 1's "N(0, 0.1 I)" is read as variance 0.1, the
paper writing N(0, σI) for variance σ); negatives are independent draws from the dataset itself. Every draw comes from the
context's seeded CPU generator and lands on ``ctx.device``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Triplets:
    x: torch.Tensor  # (n, d) anchors
    pos: torch.Tensor  # (n, d) positives x + ε
    neg: torch.Tensor  # (n, d) negatives: dataset samples

    @property
    def n(self) -> int:
        return self.x.shape[0]

    @property
    def d(self) -> int:
        return self.x.shape[1]


def make_moons(ctx, n: int, noise: float = 0.05) -> torch.Tensor:
    """sklearn-style two half moons, (n, 2): outer arc (cos t, sin t), inner arc (1 − cos t, 1 − sin t − ½)."""
    n_out = n // 2
    n_in = n - n_out
    t_out = torch.linspace(0, math.pi, n_out, dtype=ctx.dtype, device=ctx.device)
    t_in = torch.linspace(0, math.pi, n_in, dtype=ctx.dtype, device=ctx.device)
    outer = torch.stack([torch.cos(t_out), torch.sin(t_out)], 1)
    inner = torch.stack([1 - torch.cos(t_in), 1 - torch.sin(t_in) - 0.5], 1)
    X = torch.cat([outer, inner]).to(ctx.device)
    return X + noise * ctx.randn(n, 2)


def gaussian_data(ctx, n: int, spectrum, shift: float = 1.0) -> torch.Tensor:
    """n samples of N(μ, Σ), Σ = Q diag(spectrum) Qᵀ with a random rotation Q and a random mean of norm ``shift``.

    The non-zero mean is deliberate: it separates Cov(x) from E[xxᵀ] (E[C̃] = −n Cov(x), not −n E[xxᵀ]).
    """
    spec = ctx.tensor(list(spectrum))
    d = spec.numel()
    Q, R = torch.linalg.qr(ctx.randn(d, d))
    Q = Q * torch.sign(torch.diagonal(R))
    mu = ctx.randn(d)
    mu = shift * mu / mu.norm()
    return mu + (ctx.randn(n, d) * spec.sqrt()) @ Q.T


def ssl_triplets(ctx, X: torch.Tensor, sigma2: float = 0.1) -> Triplets:
    """Positives x + N(0, σ²I), negatives drawn uniformly (with replacement) from the dataset."""
    n, d = X.shape
    pos = X + math.sqrt(sigma2) * ctx.randn(n, d)
    # Drawn on the CPU generator (device named, so a caller's default device cannot capture it), then moved.
    idx = torch.randint(0, n, (n,), generator=ctx.generator, device="cpu").to(X.device)
    return Triplets(X, pos, X[idx])


def dataset(ctx, name: str, n: int, d: int = 2, spectrum=None, noise: float = 0.05, sigma2: float = 0.1,
            shift: float = 1.0) -> Triplets:
    """'moons' (d = 2) or 'gaussian' (spectrum of the covariance, default 2^{-k}·4) SSL triplets."""
    if name == "moons":
        X = make_moons(ctx, n, noise)
    elif name == "gaussian":
        spec = spectrum if spectrum is not None else [4.0 * 0.5**k for k in range(d)]
        X = gaussian_data(ctx, n, spec, shift)
    else:
        raise ValueError(f"unknown dataset {name!r}")
    return ssl_triplets(ctx, X, sigma2)
