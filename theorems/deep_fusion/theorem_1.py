"""Theorem 1 of paper 000 (One-Layer Fusion without Noise): a block-diagonal attention matrix.

Statement as printed
--------------------
"Let every sample x_i of X come from one of 𝒰_1..𝒰_𝒦 [with (𝒦−1)r < m]. Then there exist (W^{Q*}, W^{K*})
such that A := (QW^{Q*})(KW^{K*})ᵀ (Q = K = X) is block-diagonal: [A]_ij = 0 if x_i, x_j are in different
clusters, and [A]_ij > ν_i ρ² if x_i, x_j are in the same cluster", ν_i the size of x_i's cluster (itself
included) and ρ the cluster integrity of Definition 1.

Correction (digest 000 §2.1, flags T1-1..T1-5)
----------------------------------------------
Assume unit-norm rows, sign-consistent clusters (some v_c with x_iᵀv_c > 0 on cluster c), independent
subspaces (P_c x_i ≠ 0 with P_c the projector onto (Σ_{l≠c} 𝒰_l)^⊥), and take W^Q = W^K = W =
[v_{c_1}, …, v_{c_n}] with v_c = p*_c/‖p*_c‖, p*_c the min-norm point of conv{P_c x_i : i ∈ c} (unit columns,
d_k = n, no softmax, no 1/√d_k). Then A = XWWᵀXᵀ has A_pq = 0 across clusters and

    A_ij ≥ ν_c ρ̃_c² ≥ ν_i ρ̃²  (c = c_i = c_j),   ρ̃_c = ‖p*_c‖,  ρ̃ = min_c ρ̃_c,

with **equality attained** (at the diagonal entry of the sample with the smallest margin).
Why: the printed statement fails in five ways, each with a concrete counterexample here:
* T1-1 opposite signs in one cluster (``instance='antipodal'``, x₂ = −x₁): A₁₂ = −A₁₁ for *every* W^Q, W^K;
* T1-2 dependent subspaces with (𝒦−1)r < m (``instance='dependent_lines'``, u₃ = (u₁+u₂)/√2 in R³): every
  bilinear form with zero cross entries has a zero diagonal, so no admissible A exists;
* T1-3 𝒦 ≥ 3 with Definition 1's ρ (``instance='k3_near_dependent'``): the construction's entries fall far
  below ν_iρ², and the trace bound ρ_max² = n / Σ_c ν_c [(UᵀU)^{-1}]_cc shows that no W with unit columns
  can reach ν_iρ² either;
* T1-4 no normalisation of W: A is quadratic in W, so scaling W by s scales every entry by s² (``w_scale``);
* T1-5 ">" is false: equality is attained, so the strict inequality fails at the minimiser.

Reading chosen: the digest's (unit rows; the compact W_c = [√ν_c v_c] gives the same A; ρ is the
Definition-1 ρ for the printed form, ρ̃ for the corrected one).

What one check does
-------------------
Draws ``instances`` random unions of subspaces (or one of the fixed counterexamples, batched over random
rotations), builds W, A (``attention``: the bilinear A of the theorem, or the softmax / 1/√d_k variants a
Transformer would use — negative controls) and asserts, worst case over the batch:
* corrected: ``cross_entries_zero``, ``margin_positive`` (ρ̃ > 0), ``same_cluster_lower_bound``
  (A_ij ≥ ν_cρ̃_c²), ``bound_attained`` (min_{i,j∈c} A_ij = ν_cρ̃_c²), ``unit_columns``;
* as printed: ``cross_entries_zero``, ``same_cluster_bound_printed_rho`` (A_ij ≥ ν_iρ², ρ of Definition 1,
  exact by sign enumeration) and ``strict_inequality`` (A_ij > ν_iρ² beyond rounding).
The min-norm points carry a duality-gap certificate (``converged``).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..metrics.cluster_integrity import MAX_ENUMERATED, cluster_integrity, construct_w
from ._common import (
    PAPER,
    PAPER_TITLE,
    build,
    independence_violation,
    lines_instance,
    random_rotations,
    structural_violations,
    subspace_params,
)

ID = "deep_fusion.theorem_1"

INSTANCES = ("random", "paper_example", "antipodal", "dependent_lines", "k3_near_dependent")
ATTENTIONS = ("bilinear", "softmax", "scaled")

# -- tolerances ------------------------------------------------------------------------------------------
# Cross entries are sums of products with one factor x_iᵀw_l = 0 up to rounding of a projector (~1e-16):
CROSS_RTOL = 1e-10
# The bound and its attainment: A and ν_cρ̃_c² are the same products of the same float64 numbers
# (ρ̃_c is the margin min_i x_iᵀv_c of the very v_c used), so they agree to a few ulps:
BOUND_RTOL = 1e-9
# "Strictly above" must beat rounding to count (the printed ">"):
STRICT_RTOL = 1e-9
# ρ̃ > 0: anything below this is a zero margin (a hull holding the origin is found to ~1e-16):
RHO_MIN = 1e-8
UNIT_ATOL = 1e-12  # column norms of p/‖p‖ are 1 to a few ulps
RANDOM_W = 64  # random (W^Q, W^K) pairs tried on the antipodal counterexample
DETAIL_ENUMERATED = 8  # the corrected form reports Definition 1's ρ beside ρ̃ only where it is cheap


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if out:
        return out
    if p["instance"] == "k3_near_dependent" and not 0 < p["eps_z"]:
        out.append(Violation("eps_z > 0", "eps_z = 0 puts u₃ in span(u₁, u₂)", ("eps_z",), False))
    if p["w_scale"] <= 0:
        out.append(Violation("w_scale > 0", "W is scaled by a positive factor", ("w_scale",), False))
    K, r, m = _shape(p)
    if form == AS_PRINTED:
        if (K - 1) * r >= m:
            out.append(Violation("(𝒦−1)r < m", "the printed independence assumption", ("K", "r", "m")))
        if p["instance"] == "random" and _n(p) - p["nu"] > MAX_ENUMERATED:
            out.append(Violation(f"≤ {MAX_ENUMERATED} out-of-cluster samples (exact Definition-1 ρ)",
                                 "the exact ρ enumerates 2^(N−1) sign patterns", ("K", "nu", "imbalance"), False))
    else:
        if p["instance"] == "random":
            out += independence_violation(p)
            if p["signs"] != "cone":
                out.append(Violation("sign-consistent clusters", "the bound needs x_iᵀv_c > 0 on every cluster "
                                     "(T1-1); signs='arbitrary' breaks it", ("signs",)))
        elif p["instance"] == "antipodal":
            out.append(Violation("sign-consistent clusters", "instance='antipodal' has x₂ = −x₁ in one cluster",
                                 ("instance",)))
        elif p["instance"] == "dependent_lines":
            out.append(Violation("independent subspaces (𝒰_c ∩ Σ_{l≠c} 𝒰_l = {0})",
                                 "instance='dependent_lines' has u₃ = (u₁+u₂)/√2", ("instance",)))
    if p["w_scale"] != 1.0:
        out.append(Violation("unit-norm columns of W (normalisation)", "w_scale ≠ 1 rescales every entry of A by "
                             "w_scale², so the bound ν_iρ² loses its meaning (T1-4)", ("w_scale",)))
    if p["attention"] != "bilinear":
        out.append(Violation("A = XWWᵀXᵀ (no softmax, no 1/√d_k)", f"attention='{p['attention']}' is not the "
                             "matrix the theorem speaks of", ("attention",)))
    return out


def _shape(p: dict) -> tuple[int, int, int]:
    """(K, r, m) of the instance actually built."""
    return {"random": (p["K"], p["r"], p["m"]), "paper_example": (2, 1, 4), "antipodal": (2, 1, 3),
            "dependent_lines": (3, 1, 3), "k3_near_dependent": (3, 1, 3)}[p["instance"]]


def _n(p: dict) -> int:
    if p["instance"] == "random":
        return sum(p["nu"] + c * p["imbalance"] for c in range(p["K"]))
    return {"paper_example": 4, "antipodal": 4, "dependent_lines": 6, "k3_near_dependent": 6}[p["instance"]]


def instance_batch(ctx, p: dict):
    """The batch of instances: random unions, or a fixed counterexample under random rotations."""
    B = p["instances"]
    inst = p["instance"]
    if inst == "random":
        return build(ctx, p)
    if inst == "paper_example":  # n = m = 4, two random lines, x₁ = x₂ = u₁, x₃ = x₄ = u₂ (paper eq. 3)
        return lines_instance(ctx, ctx.randn(B, 4, 2), (2, 2))
    if inst == "antipodal":  # x₂ = −x₁ (T1-1)
        return lines_instance(ctx, ctx.randn(B, 3, 2), (2, 2), signs=[(1.0, -1.0), (1.0, 1.0)])
    R = random_rotations(ctx, B, 3)
    if inst == "dependent_lines":  # u₃ = (u₁+u₂)/√2 (T1-2)
        U = ctx.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    else:  # u₃ ∝ (1, 1, ε_z) (T1-3)
        U = ctx.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, p["eps_z"]]])
    return lines_instance(ctx, R @ U, (2, 2, 2))


def attention_matrix(X: torch.Tensor, W: torch.Tensor, kind: str) -> torch.Tensor:
    A = X @ W @ W.transpose(-1, -2) @ X.transpose(-1, -2)
    if kind == "scaled":
        return A / math.sqrt(W.shape[-1])
    if kind == "softmax":
        return torch.softmax(A, dim=-1)
    return A


def _ratio_per_cluster(A, labels, K, nu_c, rho_c):
    """t_bc = min_{i,j∈c} A_ij / (ν_c ρ_c²); 1 where both are 0, ±inf where only the bound is 0."""
    mins, bounds = [], []
    for c in range(K):
        idx = labels == c
        mins.append(A[:, idx][:, :, idx].amin(dim=(-1, -2)))
        bounds.append(nu_c[c] * rho_c[:, c] ** 2)
    a_min, bnd = torch.stack(mins, 1), torch.stack(bounds, 1)
    zero_a = a_min.abs() <= 1e-14
    fallback = torch.where(zero_a, torch.ones_like(a_min), torch.sign(a_min) * math.inf)
    return torch.where(bnd > 0, a_min / bnd.clamp_min(1e-300), fallback), a_min, bnd


def antipodal_certificate(ctx, X: torch.Tensor, n: int) -> dict:
    """Random (W^Q, W^K): A₁₂ = −A₁₁ always, so the two cannot both be positive (T1-1)."""
    m = X.shape[-1]
    WQ, WK = ctx.randn(RANDOM_W, m, n), ctx.randn(RANDOM_W, m, n)
    x1, x2 = X[0, 0], X[0, 1]
    a11 = torch.einsum("i,bij,bkj,k->b", x1, WQ, WK, x1)
    a12 = torch.einsum("i,bij,bkj,k->b", x1, WQ, WK, x2)
    return {"random_W_max_abs_A11_plus_A12": float((a11 + a12).abs().max()),
            "random_W_best_min_A11_A12": float(torch.minimum(a11, a12).max()),
            "random_W_tried": RANDOM_W}


def dependent_certificate(X: torch.Tensor, labels: torch.Tensor) -> dict:
    """All bilinear forms M with x_iᵀMx_j = 0 across clusters: the largest diagonal entry they allow (T1-2)."""
    Xn = X[0].detach().cpu().numpy()
    lab = labels.cpu().numpy()
    m = Xn.shape[1]
    rows = [np.kron(Xn[i], Xn[j]) for i in range(len(lab)) for j in range(len(lab)) if lab[i] != lab[j]]
    _, s, vt = np.linalg.svd(np.array(rows))
    null = vt[int((s > 1e-10 * s[0]).sum()):]  # orthonormal basis of the admissible M (vectorised)
    diag = [abs(Xn[i] @ Mv.reshape(m, m) @ Xn[i]) for Mv in null for i in range(len(lab))]
    return {"admissible_forms_dim": int(null.shape[0]),
            "admissible_forms_max_abs_diagonal": float(max(diag, default=0.0))}


def trace_certificate(X: torch.Tensor, labels: torch.Tensor, bases: torch.Tensor, sizes, n: int) -> float:
    """ρ_max² = n / Σ_c ν_c [(UᵀU)^{-1}]_cc: the best same-cluster margin² any unit-column W^Q, W^K reach
    with zero cross entries, for K rank-1 clusters spanning R^K (digest §2.1 T1-3)."""
    U = bases[..., 0].transpose(-1, -2)  # (B, m, K)
    g = torch.diagonal(torch.linalg.inv(U.transpose(-1, -2) @ U), dim1=-2, dim2=-1)
    nu = torch.tensor(sizes, dtype=U.dtype, device=U.device)
    return (n / (nu * g).sum(-1))


def evaluate(p: dict, form: str, ctx) -> Outcome:
    inst = instance_batch(ctx, p)
    X, labels, K = inst.X, inst.labels, inst.K
    con = construct_w(X, labels, inst.bases)
    W = p["w_scale"] * con.W
    A = attention_matrix(X, W, p["attention"])
    cross = labels[:, None] != labels[None, :]
    scale = A.abs().amax(dim=(-1, -2)).clamp_min(1.0)
    cross_rel = float(((A.abs() * cross).amax(dim=(-1, -2)) / scale).max())
    nu_c = torch.tensor(inst.sizes, dtype=X.dtype, device=X.device)
    details: dict = {
        "n": inst.n, "m": inst.m, "K": K, "sizes": list(inst.sizes), "instances": inst.B,
        "rho_tilde_min": float(con.rho_tilde.min()), "rho_tilde_c_first": con.rho_tilde_c[0].tolist(),
        "min_norm_gap_max": float(con.max_gap.max()), "cross_leak_xW_max": float(con.leak.max()),
        "cross_entries_max_rel": cross_rel,
    }
    integ = None
    n_out_max = inst.n - min(inst.sizes)
    if form == AS_PRINTED or n_out_max <= DETAIL_ENUMERATED:
        integ = cluster_integrity(X, labels, inst.bases)
        details["rho_def1_min"] = float(integ.rho.min())
        details["rho_def1_first"] = float(integ.rho[0])
        details["rho_def1_gap_max"] = float((integ.rho_upper - integ.rho).max())
        if K == 2:  # for K = 2 the signed ρ̃ can never beat Definition 1's |·| version
            details["K2_rho_tilde_minus_rho_def1_max"] = float((con.rho_tilde - integ.rho).max())
    claims = [Claim.at_most("cross_entries_zero", cross_rel, CROSS_RTOL,
                            "max_{c_p≠c_q} |A_pq| / max(1, max|A|), worst instance")]
    converged = bool(con.converged.all()) and (integ is None or bool(integ.converged.all()))
    if form == CORRECTED:
        t, a_min, bnd = _ratio_per_cluster(A, labels, K, nu_c, con.rho_tilde_c)
        col = W.norm(dim=-2)
        claims += [
            Claim.at_least("margin_positive", float(con.rho_tilde.min()), RHO_MIN,
                           "ρ̃ = min_c dist(0, conv{P_c x_i}) > 0 (sign consistency and independence)"),
            Claim.at_least("same_cluster_lower_bound", float(t.min()), 1 - BOUND_RTOL,
                           "min_{b,c} min_{i,j∈c} A_ij / (ν_c ρ̃_c²)"),
            Claim.at_most("bound_attained", float(t.max()), 1 + BOUND_RTOL,
                          "max_{b,c} min_{i,j∈c} A_ij / (ν_c ρ̃_c²): equality in every cluster"),
            Claim.at_most("unit_columns", float((col - 1).abs().max()), UNIT_ATOL, "max_l |‖w_l‖ − 1|"),
        ]
        worst = torch.nonzero(t == t.min())[0]
        observed, bound = float(a_min[worst[0], worst[1]]), float(bnd[worst[0], worst[1]])
        details["tightness_per_cluster_min"] = float(t.min())
        details["tightness_per_cluster_max"] = float(t.max())
        if integ is not None:  # the same construction judged against Definition 1's ρ (the printed bound)
            tp, _, _ = _ratio_per_cluster(A, labels, K, nu_c, integ.rho[:, None].expand(-1, K))
            details["tightness_vs_rho_def1_min"] = float(tp.min())
    else:
        tp, a_min, bnd = _ratio_per_cluster(A, labels, K, nu_c, integ.rho[:, None].expand(-1, K))
        claims += [
            Claim.at_least("same_cluster_bound_printed_rho", float(tp.min()), 1 - BOUND_RTOL,
                           "min_{b,c} min_{i,j∈c} A_ij / (ν_c ρ²), ρ of Definition 1"),
            Claim.at_least("strict_inequality", float(tp.min()), 1 + STRICT_RTOL,
                           "the printed '>' : every same-cluster entry strictly above ν_iρ² (beyond rounding)"),
        ]
        worst = torch.nonzero(tp == tp.min())[0]
        observed, bound = float(a_min[worst[0], worst[1]]), float(bnd[worst[0], worst[1]])
    if p["instance"] == "antipodal":
        details.update(antipodal_certificate(ctx, X, inst.n))
    if p["instance"] == "dependent_lines":
        details.update(dependent_certificate(X, labels))
    if p["instance"] == "k3_near_dependent":
        details["rho_max_any_W_first"] = float(trace_certificate(X, labels, inst.bases, inst.sizes, inst.n)[0]
                                               .clamp_min(0).sqrt())
    tight = None
    if bound > 0 and observed > 0 and math.isfinite(observed):
        tight = bound / observed
    return Outcome(observed=observed, bound=bound, tightness=tight, claims=claims, details=details,
                   converged=converged)


def report_instances(suite):
    rng = np.random.default_rng(3)
    yield CORRECTED, dict(), False
    yield CORRECTED, dict(instance="paper_example"), False
    yield CORRECTED, dict(instance="k3_near_dependent"), False
    for _ in range(suite.report_examples):
        K = int(rng.integers(2, 5))
        r = int(rng.integers(1, 4))
        m = int(rng.integers(K * r, K * r + 6)) if K * r > 1 else 3
        yield CORRECTED, dict(m=max(m, r + 1), K=K, r=r, nu=int(rng.integers(1, 6)), imbalance=int(rng.integers(0, 3)),
                              seed=int(rng.integers(0, 1000))), False
    yield AS_PRINTED, dict(), False  # equality at the minimiser: the strict '>' fails (T1-5)
    yield AS_PRINTED, dict(instance="antipodal"), False  # T1-1
    yield AS_PRINTED, dict(instance="dependent_lines"), False  # T1-2
    yield AS_PRINTED, dict(instance="k3_near_dependent"), False  # T1-3
    yield CORRECTED, dict(instance="antipodal"), True  # negative controls
    yield CORRECTED, dict(instance="dependent_lines"), True
    yield CORRECTED, dict(attention="softmax"), True
    yield CORRECTED, dict(attention="scaled"), True
    yield CORRECTED, dict(w_scale=0.5), True  # T1-4


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    paper_title=PAPER_TITLE,
    title="Theorem 1: a block-diagonal attention matrix on a union of subspaces (no noise)",
    statement=(
        "If every sample lies in one of 𝒦 subspaces with (𝒦−1)r < m, there exist W^Q, W^K such that "
        "A = (XW^Q)(XW^K)ᵀ has A_ij = 0 across clusters and A_ij > ν_iρ² within a cluster (ρ of Definition 1)."
    ),
    correction=(
        "For unit rows, sign-consistent clusters and independent subspaces, W = [v_{c_1},…,v_{c_n}] (unit columns, "
        "v_c the normalised min-norm point of conv{P_c x_i}) gives A = XWWᵀXᵀ with zero cross entries and "
        "A_ij ≥ ν_c ρ̃_c² ≥ ν_iρ̃², ρ̃_c = dist(0, conv{P_c x_i : i ∈ c}), with equality attained."
    ),
    correction_reason=(
        "As printed it fails for opposite signs in a cluster (A₁₂ = −A₁₁ for every W), for dependent subspaces "
        "with (𝒦−1)r < m (no admissible A), for 𝒦 ≥ 3 with Definition 1's ρ (no unit-column W reaches ν_iρ²), "
        "without a normalisation of W (A scales with ‖W‖²), and '>' fails at the attained minimum."
    ),
    status=Status.VERIFIED_CORRECTED,
    params=(
        *subspace_params(m=6, K=2, r=2, nu=3, imbalance=1, signs="cone",
                         m_valid="m > r; corrected: K·r ≤ m (random subspaces)"),
        Param("instance", str, "random", "random, or a fixed counterexample: " + ", ".join(INSTANCES[1:]),
              choices=INSTANCES),
        Param("eps_z", float, 0.1, "third coordinate of u₃ in instance='k3_near_dependent'", "> 0"),
        Param("attention", str, "bilinear", "bilinear A = XWWᵀXᵀ | softmax | scaled (1/√d_k)", choices=ATTENTIONS),
        Param("w_scale", float, 1.0, "multiplies W (≠ 1 breaks the unit-column normalisation)", "= 1"),
        Param("instances", int, 8, "random instances (or random rotations) checked together", "≥ 1"),
        Param("seed", int, 0, "seed of the instances", "any integer"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
