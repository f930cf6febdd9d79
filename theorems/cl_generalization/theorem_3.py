"""Theorem 3 of paper 003 (divergence of SimCLR): vacuous as printed; a per-pair repair is informative.

Statement as printed (slide "Divergence of SimCLR", Theorem 3)
--------------------------------------------------------------
"Assume f is normalised (‖f‖ = 1) and L-Lipschitz, and A is (σ,δ)-augmented. Then for any ε > 0 and k ≠ ℓ,
μ_kᵀμ_ℓ ≤ log(exp{(L₂(f) + τ(ε,σ,δ)) / (p_k p_ℓ)} − exp(1 − ε))", τ ≥ 0 a slack with no formula.

Verdict: vacuous
----------------
L₂ ≥ log 2 (AM–GM with i.i.d. views and an independent negative), p_k p_ℓ ≤ ¼ (p_k + p_ℓ ≤ 1) and τ ≥ 0, so

    RHS ≥ log(e^{4 log 2} − e^{1−ε}) ≥ log(16 − e) ≈ 2.586 > 1 ≥ |μ_kᵀμ_ℓ|

for every f on the unit sphere: the bound carries no information. The check proves this numerically on the
instance: each link of the chain is a claim (the RHS with τ = 0 is the smallest the theorem allows, since RHS
grows with τ).

The informative repair [derived]: with T_kℓ = E_{x∈C_k, x'∈C_ℓ} E log(e^{f₁ᵀf₂} + e^{f₁ᵀf⁻}) and
α_k = E_{x∈C_k} E f₁ᵀf₂ = E_{C_k}‖m(x)‖², joint convexity of log-sum-exp (Jensen) gives

    μ_kᵀμ_ℓ ≤ log(e^{T_kℓ} − e^{α_k}),   and   p_k p_ℓ T_kℓ ≤ L₂ (L₂ = Σ_ab p_a p_b T_ab, every T_ab > 0),

the second recovering the printed form once all the other (a, b) terms are thrown away (which is what makes it
vacuous). Claims ``per_pair_repair`` and ``weighted_pair_le_L2``; ``details`` shows how often the repair is < 1
(informative).

Quantifiers: ∀ f with ‖f‖ ≡ 1 (L-Lipschitz), ∀ (σ,δ)-augmentations, ∀ ε > 0, ∀ k ≠ ℓ, for the slide's τ ≥ 0 (no
formula is given; the right-hand side grows with τ, so τ = 0 is the strongest claim the statement can make and
the one checked). Nothing is existential.

Status: vacuous (unchanged), now with claim kinds. ``printed_bound`` (kind bound) is the statement at τ = 0, at the
pair k ≠ ℓ where it is tightest. The vacuity chain is algebra, kind identity: ``L2_at_least_log2`` (AM–GM with
i.i.d. views), ``rhs_at_least_log_16_minus_e`` (from it and p_k p_ℓ ≤ ¼), ``centre_products_at_most_1``
(Cauchy–Schwarz on the unit sphere); ``details["vacuous"]`` is the comparison of the printed right-hand side
with the trivial bound ‖μ_k‖‖μ_ℓ‖ ≤ 1. The per-pair repair is the proof's own route (Jensen per pair, then the
other pairs of L₂ discarded), kind proof_step. Negative controls: ``tau`` < 0 (the slide's τ is non-negative; a
negative τ pulls the exponent below 1 − ε and the printed bound fails on merged classes), ``pairing=distinct``
(positives without replacement: L₂ < log 2, the m = 2 caveat), ``r`` ≠ 1 (off the unit sphere), ``repair_scale``.
"""

from __future__ import annotations

import math
import random

import torch

from ..core.evidence import Claim
from ..core.params import sample_params
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, Result, Status, Violation
from . import population as P
from .instances import build, instance_cost, instance_hypotheses, instance_params
from .paper import PAPER

ID = "cl_generalization.theorem_3"
LOG_16_MINUS_E = math.log(16 - math.e)
# Sums of O(1) logs and exponentials: float64 rounding, relative to O(1).
RTOL = 1e-10


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = instance_hypotheses(p, needs_sphere=True)
    if p["r"] != 1.0:
        out.append(Violation("‖f‖ = 1", "Theorem 3 assumes unit-norm features", ("r",)))
    if p["pairing"] != "iid":
        out.append(Violation("positives i.i.d. from A(x)", "pairing=distinct draws the two views without "
                             "replacement; L₂ ≥ log 2 needs i.i.d. views", ("pairing",)))
    if p["tau"] < 0:
        out.append(Violation("τ ≥ 0", "the slide's τ(σ,δ,ε,R_ε) is a non-negative term; τ < 0 is a negative control",
                             ("tau",)))
    return out


