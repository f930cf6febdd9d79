"""Algorithm 1 of paper 000 (Appendix A): the greedy search for the cluster integrity ρ.

Statement as printed (Appendix A, Algorithm 1)
----------------------------------------------
    {U_k} ← basis of each X_k
    for k: ρ_k ← −∞; u_0 ← random
        for t = 0..T:
            u⊥ ← (u_t − U_kU_kᵀu_t)/‖·‖;  x* ← argmin_{x ∉ X_k} |xᵀu⊥|;  u_{t+1} ← (u⊥ + α x*)/‖·‖
            if |ρ_k − |x*ᵀu⊥|| < τ: break;  ρ_k ← max(ρ_k, |x*ᵀu⊥|)
    return min_k ρ_k
The paper presents it as the way to estimate ρ; it claims no guarantee.

Reading and correction
----------------------
* Every recorded |x*ᵀu⊥| is the Definition-1 objective at a feasible unit u⊥ ⟂ 𝒰_k, so the output is a
  **lower bound** on the exact ρ_k (and min_k). That is what is asserted, for both variants.
* Sign fix (``form='corrected'``): the step should be u⊥ + α·sign(x*ᵀu⊥)·x*; as printed, a negative
  projection is pushed further toward 0. Not a false claim (the printed algorithm still returns a lower bound)
  but a worse heuristic.
Verdict: open (was verified). The paper claims no accuracy, so nothing printed can be confirmed or refuted; the
lower-bound property holds by construction (an ``identity``: it tests the code) and the gap is a measurement.
The old ``verified`` counted that identity as evidence. Its Evidence therefore carries no ``bound`` claim: its
outcome is 'measured' (``theorems.core.evidence.outcome_of``: nothing asserted, neither a pass nor a failure), and
``holds`` is False because nothing is confirmed, not because anything failed.
* "Basis of X_k": the leading left singular vectors of X_kᵀ (rank read off the SVD, rtol 1e-10).
Runs are batched over ``restarts`` random u_0 and all classes and instances at once; each run is one
execution of the algorithm. The exact ρ comes from :func:`theorems.metrics.cluster_integrity.cluster_integrity`.
Hidden hypothesis found here: "basis of X_k" is the span of the *samples*; when a class has fewer samples than
the subspace dimension (ν_c < r) that span is smaller than 𝒰_k, u⊥ is not ⟂ 𝒰_k, and the output can exceed
the exact ρ (negative control ``nu`` < ``r``). Second control: ``exact_scale`` ≠ 1, a deliberately wrong
reference.
"""

from __future__ import annotations

import random

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import sample_params
from ..core.result import (AS_PRINTED, CORRECTED, Cost, Logic, Outcome, Param, Pin, Result, Status, Violation,
                           seed_param)
from ..optim.threads import one_thread
from ..metrics.cluster_integrity import MAX_ENUMERATED, RANK_RTOL, cluster_integrity
from ._common import build, enumeration_elements, instances_param, n_samples, structural_violations, subspace_params
from .paper import PAPER

ID = "deep_fusion.algorithm_1"

# The greedy value is an inner product |xᵀu⊥| at a feasible point, the exact ρ a certified bracket whose
# lower end is ≤ ρ: both exact to ~1e-15, so any excess above this is a real violation.
LOWER_ATOL = 1e-10


def class_bases(X: torch.Tensor, labels: torch.Tensor, K: int) -> list[torch.Tensor]:
    """Per class: (B, m, m) projector onto the span of that class's samples (rank from the SVD)."""
    out = []
    for k in range(K):
        U, S, _ = torch.linalg.svd(X[:, labels == k].transpose(-1, -2), full_matrices=False)
        keep = (S > RANK_RTOL * S[..., :1]).to(X.dtype)
        Uk = U * keep.unsqueeze(-2)
        out.append(Uk @ Uk.transpose(-1, -2))
    return out


