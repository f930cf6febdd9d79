"""Data models of paper 001 (Tian, nonlinearity in contrastive learning), as exact distributions.

* :class:`GaussianMixture`: weights π_c, means m_c, covariances Σ_c; continuous, so the ReLU-gated
  covariance A(w) is smooth in w and has a closed form (``theorems.nonlinear_cl.covariance``).
* :class:`Discrete`: finitely many atoms with probabilities; A(w) is computed by exact enumeration.
* :func:`categorical_model` (paper §3.1, eq. 8): x = u_y, y categorical with probabilities p.
* :func:`summation_model` (paper §3.1, eq. 9): x = U y with independent standardised Bernoullis y_m
  (y_m⁺ = √((1−q)/q) w.p. q, else y_m⁻ = −√(q/(1−q))), enumerated over all 2^M sign patterns.
* :func:`random_gaussian_mixture`: cluster means on a sphere of a given radius, isotropic-ish covariances.

Every generator draws through a :class:`~theorems.core.context.Context`, so a seed fixes the instance on
every device.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import torch

from ..core.errors import HypothesisViolation
from .frames import random_orthogonal

# A probability vector may miss the simplex by rounding of its normalisation only.
SIMPLEX_TOL = 1e-12


def check_simplex(p: torch.Tensor, name: str = "p") -> None:
    """Refuse a probability vector outside the simplex (negative entries or a sum ≠ 1)."""
    if p.dim() != 1 or bool((p < 0).any()) or not abs(float(p.sum()) - 1) <= SIMPLEX_TOL:
        raise HypothesisViolation(f"{name} in the probability simplex", f"entries must be ≥ 0 and sum to 1, got "
                                  f"min {float(p.min()):.3g}, sum {float(p.sum()):.12g}", bypassable=False)


@dataclass(frozen=True)
class GaussianMixture:
    weights: torch.Tensor  # (C,), sums to 1
    means: torch.Tensor  # (C, d)
    covs: torch.Tensor  # (C, d, d), positive definite

    @property
    def d(self) -> int:
        return int(self.means.shape[1])

    def sample(self, ctx, n: int) -> torch.Tensor:
        """n i.i.d. draws (n, d), from the context's generator (Monte Carlo cross-checks)."""
        u = ctx.rand(n)
        comp = torch.searchsorted(torch.cumsum(self.weights, 0), u).clamp_max(len(self.weights) - 1)
        chol = torch.linalg.cholesky(self.covs)  # (C, d, d)
        z = ctx.randn(n, self.d)
        return self.means[comp] + torch.einsum("nij,nj->ni", chol[comp], z)


@dataclass(frozen=True)
class Discrete:
    atoms: torch.Tensor  # (n, d)
    probs: torch.Tensor  # (n,), sums to 1

    @property
    def d(self) -> int:
        return int(self.atoms.shape[1])

    def sample(self, ctx, n: int) -> torch.Tensor:
        u = ctx.rand(n)
        idx = torch.searchsorted(torch.cumsum(self.probs, 0), u).clamp_max(len(self.probs) - 1)
        return self.atoms[idx]


def categorical_model(U: torch.Tensor, p: torch.Tensor) -> Discrete:
    """x = u_y with P[y = m] = p_m (the columns of U are the u_m)."""
    check_simplex(p, "p = (P[y = m])_m")
    if U.shape[1] != p.shape[0]:
        raise HypothesisViolation("one probability per pattern", f"U has {U.shape[1]} columns, p has {p.shape[0]} "
                                  "entries", bypassable=False)
    return Discrete(U.T.contiguous(), p)