def _log_diff_exp(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log(e^a − e^b) without overflow (a + log(1 − e^{b−a})): off the unit sphere (r = 1000, a control) L₂/(p_kp_ℓ)
    is ~1e7 and e^a is inf, which made the printed RHS inf and the claim 'hold' on a non-finite number. NaN where
    a < b (the logarithm of a negative number, as printed), −inf where a = b."""
    return torch.where(a >= b, a + torch.log1p(-torch.exp(torch.clamp(b - a, max=0.0))),
                       torch.full_like(a, math.nan))


def evaluate(p: dict, form: str, ctx) -> Outcome:
    inst = build(p, ctx)
    pop, w = inst.pop, inst.pop.view_w
    K, y = pop.K, pop.labels
    pk = pop.p()
    onehot = torch.nn.functional.one_hot(y, K).to(inst.F.dtype)
    off = ~torch.eye(K, dtype=torch.bool, device=pk.device)
    rows = []
    for s in range(inst.F.shape[0]):
        F = inst.F[s]
        pair = P.infonce_point_pairs(F, w, p["pairing"])  # (N, N)
        L2 = float(pair.mean())
        T = p["repair_scale"] * (onehot.T @ pair @ onehot) / torch.outer(onehot.sum(0), onehot.sum(0))
        Pw = P.pair_weights(w, p["pairing"])
        alpha = (onehot.T @ torch.einsum("nab,nad,nbd->n", Pw, F, F)) / onehot.sum(0)
        mu = P.class_centres(F, w, y, K)
        dots = mu @ mu.T
        pp = torch.outer(pk, pk)
        rhs = _log_diff_exp((L2 + p["tau"]) / pp, torch.full_like(pp, 1 - p["eps"]))  # τ = 0: the strongest claim
        repair = _log_diff_exp(T, alpha[:, None].expand_as(T))  # nan where e^T < e^α (a broken T)
        repair_slack = torch.nan_to_num(dots - repair, nan=math.inf)
        norms = mu.norm(dim=1)
        gap = (dots - rhs).masked_fill(~off, -math.inf)
        kl = int(gap.flatten().argmax())
        rows.append(dict(
            dot_tight=float(dots.flatten()[kl]), rhs_tight=float(rhs.flatten()[kl]),
            max_norm_product=float(torch.outer(norms, norms)[off].max()),
            L2=L2, rhs_min=float(rhs[off].min()), max_abs_dot=float(dots[off].abs().max()),
            printed_slack=float((dots - rhs)[off].max()), repair_slack=float(repair_slack[off].max()),
            weighted=float((pp * T)[off].max() - L2), repair=repair[off].tolist(), dots=dots[off].tolist(),
            informative=int((repair[off] < 1).sum()), pairs=int(off.sum())))
    tight = max(rows, key=lambda r: r["printed_slack"])
    claims = [
        Claim.at_most("printed_bound", tight["dot_tight"], tight["rhs_tight"],
                      f"μ_kᵀμ_ℓ against log(exp{{(L₂+τ)/(p_kp_ℓ)}} − e^{{1−ε}}) at the tightest pair k ≠ ℓ, τ = {p['tau']}"),
        Claim.at_least("L2_at_least_log2", min(r["L2"] for r in rows), math.log(2), "L₂ ≥ log 2",
                       kind="identity", rtol=RTOL),
        Claim.at_least("rhs_at_least_log_16_minus_e", min(r["rhs_min"] for r in rows), LOG_16_MINUS_E,
                       "min over k ≠ ℓ of the printed RHS at τ = 0", kind="identity", rtol=RTOL),
        Claim.at_most("centre_products_at_most_1", max(r["max_abs_dot"] for r in rows), 1.0,
                      "max |μ_kᵀμ_ℓ| (< log(16 − e) ≈ 2.586: the printed bound is vacuous)", kind="identity",
                      rtol=RTOL),
        Claim.at_most("per_pair_repair", max(r["repair_slack"] for r in rows), 0.0,
                      "max μ_kᵀμ_ℓ − log(e^{T_kℓ} − e^{α_k})", kind="proof_step", atol=RTOL),
        Claim.at_most("weighted_pair_le_L2", max(r["weighted"] for r in rows), 0.0, "max p_k p_ℓ T_kℓ − L₂",
                      kind="proof_step", atol=RTOL),
    ]
    r0 = rows[0]
    details = {"L2": r0["L2"], "printed_rhs_min_tau_0": r0["rhs_min"], "log_16_minus_e": LOG_16_MINUS_E,
               "max_abs_centre_product": r0["max_abs_dot"], "printed_bound_slack_max": r0["printed_slack"],
               "repair_bounds": r0["repair"], "centre_products": r0["dots"],
               "repair_informative_pairs": r0["informative"], "pairs": r0["pairs"],
               "max_norm_product": max(r["max_norm_product"] for r in rows),
               # vacuous against Cauchy–Schwarz: the smallest printed RHS exceeds every ‖μ_k‖‖μ_ℓ‖ (≤ 1)
               "vacuous": min(r["rhs_min"] for r in rows) > max(r["max_norm_product"] for r in rows),
               **inst.details}
    return Outcome(claims=claims, details=details, headline="printed_bound")


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(harness="style_content", encoder="random", d=8, sizes=[8, 8, 8]), False
    yield AS_PRINTED, dict(harness="style_content", encoder="infonce", d=8, seeds=2, steps=100), False
    rng = random.Random(500)
    for _ in range(suite.report_examples):
        drawn = sample_params(RESULT, AS_PRINTED, rng)
        if drawn is not None:
            yield AS_PRINTED, drawn, False
    yield AS_PRINTED, dict(mode="bad_aligned", bad_frac=1.0, m=2, pairing="distinct", sizes=[10, 10]), True
    yield AS_PRINTED, dict(r=2.0), True
    yield AS_PRINTED, dict(repair_scale=0.9), True
    yield AS_PRINTED, {k: v for k, v in CONTROL_TAU.items() if k != "allow_violation"}, True


# Merged classes (μ_0ᵀμ_1 ≈ 1) and a negative τ that brings the exponent (L₂+τ)/(p_kp_ℓ) just above 1 − ε: the
# printed right-hand side drops far below 1 and the bound fails (the slide's τ ≥ 0 is what keeps it vacuous).
CONTROL_TAU = dict(mode="merged", noise=0.0, view_noise=0.0, tau=-1.43, allow_violation=True)


def _strategy():
    from ..strategies.cl_generalization import cl_theorem_3_params

    return cl_theorem_3_params()


def cost(p: dict) -> Cost:
    return instance_cost(p, infonce=True)


RESULT = register(Result(
    id=ID, paper=PAPER, section="SSL Algorithm Analysis, Theorem 3 (Divergence of SimCLR)",
    title="Theorem 3: μ_kᵀμ_ℓ ≤ log(exp{(L₂+τ)/(p_k p_ℓ)} − e^{1−ε}) — always vacuous; per-pair repair",
    statement="‖f‖ = 1, f L-Lipschitz, (σ,δ)-augmentation: for any ε > 0 and k ≠ ℓ, "
              "μ_kᵀμ_ℓ ≤ log(exp{(L₂(f) + τ(ε,σ,δ))/(p_k p_ℓ)} − exp(1 − ε)), τ ≥ 0.",
    correction="Vacuous: RHS ≥ log(16 − e) ≈ 2.586 > 1 ≥ |μ_kᵀμ_ℓ| for every unit-norm f. Informative per-pair "
               "version: μ_kᵀμ_ℓ ≤ log(e^{T_kℓ} − e^{α_k}), T_kℓ the L₂ term restricted to x ∈ C_k, x' ∈ C_ℓ.",
    correction_reason="L₂ ≥ log 2 and p_k p_ℓ ≤ ¼, so the exponent is ≥ 4 log 2; the proof discards every other "
                      "(a, b) term of L₂ = Σ p_a p_b T_ab, which is what destroys the bound.",
    status=Status.VACUOUS,
    logic=Logic(for_all="every unit-norm L-Lipschitz encoder f, every (σ,δ)-augmentation, every ε > 0, every pair "
                        "k ≠ ℓ, with the slide's τ ≥ 0 (τ = 0 checked: the right-hand side grows with τ)"),
    vacuity="the trivial bound |μ_kᵀμ_ℓ| ≤ ‖μ_k‖‖μ_ℓ‖ ≤ 1 (Cauchy–Schwarz on the unit sphere): the printed "
            "right-hand side is ≥ log(16 − e) ≈ 2.586 for every unit-norm f",
    controls=(CONTROL_TAU,),
    strategy=_strategy,
    params=instance_params(sizes=(8, 8)) + (
        Param("eps", float, 0.1, "the ε of the theorem", "ε > 0", low=1e-9, high=10.0, sample=(0.001, 3.0)),
        Param("tau", float, 0.0, "the slide's slack τ (any τ ≥ 0; 0 is the strongest claim)", "τ ≥ 0", low=-10.0,
              high=100.0),
        Param("pairing", str, "iid", "positive pairs: iid draws from A(x) or distinct views (control)", "iid",
              choices=P.PAIRINGS),
        Param("repair_scale", float, 1.0, "multiplies T_kℓ (≠ 1 deliberately rescales it: negative control)", "1",
              low=0.0, high=10.0, breaks="exact T_kℓ"),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
