"""Theorem 2 of paper 000 (Deep Fusion, noisy case): "each block increases the sharpness".

Statement as printed
--------------------
"Given an input matrix X̃, where each sample x̃_i lies near one of the subspaces among {𝒰_1,…,𝒰_𝒦} with noise
bounded by (6), there always exists a pair of parameters (W^{Q*}, W^{K*}) such that each Transformer block
increases the sharpness of its similarity matrix A^ℓ by at least a factor of O((1/n) e^{n(δ²−Δ²)+δ})."
Appendix B's derivation: the same W as Theorem 1, value map W^V = I, no residual, the softmax's row
normalisation dropped, and the entry bounds
  (B1) [X̃W]_il ≤ δ across clusters, ≥ Δ within;   (eq. 7) A_ij ≥ ν_iΔ² within;
  (eq. 8) A_ij ≤ (ν_i+ν_j)δ + (n−ν_i−ν_j)δ² across;
ending in the explicit factor (B9)
  γ_B = (Δe^{Δ²} − n e^{n(δ+δ²)})² e^{δ+nδ²−nΔ²} / (n²X + n³X²),  X = δe^{nΔ²} + e^{n(δ+δ²)},
and its O-form γ_O = e^{n(δ²−Δ²)+δ}/n. Separability δ < Δ appears only in the commentary.

Quantifiers: ∀ noisy inputs (eq. 6), n, ε ∃ (W^Q, W^K) (per block; App. B uses one W) such that one block
multiplies the sharpness by at least the factor. "At least a factor of O(·)" fixes no constant, so the explicit
factor γ_B of App. B (B9) is what is checked (the O-form is only a simplification of it, wrong when
Δ² > δ+δ², see the algebra checks). The paper fixes no normalisation of W; param ``normalisation`` checks the
literal reading (``none``) and the reading with the proof's unit columns (``unit_columns``).

Verdict: vacuous (was refuted)
------------------------------
The old ``refuted`` rested on the proof's W only (eq. 7 on that W, γ_B missed by that W on non-separable data,
a block of that W lowering the sharpness): failures of one witness, which refute nothing about "there exist W".
A witness search (:func:`witness_candidates`: the proof's W, random rank-one W with unit columns, random W with
i.i.d. unit columns; scales 1, 2, 4, 8 without normalisation) reaches γ_B on every instance tried:
* literal reading: on the default batch (ε = 0.01, n = 8) with a margin of 10^35 over γ_B, and on the
  non-separable batches once listed as counterexamples (ε = 0.12, ρ = 0.75, n = 32: γ_B up to 1.4; ε = 0.2,
  ρ = 0.5, n = 64, where Δ < 0 (eq. 7 then says nothing and is left out): γ_B up to e^18.5; the proof's W falls
  short there by 10^2.9 and 10^26.6) as well; the
  log-ratio grows with the scale of W, so any factor is reached —
  the statement holds, and says nothing (``vacuity``: details['vacuous'], γ_B exceeded by e^20 or more);
* unit-column reading: random rank-one W (every column the same unit vector) still reach γ_B on every
  instance tried, including the non-separable ones. How they reach it is recorded for the winning witness
  (log 𝒮 before and after the block): on the non-separable batch (ε = 0.12, ρ = 0.75, n = 32) the winner starts
  from log 𝒮(A) between −47 and −27 nats and ends below 0 on every instance — the ratio is large because the
  first layer separates nothing — and on 8 of 16 instances no γ_B-reaching candidate of the whole search ends
  with 𝒮 > 1 (``details['vacuous']`` there). On the separable default batch the proof's W itself wins, from
  log 𝒮 ∈ [−3.9, −1.3], and every instance has a separating γ_B-reaching witness.
Proof errata (App. B), each a ``proof_step`` claim on the proof's W that fails on a registered instance:
* eq. (7) drops negative cross terms (A₁₂ = 0.7200 < ν₁Δ² = 0.8887 on ``instance='eq7_counterexample'``; the
  corrected ν_iΔ² − (n−ν_i)δ² holds);
* the next layer, on App. B's literal aggregation x̃′_i = Σ_j e^{A_ij}x̃_j with the real weights: (B4)'s upper
  bound uses α = e^{ν_iΔ²}, a *lower* bound on the same-cluster weights (fails on rank-one clusters with noise
  toward the other cluster: 2.6·δ′); (B5)'s cross bound reuses eq. (8)'s "in-block entries ≤ 1", false for the
  unnormalised x̃′ (every default instance, up to 46×); (B5)'s same-cluster bound squares a Δ′ that can be
  negative; (B6) squares Δe^{Δ²} − ne^{n(δ+δ²)} < 0 (n ≥ 3; 17 of 32 instances with K = 3 fall below it); (B7)
  bounds 𝒟(S) from above by way of α/β, which is a lower bound of it (3 of 8 instances at ε = 0.05 exceed it);
  (B8) fails on non-separable data (by e^{5.6}); the unsimplified γ_ν (B5 over B7, balanced clusters) is not
  reached by the proof's W on 29 of 32 default instances;
* (B5)–(B9) together: the proof's W does not reach γ_B on non-separable data (``appendix_B_W_reaches_gamma_B``).
What holds of App. B on every instance tried: (B1), eq. (8), (B4)'s lower bound. Recorded, not asserted: γ_B < 1
on every separable instance (the factor certifies no increase), and the fraction of instances where one block of
the proof's W lowers the sharpness. With the literal aggregation (``aggregation='unnormalised'``) the statement
holds even more easily: the next logits scale like e^{2·max_j A_ij}, and the search exceeds γ_B by e^{577}
already with unit columns.

Block map (App. B made well-defined, :mod:`.fusion`): A = X̃MX̃ᵀ, X̃′ = row-normalised softmax(A)X̃ (W^V = I, no
residual; the normalisation keeps eq. 6's unit norm and makes exp(A)X̃ and softmax(A)X̃ the same next input) or,
with ``aggregation='unnormalised'``, App. B's literal exp(A)X̃; A′ = X̃′MX̃′ᵀ with the same M; sharpness of ``sharpness`` ∈ {exp (App. B's α/β), logit, softmax}; δ, Δ from the measured
ε_eff = 1 − min_i x_iᵀx̃_i and the margin ρ_W of the proof's W (per instance).
"""

