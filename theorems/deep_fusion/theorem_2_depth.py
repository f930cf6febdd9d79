"""Theorem 2 over depth (paper 000): "each Transformer block increases the sharpness", blocks stacked.

Statement as printed (Theorem 2 and §"Deep Fusion")
---------------------------------------------------
"… there always exists a pair of parameters (W^{Q*}, W^{K*}) such that each Transformer block increases the
sharpness of its similarity matrix A^ℓ by at least a factor of O((1/n)e^{n(δ²−Δ²)+δ})" — with the narrative
that attention becomes increasingly block-diagonal with depth (Table 1, images only).

Quantifiers: ∀ noisy inputs (eq. 6) ∃ (W^Q, W^K) such that ∀ blocks ℓ: 𝒮(A^{ℓ+1}) ≥ 𝒮(A^ℓ)·factor. For ℓ ≥ 2
the factor is undefined (nothing shows a block's output satisfies eq. 6 again, so δ_ℓ, Δ_ℓ do not exist), so the
checkable content over depth is "each block increases the sharpness": log 𝒮_{ℓ+1} − log 𝒮_ℓ > 0 at every ℓ
(read strictly; 𝒮 of exp(A^ℓ), App. B's α/β). One W for all blocks (as App. B); no normalisation printed.
Architecture: App. B proves the block without the residual connection and states "The proof with residual
connection follows the same logistic", so both readings are in scope; a Transformer block has the residual
X_{ℓ+1} = X_ℓ + softmax(A_ℓ)X_ℓ, which is the default here (``residual``), App. B's simplification the other.

Verdict: verified (was vacuous, before that refuted)
---------------------------------------------------
The old ``refuted`` rested on one witness: the proof's W (unit columns) decreases the sharpness after block 1
(worst step −0.79 nats on the default batch). That refutes nothing about "there exist W". The witness search
(:func:`witness_search`: the proof's W, random rank-one and random unit-column W, each at every scale of
:data:`SCALES`) decides both the statement and its vacuity over *all* candidates (the old ``vacuous`` judged it
on the single candidate with the best worst step, which kept 𝒮 < 1):
* residual reading (default): on every instance of the default batch some W raises the sharpness at every
  block by ≥ 43 nats and ends with log 𝒮 ≥ 3000 (𝒮 ≫ 1: the clusters are separated): the statement holds and
  says something. The proof's W scaled by 2 or more already does this on every instance tried.
* App. B's no-residual reading: the statement holds (worst step ≥ 0.85 nats) but only 7 of 16 default
  instances have an informative witness; the proof's W scaled up only plateaus (steps = 0: each cluster
  collapses to one point), so there it is met mostly by attention that separates nothing (``details['vacuous']``).
Binding instances: nearly dependent subspaces (``arrangement='angle'``, 5°) and large noise (ε = 0.5): the
statement still holds; near-dependence leaves an informative witness on 1 of 16 instances only (recorded).
Kept as a test of the code: with row normalisation after the block, softmax(A)X̃ and App. B's exp(A)X̃ give
the same next input (identity ``softmax_equals_normalised_exp``; it fails with ``normalise=False``).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..optim.threads import one_thread
from ..data.subspaces import NOISE_MODES
from ..metrics.scaling import SCALING_KEY, fit_power_law, scaling_series
from ._common import independence_violation, instances_param, n_samples, structural_violations, subspace_params
from .fusion import exp_log_sharpness, instance, witness_candidates
from .paper import PAPER

ID = "deep_fusion.theorem_2_depth"
IDENTITY_ATOL = 1e-12  # two normalisations of the same vector, componentwise, in float64
# A strict increase must beat the rounding of a difference of two O(100)-nat log-sharpnesses:
STEP_MIN = 1e-9
# The witness search: scales s of a candidate W (M = W^QW^Kᵀ scales by s²). The statement fixes no scale; 32 is
# where the softmax is already one-hot on these instances (larger scales change nothing measurable).
SCALES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
# A witness is informative when it ends with 𝒮 > 1 (log 𝒮 > 0): within-cluster attention above cross-cluster.
# Same rounding floor as STEP_MIN (a collapsed stack ends at log 𝒮 = 0 up to ~1e-15).
SEPARATES = 1e-9


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if out:
        return out
    out += independence_violation(p)
    if not p["normalise"]:
        out.append(Violation("row normalisation after each block", "without it exp(A)X̃ and softmax(A)X̃ differ and "
                             "eq. (6)'s unit norm is lost", ("normalise",)))
    return out


def _stack(X: torch.Tensor, M: torch.Tensor, labels, depth: int, residual: bool, normalise: bool):
    """log 𝒮 of exp(A^ℓ) for ℓ = 1..depth (..., depth) with one bilinear form M for every block, and the
    largest deviation between normalised softmax(A)X and normalised exp(A)X over the blocks."""
    same = labels[:, None] == labels[None, :]
    logs, identity = [], 0.0
    for _ in range(depth):
        A = X @ M @ X.transpose(-1, -2)
        logs.append(exp_log_sharpness(A, same))
        agg = torch.softmax(A, -1) @ X
        alt = torch.exp(A - A.amax(-1, keepdim=True)) @ X  # App. B's exp(A)X̃ (a row-constant factor aside)
        if normalise:  # the identity is about the aggregation itself (no residual, as App. B)
            identity = max(identity, float((agg / agg.norm(dim=-1, keepdim=True)
                                            - alt / alt.norm(dim=-1, keepdim=True)).abs().max()))
        else:
            identity = max(identity, float((agg - alt).abs().max()))
        nxt = agg + X if residual else agg
        if normalise:
            nxt = nxt / nxt.norm(dim=-1, keepdim=True)
        X = nxt
    return torch.stack(logs, -1), identity


def witness_search(ctx, X: torch.Tensor, W: torch.Tensor, labels, p: dict) -> dict[str, torch.Tensor]:
    """Search the witness over every candidate kind × scale (:data:`SCALES`) × restart, in the reading
    ``p['residual']``, per instance (B,):
    ``best_step``: max over candidates of min_ℓ (log 𝒮_{ℓ+1} − log 𝒮_ℓ) (the statement: some W increases at every
    block); ``informative``: some candidate increases at every block *and* ends with 𝒮 > 1 (separates the
    clusters); ``best_final``: the largest final log 𝒮 among the candidates that increase at every block
    (−inf where none does). Vacuity is decided over all candidates, not on the one with the best worst step."""
    B = X.shape[0]
    best = torch.full((B,), -math.inf, dtype=X.dtype, device=X.device)
    best_final = torch.full_like(best, -math.inf)
    found: dict[str, int] = {}
    X4 = X.unsqueeze(1)
    # scale 1 only from the generator (unit columns); the scales are applied here, s² on M = W^QW^Kᵀ
    for name, _, M in witness_candidates(ctx, W, p["restarts"], "unit_columns"):
        for s in SCALES:
            Lc, _ = _stack(X4, (s * s) * M, labels, p["depth"], p["residual"], p["normalise"])
            worst_c = (Lc[..., 1:] - Lc[..., :-1]).amin(-1)  # (B, R)
            increasing = worst_c >= STEP_MIN + p["step_shift"]
            final = torch.where(increasing, Lc[..., -1], torch.full_like(worst_c, -math.inf)).amax(1)
            newly = (final > SEPARATES) & ~(best_final > SEPARATES)
            if bool(newly.any()):
                found[f"{name}@s={s:g}"] = found.get(f"{name}@s={s:g}", 0) + int(newly.sum())
            best = torch.maximum(best, worst_c.amax(1))
            best_final = torch.maximum(best_final, final)
    return {"best_step": best, "best_final": best_final, "informative": best_final > SEPARATES, "found": found}


def _mean_sharpness_fit(L: torch.Tensor):
    """Mean 𝒮_ℓ over instances and its fitted power law in ℓ; (None, nan, {}) where exp overflows (𝒮 beyond
    e^709: a scaled W) or the fit is undefined: nothing is plotted then, rather than a non-finite number."""
    mean_sharp = torch.exp(L).mean(0)
    depths = torch.arange(1, L.shape[-1] + 1, dtype=L.dtype, device="cpu")  # for the numpy fit only
    if not bool(torch.isfinite(mean_sharp).all()):
        return depths, None, math.nan, {}
    try:
        fit = fit_power_law(depths.numpy(), mean_sharp.cpu().numpy())
    except ValueError:
        return depths, mean_sharp, math.nan, {}
    return depths, mean_sharp, fit.exponent, fit.to_dict()


def evaluate(p: dict, form: str, ctx) -> Outcome:
    q = {**p, "instance": "random", "signs": "cone", "constant_scale": 1.0, "gamma_factor": 1.0, "w_scale": 1.0}
    clean, X, W, _ = instance(ctx, q)
    labels = clean.labels
    L, identity = _stack(X, (p["w_scale"] ** 2) * (W @ W.transpose(-1, -2)), labels, p["depth"], p["residual"],
                         p["normalise"])
    steps = L[:, 1:] - L[:, :-1]
    proof_worst = float(steps.min())
    search = witness_search(ctx, X, W, labels, p)
    best, best_final, informative = search["best_step"], search["best_final"], search["informative"]
    depths, mean_sharp, alpha, fit_d = _mean_sharpness_fit(L)
    claims = [
        Claim.at_least("witness_increases_every_block", float(best.min()), STEP_MIN + p["step_shift"],
                       "min over instances of max over the witness search of min_ℓ (log 𝒮_{ℓ+1} − log 𝒮_ℓ)"),
        Claim.at_most("softmax_equals_normalised_exp", identity, 0.0,
                      "max |normalised softmax(A)X̃ − normalised exp(A)X̃| over depth (proof's W)", kind="identity",
                      atol=IDENTITY_ATOL),
        Claim.measurement("informative_witness_fraction", float(informative.double().mean()), 1.0,
                          "instances where some witness increases the sharpness at every block and ends with 𝒮 > 1 "
                          "(separates the clusters); < 1: the statement is met there only by attention that "
                          "separates nothing"),
        Claim.measurement("witness_final_log_sharpness_min", float(best_final.min()), 0.0,
                          "min over instances of the largest final log 𝒮 among the witnesses increasing at every "
                          "block (> 0 on every instance: an informative witness everywhere)"),
        Claim.measurement("proof_W_worst_step", proof_worst, 0.0,
                          "min over instances and depths of log 𝒮_{ℓ+1} − log 𝒮_ℓ for the proof's W (× w_scale)"),
        Claim.measurement("sharpness_depth_exponent", alpha, 0.0, "fitted exponent α of the proof's W's mean "
                          "sharpness 𝒮_ℓ ≈ Cℓ^α over the blocks (what the report plots; as printed α > 0)"),
    ]
    ln10 = math.log(10)
    holds = bool((best >= STEP_MIN + p["step_shift"]).all())
    details = {
        "witness_worst_step_min": float(best.min()), "witness_final_log_sharpness_min": float(best_final.min()),
        "witness_final_log_sharpness_max": float(best_final.max()),
        "informative_witness_instances": int(informative.sum()), "informative_witness_found_by": search["found"],
        # vacuous: the statement holds, yet on some instance no candidate of the whole search separates
        "vacuous": bool(holds and not bool(informative.all())),
        "proof_W_worst_log_sharpness_step": proof_worst,
        "n": clean.n, "log10_sharpness_mean_by_depth": (L.mean(0) / ln10).tolist(),
        "proof_W_fraction_of_steps_decreasing": float((steps < 0).double().mean()),
        "power_law_fit": fit_d,
    }
    if mean_sharp is not None:
        details["argmax_depth_mean"] = int(mean_sharp.argmax()) + 1
        details[SCALING_KEY] = [scaling_series("depth ℓ", depths.numpy(), "mean sharpness S_ℓ (proof's W)",
                                               mean_sharp.cpu().numpy(), fit=fit_d or None, predicted=(0.0, None),
                                               predicted_note="as printed: sharpness grows with every block")]
    # headline: the fitted exponent of the proof's W's sharpness by depth (what the report plots), where it exists
    headline = "sharpness_depth_exponent" if math.isfinite(alpha) else "witness_increases_every_block"
    return Outcome(claims=claims, details=details, headline=headline)


def cost(p: dict) -> Cost:
    """The witness search stacks depth blocks for instances × restarts bilinear forms at once."""
    n = n_samples(p)
    elements = float(p["instances"]) * p["restarts"] * (p["m"] ** 2 + 2 * n * n + n * p["m"])
    return Cost(elements=elements, work=elements * (p["m"] + n) * p["depth"] * 3 * 4)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(eps=0.002), False
    yield AS_PRINTED, dict(residual=False), False  # App. B's simplification: mostly vacuous witnesses
    yield AS_PRINTED, dict(w_scale=4.0), False
    for spec in CONTROLS:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, bool(spec.get("allow_violation"))


# Pin: the search's worst step on the default batch is 43.17 nats (measured); asking for 44 per block fails by
# under 2 %, so a bound constant or a comparison changed in the search is caught.
CONTROLS = (dict(step_shift=44.0, allow_violation=True),)
# Pin of STEP_MIN: the default search's worst step is 43.16722664839915 nats (measured); asking for 5e-10 less than
# that leaves it 5e-10 below STEP_MIN + step_shift, so it fails there and passes with STEP_MIN tightened ÷10
# (checks/deep_fusion/test_theorem_2_depth.py checks the other side: 5e-9 less passes, and fails with STEP_MIN ×10).
PINS = (dict(step_shift=43.16722664789915, allow_violation=True),)
BINDING = (
    Binding(hypothesis="independent subspaces (𝒰_c ∩ Σ_{l≠c} 𝒰_l = {0})",
            params=dict(arrangement="angle", angle_deg=5.0, m=4),
            margin="two planes in R^4 at 5°: independent, but barely (the statement holds; 1 of 16 instances "
                   "has an informative witness)"),
    Binding(hypothesis="noise bounded by eq. (6), x_iᵀx̃_i ≥ 1 − ε",
            params=dict(eps=0.5), margin="ε = 0.5: noisy samples at 60° from their subspace"),
)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="§Deep Fusion, Theorem 2 (\"each Transformer block\"), blocks stacked",
    title="Theorem 2 over depth: each stacked block increases the sharpness (witness search)",
    statement="There exist W^Q, W^K such that each Transformer block increases the sharpness of its similarity "
              "matrix (stacked blocks; the factor O((1/n)e^{n(δ²−Δ²)+δ}) is undefined after block 1).",
    status=Status.VERIFIED,
    logic=Logic(for_all="noisy inputs X̃ near a union of subspaces (eq. 6), and every block ℓ of the stack",
                exists="a pair (W^Q, W^K) shared by the blocks (no normalisation printed)"),
    binding=BINDING,
    controls=CONTROLS,
    pins=PINS,
    strategy=lambda: _strategy(),
    params=(
        *subspace_params(m=20, K=2, r=2, nu=4, imbalance=0, m_valid="K·r ≤ m", nu_doc="samples per cluster",
                         arrangements=("random", "angle"),
                         sample=dict(m=(3, 16), K=(2, 3), r=(1, 2), nu=(2, 6), imbalance=(0, 0))),
        Param("eps", float, 0.05, "noise level ε of eq. (6)", low=0.0, high=1.0, sample=(1e-3, 0.2), log=True),
        Param("noise", str, "random", "random | exact | toward", choices=NOISE_MODES, sample=("random", "exact")),
        Param("depth", int, 6, "number of stacked blocks", low=2, high=64, sample=(2, 6)),
        Param("residual", bool, True, "X_{ℓ+1} = X_ℓ + softmax(A_ℓ)X_ℓ (a Transformer block); false: App. B's "
              "simplification", sample=(False, True)),
        Param("normalise", bool, True, "ℓ2-normalise rows after each block"),
        Param("w_scale", float, 1.0, "multiplies the proof's W in the recorded trace (the search scales its own)",
              low=1e-3, high=1e3),
        Param("restarts", int, 16, "random witnesses of each kind per instance", low=1, high=1024),
        Param("step_shift", float, 0.0,
              "raises the required step per block: ≠ 0 asks for more than an increase (a deliberately wrong constant)",
              "= 0", low=-1e6, high=1e6, breaks="the printed claim (increase, no margin)"),
        instances_param(16, "instances simulated together"),
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
    from ..strategies.deep_fusion import theorem_2_depth_params

    return theorem_2_depth_params()
