"""Exact populations for the 2-layer results of paper 001 (§4.2, Assumption 2; App. D): a binary latent z and
K receptive fields whose inputs x_k are drawn from a few atoms per (RF, z), enumerated jointly.

Joint enumeration (every combination of one atom per RF, for each z) gives 𝕍[x̃] and 𝕍[f₁] without using
Assumption 2(iii); ``dependent=True`` couples the RFs (the same atom index in every RF given z), which breaks
Assumption 2(iii) on purpose (a negative control). ``rf_scale`` multiplies the atoms of RF k by rf_scale^k, so that
the RFs' variances d_k differ (App. D's motivation for BatchNorm).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..data.latents import dirichlet


@dataclass(frozen=True)
class Population:
    X: torch.Tensor  # (J, K, d) the inputs of every joint atom
    probs: torch.Tensor  # (J,) their probabilities (sum 1)
    z: torch.Tensor  # (J,) bool: z = 1
    p1: float


def binary_latent_population(ctx, K: int, d: int, atoms: int, p1: float, weak_rf: float = 1.0,
                             rf_scale: float = 1.0, dependent: bool = False) -> Population:
    """Atoms (K, 2, atoms, d) ~ N(0.5, 1) and Dirichlet(0.1) probabilities per (RF, z), drawn from ``ctx``; RFs 2..K
    keep only ``weak_rf`` of their z-signal (their Δ_k → 0 as weak_rf → 0)."""
    n = atoms
    at = ctx.randn(K, 2, n, d) + 0.5  # shifted so that ReLU gates are neither all on nor all off
    pr = torch.stack([torch.stack([dirichlet(ctx, n, 0.1) for _ in range(2)]) for _ in range(K)])  # (K, 2, n)
    at[1:, 1] = at[1:, 0] + weak_rf * (at[1:, 1] - at[1:, 0])
    pr[1:, 1] = pr[1:, 0] + weak_rf * (pr[1:, 1] - pr[1:, 0])
    at = at * (rf_scale ** torch.arange(K, dtype=ctx.dtype, device=ctx.device))[:, None, None, None]
    if dependent:
        combos = torch.arange(n, device=ctx.device)[:, None].expand(n, K)
    else:
        grids = torch.meshgrid(*[torch.arange(n, device=ctx.device)] * K, indexing="ij")
        combos = torch.stack([g.reshape(-1) for g in grids], dim=1)  # (n^K, K)
    ks = torch.arange(K, device=ctx.device)
    X, P, Z = [], [], []
    for zi, pz in ((0, 1 - p1), (1, p1)):
        X.append(at[ks, zi, combos])  # (J_z, K, d)
        P.append(pz * pr[ks, zi, combos].prod(dim=1))
        Z.append(torch.full((len(combos),), bool(zi), device=ctx.device))
    probs = torch.cat(P)
    return Population(torch.cat(X), probs / probs.sum(), torch.cat(Z), p1)


def weighted_cov(A: torch.Tensor, B: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """Cov[a, b] under probabilities p: A (J, m), B (J, n) → (m, n)."""
    ma, mb = p @ A, p @ B
    return (A * p[:, None]).T @ B - torch.outer(ma, mb)
