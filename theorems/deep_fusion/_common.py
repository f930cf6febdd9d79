"""Shared pieces of paper 000's results: the union-of-subspaces parameters, the common hypotheses, instance
builders."""

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

ARRANGEMENTS = ("random", "angle", "dependent")
# Resource ceilings of one instance (sizes; `Result.cost` bounds their products): the batched min-norm points
# and n×n attention matrices stay far inside a 2-core, 24 GiB machine at these sizes.
M_HIGH, K_HIGH, R_HIGH, NU_HIGH, IMBALANCE_HIGH, INSTANCES_HIGH = 256, 16, 64, 512, 64, 4096


def subspace_params(m: int, K: int, r: int, nu: int, imbalance: int, signs: str | None = None, *,
                    m_valid: str = "m > r", nu_doc: str = "samples in cluster 0",
                    arrangements: tuple[str, ...] = ARRANGEMENTS, sample: dict | None = None) -> tuple[Param, ...]:
    """The parameters of a union-of-subspaces instance (see ``build``), with each result's own defaults and the
    ranges its strategy and report draw from (``sample``: name -> (lo, hi) or a tuple of values).
    ``signs=None`` leaves the sign parameter out (a result whose samples are always sign-consistent)."""
    s = {"m": (3, 24), "K": (2, 4), "r": (1, 3), "nu": (1, 6), "imbalance": (0, 2), "angle_deg": (5.0, 90.0),
         "arrangement": tuple(a for a in arrangements if a != "dependent"), "signs": ("cone", "arbitrary"),
         **(sample or {})}
    params = (
        Param("m", int, m, "ambient dimension", m_valid, low=2, high=M_HIGH, sample=s["m"]),
        Param("K", int, K, "number of subspaces (clusters)", "K ≥ 2", low=2, high=K_HIGH, sample=s["K"]),
        Param("r", int, r, "subspace dimension", "1 ≤ r < m", low=1, high=R_HIGH, sample=s["r"]),
        Param("nu", int, nu, nu_doc, "ν ≥ 1", low=1, high=NU_HIGH, sample=s["nu"]),
        Param("imbalance", int, imbalance, "cluster c has ν + c·imbalance samples", "≥ 0", low=0,
              high=IMBALANCE_HIGH, sample=s["imbalance"]),
        Param("arrangement", str, "random", " | ".join(arrangements) + " (angle: equal principal angles)",
              choices=arrangements, sample=s["arrangement"]),
        Param("angle_deg", float, 45.0, "principal angle for arrangement='angle'", "(0, 90]", low=1e-3, high=90.0,
              sample=s["angle_deg"]),
    )
    if signs is not None:
        params += (Param("signs", str, signs, "cone (sign-consistent clusters) | arbitrary", choices=("cone", "arbitrary"),
                         sample=s["signs"]),)
    return params


def instances_param(default: int, doc: str = "instances checked together") -> Param:
    return Param("instances", int, default, doc, low=1, high=INSTANCES_HIGH)


def enumeration_elements(p: dict) -> float:
    """Peak elements of Definition 1's exact ρ: per instance and cluster, 2^(N−1) sign patterns of N ≤ n
    out-of-cluster points in R^m (and their N×N Gram matrices)."""
    n = n_samples(p)
    out = n - p["nu"]
    return float(p.get("instances", 1)) * p["K"] * 2.0 ** max(out - 1, 0) * out * (p["m"] + out)


def n_samples(p: dict) -> int:
    """n = Σ_c (ν + c·imbalance) of a random union (the parameters' instance size)."""
    return sum(p["nu"] + c * p.get("imbalance", 0) for c in range(p["K"]))


def structural_violations(p: dict) -> list[Violation]:
    """What no instance can be built without and no single parameter's domain says (they tie parameters
    together): not bypassable."""
    out: list[Violation] = []
    K, r, m = p.get("K"), p.get("r"), p.get("m")
    if r is not None and m is not None and r >= m:
        out.append(Violation("subspace dimension r < m", "a subspace of dimension r ≥ m is the whole space, so no "
                             "vector is orthogonal to it", ("r", "m"), False))
    if p.get("arrangement") == "angle" and K is not None and r is not None and m is not None:
        need = angle_arrangement_dim(K, r)
        if m < need:
            out.append(Violation(f"m ≥ {'2r' if K == 2 else '(K+1)r'} for arrangement='angle'",
                                 "the equal-angle arrangement is built from disjoint coordinate blocks",
                                 ("m", "K", "r"), False))
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