from __future__ import annotations

import math
import random

import torch

from ..core.evidence import Claim
from ..core.params import sample_params
from ..core.registry import register
from ..core.result import Pin, AS_PRINTED, Cost, Logic, Outcome, Param, ProofErratum, Result, Status, Violation, seed_param
from ..optim.threads import one_thread
from ..data.subspaces import effective_eps
from ..metrics.cluster_integrity import margin_of_w
from ..metrics.sharpness import KINDS
from ..data.subspaces import NOISE_MODES
from ._common import independence_violation, instances_param, n_samples, structural_violations, subspace_params
from ..metrics.sharpness import sharpness
from .fusion import (AGGREGATIONS, FIXED, aggregate, appendix_b_steps, base_B6, block_log_ratio, delta_Delta,
                     exp_log_sharpness, instance, log_gamma_B, log_gamma_nu, log_gamma_O, witness_candidates)
from .paper import PAPER

ID = "deep_fusion.theorem_2"
SEPARABLE = "separable clusters δ < Δ"  # the corrected ratio claims rest on instances where it holds
INSTANCES = ("random", "eq7_counterexample", "nonseparable", "Delta_nonpositive")

# Entry bounds are sums of ≤ n products of numbers exact to ~1e-15; n ≤ a few hundred here:
ENTRY_ATOL = 1e-10
# App. B's next-layer steps are compared with every row scaled by e^{−max_j A_ij}: relative slacks exact to ~1e-13
STEP_RTOL = 1e-9
# Ratio bound in log space: log R and log γ_B are sums of O(n) terms of size ≤ 1, each exact to ~1e-15:
LOG_ATOL = 1e-9
# Vacuity: the search exceeds γ_B by at least this many nats (a factor e^20 ≈ 5·10^8) on every instance
VACUITY_NATS = 20.0
# A witness separates when log 𝒮(A′) > 0 beyond the rounding of a difference of O(10)-nat logits
SEPARATES = 1e-9


# ------------------------------------------------------------------------------------------------------
# The check
# ------------------------------------------------------------------------------------------------------
def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if out:
        return out
    if p["instance"] == "random":
        out += independence_violation(p)
        if p["signs"] != "cone":
            out.append(Violation("sign-consistent clusters", "Δ needs the signed margin x_iᵀw ≥ ρ (noise lemma)",
                                 ("signs",)))
    return out