def greedy_rho(ctx, X: torch.Tensor, labels: torch.Tensor, K: int, T: int, alpha: float, tau: float,
               restarts: int, sign_fix: bool) -> torch.Tensor:
    """(B, K, restarts) values ρ_k of Algorithm 1, one per run."""
    B, n, m = X.shape
    res = []
    for k, Pk in enumerate(class_bases(X, labels, K)):
        Xo = X[:, labels != k]  # (B, N, m)
        u = ctx.randn(B, restarts, m)
        rho = torch.full((B, restarts), -torch.inf, dtype=X.dtype, device=X.device)
        active = torch.ones(B, restarts, dtype=torch.bool, device=X.device)
        for _ in range(T + 1):
            up = u - u @ Pk  # u − U_kU_kᵀu (Pk symmetric)
            up = up / up.norm(dim=-1, keepdim=True)
            proj = up @ Xo.transpose(-1, -2)  # (B, R, N)
            val, idx = proj.abs().min(-1)
            xs = Xo.gather(1, idx.unsqueeze(-1).expand(-1, -1, m))  # (B, R, m)
            step = alpha * (torch.sign(proj.gather(-1, idx.unsqueeze(-1))) if sign_fix else 1.0)
            nxt = up + step * xs
            stop = active & ((rho - val).abs() < tau)
            active = active & ~stop
            rho = torch.where(active, torch.maximum(rho, val), rho)
            u = torch.where(active.unsqueeze(-1), nxt / nxt.norm(dim=-1, keepdim=True), u)
            if not bool(active.any()):
                break
        res.append(rho)
    return torch.stack(res, 1)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if out:
        return out
    if n_samples(p) - p["nu"] > MAX_ENUMERATED:
        out.append(Violation(f"≤ {MAX_ENUMERATED} out-of-cluster samples (exact ρ reference)",
                             "the exact ρ enumerates 2^(N−1) sign patterns", ("K", "nu", "imbalance"), False))
    if p["nu"] < p["r"]:
        out.append(Violation("each class's samples span its subspace (ν_c ≥ r)", "with fewer samples than r the "
                             "'basis of X_k' spans less than 𝒰_k, so u⊥ need not be ⟂ 𝒰_k and the output is no "
                             "longer a lower bound on Definition 1's ρ", ("nu", "r")))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    inst = build(ctx, p)
    K = inst.K
    exact = cluster_integrity(inst.X, inst.labels, inst.bases)
    ref_k = exact.rho_k_upper * p["exact_scale"]  # (B, K): the upper end, so rounding cannot fake a violation
    runs = greedy_rho(ctx, inst.X, inst.labels, K, p["T"], p["alpha"], p["tau"], p["restarts"],
                      sign_fix=form == CORRECTED)
    excess_k = (runs - ref_k.unsqueeze(-1)).amax()
    alg_min = runs.min(1).values  # (B, R): the algorithm's output min_k ρ_k per run
    ref_min = ref_k.min(-1).values
    excess = (alg_min - ref_min.unsqueeze(-1)).amax()
    rel_gap = 1 - alg_min / ref_min.unsqueeze(-1).clamp_min(1e-300)
    rel_gap_k = 1 - runs / ref_k.unsqueeze(-1).clamp_min(1e-300)
    claims = [
        Claim.at_most("lower_bound_on_exact_rho", float(torch.maximum(excess, excess_k)), 0.0,
                      "max over runs of (Algorithm 1's ρ_k or min_k ρ_k) − exact ρ_k (or ρ): every recorded value is "
                      "the objective at a feasible u", kind="identity", atol=LOWER_ATOL),
        Claim.measurement("relative_gap_mean", float(rel_gap.mean()), 0.0,
                          "mean over runs of 1 − Algorithm 1's ρ / exact ρ"),
    ]
    details = {
        "variant": "sign-fixed step" if form == CORRECTED else "literal step u⊥ + αx*",
        "exact_rho_first": float(exact.rho[0]), "exact_rho_k_first": exact.rho_k[0].tolist(),
        "alg_rho_first_run": float(alg_min[0, 0]), "alg_rho_k_first_run": runs[0, :, 0].tolist(),
        "relative_gap_mean": float(rel_gap.mean()), "relative_gap_worst": float(rel_gap.max()),
        "relative_gap_best_restart_mean": float((1 - alg_min.max(-1).values / ref_min.clamp_min(1e-300)).mean()),
        "relative_gap_per_class_worst": float(rel_gap_k.max()),
        "runs": int(runs.shape[0] * runs.shape[-1]),
        "exact_bracket_max": float((exact.rho_k_upper - exact.rho_k).max()),
    }
    details["exact_rho_min_first"], details["alg_rho_best_restart_first"] = float(ref_min[0]), float(alg_min[0].max())
    return Outcome(claims=claims, details=details, converged=bool(exact.converged.all()), headline="relative_gap_mean")


