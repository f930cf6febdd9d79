"""Definition 2 of paper 000 (sharpness 𝒮 of an attention matrix) and the sentences printed around it.

Statement as printed
--------------------
"This metric evaluates the proportion of the lowest attention value among samples within the same class to the
highest attention value among samples from different classes. If our matrix A closely resembles a block-diagonal
form, this ratio is expected to approach +∞ […]. Definition 2. The sharpness of an attention matrix A is defined
as the infimum of the ratio between the attention of two points within the same cluster and the attention of two
points belonging to different clusters, i.e., 𝒮(A) := inf_{i,j,p,q} [A]_ij / [A]_pq, where x_i, x_j are from the
same cluster and x_p, x_q are from different clusters. […] while SI calculates cluster quality using average
distances for both intra-cluster and inter-cluster sample pairs, the sharpness metric evaluates the ratio of the
maximum intra-cluster distance to the minimum inter-cluster distance, and thus, imposes more stringent
requirements on the structural integrity of the clusters."

Quantifiers: for every attention matrix A (row-softmax of logits, App. B's reading: positive entries) and every
labelling with a same-cluster and a cross-cluster pair. The sentences, each a claim on a batch of such matrices:
* ``infimum_is_lowest_same_over_highest_cross``: the inf over all (i, j, p, q), computed by brute force over every
  quadruple, equals min_same A / max_diff A (the prose's "lowest … to the highest");
* ``block_diagonal_limit_is_infinite``: along logits L(t) = L + t·(same-cluster indicator), whose softmax tends to
  a block-diagonal matrix as t → ∞, log 𝒮 grows without bound: its least-squares slope over the second half of
  the path is ≥ SLOPE_MIN (the exact limit slope is 1: cross entries fall like e^{−t} against their row);
* ``stricter_than_mean_separation``: 𝒮 > 1 forces the mean same-cluster attention above the mean cross-cluster
  attention (the "average" comparison the text attributes to SI), on every matrix tried with 𝒮 > 1; the converse
  fails (measurement ``mean_separated_but_not_sharp``: matrices with mean separation and 𝒮 ≤ 1);
* ``distance_wording_is_the_formula`` (as printed only): "the ratio of the maximum intra-cluster distance to the
  minimum inter-cluster distance" is 𝒮 for some reading of "distance". It is not: for any distance d = φ(A) that
  decreases with attention, max_same d / min_diff d = φ(min_same A)/φ(max_diff A), which *falls* when 𝒮 rises
  (with φ = 1/A it is exactly 1/𝒮, → 0 for a block-diagonal A, not +∞); read with d = A itself it is
  max_same A / min_diff A, which exceeds 1 as soon as one same pair beats one cross pair — a weaker requirement
  than the mean comparison, the opposite of "more stringent". The claim takes the smaller misfit over the two
  readings (reciprocal and identity), so it fails only if neither reading gives 𝒮.

Correction (``form='corrected'``): "the ratio of the *minimum inter*-cluster distance to the *maximum intra*-cluster
distance, distance = 1/attention", which is 𝒮 by algebra (identity ``corrected_wording_is_the_formula``). The other
sentences hold as printed. Status: verified-corrected (the counterexample: the default instance, as printed).

Controls: ``entries='signed'`` (the matrix centred to mixed signs, as raw logits can be: the inf of the ratio is then
no longer min/max, it is negative), ``labels='shuffled'`` (the path sharpens a block structure that is not the
labels': 𝒮 → 0), ``criterion='max_over_min'`` (the wording read with distance = attention in place of 𝒮: matrices
with one same pair above one cross pair but mean cross attention higher exist). Binding: ``instance='near_tie'``
(every same entry within 2·tie above every cross entry, 𝒮 = 1 + O(tie), the mean gap O(tie)).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.params import declared_instances
from ..core.registry import register
from ..core.result import (AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation,
                           seed_param)
from ..data.subspaces import cluster_sizes, labels_from_sizes
from ..metrics.sharpness import sharpness
from .paper import PAPER

ID = "deep_fusion.definition_2"
INSTANCES = ("random", "near_tie")
ENTRIES = ("positive", "signed")
LABELS = ("true", "shuffled")
CRITERIA = ("sharpness", "max_over_min")

RATIO_RTOL = 1e-12  # inf over quadruples vs min/max: the same float division, up to rounding of the log
SLOPE_MIN = 0.5  # log 𝒮 must rise at least at half its limit slope 1 along the path (room for the row's lse)
PATH_T = 16.0  # path length: cross entries fall to ≈ e^{-16} of the row, far from underflow
PATH_POINTS = 9
NOISE = 0.5  # logit noise around the cluster strength g_b (random instances)
GAIN = (-2.0, 4.0)  # range of the cluster strength g_b: from anti-clustered to sharp
JITTER = 0.1  # near_tie: spread of the logits inside each level, in units of the gap
WORDING_RTOL = 1e-12  # relative rounding of a ratio of two ratios (a reading that is 𝒮 agrees to ~1e-15)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out: list[Violation] = []
    if p["entries"] != "positive":
        out.append(Violation("positive attention values (row-softmax, App. B)", "entries='signed' centres the "
                             "matrix to mixed signs, as raw logits can be (a control)", ("entries",)))
    if p["labels"] != "true":
        out.append(Violation("the labels are the block structure being sharpened", "labels='shuffled' (a control)",
                             ("labels",)))
    if p["criterion"] != "sharpness":
        out.append(Violation("the stringency sentence is about 𝒮", "criterion='max_over_min' puts the wording's "
                             "distance-as-attention reading in its place (a control)", ("criterion",)))
    return out


def cost(p: dict) -> Cost:
    n = p["K"] * p["nu"]
    B = p["instances"]
    return Cost(elements=B * n ** 4 + B * PATH_POINTS * n * n, work=10.0 * B * n ** 4)


def logits_batch(ctx, p: dict, labels: torch.Tensor) -> torch.Tensor:
    """(B, n, n) logits: g_b·(same-cluster indicator) + noise (random), or two nearly tied levels (near_tie)."""
    B, n = p["instances"], labels.numel()
    same = (labels[:, None] == labels[None, :]).to(ctx.dtype)
    if p["instance"] == "near_tie":
        # same logits τ(1 + j/10), cross −τ j/10 (j ∈ [0, 1)): the rows' normalisers differ by ≲ τ/10, so after
        # the softmax every same entry still sits above every cross entry, by a factor ≈ e^{0.8τ} (𝒮 ≈ 1 + tie)
        jitter = JITTER * ctx.rand(B, n, n)
        tau = math.log1p(p["tie"])
        return tau * (same * (1 + jitter) - (1 - same) * jitter)
    g = GAIN[0] + (GAIN[1] - GAIN[0]) * ctx.rand(B, 1, 1)
    return g * same + NOISE * ctx.randn(B, n, n)


def attention(L: torch.Tensor, entries: str) -> torch.Tensor:
    A = torch.softmax(L, -1)
    return A - A.mean((-1, -2), keepdim=True) if entries == "signed" else A


def extremes(A: torch.Tensor, labels: torch.Tensor):
    """(min_same, max_same, min_diff, max_diff, mean_same, mean_diff) per matrix (i = j counts as same)."""
    same = labels[:, None] == labels[None, :]
    inf = torch.tensor(math.inf, dtype=A.dtype, device=A.device)
    return (torch.where(same, A, inf).amin((-1, -2)), torch.where(same, A, -inf).amax((-1, -2)),
            torch.where(~same, A, inf).amin((-1, -2)), torch.where(~same, A, -inf).amax((-1, -2)),
            A[..., same].mean(-1), A[..., ~same].mean(-1))


def brute_force_inf(A: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """inf over every quadruple (i, j same; p, q different) of A_ij / A_pq, per matrix: Definition 2 literally."""
    same = labels[:, None] == labels[None, :]
    num, den = A[..., same], A[..., ~same]  # (B, s), (B, d)
    return (num.unsqueeze(-1) / den.unsqueeze(-2)).flatten(-2).amin(-1)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    sizes = cluster_sizes(p["K"], p["nu"])
    labels = labels_from_sizes(sizes, device=ctx.device)
    L = logits_batch(ctx, p, labels)
    measured = labels[ctx.rand(labels.numel()).argsort()] if p["labels"] == "shuffled" else labels
    A = attention(L, p["entries"])
    lo_s, hi_s, lo_d, hi_d, mean_s, mean_d = extremes(A, measured)

    # the printed "i.e.": inf over quadruples = lowest same / highest cross
    inf_ratio = brute_force_inf(A, measured)
    minmax = lo_s / hi_d
    ratio_err = float(((inf_ratio - minmax).abs() / minmax.abs()).max())

    # the block-diagonal limit: L(t) = L + t·same, softmax rows, log 𝒮 over the second half of the path
    t = torch.linspace(0.0, PATH_T, PATH_POINTS, dtype=ctx.dtype, device=ctx.device)
    same = (labels[:, None] == labels[None, :]).to(ctx.dtype)
    path = attention(L.unsqueeze(1) + t[:, None, None] * same, p["entries"])  # (B, P, n, n)
    plo, phi = extremes(path, measured)[0], extremes(path, measured)[3]
    log_s = torch.log(plo.clamp_min(1e-300)) - torch.log(phi.clamp_min(1e-300))  # nan-free for positive entries
    half = t[PATH_POINTS // 2:]
    x = half - half.mean()
    slopes = (log_s[:, PATH_POINTS // 2:] * x).sum(-1) / (x * x).sum()

    # stringency: every matrix tried (random and along the paths) with criterion > 1 has mean same > mean cross
    all_A = torch.cat([A.unsqueeze(1), path], 1).flatten(0, 1)
    a_lo_s, a_hi_s, a_lo_d, a_hi_d, a_mean_s, a_mean_d = extremes(all_A, measured)
    crit = a_lo_s / a_hi_d if p["criterion"] == "sharpness" else a_hi_s / a_lo_d
    gap = a_mean_s - a_mean_d
    sharp = crit > 1
    worst_gap = float(gap[sharp].min()) if bool(sharp.any()) else math.inf
    mean_not_sharp = float(((gap > 0) & (a_lo_s / a_hi_d <= 1)).double().mean())

    # the wording, read with distance 1/A and with distance A, against 𝒮 (relative, in ratio space: defined for
    # signed entries too)
    sharp_ratio = lo_s / hi_d
    readings = {"reciprocal": (1 / lo_s) / (1 / hi_d),  # max_same(1/A) / min_diff(1/A)
                "attention": hi_s / lo_d}  # max_same A / min_diff A
    misfit = {k: float(((v - sharp_ratio) / sharp_ratio).abs().max()) for k, v in readings.items()}
    corrected = (1 / hi_d) / (1 / lo_s)  # min_diff(1/A) / max_same(1/A)
    metric = sharpness(L, measured, "softmax").log_value  # theorems.metrics.sharpness on the logits
    metric_err = (float((metric - torch.log(sharp_ratio)).abs().max()) if p["entries"] == "positive" else 0.0)

    claims = [
        Claim.at_most("infimum_is_lowest_same_over_highest_cross", ratio_err, 0.0,
                      "max over matrices of |inf_{ijpq} A_ij/A_pq (brute force) − min_same A/max_diff A| / |min/max|",
                      atol=RATIO_RTOL),
        Claim.at_least("block_diagonal_limit_is_infinite", float(slopes.min()), SLOPE_MIN,
                       f"min over matrices of the slope of log 𝒮 along L + t·same, t ∈ [{PATH_T / 2:g}, {PATH_T:g}] "
                       "(→ +∞ as the softmax tends to block-diagonal; the limit slope is 1)"),
        Claim.at_least("stricter_than_mean_separation", worst_gap, 0.0,
                       "min over matrices with " + ("𝒮" if p["criterion"] == "sharpness" else "max_same/min_diff")
                       + " > 1 of mean same-cluster − mean cross-cluster attention"),
        Claim.measurement("mean_separated_but_not_sharp", mean_not_sharp, 0.0,
                          "share of matrices with mean separation and 𝒮 ≤ 1 (> 0: 𝒮 is strictly more stringent)"),
    ]
    if form == AS_PRINTED:
        claims.append(Claim.at_most("distance_wording_is_the_formula", min(misfit.values()), 0.0,
                                    "min over readings (distance 1/A, distance A) of max |log(max intra / min inter "
                                    "distance) / 𝒮 − 1|", atol=WORDING_RTOL))
    else:
        claims.append(Claim.at_most("corrected_wording_is_the_formula",
                                    float(((corrected - sharp_ratio) / sharp_ratio).abs().max()), 0.0,
                                    "max |(min inter / max intra distance, distance 1/A) / 𝒮 − 1|",
                                    kind="identity", atol=WORDING_RTOL))
    claims.append(Claim.at_most("matches_metrics_sharpness", metric_err, 0.0, "max |log 𝒮 here − log 𝒮 of "
                                "theorems.metrics.sharpness (softmax of the logits)|", kind="identity",
                                atol=WORDING_RTOL))
    # the matrix where the smaller of the two readings' misfits is largest, as logits: theorems.rigorous.deep_fusion
    # re-evaluates its softmax and both readings in ball arithmetic (a lower bound on the claim's max over matrices)
    per_matrix = torch.minimum(*(((v - sharp_ratio) / sharp_ratio).abs() for v in readings.values()))
    worst_matrix = int(per_matrix.argmax())
    details = {
        "worst_wording_matrix": worst_matrix, "worst_wording_logits": L[worst_matrix].tolist(),
        "measured_labels": measured.tolist(),
        "log_sharpness_first": float(torch.log(sharp_ratio[0])) if p["entries"] == "positive" else math.nan, "log_sharpness_path_first": log_s[0].tolist(),
        "path_t": t.tolist(), "slope_min": float(slopes.min()), "slope_max": float(slopes.max()),
        "wording_misfit_by_reading": misfit, "inf_ratio_min": float(inf_ratio.min()),
        "sharp_matrices": int(sharp.sum()), "matrices": int(sharp.numel()),
    }
    return Outcome(claims=claims, details=details)


CONTROLS = (dict(entries="signed", allow_violation=True), dict(labels="shuffled", allow_violation=True),
            dict(criterion="max_over_min", allow_violation=True))


def report_instances(suite):
    yield from declared_instances(RESULT, suite)
    yield AS_PRINTED, {}, False  # the counterexample: the distance wording, as printed
    yield AS_PRINTED, dict(instance="near_tie", tie=1e-9), False


def _strategy():
    from ..strategies._common import declared_params

    return declared_params(ID)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="§Deep Fusion with Noise, Definition 2 and the paragraphs around it",
    title="Definition 2: sharpness = lowest same-cluster / highest cross-cluster attention; its distance wording "
          "is inverted",
    statement=("𝒮(A) := inf_{i,j,p,q} A_ij / A_pq over same-cluster (i, j) and cross-cluster (p, q), i.e. the lowest "
               "same-class attention over the highest cross-class attention; it approaches +∞ as A resembles a "
               "block-diagonal matrix; it is the ratio of the maximum intra-cluster distance to the minimum "
               "inter-cluster distance, more stringent than the Silhouette index's average comparison."),
    correction=("The distance wording is inverted: 𝒮 is the ratio of the minimum inter-cluster distance to the "
                "maximum intra-cluster distance (distance = 1/attention); the printed ratio is 1/𝒮, which → 0 for "
                "a block-diagonal A, and read with distance = attention it is max_same/min_diff, less stringent "
                "than a mean comparison. The formula and the other sentences hold as printed."),
    correction_reason=("for any distance decreasing in attention, max intra / min inter distance = φ(min_same A) / "
                       "φ(max_diff A) falls when 𝒮 rises; the check finds neither reading equal to 𝒮"),
    status=Status.VERIFIED_CORRECTED,
    logic=Logic(for_all="attention matrices (row-softmax of any logits) and labellings with a same and a cross pair"),
    counterexamples=(dict(),),
    controls=CONTROLS,
    binding=(Binding(hypothesis="𝒮 > 1 (the stringency sentence's premise)", form=CORRECTED,
                     params=dict(instance="near_tie", tie=1e-9),
                     margin="every same entry within ≈ 2e-9 above every cross entry of its row"),),
    strategy=_strategy,
    params=(
        Param("K", int, 3, "clusters", low=2, high=16, sample=(2, 4)),
        Param("nu", int, 3, "samples per cluster (n = K·ν)", low=1, high=16, sample=(1, 4)),
        Param("instances", int, 16, "matrices per check", low=1, high=4096),
        Param("instance", str, "random", "random: logits g·same + noise, g ∈ [−2, 4]; near_tie: same entries just "
              "above cross entries", choices=INSTANCES),
        Param("tie", float, 1e-6, "instance='near_tie': the logit gap (𝒮 ≈ 1 + tie)", low=1e-12, high=1.0,
              sample=(1e-9, 1e-2), log=True),
        Param("entries", str, "positive", "positive: row-softmax attention; signed: centred to mixed signs (a "
              "control)", choices=ENTRIES),
        Param("labels", str, "true", "true: the block structure; shuffled: a random relabelling (a control)",
              choices=LABELS),
        Param("criterion", str, "sharpness", "the ratio the stringency sentence tests: 𝒮, or max_same/min_diff "
              "(the wording with distance = attention, a control)", choices=CRITERIA),
        seed_param(),
    ),
    cost=cost,
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
