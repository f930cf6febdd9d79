"""Definition 1 of paper 000 (Cluster Integrity ρ), computed exactly, and the per-cluster ρ̃ of Theorem 1.

Statement as printed
--------------------
"ρ_k := max_{u ⟂ 𝒰_k} min_{x_i ∉ 𝒰_k} |x_iᵀu|, ρ := the lower bound of {ρ_1, …, ρ_𝒦}"; ρ "ranges from 0 to 1",
and "for each 𝒰_k there is a unit vector u_k^⊥ ⟂ 𝒰_k such that every x_i ∉ 𝒰_k has non-zero cosine
similarity with u_k^⊥" (so ρ_k > 0). Unit ‖u‖ and unit rows are implicit (eq. 2, and "ranging from 0 to 1").

Computation (derived here, by minimax duality): with a_i = P_k x_i (P_k the projector onto 𝒰_k^⊥),
ρ_k = max_{s ∈ {±1}^N, s_1=+1} dist(0, conv{s_i a_i}); each distance is a min-norm point with a duality
certificate (:mod:`theorems.metrics.cluster_integrity`), so ρ_k comes as a bracket [lower, upper] whose
width is the convergence certificate. Alongside it: the per-cluster margin ρ̃_c that Theorem 1 needs
(u ⟂ *all* other subspaces, margin over cluster c, signed).

What one check does
-------------------
Draws ``instances`` unions of subspaces (or a fixed instance) and asserts, worst case over the batch:
* ``rho_in_unit_interval`` (identity, a test of the code): 0 ≤ ρ_k ≤ 1, the printed range. For unit rows and
  unit u it is Cauchy–Schwarz, |x_iᵀu| ≤ ‖x_i‖‖u‖ = 1: it holds by algebra, so it is no evidence (it fails only
  with ``row_norm`` ≠ 1, the control that shows the code would notice);
* ``rho_positive``: ρ_k > 0 (the printed existence of u_k^⊥; needs x_i ∉ 𝒰_k for other-cluster samples);
* ``matches_reference_solver`` (identity, a test of the code): on the instance with the smallest ρ, ρ_k agrees
  with an independent computation (scipy SLSQP on every sign pattern, numpy).
Quantifiers: ∀ sample sets in a union of subspaces, ∃ u_k^⊥ (the printed "there always exists a unit vector
u_k^⊥ … non-zero cosine"): true for every finite set (a finite union of proper hyperplanes of 𝒰_k^⊥ cannot
cover it), so ρ_k > 0 is a theorem; the check computes the maximiser exactly. Status ``verified`` (unchanged),
resting on ``rho_positive`` alone: it holds on generated instances and where x_i ∉ 𝒰_k nearly fails (``offset`` = 1e-3: ρ_1 ≈ 1e-3).
Negative controls: ``instance='intersecting'`` (a sample of cluster 2 on 𝒰_1 ∩ 𝒰_2: ρ_1 = 0), and
``patterns='positive'`` (no sign enumeration: misses ρ on
arbitrary-sign data). Identity control (a test of the code, not of the statement): ``row_norm`` = 1.5 (rows
not unit: ρ can exceed 1, and only the identity ``rho_in_unit_interval`` fails). Tolerance pins: rows of norm 1 + 3e-12 where ρ_k = 1 (RANGE_ATOL), and the binding instance
at ``offset`` = 5e-14 (ρ_1 ≈ 4e-14, four RHO_MINs above the threshold that the zero control falls below).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import torch
from scipy.optimize import minimize

from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import sample_params
from ..core.result import Pin, AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..optim.threads import one_thread
from ..data.subspaces import SubspaceBatch, labels_from_sizes, orthonormalise
from ..metrics.cluster_integrity import (
    GAP_TOL,
    cluster_integrity,
    construct_w,
    min_norm_point,
    perp_projector,
)
from ._common import (build, enumeration_elements, instances_param, n_samples, random_rotations, structural_violations,
                      subspace_params)
from .paper import PAPER

ID = "deep_fusion.definition_1"
INSTANCES = ("random", "intersecting")

RANGE_ATOL = 1e-12  # ρ ≤ 1 for unit rows up to rounding of a unit vector's inner product
# ρ_k > 0: the certified lower end is clamped at 0 and an exactly-zero distance of unit vectors computes as
# ≲ 1e-16, so anything above this is a positive margin (the binding instance sits at ~1e-3, far above):
RHO_MIN = 1e-14
# SLSQP's reference value is accurate to ~sqrt(ftol)·scale with ftol = 1e-15 (on the squared norm):
REFERENCE_ATOL = 1e-6
# The scipy reference solves one SLSQP per sign pattern (~1 ms each): 2^9 patterns keep a check ≲ 1 s.
REFERENCE_MAX_N = 10


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if out:
        return out
    n = n_samples(p) if p["instance"] == "random" else 4
    if n - p["nu"] > REFERENCE_MAX_N:
        out.append(Violation(f"≤ {REFERENCE_MAX_N} out-of-cluster samples (exact ρ by sign enumeration, checked "
                             "by a reference solver)", "both solvers enumerate 2^(N−1) sign patterns",
                             ("K", "nu", "imbalance"), False))
    if p["instance"] == "intersecting" and p["offset"] == 0:
        out.append(Violation("x_i ∉ 𝒰_k for every sample of another cluster",
                             "instance='intersecting' puts a cluster-2 sample on 𝒰_1 ∩ 𝒰_2", ("instance",)))
    if p["patterns"] != "all":
        out.append(Violation("all sign patterns enumerated", "patterns='positive' keeps only s ≡ +1, the signed "
                             "margin, which is not Definition 1's |·| margin", ("patterns",)))
    return out


def intersecting_instance(ctx, B: int, offset: float = 0.0) -> SubspaceBatch:
    """Two planes in R³ (they meet in a line); cluster 2's first sample lies on that line (offset 0, i.e. in 𝒰_1),
    or at distance 0.8·offset from 𝒰_1 (the hypothesis x_i ∉ 𝒰_1 nearly binding)."""
    R = random_rotations(ctx, B, 3)
    U1 = ctx.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    U2 = ctx.tensor([[1.0, 0.0], [0.0, 0.6], [0.0, 0.8]])
    bases = torch.stack([R @ U1, R @ U2], 1)  # (B, 2, 3, 2)
    coeffs = ctx.tensor([[1.0, 0.3], [0.4, 1.0], [1.0, offset], [0.5, 1.0]])  # (4, 2); row 2 = the shared line
    labels = labels_from_sizes((2, 2), device=ctx.device)
    X = torch.einsum("bnmr,nr->bnm", bases[:, labels], coeffs)
    return SubspaceBatch(X / X.norm(dim=-1, keepdim=True), labels, orthonormalise(bases), (2, 2))


def reference_rho_k(X: np.ndarray, lab: np.ndarray, U: np.ndarray, k: int) -> float:
    """Independent numpy/scipy computation of ρ_k: SLSQP min-norm point on every sign pattern."""
    P = np.eye(X.shape[1]) - U @ U.T
    A = X[lab != k] @ P
    best = 0.0
    for s in itertools.product([1.0, -1.0], repeat=A.shape[0] - 1):
        Pts = (A * np.r_[1.0, s][:, None]).T  # (m, N)
        G = Pts.T @ Pts
        k_ = G.shape[0]
        res = minimize(lambda lam: lam @ G @ lam, np.full(k_, 1.0 / k_), jac=lambda lam: 2 * G @ lam,
                       method="SLSQP", bounds=[(0, 1)] * k_,
                       constraints=[{"type": "eq", "fun": lambda lam: lam.sum() - 1,
                                     "jac": lambda lam: np.ones_like(lam)}],
                       options={"ftol": 1e-15, "maxiter": 500})
        lam = np.clip(res.x, 0, None)
        best = max(best, float(np.linalg.norm(Pts @ (lam / lam.sum()))))
    return best


def evaluate(p: dict, form: str, ctx) -> Outcome:
    inst = build(ctx, p) if p["instance"] == "random" else intersecting_instance(ctx, p["instances"], p["offset"])
    X = inst.X * p["row_norm"]
    K = inst.K
    if p["patterns"] == "all":
        integ = cluster_integrity(X, inst.labels, inst.bases)
        rho_k, rho_up, converged = integ.rho_k, integ.rho_k_upper, integ.converged
    else:  # only s ≡ +1: the signed margin
        lows, ups = [], []
        for k in range(K):
            mnp = min_norm_point(X[:, inst.labels != k] @ perp_projector(inst.bases[:, k]))
            lows.append(mnp.lower)
            ups.append(mnp.upper)
        rho_k, rho_up = torch.stack(lows, 1), torch.stack(ups, 1)
        converged = (rho_up - rho_k <= GAP_TOL).all(-1)
    con = construct_w(inst.X, inst.labels, inst.bases)
    rho = rho_k.min(-1).values
    w = int(rho.argmin())  # the reference solver checks the instance with the smallest ρ
    ref = [reference_rho_k(X[w].cpu().numpy(), inst.labels.cpu().numpy(), inst.bases[w, k].cpu().numpy(), k)
           for k in range(K)]
    ref_err = float(np.abs(np.array(ref) - rho_k[w].cpu().numpy()).max())
    claims = [
        Claim.at_most("rho_in_unit_interval", float(rho_k.max()), 1.0, "max_{b,k} ρ_k ≤ 1 (Cauchy–Schwarz: "
                      "|x_iᵀu| ≤ ‖x_i‖‖u‖ = 1 for unit rows)", kind="identity", atol=RANGE_ATOL),
        Claim.at_least("rho_positive", float(rho_k.min()), RHO_MIN,
                       "min_{b,k} ρ_k > 0: some u ⟂ 𝒰_k has non-zero cosine with every x_i ∉ 𝒰_k"),
        Claim.at_most("matches_reference_solver", ref_err, 0.0,
                      "max_k |ρ_k − ρ_k(scipy SLSQP, all sign patterns)| on the instance with the smallest ρ",
                      kind="identity", atol=REFERENCE_ATOL),
    ]
    details = {
        "rho_min": float(rho.min()), "rho_first": float(rho[0]), "rho_k_first": rho_k[0].tolist(),
        "rho_k_reference_worst": ref, "rho_k_worst": rho_k[w].tolist(),
        "bracket_width_max": float((rho_up - rho_k).max()),
        "rho_tilde_c_first": con.rho_tilde_c[0].tolist(), "rho_tilde_min": float(con.rho_tilde.min()),
        "n": inst.n, "m": inst.m, "K": K, "sizes": list(inst.sizes),
    }
    if K == 2:  # the signed per-cluster margin is a restriction of the |·| one: ρ̃_c ≤ ρ_{other}
        details["K2_rho_tilde_c_minus_rho_other_max"] = float((con.rho_tilde_c - rho_k.flip(-1)).max())
    return Outcome(claims=claims, details=details, converged=bool(converged.all()), headline="rho_positive")


def report_instances(suite):
    rng = random.Random(1)
    yield AS_PRINTED, dict(), False
    for _ in range(suite.report_examples):
        params = sample_params(RESULT, AS_PRINTED, rng, fixed=dict(instance="random"))
        if params is not None:
            yield AS_PRINTED, params, False
    for spec in CONTROLS + IDENTITY_CONTROLS + (dict(patterns="positive", signs="arbitrary", allow_violation=True),):
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


def cost(p: dict) -> Cost:
    elements = enumeration_elements(p) if p["instance"] == "random" else p["instances"] * 64.0
    # the min-norm points run ≤ SCREEN_ROUNDS + polish iterations, each ~ the elements; the reference solver
    # is one SLSQP per sign pattern of the worst instance
    return Cost(elements=elements, work=elements * 3000.0 + 2.0 ** REFERENCE_MAX_N * 1e4)


CONTROLS = (dict(instance="intersecting", allow_violation=True),)
# Rows of norm 1.5 break only the identity rho_in_unit_interval (Cauchy–Schwarz needs unit rows): a test of the code.
IDENTITY_CONTROLS = (dict(row_norm=1.5, allow_violation=True),)
# Pin of RANGE_ATOL: one sample per cluster on two orthogonal lines has ρ_k = 1 exactly (to 4e-16); rows of norm
# 1 + 3e-12 put ρ_k three RANGE_ATOLs above 1, so the identity fails there and passes with RANGE_ATOL loosened ×10.
PINS = (Pin('rho_in_unit_interval', 'row_norm', fails=1.000000000003, within=10,
            params=dict(K=2, r=1, nu=1, imbalance=0, m=2, arrangement='angle', angle_deg=90.0, allow_violation=True),
            why='RANGE_ATOL: ρ_k = 1 on orthogonal single samples; rows of norm 1 + 3e-12 (definition_1.PINS)'),)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="§One-Layer Fusion without Noise, Definition 1 (eq. 2)",
    title="Definition 1: cluster integrity ρ (exact, by sign enumeration and min-norm points)",
    statement=("ρ_k = max_{u ⟂ 𝒰_k, ‖u‖=1} min_{x_i ∉ 𝒰_k} |x_iᵀu|, ρ = min_k ρ_k; ρ ranges in [0, 1] and "
               "ρ_k > 0 (a unit u_k^⊥ ⟂ 𝒰_k has non-zero cosine with every x_i ∉ 𝒰_k)."),
    status=Status.VERIFIED,
    logic=Logic(for_all="finite sets of unit samples, each in one of 𝒰_1..𝒰_𝒦 (and not in the other subspaces)",
                exists="for each k a unit u_k^⊥ ⟂ 𝒰_k with non-zero cosine to every x_i ∉ 𝒰_k (so ρ_k > 0)"),
    binding=(Binding(hypothesis="x_i ∉ 𝒰_k for the samples of the other clusters",
                     params=dict(instance="intersecting", offset=1e-3),
                     margin="a cluster-2 sample at distance 8e-4 from 𝒰_1: ρ_1 ≈ 1e-3"),
             # where it bites hardest: ρ_1 = 4e-14, four RHO_MINs above it (a sample on 𝒰_1 computes as ≈ 4e-17)
             Binding(hypothesis="x_i ∉ 𝒰_k for the samples of the other clusters",
                     params=dict(instance="intersecting", offset=5e-14),
                     margin="a cluster-2 sample at distance 4e-14 from 𝒰_1: ρ_1 ≈ 4e-14, still certified positive")),
    controls=CONTROLS,
    identity_controls=IDENTITY_CONTROLS,
    pins=PINS,
    cost=cost,
    strategy=lambda: _strategy(),
    params=(
        *subspace_params(m=6, K=2, r=2, nu=3, imbalance=1, signs="cone",
                         sample=dict(m=(3, 12), K=(2, 4), r=(1, 3), nu=(1, 3), imbalance=(0, 1))),
        Param("instance", str, "random", "random | intersecting (a sample on 𝒰_1 ∩ 𝒰_2)", choices=INSTANCES),
        Param("offset", float, 0.0, "instance='intersecting': distance parameter of the shared sample from 𝒰_1 "
              "(0: on 𝒰_1 ∩ 𝒰_2)", "> 0 for the hypothesis", low=0.0, high=1.0),
        Param("row_norm", float, 1.0,
              "norm of every row: ρ 'ranges from 0 to 1' only for unit rows (≠ 1 breaks that reading)", "= 1", low=1e-3,
              high=1e3, breaks="unit-norm rows"),
        Param("patterns", str, "all", "sign patterns enumerated: all | positive (s ≡ +1 only)",
              choices=("all", "positive")),
        instances_param(8),
        seed_param(),
    ),
    evaluate=one_thread(evaluate),
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
))


def _strategy():
    from ..strategies.deep_fusion import definition_1_params

    return definition_1_params()