def entry_claims(XW, A1, labels, nu, d, D) -> tuple[list[Claim], dict]:
    """App. B's layer-1 steps on the proof's W: (B1) on X̃W, eqs. (7) printed and corrected, (8)."""
    n = labels.numel()
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(n, dtype=torch.bool, device=XW.device)
    inf = math.inf
    off = (XW.abs() - d[:, None, None]).masked_fill(same, -inf).amax(dim=(-1, -2))
    inb = (XW - D[:, None, None]).masked_fill(~same, inf).amin(dim=(-1, -2))
    nui, nuj = nu[:, None], nu[None, :]
    ub8 = (nui + nuj) * d[:, None, None] + (n - nui - nuj) * d[:, None, None] ** 2
    eq8 = (A1.abs() - ub8).masked_fill(same, -inf).amax(dim=(-1, -2))
    pos = D >= 0  # eq. (7) needs Δ ≥ 0 (it squares Δ)
    lb7_printed = (nui * D[:, None, None] ** 2).expand(-1, -1, n)
    lb7_corr = torch.where(eye, lb7_printed, lb7_printed - (n - nui) * d[:, None, None] ** 2)
    slack_printed = (A1 - lb7_printed).masked_fill(~same, inf).amin(dim=(-1, -2))
    slack_corr = (A1 - lb7_corr).masked_fill(~same, inf).amin(dim=(-1, -2))
    claims = [
        Claim.at_most("B1_offblock_at_most_delta", float(off.max()), 0.0,
                      "App. B (B1): max_{c_i≠c_l} |x̃_iᵀw_l| − δ", kind="proof_step", atol=ENTRY_ATOL),
        Claim.at_least("B1_inblock_at_least_Delta", float(inb.min()), 0.0,
                       "App. B (B1): min_{c_i=c_l} x̃_iᵀw_l − Δ", kind="proof_step", atol=ENTRY_ATOL),
        Claim.at_most("eq8_cross_upper_bound", float(eq8.max()), 0.0,
                      "App. B eq. (8): max_{c_i≠c_j} |A_ij| − ((ν_i+ν_j)δ + (n−ν_i−ν_j)δ²)", kind="proof_step",
                      atol=ENTRY_ATOL),
    ]
    if bool(pos.any()):  # eq. (7) says nothing where Δ < 0 (instance='Delta_nonpositive'): left out, not failed
        claims[2:2] = [
            Claim.at_least("eq7_printed_lower_bound", float(slack_printed[pos].min()), 0.0,
                           "App. B eq. (7): min_{c_i=c_j} A_ij − ν_iΔ², instances with Δ ≥ 0", kind="proof_step",
                           atol=ENTRY_ATOL),
            Claim.at_least("eq7_corrected_lower_bound", float(slack_corr[pos].min()), 0.0,
                           "eq. (7) with the cross terms: min A_ij − (ν_iΔ² − [i≠j](n−ν_i)δ²), Δ ≥ 0",
                           kind="proof_step", atol=ENTRY_ATOL),
        ]
    details = {"Delta_nonneg_instances": int(pos.sum()), "A12_first": float(A1[0, 0, 1]),
               "eq7_printed_bound_first": float(lb7_printed[0, 0, 1]),
               "eq7_corrected_bound_first": float(lb7_corr[0, 0, 1]),
               "delta_emp_max_ratio": float((XW.abs().masked_fill(same, 0).amax(dim=(-1, -2))
                                             / d.clamp_min(1e-300)).max())}
    return claims, details


# What each next-layer step says (App. B, B4–B9), for the claims' messages: (name, printed, unit of the slack)
NEXT_LAYER_STEPS = (
    ("B4_offblock_upper", "(B4) x̃′_iᵀu ≤ αν_iδ + β(n−ν_i) = δ′ for u = w_l ⟂ x_i's subspace", "relative"),
    ("B4_inblock_lower", "(B4) x̃′_iᵀu ≥ αν_iΔ − β(n−ν_i) = Δ′ for u = w_l of x_i's own cluster", "relative"),
    ("B5_same_lower", "(B5) [A′]_ij ≥ ν_i(Δ′)² for c_i = c_j", "relative"),
    ("B5_cross_upper", "(B5) [A′]_ij ≤ (ν_i+ν_j)δ′ + (n−ν_i−ν_j)δ′² for c_i ≠ c_j", "relative"),
    ("B6_same_lower", "(B6) [A′]_ij ≥ (Δe^{Δ²} − ne^{n(δ+δ²)})² for c_i = c_j", "nats"),
    ("B6_cross_upper", "(B6) [A′]_ij ≤ n²X + n³X² for c_i ≠ c_j", "nats"),
    ("B7_previous_sharpness_upper", "(B7) 𝒟(S) ≤ e^{nΔ² − δ − nδ²}, S = exp(A)", "nats"),
    ("B8_next_sharpness_lower", "(B8) 𝒟(S′) ≥ (Δe^{Δ²} − ne^{n(δ+δ²)})²/(n²X + n³X²), S′ = A′", "nats"),
    ("gamma_nu_ratio", "B5 over B7 before simplifying (balanced ν): 𝒟(S′)/𝒟(S) ≥ γ_ν", "nats"),
)