def report_instances(suite):
    rng = random.Random(5)
    yield CORRECTED, dict(), False
    yield AS_PRINTED, dict(), False
    for _ in range(suite.report_examples):
        form = rng.choice([AS_PRINTED, CORRECTED])
        params = sample_params(RESULT, form, rng)
        if params is not None:
            yield form, params, False
    yield CORRECTED, dict(exact_scale=0.5), True
    yield CORRECTED, dict(K=2, r=4, m=8, nu=2, signs="cone"), True  # ν < r: samples do not span 𝒰_k


def cost(p: dict) -> Cost:
    runs = p["instances"] * p["K"] * p["restarts"]
    elements = enumeration_elements(p) + runs * n_samples(p) * p["m"]
    return Cost(elements=elements, work=enumeration_elements(p) * 3000.0 + runs * (p["T"] + 1) * n_samples(p) * p["m"])


# Pin of LOWER_ATOL: one sample per class on two orthogonal lines in R² leaves one feasible u⊥, so every run
# returns the exact ρ_k = 1 (to 1e-16); the reference scaled by 1 − 3e-10 sits three LOWER_ATOLs below it.
PINS = (Pin("lower_bound_on_exact_rho", "exact_scale", fails=0.9999999997, within=10,
            params=dict(K=2, r=1, nu=1, imbalance=0, m=2, arrangement="angle", angle_deg=90.0, allow_violation=True),
            why="LOWER_ATOL: every run returns the exact rho_k = 1; the reference scaled by 1 - 3e-10 puts them 3 out"),)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Appendix A, Algorithm 1",
    title="Algorithm 1: greedy search for the cluster integrity ρ (a lower bound, not the value)",
    statement="Algorithm 1 (Appendix A) estimates ρ of Definition 1 by a greedy projected search per class.",
    correction="The step must follow the sign of the projection: u_{t+1} ∝ u⊥ + α·sign(x*ᵀu⊥)·x*.",
    correction_reason=("As printed a negative projection is pushed further toward zero; either way every recorded "
                       "value is the objective at a feasible u, so the output is only a lower bound on ρ."),
    status=Status.OPEN,
    logic=Logic(for_all="class matrices X_1..X_𝒦, T, α, τ and random starts u_0"),
    open_reason=("Appendix A presents Algorithm 1 as a way to estimate ρ and claims nothing about its accuracy, so "
                 "there is no printed bound to confirm or refute. What holds by construction (every recorded value is "
                 "the objective at a feasible u ⟂ 𝒰_k, so the output is a lower bound on ρ when each class spans its "
                 "subspace, ν_c ≥ r) is an identity, and the gap is measured: the literal step lands ~50 % below the "
                 "exact ρ on the default instances, the sign-fixed step closer. A stated accuracy guarantee (e.g. "
                 "within a factor of ρ after T steps) is what a verdict would need."),
    params=(
        *subspace_params(m=6, K=3, r=1, nu=3, imbalance=0, signs="arbitrary",
                         sample=dict(m=(3, 10), K=(2, 4), r=(1, 3), nu=(1, 4), imbalance=(0, 1))),
        Param("T", int, 100, "maximum iterations", low=0, high=100_000),
        Param("alpha", float, 0.1, "step α toward the worst sample", low=1e-9, high=1e3, sample=(0.01, 1.0), log=True),
        Param("tau", float, 1e-6, "stopping tolerance τ", low=0.0, high=1.0),
        Param("restarts", int, 16, "runs from random u_0 per class and instance", low=1, high=4096),
        Param("exact_scale", float, 1.0, "multiplies the exact reference ρ (≠ 1: a deliberately wrong reference)",
              "= 1", low=1e-3, high=1e3, breaks="exact reference ρ"),
        instances_param(4),
        seed_param(),
    ),
    pins=PINS,
    cost=cost,
    evaluate=one_thread(evaluate),
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
