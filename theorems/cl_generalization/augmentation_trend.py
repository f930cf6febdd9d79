"""The augmentation-strength trend of paper 003 (experiments E1/E2): measured, not asserted.

Claim on the slides: "stronger / richer augmentation gives sharper concentration and better downstream accuracy"
(CIFAR tables, accuracy monotone in colour-distortion strength). The theory's mechanism: larger s means a smaller
augmented distance d_A, hence a larger σ(δ) at fixed δ (Remark after Def. 1, R1), hence a smaller bound; but for a
fixed f a richer A also makes alignment harder (R_ε grows, A7), so the net effect on the error is empirical.

What one check does (harness H2, digest §6.4)
---------------------------------------------
For every strength s in ``strengths`` and every population seed, the same points and the same template bank
(nested augmentations: only s changes) are encoded (a random feature map, or MLPs trained with InfoNCE at that s),
and the true error Err(G_f), the corrected Theorem-2 bound B*, the δ_f variant and the Lemma-1 oracle B_L1* are
computed exactly. Asserted (proved) claims:
* ``bound_dominates_error`` — Err ≤ B*_corr at every s (Theorem 2, corrected);
* ``oracle_below_bound`` — B_L1* ≤ B*_corr (the oracle minimises over a superset of settings);
* ``concentration_monotone`` — σ(δ) is nondecreasing in s on a common δ grid (d_A is nonincreasing in s for a
  nested template bank).
Measured, not asserted (``observed``): the Spearman correlation between s and the mean error; ``bound`` is the
predicted sign (0: a negative correlation means stronger augmentation helps). Details carry every curve.
Negative controls: ``templates=replace`` (only the views at s: not nested, σ need not be monotone) and ``thr_slack``.

Quantifiers: an empirical trend, not a quantified statement: "for the augmentation families of E1/E2, accuracy
increases with richness / strength"; the theory's part is ∀ nested augmentations A ⊆ A': d_{A'} ≤ d_A.

Old status → new status: trend → open
-------------------------------------
A trend verdict needs the predicted direction *and* a control in a regime where the paper predicts the opposite
that falls outside it. The old check asserted neither: its three claims are Theorem 2's bound (corrected) on
the sweep's encoders, the oracle inequality B_L1* ≤ B* (true by construction: the oracle minimises over a
superset of settings) and σ(δ) monotone in s (true by construction for nested view sets, R1), and the direction
itself was only measured. The slides predict no regime where stronger augmentation hurts (the over-augmentation
trade-off, a richer A raising R_ε for a fixed f, is not in the paper), so no trend control can be built from
the paper, and the measured direction on the synthetic population is not the CIFAR claim. ``open``.
Kinds now: ``bound_dominates_error`` bound (Theorem 2's conclusion on trained encoders, broken by ``thr_slack``),
``oracle_below_bound`` and ``concentration_monotone`` identity, the Spearman correlation a measurement.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.stats import spearmanr

from ..core.context import Context
from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Logic, Outcome, Param, Result, Status, Violation
from ..data.finite_population import parse_sizes, style_content_population
from ..metrics.scaling import SCALING_KEY, scaling_series
from . import population as P
from .encoders import random_features, train_infonce
from .instances import DC, PAPER, PAPER_TITLE
from .theorem_2 import analyse_seed

ID = "cl_generalization.augmentation_trend"
BOUND_ATOL = 1e-12
TEMPLATES = ("nested", "replace")


def _strengths(text: str) -> list[float]:
    return [float(t) for t in str(text).split(",")]


def hypotheses(p: dict, form: str) -> list[Violation]:
    out: list[Violation] = []
    try:
        s = _strengths(p["strengths"])
        if len(s) < 3 or any(not (0 <= v <= 1) for v in s) or sorted(s) != s or len(set(s)) != len(s):
            raise ValueError
    except ValueError:
        out.append(Violation("strengths: ≥ 3 increasing values in [0, 1]", "a sweep needs an increasing grid",
                             ("strengths",), bypassable=False))
    try:
        sizes = parse_sizes(p["sizes"])
        if len(sizes) < 2 or min(sizes) < 1:
            out.append(Violation("non-empty classes, K ≥ 2", "every class needs a point", ("sizes",),
                                 bypassable=False))
    except ValueError as err:
        out.append(Violation("sizes well formed", str(err), ("sizes",), bypassable=False))
    if p["seeds"] < 1 or p["m"] < 2 or p["d"] < 2 or p["steps"] < 1:
        out.append(Violation("seeds ≥ 1, m ≥ 2, d ≥ 2, steps ≥ 1", "the sweep needs them",
                             ("seeds", "m", "d", "steps"), bypassable=False))
    if p["templates"] != "nested":
        out.append(Violation("nested augmentations (A_s ⊆ A_s' for s < s')", "templates=replace uses only the "
                             "views at strength s, so the augmentation sets are not nested (a negative control)",
                             ("templates",)))
    if p["thr_slack"] != 0.0:
        out.append(Violation("exact divergence threshold", "thr_slack ≠ 0 (a negative control)", ("thr_slack",)))
    return out


def augmented_population(p: dict, sizes: list[int], upto: list[float], ctx):
    """The population at strength upto[-1]. ``nested``: A_s(x) holds the views of every strength s' ≤ s (the same
    points and template bank at each strength, so A_s ⊆ A_s' for s < s', R1); ``replace``: only the views at s."""
    def at(s):
        return style_content_population(Context(ctx.device, p["seed"]), sizes, p["m"], s, Dc=DC, noise=p["noise"],
                                        separation=p["separation"], style_scale=p["style_scale"])
    if p["templates"] == "replace":
        return at(upto[-1])
    pops = [at(s) for s in upto]
    pop = pops[0]
    pop.views = torch.cat([pop.views] + [q.views[:, 1:] for q in pops[1:]], dim=1)
    pop.view_w = torch.full(pop.views.shape[:2], 1.0 / pop.views.shape[1], dtype=pop.views.dtype,
                            device=pop.views.device)
    return pop


def evaluate(p: dict, form: str, ctx) -> Outcome:
    strengths = _strengths(p["strengths"])
    sizes = parse_sizes(p["sizes"])
    t2 = dict(eps_min=0.0, rho_mutation="none", thr_slack=p["thr_slack"], bound_scale=1.0)
    err = np.zeros((len(strengths), p["seeds"]))
    bstar, bstar_f, oracle = np.zeros_like(err), np.zeros_like(err), np.zeros_like(err)
    sigma_curves = []
    mono_violation = -math.inf
    dominated, oracle_gap = -math.inf, -math.inf
    common_deltas = None
    prev_sigma = None
    for j, s in enumerate(strengths):
        pop = augmented_population(p, sizes, strengths[: j + 1], ctx)
        enc = Context(ctx.device, p["seed"] + 104729)  # the same encoder draws at every s
        if p["encoder"] == "random":
            maps = [random_features(pop, enc, d=p["d"], Dc=DC) for _ in range(p["seeds"])]
            F, F0 = torch.stack([a for a, _ in maps]), torch.stack([b for _, b in maps])
        else:  # the seeds' MLPs train together as one batched problem
            F, F0, _ = train_infonce(pop, enc, seeds=p["seeds"], d=p["d"], steps=p["steps"])
        if common_deltas is None:  # the δ grid of the weakest augmentation, reused at every s
            common_deltas = P.concentration(pop, max_deltas=p["max_deltas"]).deltas
        conc = P.concentration(pop, deltas=common_deltas)
        if prev_sigma is not None:
            mono_violation = max(mono_violation, float((prev_sigma - conc.sigma).max()))
        prev_sigma = conc.sigma
        sigma_curves.append(conc.sigma.tolist())
        for i in range(p["seeds"]):
            res = analyse_seed(pop, F[i], F0[i], 1.0, conc, t2)
            err[j, i] = res["err"]
            bstar[j, i] = min(res["variants"]["repaired"]["best"], 1.0)
            bstar_f[j, i] = min(res["variants"]["repaired_delta_f"]["best"], 1.0)
            oracle[j, i] = min(res["oracle_B_L1"], 1.0)
            dominated = max(dominated, res["variants"]["repaired"]["gap"], res["err"] - res["variants"]["repaired"]["best"])
            oracle_gap = max(oracle_gap, res["oracle_B_L1"] - res["variants"]["repaired"]["best"])
    mean_err = err.mean(1)
    rho = spearmanr(strengths, mean_err).statistic if np.ptp(mean_err) > 0 else 0.0
    slope = float(np.polyfit(strengths, mean_err, 1)[0])
    claims = [
        Claim.at_most("bound_dominates_error", dominated, BOUND_ATOL, "max over s, seeds of Err − B*_corr"),
        Claim.at_most("oracle_below_bound", oracle_gap, BOUND_ATOL, "max over s, seeds of B_L1* − B*_corr",
                      kind="identity"),
        Claim.at_most("concentration_monotone", mono_violation, 0.0,
                      "max over consecutive s and common δ of σ_s(δ) − σ_{s'}(δ), s < s'", kind="identity"),
        Claim.measurement("spearman_err_vs_strength", float(rho), 0.0,
                          "E1/E2 predict a negative correlation (stronger augmentation, lower error)"),
    ]
    details = {
        "strengths": strengths, "err_mean": mean_err.tolist(), "err_sd": err.std(1).tolist(),
        "B_star_mean": bstar.mean(1).tolist(), "B_star_delta_f_mean": bstar_f.mean(1).tolist(),
        "oracle_B_L1_mean": oracle.mean(1).tolist(),
        "non_vacuous_fraction": (bstar < 1).mean(1).tolist(),
        "non_vacuous_fraction_delta_f": (bstar_f < 1).mean(1).tolist(),
        "sigma_curves": sigma_curves, "common_deltas": common_deltas.tolist(), "spearman_err_vs_strength": float(rho),
        "slope_err_vs_strength": slope, "predicted_sign": "negative (stronger augmentation, lower error)",
        "trend_in_predicted_direction": bool(rho < 0),
        "spearman_bound_vs_strength": float(spearmanr(strengths, bstar.mean(1)).statistic)
        if np.ptp(bstar.mean(1)) > 0 else 0.0,
        # linear axes: E1/E2 predict a direction (error falls as augmentation strengthens), not a power law
        SCALING_KEY: [scaling_series("augmentation strength s", strengths, "mean downstream error", mean_err,
                                     log=False, predicted_note="measured: E1/E2 expect it to fall"),
                      scaling_series("augmentation strength s", strengths, "mean corrected bound B*", bstar.mean(1),
                                     log=False)],
    }
    return Outcome(observed=float(rho), bound=0.0, tightness=None, claims=claims, details=details)


CONTROL_REPLACE = dict(templates="replace", encoder="random", seed=2, strengths="0.4,0.45,0.5")
CONTROL_SLACK = dict(encoder="random", noise=1.5, thr_slack=10.0)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(encoder="infonce"), False
    yield AS_PRINTED, dict(encoder="random", strengths="0,0.25,0.5,0.75,1"), False
    yield AS_PRINTED, dict(CONTROL_REPLACE), True
    yield AS_PRINTED, dict(CONTROL_SLACK), True


RESULT = register(Result(
    id=ID, paper=PAPER, paper_title=PAPER_TITLE,
    title="Trend (E1/E2): downstream error and the Theorem-2 bound against augmentation strength (measured)",
    statement="Richer / stronger augmentation gives sharper concentration (larger σ at fixed δ) and better "
              "downstream accuracy (CIFAR-10/100: accuracy decreases as colour-distortion strength falls).",
    correction="Only the concentration part is provable (σ(δ) nondecreasing in s for nested augmentations); the "
               "error trend is measured and reported, not asserted (a richer A also raises R_ε for fixed f, A7).",
    correction_reason="Digest 003 §6.4 / §7.5: accuracy was non-monotone in s for a trained encoder.",
    status=Status.OPEN,
    logic=Logic(for_all="the augmentation families of E1/E2 (nested: A_s ⊆ A_s' for s < s'), every encoder"),
    open_reason="the slides predict lower error for stronger augmentation everywhere and name no regime where "
                "they predict the opposite, so no trend control can be built from the paper; the measured "
                "Spearman correlation (details) is reported, not judged, and the two theory claims it rests on "
                "(B_L1* ≤ B*, σ(δ) monotone in s for nested view sets) hold by construction; a CIFAR-scale "
                "replication, or a regime the paper predicts to fail, would decide it",
    controls=(dict(CONTROL_SLACK, allow_violation=True),),
    params=(
        Param("strengths", str, "0,0.5,1", "augmentation strengths s (increasing, in [0, 1])",
              "≥ 3 values"),
        Param("sizes", str, "10,10", "points per class", "every entry ≥ 1"),
        Param("m", int, 3, "views per point and strength (identity included)", "≥ 2"),
        Param("d", int, 8, "embedding dimension", "≥ 2"),
        Param("noise", float, 0.5, "within-class content noise", "≥ 0"),
        Param("separation", float, 1.5, "distance of the class contents from the origin", "> 0"),
        Param("style_scale", float, 3.0, "scale of the style coordinates (the nuisance augmentation removes)", "≥ 0"),
        Param("encoder", str, "random", "random feature map or InfoNCE-trained MLP", "random | infonce",
              choices=("random", "infonce")),
        Param("seeds", int, 2, "encoders per strength (random maps, or MLPs trained as one batch)", "≥ 1"),
        Param("steps", int, 40, "Adam steps for the trained encoder", "≥ 1"),
        Param("max_deltas", int, 8, "δ grid size", "≥ 1"),
        Param("templates", str, "nested", "nested: A_s holds the views of every strength ≤ s; replace: only the "
              "views at s (not nested: negative control)", "nested", choices=TEMPLATES),
        Param("thr_slack", float, 0.0, "added to the divergence threshold (negative control)", "0"),
        Param("seed", int, 0, "first seed", "any integer"),
    ),
    evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
