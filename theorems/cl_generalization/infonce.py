"""InfoNCE in paper 003: the split L_InfoNCE = L₁ + L₂, the linear ("simple") contrastive loss, and its τ → ∞ limit.

Statements as printed
---------------------
* "For ‖f‖ = 1, L_InfoNCE = L₁ + L₂ with L₁ = ½E‖f(x₁) − f(x₂)‖² − 1 (alignment) and
  L₂ = E log(e^{f(x₁)ᵀf(x₂)} + e^{f(x₁)ᵀf(x⁻)}) (divergence)."
* "The linear contrastive loss L' = E[−f(x₁)ᵀf(x₂) + λ f(x₁)ᵀf(x⁻)] = L₁ + λL₂' with L₂' = ‖E f‖² is InfoNCE with
  infinite temperature."

Reading chosen (digest 003 R6, R8): exact population InfoNCE of D1 (one negative x⁻ ∈ A(x'), x' an independent
sample), positives drawn i.i.d. from A(x) (A6). The infinite-temperature claim, made precise [derived]:
with L_τ = E[−s⁺/τ + log(e^{s⁺/τ} + e^{s⁻/τ})],

    τ(L_τ − log 2) − ½L'(λ=1) = τ E log cosh((s⁺ − s⁻)/(2τ)) ∈ [0, E(s⁺−s⁻)²/(8τ)] ⊆ [0, r⁴/(2τ)],

so the limit is ½L'(λ=1) at rate 1/τ, checked as a two-sided inequality at τ ∈ {10, 10², 10³, 10⁴}.

Claims: ``decomposition`` (|L − L₁ − L₂| relative), ``L2_at_least_log2`` (AM–GM with i.i.d. views),
``linear_loss_identity`` (L' = L₁ + λ‖E m‖²), ``temperature_limit`` (the two-sided rate). Negative controls:
``normalize=False`` (off the sphere: the split and the identity fail), ``pairing=distinct`` (positives without
replacement: L₂ < log 2 on antipodal two-view sets, and with unequal view weights E s⁻ ≠ ‖E m‖²),
``limit_coef`` ≠ ½ (a wrong constant in the limit).

Quantifiers: ∀ f with ‖f‖ ≡ 1, ∀ populations and augmentations (positives i.i.d. from A(x), x⁻ from an independent
x'), ∀ λ; nothing is existential.

Old status → new status: verified → open
----------------------------------------
Every assertion here is an algebraic identity: the split rests on −f₁ᵀf₂ = ½‖f₁ − f₂‖² − 1 on the unit sphere,
the linear-loss split on E f(x₁)ᵀf(x⁻) = ‖E m‖² for an independent negative, and the only precise reading of
"equivalent to InfoNCE with infinite temperature", τ(L_τ − log 2) → ½L'(λ=1), on the exact remainder
τ(L_τ − log 2) − ½L' = τ E log cosh((s⁺ − s⁻)/(2τ)) ∈ [0, r⁴/(2τ)]. All claims are therefore kind identity: they
test the implementation (to 10⁻¹⁰, and they fail off the sphere, without i.i.d. positives, or with a wrong limit
constant), but no instance inside the hypotheses can make them fail, so the numerical evidence decides nothing:
the status follows the rules as ``open`` (the statement is settled by its two-line proof, not by this suite).
"""

from __future__ import annotations

import math

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Logic, Outcome, Param, Result, Status, Violation
from . import population as P
from .instances import PAPER, PAPER_TITLE, build, instance_hypotheses, instance_params