def summation_levels(q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(y⁺, y⁻) of the standardised Bernoulli with P[y = y⁺] = q: mean 0, variance 1."""
    return torch.sqrt((1 - q) / q), -torch.sqrt(q / (1 - q))


def summation_model(U: torch.Tensor, q: torch.Tensor) -> Discrete:
    """x = Σ_m y_m u_m, y_m independent standardised Bernoullis; all 2^M atoms with their probabilities."""
    M = U.shape[1]
    if q.shape != (M,) or not bool(((q > 0) & (q < 1)).all()):
        raise HypothesisViolation("q_m ∈ (0, 1), one per pattern", f"got q = {q.tolist()} for M = {M} patterns "
                                  "(q ∈ {0, 1} has no standardised levels)", bypassable=False)
    signs = torch.tensor(list(itertools.product((1.0, 0.0), repeat=M)), dtype=U.dtype, device=U.device)  # (2^M, M)
    yp, ym = summation_levels(q)
    y = signs * yp + (1 - signs) * ym
    probs = torch.prod(signs * q + (1 - signs) * (1 - q), dim=1)
    return Discrete(y @ U.T, probs)


def random_orthonormal(ctx, d: int, M: int) -> torch.Tensor:
    """d×M matrix with orthonormal columns (Haar)."""
    return random_orthogonal(ctx, d)[:, :M]


def random_signed_permutation(ctx, d: int) -> torch.Tensor:
    """A uniformly random signed permutation matrix: an orthonormal basis with exact zeros in uᵢᵀuⱼ."""
    perm = torch.argsort(ctx.rand(d))
    signs = torch.where(ctx.rand(d) < 0.5, -1.0, 1.0).to(ctx.dtype)
    return torch.eye(d, dtype=ctx.dtype, device=ctx.device)[:, perm] * signs.to(ctx.device)


def dirichlet(ctx, n: int, floor: float = 0.0) -> torch.Tensor:
    """A flat Dirichlet draw (normalised exponentials), mixed with the uniform vector by ``floor``."""
    e = -torch.log(ctx.rand(n).clamp_min(1e-300))
    p = e / e.sum()
    return (1 - floor) * p + floor / n


def random_gaussian_mixture(ctx, d: int, C: int, radius: float, sigma: float, *, weight_floor: float = 0.2,
                            anisotropy: float = 0.5) -> GaussianMixture:
    """C components with means at distance ``radius`` from 0 in random directions, covariances σ²·(I + a·B)
    with a random PSD perturbation B of norm ≤ 1 scaled by ``anisotropy`` (so they are not all isotropic)."""
    dirs = ctx.randn(C, d)
    means = radius * dirs / dirs.norm(dim=1, keepdim=True)
    G = ctx.randn(C, d, d) / math.sqrt(d)
    B = G @ G.transpose(1, 2)
    B = B / torch.linalg.matrix_norm(B, ord=2).reshape(C, 1, 1)
    eye = torch.eye(d, dtype=ctx.dtype, device=ctx.device)
    covs = sigma**2 * (eye + anisotropy * B)
    return GaussianMixture(dirichlet(ctx, C, weight_floor), means, covs)


def gaussian_mixture(weights, means, sigma: float, ctx) -> GaussianMixture:
    """A mixture with given weights and means and isotropic covariance σ²I."""
    means = ctx.tensor(means)
    d = means.shape[1]
    covs = sigma**2 * torch.eye(d, dtype=ctx.dtype, device=ctx.device).expand(len(means), d, d).clone()
    w = ctx.tensor(weights)
    return GaussianMixture(w / w.sum(), means, covs)


def simplex_mixture(ctx, d: int, radius: float, sigma: float, C: int | None = None, *,
                    weight_floor: float = 0.2) -> GaussianMixture:
    """C ≤ d+1 isotropic clusters (σ²I) at vertices of a randomly rotated regular simplex of circumradius
    ``radius`` centred at 0 (a tetrahedron for d = 3), Dirichlet weights. Centred, well-separated clusters give
    one LME per cluster (checked in tests/test_nonlinear_cl_machinery.py)."""
    C = d + 1 if C is None else C
    k = d + 1
    etf = torch.eye(k, dtype=ctx.dtype, device=ctx.device) - 1.0 / k
    _, S, Vh = torch.linalg.svd(etf)
    coords = (S[:d, None] * Vh[:d]).T  # (d+1, d): simplex vertices in R^d
    coords = coords / coords.norm(dim=1, keepdim=True)
    means = radius * coords[:C] @ random_orthogonal(ctx, d)
    eye = torch.eye(d, dtype=ctx.dtype, device=ctx.device)
    return GaussianMixture(dirichlet(ctx, C, weight_floor), means, sigma**2 * eye.expand(C, d, d).clone())