def next_layer_claims(Xt, W, labels, d, D, sizes) -> tuple[list[Claim], dict]:
    """App. B's next-layer steps (B4–B8, the unsimplified γ_ν) on its literal aggregation x̃′ = exp(A)X̃, worst
    slack over the instances where the step's quantities are defined (a step undefined everywhere is left out)."""
    slacks = appendix_b_steps(Xt, W, labels, d, D, sizes)
    claims, details = [], {}
    for name, printed, unit in NEXT_LAYER_STEPS:
        if name not in slacks:
            continue
        v = slacks[name]
        ok = ~torch.isnan(v)
        details[f"{name}_defined_instances"] = int(ok.sum())
        if not bool(ok.any()):
            continue
        worst = float(v[ok].min())
        details[f"{name}_failing_instances"] = int((v[ok] < 0).sum())
        tol = STEP_RTOL if unit == "relative" else LOG_ATOL
        claims.append(Claim.at_least(name, worst, 0.0, f"{printed}: min over instances of the {unit} slack, on "
                                     "x̃′_i = Σ_j e^{A_ij}x̃_j with the proof's W", kind="proof_step", atol=tol))
    return claims, details


def block_log_sharpness(Xt: torch.Tensor, M: torch.Tensor, labels: torch.Tensor, kind: str,
                        aggregation: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(log 𝒮(A), log 𝒮(A′)) of one block for bilinear forms M (..., m, m), A = X̃MX̃ᵀ, A′ = X̃′MX̃′ᵀ with
    X̃′ = ``aggregate(A, X̃)``; NaN where a sharpness is undefined. Their difference is
    :func:`.fusion.block_log_ratio` (the before/after split is what shows *how* a witness reaches γ_B)."""
    A = Xt @ M @ Xt.transpose(-1, -2)
    Xn = aggregate(A, Xt, aggregation)
    An = Xn @ M @ Xn.transpose(-1, -2)
    if kind == "exp":
        same = labels[:, None] == labels[None, :]
        return exp_log_sharpness(A, same), exp_log_sharpness(An, same)
    flat = (-1, *A.shape[-2:])
    out = []
    for T in (A, An):
        sh = sharpness(T.reshape(flat), labels, kind)
        out.append(torch.where(sh.defined, sh.log_value, torch.full_like(sh.log_value, math.nan)).reshape(A.shape[:-2]))
    return out[0], out[1]


def witness_search(ctx, p, Xt, W, labels, logB) -> tuple[torch.Tensor, dict, dict[str, torch.Tensor]]:
    """Per instance the best log ratio over the witness candidates, which candidate first reached γ_B, and,
    for the winning candidate (the largest ratio), log 𝒮 before and after the block; ``separates``: some
    candidate reaching γ_B ends with 𝒮(A′) > 1 (decided over all candidates, not only the winner)."""
    best = torch.full_like(logB, -math.inf)
    before, after = torch.full_like(logB, math.nan), torch.full_like(logB, math.nan)
    separates = torch.zeros_like(logB, dtype=torch.bool)
    found: dict[str, int] = {}
    X4 = Xt.unsqueeze(1)
    for name, s, M in witness_candidates(ctx, W, p["restarts"], p["normalisation"]):
        s0, s1 = block_log_sharpness(X4, M, labels, p["sharpness"], p["aggregation"])  # (B, R)
        ratio = torch.nan_to_num(s1 - s0, nan=-math.inf)
        reach = ratio >= logB[:, None] - LOG_ATOL
        separates |= (reach & (s1 > SEPARATES)).any(1)
        r, idx = ratio.max(1)
        newly = (r >= logB - LOG_ATOL) & (best < logB - LOG_ATOL)
        if bool(newly.any()):
            found[f"{name}@s={s:g}"] = found.get(f"{name}@s={s:g}", 0) + int(newly.sum())
        better = r > best
        before = torch.where(better, s0.gather(1, idx[:, None]).squeeze(1), before)
        after = torch.where(better, s1.gather(1, idx[:, None]).squeeze(1), after)
        best = torch.maximum(best, r)
    return best, found, {"before": before, "after": after, "separates": separates}


def evaluate(p: dict, form: str, ctx) -> Outcome:
    clean, Xt, W, con = instance(ctx, {**p, "w_scale": 1.0})
    labels, n = clean.labels, clean.n
    rho_W = margin_of_w(clean.X, labels, W)  # (B,)
    eps_eff = effective_eps(clean.X, Xt).clamp_min(0.0)
    d0, D0 = delta_Delta(eps_eff, rho_W)  # (B,)
    # constant_scale ≠ 1 deliberately falsifies the constants of the entry bounds (a negative control)
    d, D = d0 * p["constant_scale"], D0 / p["constant_scale"]
    XW = Xt @ W
    A1 = XW @ XW.transpose(-1, -2)  # the logits App. B's entry bounds speak of
    claims, details = entry_claims(XW, A1, labels, clean.nu, d, D)
    more, extra = next_layer_claims(Xt, W, labels, d, D, clean.sizes)
    claims += more
    details.update(extra)
    dl, Dl = d0.tolist(), D0.tolist()
    logB = torch.tensor([log_gamma_B(n, a, b) for a, b in zip(dl, Dl, strict=True)], dtype=Xt.dtype, device=Xt.device)
    logB = logB + math.log(p["gamma_factor"])  # ≠ 1: a deliberately wrong constant (negative control)
    logR_proof = block_log_ratio(Xt, W @ W.transpose(-1, -2), labels, p["sharpness"], p["aggregation"])
    best, found, winner = witness_search(ctx, p, Xt, W, labels, logB)
    margin = best - logB
    sep = d0 < D0
    ln10 = math.log(10)
    details.update({
        "n": n, "m": clean.m, "K": clean.K, "sizes": list(clean.sizes), "instances": clean.B,
        "eps_eff_max": float(eps_eff.max()), "rho_W_min": float(rho_W.min()),
        "delta_first": dl[0], "Delta_first": Dl[0], "separable_instances": int(sep.sum()),
        "log10_gamma_B_first": float(logB[0] / ln10), "log10_gamma_O_first": log_gamma_O(n, dl[0], Dl[0]) / ln10,
        "log10_gamma_B_max": float(logB.max() / ln10),
        "witness_log10_margin_min": float(margin.min() / ln10), "witness_found_by": found,
        # how the winning witness reaches γ_B: its log-sharpness before and after the block (nats), and
        # whether any γ_B-reaching candidate ends with 𝒮 > 1 (separates) — vacuity needs the whole search
        "winner_log_sharpness_before_min": float(winner["before"].min()),
        "winner_log_sharpness_before_max": float(winner["before"].max()),
        "winner_log_sharpness_after_min": float(winner["after"].min()),
        "winner_log_sharpness_after_max": float(winner["after"].max()),
        "separating_witness_instances": int(winner["separates"].sum()),
        "proof_W_log10_R_over_gamma_B_min": float((logR_proof - logB).min() / ln10),
        "proof_W_fraction_decreasing": float((logR_proof < 0).double().mean()),
        "B6_base_first": base_B6(n, dl[0], Dl[0]),
    })
    if len(set(clean.sizes)) == 1:
        details["log10_gamma_nu_first"] = log_gamma_nu(clean.sizes[0], n, dl[0], Dl[0]) / ln10
    if p["normalisation"] == "none":  # the free scale: γ_B is exceeded by a factor e^VACUITY_NATS or more
        details["vacuous"] = bool(margin.min() >= VACUITY_NATS)
    else:  # unit columns: γ_B is reached, but on some instance by no candidate that separates the clusters
        details["vacuous"] = bool(bool((margin >= -LOG_ATOL).all()) and not bool(winner["separates"].all()))
    claims = [
        Claim.at_least("witness_reaches_gamma_B", float(margin.min()), 0.0,
                       "min over instances of max over the witness search of log(𝒮(A′)/𝒮(A)) − log γ_B",
                       atol=LOG_ATOL),
        *claims,
        Claim.at_least("appendix_B_W_reaches_gamma_B", float((logR_proof - logB).min()), 0.0,
                       "App. B (B5–B9): the proof's W gives log(𝒮(A′)/𝒮(A)) ≥ log γ_B", kind="proof_step",
                       atol=LOG_ATOL),
        Claim.measurement("winner_log_sharpness_before_max", details["winner_log_sharpness_before_max"], 0.0,
                          "max over instances of log 𝒮(A) for the witness with the largest ratio (< 0: it starts "
                          "from attention that separates nothing)"),
        Claim.measurement("winner_log_sharpness_after_max", details["winner_log_sharpness_after_max"], 0.0,
                          "max over instances of log 𝒮(A′) after the block for that witness (< 0: γ_B reached "
                          "without separating the clusters)"),
        Claim.measurement("separating_witness_fraction", float(winner["separates"].double().mean()), 1.0,
                          "instances where some candidate reaching γ_B ends with 𝒮(A′) > 1"),
        Claim.measurement("proof_W_fraction_decreasing", details["proof_W_fraction_decreasing"], math.nan,
                          "instances where one block of the proof's W decreases the sharpness"),
        Claim.measurement("log_gamma_B_max_separable", float(logB[sep].max()) if bool(sep.any()) else math.nan,
                          0.0, "γ_B < 1 on separable instances: the factor certifies no increase"),
    ]
    return Outcome(claims=claims, details=details, headline="witness_reaches_gamma_B")


def report_instances(suite):
    rng = random.Random(4)
    yield AS_PRINTED, dict(), False
    for _ in range(suite.report_examples):
        params = sample_params(RESULT, AS_PRINTED, rng)
        if params is not None:
            yield AS_PRINTED, params, False
    seen = [{}]
    for e in ERRATA:
        if dict(e.params) not in seen:
            seen.append(dict(e.params))
            yield e.form, dict(e.params), False
    yield AS_PRINTED, dict(instance="nonseparable", normalisation="unit_columns"), False
    yield AS_PRINTED, dict(aggregation="unnormalised"), False  # App. B's literal exp(A)X̃
    yield AS_PRINTED, dict(aggregation="unnormalised", normalisation="unit_columns"), False
    for spec in CONTROLS:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k not in ("form", "allow_violation")}, \
            bool(spec.get("allow_violation", False))


B4_INSTANCE = dict(r=1, m=4, nu=12, eps=0.002, noise="toward", instances=4)
def cost(p: dict) -> Cost:
    """The witness search holds instances × restarts bilinear forms (m×m) and their n×n logits at once."""
    n = n_samples(p) if p["instance"] == "random" else sum(FIXED[p["instance"]]["sizes"])
    m = p["m"] if p["instance"] == "random" else FIXED[p["instance"]]["m"]
    elements = float(p["instances"]) * p["restarts"] * (m * m + 2 * n * n + n * m)
    return Cost(elements=elements, work=elements * (m + n) * 3 * 4)


ERRATA = (
    ProofErratum(step="Appendix B, eq. (7)", printed="[A]_ij ≥ ν_iΔ² for c_i = c_j",
                 why="drops the cross terms Σ_{l∉c_i}(x̃_iᵀw_l)(x̃_jᵀw_l) ≥ −(n−ν_i)δ²: x̃₁,₂ = u₁ rotated by ±φ "
                     "(ε = 0.05, ν = (2, 6)) give A₁₂ = 0.7200 < ν₁Δ² = 0.8887; ν_iΔ² − (n−ν_i)δ² = 0.3037 holds",
                 params=dict(instance="eq7_counterexample", instances=1), claim="eq7_printed_lower_bound"),
    ProofErratum(step="Appendix B, (B4), first case",
                 printed="x̃′_iᵀu ≤ αν_iδ + β(n−ν_i) with α = e^{ν_iΔ²}, x̃′_i = Σ_{c_j=c_i}αx̃_j + Σ_{c_k≠c_i}βx̃_k",
                 why="α = e^{ν_iΔ²} is a lower bound on the same-cluster weights e^{A_ij} (eq. 7), used here as an upper "
                     "one: on rank-one clusters (r = 1, m = 4, ν = 12, ε = 0.002, noise toward the other cluster) the "
                     "real aggregation gives x̃′_iᵀw_l = 2.6·δ′",
                 params=B4_INSTANCE, claim="B4_offblock_upper"),
    ProofErratum(step="Appendix B, (B5), cross-cluster case",
                 printed="[A′]_ij ≤ (ν_i+ν_j)δ′ + (n−ν_i−ν_j)δ′² for c_i ≠ c_j",
                 why="repeats eq. (8)'s argument, which bounds the in-block entries by 1; the unnormalised x̃′ has "
                     "in-block entries of order αν_i, so on the default batch (ε = 0.01, n = 8) every instance has a "
                     "cross entry above the bound, up to 46×",
                 params={}, claim="B5_cross_upper"),
    ProofErratum(step="Appendix B, (B5), same-cluster case",
                 printed="[A′]_ij ≥ ν_i(αν_iΔ − β(n−ν_i))²",
                 why="squares a lower bound Δ′ = αν_iΔ − β(n−ν_i) that is negative when β(n−ν_i) > αν_iΔ: on the eq. (7) "
                     "instance (ν = (2, 6)) A′ has a same-cluster entry of the opposite sign to the bound",
                 params=dict(instance="eq7_counterexample", instances=1), claim="B5_same_lower"),
    ProofErratum(step="Appendix B, (B6), same-cluster case",
                 printed="[A′]_ij ≥ (Δe^{Δ²} − ne^{n(δ+δ²)})²",
                 why="Δe^{Δ²} − ne^{n(δ+δ²)} < 0 for every n ≥ 3, so the square is no lower bound: with K = 3 clusters "
                     "(m = 20, ν = 4, ε = 0.01) 17 of 32 instances have a same-cluster entry below it, by up to e^{3.2}",
                 params=dict(K=3), claim="B6_same_lower"),
    ProofErratum(step="Appendix B, (B7)",
                 printed="𝒟(S) = α/β = e^{ν_iΔ²−(ν_i+ν_j)δ−(n−ν_i−ν_j)δ²} ≤ e^{nΔ²−δ−nδ²}",
                 why="α/β is a lower bound on 𝒟(S) (eqs. 7, 8), not its value, so no upper bound on 𝒟(S) follows, yet "
                     "(B9) divides by one: at ε = 0.05 (separable, n = 8) 3 of 8 instances have 𝒟(exp A) above "
                     "e^{nΔ²−δ−nδ²}, by up to e^{0.54}",
                 params=dict(eps=0.05, instances=8), claim="B7_previous_sharpness_upper"),
    ProofErratum(step="Appendix B, (B8)",
                 printed="𝒟(S′) ≥ (Δe^{Δ²} − ne^{n(δ+δ²)})² / (n²(δe^{nΔ²}+e^{n(δ+δ²)}) + n³(δe^{nΔ²}+e^{n(δ+δ²)})²)",
                 why="rests on (B5)/(B6); on non-separable data (ε = 0.12, ρ = 0.75, n = 32) the next layer's logit "
                     "sharpness falls below it on 4 of the 6 instances (of 8) where it is defined, by up to e^{5.6}",
                 params=dict(instance="nonseparable", instances=8), claim="B8_next_sharpness_lower"),
    ProofErratum(step="Appendix B, (B5) over (B7) before the simplification 1 ≤ ν_i ≤ n",
                 printed="𝒟(S′)/𝒟(S) ≥ γ_ν = ν(Δ′)²/(2νδ′ + (n−2ν)δ′²) · β/α (balanced clusters)",
                 why="on the default batch (ε = 0.01, n = 8, ν = 4) the proof's W increases the sharpness by less than "
                     "γ_ν on 29 of 32 instances, by up to a factor e^{3.7}",
                 params={}, claim="gamma_nu_ratio"),
    ProofErratum(step="Appendix B, (B5)–(B9)",
                 printed="the construction W increases the sharpness by at least γ_B",
                 why="B6 squares a negative lower bound (Δe^{Δ²} − ne^{n(δ+δ²)} < 0 for n ≥ 3) and B7 uses a lower "
                     "bound of 𝒮(S) as an upper one; on non-separable data (ε = 0.12, ρ = 0.75, n = 32) one block of "
                     "the proof's W falls short of γ_B, while other W reach it",
                 params=dict(instance="nonseparable", instances=8), claim="appendix_B_W_reaches_gamma_B"),
)
CONTROLS = (
    # Pin: the search beats γ_B by 80.91 nats at least on the default batch (measured); a factor 1e36 = e^82.9 asks
    # for 2 nats more (2.4 %), so a constant or comparison changed in the search or in γ_B is caught
    dict(gamma_factor=1e36, allow_violation=True),
    # Pin of LOG_ATOL: the default search's margin is 80.91492514771969 nats (measured); this factor asks for
    # 3e-9 nats more, so the claim fails by 3 allowances (its declared Pin; re-measure it if the
    # search changes)
    dict(gamma_factor=1.383265344659951e+35, allow_violation=True),
    # Pin of ENTRY_ATOL: (B1) holds with equality to 1e-15 on the eq. (7) instance (δ = 0.31225, Δ = 0.66660); a
    # constant c = 1 − 3e-10/δ moves it by 3 allowances (off-block) and 6.4 (in-block); γ_B × 1e272 asks for 2.4
    # nats above that instance's search (623.93 nats), as every control of this result does
    dict(instance="eq7_counterexample", instances=1, constant_scale=0.9999999990392311, gamma_factor=1e272,
         allow_violation=True),
)
VACUITY = ("the free scale of W (the statement fixes none): the witness search exceeds γ_B by a factor e^20 or "
           "more on every instance of the default batch, and the log-ratio grows with the scale of W")


# tolerance pins, both sides declared (theorems.core.result.Pin; run by checks/test_conformance.py)
PINS = (
    Pin('witness_reaches_gamma_B', 'gamma_factor', fails=1.383265344659951e+35, within=10,
        params=dict(allow_violation=True), reported=True),
    Pin(('B1_offblock_at_most_delta', 'B1_inblock_at_least_Delta'), 'gamma_factor', fails=1e+272, within=10,
        params=dict(instance='eq7_counterexample', instances=1, constant_scale=0.9999999990392311, allow_violation=True),
        reported=True),
)


RESULT = register(Result(
    pins=PINS, id=ID,
    paper=PAPER,
    section="§Deep Fusion, Theorem 2, and its proof in Appendix B",
    title="Theorem 2: each block increases sharpness by at least O((1/n)e^{n(δ²−Δ²)+δ}) (App. B's γ_B)",
    statement=(
        "For noisy samples near a union of subspaces (eq. 6) there exist W^Q, W^K such that each Transformer "
        "block increases the sharpness of its similarity matrix by at least a factor O((1/n)e^{n(δ²−Δ²)+δ}); "
        "App. B: γ_B = (Δe^{Δ²} − n e^{n(δ+δ²)})² e^{δ+nδ²−nΔ²}/(n²X + n³X²), X = δe^{nΔ²} + e^{n(δ+δ²)}."
    ),
    status=Status.VACUOUS,
    logic=Logic(for_all="noisy inputs X̃ near a union of subspaces (eq. 6: x_iᵀx̃_i ≥ 1 − ε), n, ε, ρ",
                exists="a pair (W^Q, W^K) per block (no normalisation printed)"),
    vacuity=VACUITY,
    proof_errata=ERRATA,
    controls=CONTROLS,
    strategy=lambda: _strategy(),
    params=(
        *subspace_params(m=20, K=2, r=2, nu=4, imbalance=0, signs="cone", m_valid="K·r ≤ m",
                         sample=dict(m=(3, 40), K=(2, 4), r=(1, 3), nu=(2, 12), imbalance=(0, 2), signs=("cone",))),
        Param("eps", float, 0.01, "noise level ε of eq. (6)", low=0.0, high=1.0, sample=(1e-3, 0.3), log=True),
        Param("noise", str, "random", "random (θ ~ U[0, φ]) | exact (θ = φ) | toward (θ = φ toward ± another "
              "cluster's w)", choices=NOISE_MODES, sample=NOISE_MODES),
        Param("sharpness", str, "exp", "matrix the sharpness is taken on: exp | logit | softmax", choices=KINDS),
        Param("aggregation", str, "normalised", "the block's next input: normalised (rows of softmax(A)X̃ scaled to "
              "unit norm, eq. 6) | unnormalised (App. B's literal exp(A)X̃)", choices=AGGREGATIONS),
        Param("normalisation", str, "none", "none (W free, the literal reading) | unit_columns (W^Q, W^K ∈ "
              "R^(m×n) with unit columns)", choices=("none", "unit_columns")),
        Param("restarts", int, 32, "random witnesses of each kind per instance", low=1, high=1024),
        Param("constant_scale", float, 1.0, "δ → c·δ, Δ → Δ/c in the entry bounds (≠ 1: wrong constant)", "= 1",
              breaks="exact constants δ, Δ",
              low=1e-6, high=1e6),
        Param("gamma_factor", float, 1.0, "multiplies γ_B (≠ 1: wrong constant)", "= 1", low=1e-300, high=1e300,
              breaks="exact γ_B"),
        Param("instance", str, "random", "random, or fixed: " + ", ".join(INSTANCES[1:]), choices=INSTANCES),
        instances_param(32, "instances simulated together"),
        seed_param(),
    ),
    cost=cost,
    evaluate=one_thread(evaluate),
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
))


def _strategy():
    from ..strategies.deep_fusion import theorem_2_params

    return theorem_2_params()
