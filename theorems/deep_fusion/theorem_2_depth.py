"""Theorem 2 over depth (paper 000): the construction stacked, sharpness recorded block by block.

Statement as printed
--------------------
"… each Transformer block increases the sharpness of its similarity matrix A^ℓ by at least a factor of
O((1/n)e^{n(δ²−Δ²)+δ})", and the Deep-Fusion narrative: attention becomes increasingly block-diagonal with
depth (Table 1, images only).

What is and is not proven (digest 000 §2.3 T2-10)
-------------------------------------------------
Nothing shows that a block's output again satisfies eq. (6) with the same (or any) ε, so the per-block
claim is unproven for stacked blocks. This result therefore *records* the trend and asserts only what is
proven:
* ``softmax_equals_normalised_exp`` (proven identity, T2-3): with row normalisation after the block, the
  next input is the same whether the block aggregates with exp(A) (App. B, row normalisation dropped) or
  with row-softmax(A) (checked on the aggregation itself, as App. B, i.e. before any residual; a residual
  X̃ + PX̃ breaks it, because the row scale of P then matters). Negative control: ``normalise=False``, where
  the two aggregations differ.
* ``monotone_increase_by_depth`` (the printed reading; asserted only under ``form="as_printed"``):
  log 𝒮_{ℓ+1} − log 𝒮_ℓ ≥ 0 at every depth, worst instance. It fails on the default instance (sharpness
  rises at block 1, then falls): the stacked construction does not keep increasing sharpness, so the
  status is ``refuted``. Under ``form="corrected"`` (the default) the worst step is only recorded in
  ``details``, and the one asserted claim is the proven identity above.
observed = fitted exponent α of mean sharpness against depth (𝒮_ℓ ≈ C·ℓ^α,
:func:`theorems.metrics.scaling.fit_power_law`), bound = 0, the lower end of the range the printed statement
predicts (increase); the fit is a measurement, not an assertion.

Reading chosen: the first version registered this as a ``trend`` whose default check failed by design.
A default check that fails on purpose reads as a broken suite to a CI user, and the printed claim has a
concrete counterexample, which is what ``refuted`` means in DESIGN.md; so the failing claim moved to the
as-printed form.

Simulation: W from the clean data as in Theorem 1 (fixed across depth, ``w_scale`` multiplies it), noisy cone
data (eq. 6), block ℓ: A_ℓ = X_ℓWWᵀX_ℓᵀ, X_{ℓ+1} = softmax(A_ℓ)X_ℓ (+X_ℓ if ``residual``), rows normalised if
``normalise``; sharpness (``sharpness`` kind) of A_ℓ for ℓ = 1..depth.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..metrics.scaling import SCALING_KEY, fit_power_law, scaling_series
from ..metrics.sharpness import KINDS, sharpness
from ._common import PAPER, PAPER_TITLE, independence_violation, structural_violations, subspace_params
from .theorem_2 import instance

ID = "deep_fusion.theorem_2_depth"
IDENTITY_ATOL = 1e-12  # two normalisations of the same vector, componentwise, in float64


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if p["depth"] < 2:
        out.append(Violation("depth ≥ 2", "a trend over depth needs two blocks", ("depth",), False))
    if not math.isfinite(p["w_scale"]) or p["w_scale"] <= 0:
        out.append(Violation("w_scale > 0 and finite", "a positive scale factor", ("w_scale",), False))
    if out:
        return out
    out += independence_violation(p)
    if not p["normalise"]:
        out.append(Violation("row normalisation after each block", "without it exp(A)X̃ and softmax(A)X̃ differ and "
                             "eq. (6)'s unit norm is lost", ("normalise",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    q = {**p, "instance": "random", "signs": "cone", "constant_scale": 1.0, "gamma_factor": 1.0}
    clean, X, W, _ = instance(ctx, q)
    labels = clean.labels
    logs, identity = [], 0.0
    for _ in range(p["depth"]):
        A = X @ W @ W.transpose(-1, -2) @ X.transpose(-1, -2)
        logs.append(sharpness(A, labels, p["sharpness"]).log_value)
        agg = torch.softmax(A, -1) @ X
        alt = torch.exp(A - A.amax(-1, keepdim=True)) @ X  # App. B's exp(A)X̃ (a row-constant factor aside)
        if p["normalise"]:  # the identity is about the aggregation itself (no residual, as App. B)
            identity = max(identity, float((agg / agg.norm(dim=-1, keepdim=True)
                                            - alt / alt.norm(dim=-1, keepdim=True)).abs().max()))
        else:
            identity = max(identity, float((agg - alt).abs().max()))
        nxt = agg + X if p["residual"] else agg
        if p["normalise"]:
            nxt = nxt / nxt.norm(dim=-1, keepdim=True)
        X = nxt
    L = torch.stack(logs, -1)  # (B, depth)
    steps = L[:, 1:] - L[:, :-1]
    finite = torch.isfinite(steps)
    worst_step = float(steps[finite].min()) if bool(finite.any()) else math.nan
    mean_sharp = torch.exp(torch.nan_to_num(L, nan=-math.inf)).mean(0)  # mean 𝒮_ℓ over instances
    depths = torch.arange(1, p["depth"] + 1, dtype=L.dtype)
    try:
        fit = fit_power_law(depths.numpy(), mean_sharp.cpu().numpy())
        alpha, fit_d = fit.exponent, fit.to_dict()
    except ValueError:
        alpha, fit_d = math.nan, {}
    claims = [
        Claim.at_most("softmax_equals_normalised_exp", identity, IDENTITY_ATOL,
                      "max |normalised softmax(A)X̃ − normalised exp(A)X̃| over depth"),
    ]
    if form == AS_PRINTED:
        claims.append(Claim.at_least("monotone_increase_by_depth", worst_step, 0.0,
                                     "min over instances and depths of log 𝒮_{ℓ+1} − log 𝒮_ℓ (printed reading)"))
    details = {
        "worst_log_sharpness_step": worst_step,
        "n": clean.n, "log10_sharpness_mean_by_depth": (torch.nan_to_num(L, nan=math.nan).mean(0) / math.log(10))
        .tolist(),
        "fraction_of_steps_decreasing": float(((steps < 0) & finite).float().sum() / max(int(finite.sum()), 1)),
        "first_block_fraction_increasing": float((steps[:, 0] > 0).float().mean()),
        "argmax_depth_mean": int(mean_sharp.argmax()) + 1, "power_law_fit": fit_d,
        SCALING_KEY: [scaling_series("depth ℓ", depths.numpy(), "mean sharpness S_ℓ", mean_sharp.cpu().numpy(),
                                     fit=fit_d or None, predicted=(0.0, None),
                                     predicted_note="as printed: sharpness grows with every block")],
    }
    return Outcome(observed=alpha, bound=0.0, tightness=None, claims=claims, details=details)


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield AS_PRINTED, dict(), False  # the counterexample: sharpness falls after block 1
    yield CORRECTED, dict(eps=0.002), False
    yield CORRECTED, dict(residual=True), False
    yield CORRECTED, dict(w_scale=2.0), False
    yield CORRECTED, dict(w_scale=math.sqrt(0.5)), False  # weak attention: over-smoothing
    yield CORRECTED, dict(normalise=False), True  # negative control of the identity


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    paper_title=PAPER_TITLE,
    title="Theorem 2 over depth: sharpness of the stacked construction, block by block (recorded trend)",
    statement="Each Transformer block increases the sharpness of its similarity matrix (stacked blocks).",
    status=Status.REFUTED,
    correction="Only the proven identity is asserted: with row normalisation, softmax(A)X̃ and exp(A)X̃ give "
               "the same next layer. Sharpness by depth is measured (fitted exponent), not asserted.",
    correction_reason="Nothing shows a block's output satisfies eq. (6) again (digest 000 §2.3 T2-10), and the "
                      "default instance is a counterexample: sharpness rises at block 1, then falls.",
    params=(
        *subspace_params(m=20, K=2, r=2, nu=4, imbalance=0, m_valid="K·r ≤ m", nu_doc="samples per cluster",
                         arrangements=("random", "angle")),
        Param("eps", float, 0.05, "noise level ε of eq. (6)", "[0, 1]"),
        Param("noise", str, "random", "random | exact | toward", choices=("random", "exact", "toward")),
        Param("sharpness", str, "exp", "exp | logit | softmax", choices=KINDS),
        Param("depth", int, 6, "number of stacked blocks", "≥ 2"),
        Param("residual", bool, False, "X_{ℓ+1} = X_ℓ + softmax(A_ℓ)X_ℓ"),
        Param("normalise", bool, True, "ℓ2-normalise rows after each block"),
        Param("w_scale", float, 1.0, "multiplies W (> 1 sharper attention, < 1 over-smoothing)", "> 0"),
        Param("instances", int, 16, "instances simulated together", "≥ 1"),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
