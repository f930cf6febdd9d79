"""Shared pieces of paper 000's results: the paper's identity, the common hypotheses, instance builders."""

from __future__ import annotations

import math

import torch

from ..core.result import Param, Violation
from ..data.subspaces import (
    SubspaceBatch,
    angle_arrangement_dim,
    cluster_sizes,
    labels_from_sizes,
    subspace_instances,
)

PAPER = "000"
PAPER_TITLE = ("Deep Fusion: Capturing Dependencies in Contrastive Learning via Transformer Projection Heads")
ARRANGEMENTS = ("random", "angle", "dependent")


def subspace_params(m: int, K: int, r: int, nu: int, imbalance: int, signs: str | None = None, *,
                    m_valid: str = "m > r", nu_doc: str = "samples in cluster 0",
                    arrangements: tuple[str, ...] = ARRANGEMENTS) -> tuple[Param, ...]:
    """The parameters of a union-of-subspaces instance (see ``build``), with each result's own defaults.
    ``signs=None`` leaves the sign parameter out (a result whose samples are always sign-consistent)."""
    params = (
        Param("m", int, m, "ambient dimension", m_valid),
        Param("K", int, K, "number of subspaces (clusters)", "K ≥ 2"),
        Param("r", int, r, "subspace dimension", "1 ≤ r < m"),
        Param("nu", int, nu, nu_doc, "ν ≥ 1"),
        Param("imbalance", int, imbalance, "cluster c has ν + c·imbalance samples", "≥ 0"),
        Param("arrangement", str, "random", " | ".join(arrangements) + " (angle: equal principal angles)",
              choices=arrangements),
        Param("angle_deg", float, 45.0, "principal angle for arrangement='angle'", "(0, 90]"),
    )
    if signs is not None:
        params += (Param("signs", str, signs, "cone (sign-consistent clusters) | arbitrary", choices=("cone", "arbitrary")),)
    return params


def structural_violations(p: dict) -> list[Violation]:
    """The data model's structural hypotheses (no instance exists without them): not bypassable."""
    out: list[Violation] = []
    K, r, m, nu = p.get("K"), p.get("r"), p.get("m"), p.get("nu")
    if K is not None and K < 2:
        out.append(Violation("K ≥ 2 subspaces", "a union of subspaces needs at least two clusters", ("K",), False))
    if r is not None and r < 1:
        out.append(Violation("subspace dimension r ≥ 1", "each subspace needs a dimension", ("r",), False))
    if r is not None and m is not None and r >= m:
        out.append(Violation("subspace dimension r < m", "a subspace of dimension r ≥ m is the whole space, so no "
                             "vector is orthogonal to it", ("r", "m"), False))
    if nu is not None and nu < 1:
        out.append(Violation("non-empty clusters (ν ≥ 1)", "every cluster needs at least one sample", ("nu",), False))
    if p.get("imbalance", 0) < 0:
        out.append(Violation("imbalance ≥ 0", "cluster sizes are ν + c·imbalance", ("imbalance",), False))
    if p.get("instances", 1) < 1:
        out.append(Violation("instances ≥ 1", "at least one instance must be drawn", ("instances",), False))
    for name in ("eps", "angle_deg", "w_scale", "eps_z", "alpha", "tau"):
        if name in p and not math.isfinite(p[name]):
            out.append(Violation(f"{name} finite", "non-finite data cannot be an instance", (name,), False))
    if "eps" in p and math.isfinite(p["eps"]) and not 0.0 <= p["eps"] <= 1.0:
        out.append(Violation("ε ∈ [0, 1] (eq. 6)", "the noise bound x_iᵀx̃_i ≥ 1 − ε needs ε in [0, 1]", ("eps",),
                             False))
    if p.get("arrangement") == "angle" and K is not None and r is not None and m is not None and K >= 2 and r >= 1:
        need = angle_arrangement_dim(K, r)
        if m < need:
            out.append(Violation(f"m ≥ {'2r' if K == 2 else '(K+1)r'} for arrangement='angle'",
                                 "the equal-angle arrangement is built from disjoint coordinate blocks",
                                 ("m", "K", "r"), False))
        a = p.get("angle_deg", 45.0)
        if math.isfinite(a) and not 0.0 < a <= 90.0:
            out.append(Violation("principal angle in (0°, 90°]", "angle 0 makes the subspaces coincide",
                                 ("angle_deg",), False))
    if p.get("arrangement") == "dependent" and K is not None and K < 3:
        out.append(Violation("K ≥ 3 for arrangement='dependent'",
                             "the dependent arrangement puts the last subspace in the sum of the first two",
                             ("arrangement", "K"), False))
    return out


def independence_violation(p: dict) -> list[Violation]:
    """Independence of the subspaces (𝒰_c ∩ Σ_{l≠c} 𝒰_l = {0}): what Theorem 1 really needs (T1-2)."""
    K, r, m = p["K"], p["r"], p["m"]
    if p.get("arrangement") == "dependent":
        return [Violation("independent subspaces (𝒰_c ∩ Σ_{l≠c} 𝒰_l = {0})",
                          "arrangement='dependent' puts the last subspace inside the sum of the first two",
                          ("arrangement",))]
    if p.get("arrangement", "random") == "random" and K * r > m:
        return [Violation("independent subspaces (K·r ≤ m for random subspaces)",
                          "K random r-dimensional subspaces of R^m with K·r > m intersect the sum of the others",
                          ("K", "r", "m"))]
    return []


def build(ctx, p: dict) -> SubspaceBatch:
    """The random instance batch that the parameters describe."""
    sizes = cluster_sizes(p["K"], p["nu"], p.get("imbalance", 0))
    angle = math.radians(p.get("angle_deg", 45.0))
    return subspace_instances(ctx, p["instances"], p["m"], p["K"], p["r"], sizes, p.get("arrangement", "random"),
                              angle, p.get("signs", "cone"))


def lines_instance(ctx, U: torch.Tensor, copies, signs=None) -> SubspaceBatch:
    """Rank-1 clusters: columns of U (B, m, K) are the lines; cluster c holds copies[c] samples ±u_c.

    ``signs`` (list per cluster) flips chosen copies (the antipodal counterexample)."""
    B, m, K = U.shape
    U = U / U.norm(dim=-2, keepdim=True)
    labels = labels_from_sizes(copies, device=U.device)
    rows = U[:, :, labels].transpose(-1, -2).clone()  # (B, n, m)
    if signs is not None:
        flat = torch.tensor([s for c in range(K) for s in signs[c]], dtype=U.dtype, device=U.device)
        rows = rows * flat[None, :, None]
    bases = U.transpose(-1, -2).unsqueeze(-1)  # (B, K, m, 1)
    return SubspaceBatch(rows, labels, bases, tuple(int(c) for c in copies))


def random_rotations(ctx, B: int, m: int) -> torch.Tensor:
    q, r = torch.linalg.qr(ctx.randn(B, m, m))
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)