ID = "cl_generalization.infonce_decomposition"
# Identities between sums of O(1) exponentials/logs: float64 rounding, relative.
IDENTITY_RTOL = 1e-10
TAUS = (10.0, 100.0, 1000.0, 10000.0)
# τ(L_τ − log 2) cancels log 2 against an O(1/τ) term: rounding error ≈ τ·1e-16 ≤ 1e-12 at τ = 10⁴.
LIMIT_ATOL = 1e-10


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = instance_hypotheses(p, needs_sphere=True)
    if p["r"] != 1.0:
        out.append(Violation("‖f‖ = 1", "the split uses −f₁ᵀf₂ = ½‖f₁ − f₂‖² − 1, true on the unit sphere only",
                             ("r",)))
    if p["pairing"] != "iid":
        out.append(Violation("positives i.i.d. from A(x)", "pairing=distinct draws the two views without "
                             "replacement (A6): L₂ ≥ log 2 and E s⁻ = ‖E m‖² need i.i.d. views", ("pairing",)))
    if p["limit_coef"] != 0.5:
        out.append(Violation("limit ½L'", "limit_coef ≠ ½ is a deliberately wrong constant", ("limit_coef",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    inst = build(p, ctx)
    pop, w = inst.pop, inst.pop.view_w
    lam = p["lam"]
    rows = []
    for s in range(inst.F.shape[0]):
        F = inst.F[s]
        t1 = P.infonce_terms(F, w, 1.0, p["pairing"])
        L, L1, L2 = float(t1["loss"]), 0.5 * float(t1["align"]) - 1.0, float(t1["lse"])
        Em = P.view_means(F, w).mean(0)
        Lp = -float(t1["pos"]) + lam * float(t1["neg"])
        Lp_split = L1 + lam * float(Em @ Em)
        half_L1 = 0.5 * (-float(t1["pos"]) + float(t1["neg"]))
        lim = []
        for tau in TAUS:
            Lt = float(P.infonce_terms(F, w, tau, p["pairing"])["loss"])
            gap = tau * (Lt - math.log(2)) - (p["limit_coef"] / 0.5) * half_L1
            lim.append((tau, gap))
        rows.append(dict(L=L, L1=L1, L2=L2, Lp=Lp, Lp_split=Lp_split, half_L1=half_L1, lim=lim))
    dec = max(abs(r["L"] - r["L1"] - r["L2"]) / max(1.0, abs(r["L"])) for r in rows)
    lin = max(abs(r["Lp"] - r["Lp_split"]) / max(1.0, abs(r["Lp"])) for r in rows)
    r4 = inst.r ** 4
    lo = min(g for r in rows for _, g in r["lim"])
    hi = max(g * t / (r4 / 2) for r in rows for t, g in r["lim"])  # ≤ 1 ⇔ gap ≤ r⁴/(2τ)
    claims = [
        Claim.at_most("decomposition", dec, IDENTITY_RTOL, "|L_InfoNCE − (L₁ + L₂)| / max(1, |L|)",
                      kind="identity"),
        Claim.at_least("L2_at_least_log2", min(r["L2"] for r in rows), math.log(2), "L₂ ≥ log 2 (AM–GM)",
                       kind="identity"),
        Claim.at_most("linear_loss_identity", lin, IDENTITY_RTOL, "|L' − (L₁ + λ‖E f‖²)| / max(1, |L'|)",
                      kind="identity"),
        Claim.at_least("temperature_limit_from_above", lo, -LIMIT_ATOL,
                       "min over τ of τ(L_τ − log 2) − ½L'(λ=1)", kind="identity"),
        Claim.at_most("temperature_limit_rate", hi, 1.0 + 1e-6, "max over τ of (τ(L_τ − log 2) − ½L') · 2τ/r⁴",
                      kind="identity"),
    ]
    r0 = rows[0]
    details = {"L_infonce": r0["L"], "L1": r0["L1"], "L2": r0["L2"], "linear_loss": r0["Lp"],
               "half_linear_loss_lambda_1": r0["half_L1"],
               "tau_scaled_gap": {str(t): g for t, g in r0["lim"]}, "per_seed_L2": [r["L2"] for r in rows],
               **inst.details}
    return Outcome(observed=r0["L2"], bound=math.log(2), tightness=math.log(2) / r0["L2"], claims=claims,
                   details=details)


ANTIPODAL_PAIRS = dict(mode="bad_aligned", bad_frac=1.0, m=2, pairing="distinct")


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(harness="style_content", encoder="random", d=8), False
    yield AS_PRINTED, dict(harness="style_content", encoder="infonce", d=8, seeds=2, steps=100), False
    for i in range(suite.report_examples):
        yield AS_PRINTED, dict(mode=("clustered", "bad_aligned", "hub")[i % 3], seed=400 + i,
                               weights=("uniform", "dirichlet")[i % 2], sizes="6,6,6"), False
    yield AS_PRINTED, dict(normalize=False), True
    yield AS_PRINTED, dict(ANTIPODAL_PAIRS), True
    yield AS_PRINTED, dict(limit_coef=1.0), True


RESULT = register(Result(
    id=ID, paper=PAPER, paper_title=PAPER_TITLE,
    title="InfoNCE = L₁ + L₂; linear loss L' = L₁ + λ‖E f‖² is InfoNCE at τ → ∞",
    statement="For ‖f‖ = 1: L_InfoNCE = L₁ + L₂, L₁ = ½E‖f(x₁) − f(x₂)‖² − 1, L₂ = E log(e^{f₁ᵀf₂} + e^{f₁ᵀf⁻}); "
              "L' = E[−f₁ᵀf₂ + λf₁ᵀf⁻] = L₁ + λ‖E f‖², the infinite-temperature InfoNCE.",
    status=Status.OPEN,
    logic=Logic(for_all="every unit-norm encoder f, every population and augmentation (positives i.i.d. from A(x), "
                        "an independent negative), every λ"),
    open_reason="every printed assertion is an algebraic identity on the unit sphere (the split, the linear-loss "
                "split, and the infinite-temperature limit with its exact log-cosh remainder); the suite checks "
                "them to 1e-10 as tests of its own code, but no instance inside the hypotheses can make them "
                "fail, so numerical evidence decides nothing; the statement is settled by its proof",
    params=instance_params() + (
        Param("lam", float, 1.0, "weight λ of the negative term of the linear loss", "any real"),
        Param("pairing", str, "iid", "positive pairs: iid draws from A(x) or distinct views (control)", "iid",
              choices=P.PAIRINGS),
        Param("limit_coef", float, 0.5, "the constant in the limit τ(L_τ − log 2) → c·L'(λ=1)", "½"),
    ),
    evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
