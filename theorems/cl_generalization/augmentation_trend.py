"""The augmentation-strength trend of paper 003 (experiments E1/E2): measured, not asserted.

Claim on the slides ("Experiments", the first two tables, and the Remark after Definition 1): richer or stronger
augmentation gives sharper concentration and better downstream accuracy ("Stronger data augmentation indeed
leads to the better performance"; CIFAR accuracy monotone in colour-distortion strength). The theory's mechanism:
larger s means a smaller augmented distance d_A, hence a larger σ(δ) at fixed δ (the Remark: A ⊆ A' ⇒
d_{A'} ≤ d_A), hence a smaller bound; but for a fixed f a richer A also makes alignment harder (S_ε(A') ⊆ S_ε(A),
so R_ε grows), so the net effect on the error is empirical.

The tables themselves (four methods, the nested transformation sets (a) … (a, …, e) and the colour-distortion
strengths, accuracy per cell with its seed spread) are ``tables_1_2``; this result checks the theory along one
strength sweep (Theorem 2's bound on every encoder), with one encoder family per run.

What one check does (the style–content population)
--------------------------------------------------
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
Negative control: ``thr_slack``. ``templates=replace`` (only the views at s: not nested) is run outside the
hypotheses for contrast, but it is *not* a control: in this harness two views of one template differ by
(1−s)(z−z′), so d_A falls with s for any template bank and σ stayed monotone on every replace instance tried
(12 combinations of strengths and seeds). ``concentration_monotone`` therefore has no instance that makes it
fail: it is an identity of this harness (below), never evidence, and the result stays open.

Quantifiers: an empirical trend, not a quantified statement: "for the augmentation families of E1/E2, accuracy
increases with richness / strength"; the theory's part is ∀ nested augmentations A ⊆ A': d_{A'} ≤ d_A.

Status: open (re-checked: is there a regime where the paper predicts otherwise?)
---------------------------------------------------------------------------------
A trend verdict needs the predicted direction *and* a control in a regime where the paper predicts the opposite,
which the check must fail. The candidates, and why none is a control the paper supplies:

* weaker augmentation (the sweep run backwards): the paper predicts higher error there, but that regime is the
  same data read in the other direction; a check that fails on it fails exactly when the default passes, so it
  carries no information of its own;
* augmentation that dulls concentration: impossible within the paper's framework for the sweeps it reports.
  E1 and E2 add or strengthen transformations, and by the Remark after Definition 1 a richer A can only
  shrink d_A (A ⊆ A' ⇒ d_{A'} ≤ d_A), so every such sweep sharpens concentration and the paper predicts lower
  error on all of it; a non-nested family whose views drift apart within a class keeps d_A at the raw distance
  (the identity view is in A(x)), so the paper predicts no change there, not the opposite;
* over-augmentation that mixes classes (templates shared across classes), or a fixed encoder whose R_ε grows as
  A grows (for a fixed f, S_ε(A') ⊆ S_ε(A)): both can make the error rise with strength, but the slides predict
  nothing for them (their messages ① and ② say alignment and divergence must hold; they do not say what richer
  augmentation does when it breaks them). A control there would test our prediction, not the paper's.

So the error trend stays a measurement (Spearman correlation in ``details``); the kinds are unchanged:
``bound_dominates_error`` bound (Theorem 2's conclusion, corrected constant, on the sweep's encoders; broken by
``thr_slack``), ``oracle_below_bound`` and ``concentration_monotone`` identity (true by construction: the oracle
minimises over a superset of settings; nested view sets, the Remark after Definition 1), the Spearman correlation a measurement.
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.stats import spearmanr

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..data.finite_population import style_content_population
from ..metrics.scaling import SCALING_KEY, scaling_series
from . import divergence as D
from . import population as P
from .encoders import random_features, train_infonce
from .instances import DC, DS, MAX_CLASS, MAX_CLASSES, sub_context
from .paper import PAPER

ID = "cl_generalization.augmentation_trend"
# Err and B* are probabilities (sums of multiples of 1/N): float rounding only.
BOUND_ATOL = 1e-12
TEMPLATES = ("nested", "replace")


def hypotheses(p: dict, form: str) -> list[Violation]:
    out: list[Violation] = []
    if p["templates"] != "nested":
        out.append(Violation("nested augmentations (A_s ⊆ A_s' for s < s')", "templates=replace uses only the "
                             "views at strength s, so the augmentation sets are not nested (a negative control)",
                             ("templates",)))
    return out


def cost(p: dict) -> Cost:
    N, S = sum(p["sizes"]), p["seeds"]
    m = p["m"] * len(p["strengths"])  # nested: the views of every strength up to s
    nce = S * N * N * m ** 3 if p["encoder"] == "infonce" else 0.0
    support = (N * (m + 1)) ** 2
    work = len(p["strengths"]) * (support * (DC + DS) * 3 * (S + 1) + p["steps"] * 8 * nce * p["d"])
    return Cost(elements=max(support, nce), work=work)


def augmented_population(p: dict, sizes: list[int], upto: list[float], ctx):
    """The population at strength upto[-1]. ``nested``: A_s(x) holds the views of every strength s' ≤ s (the same
    points and template bank at each strength, so A_s ⊆ A_s' for s < s'); ``replace``: only the views at s."""
    def at(s):
        return style_content_population(sub_context(ctx, 0), sizes, p["m"], s, Dc=DC, Ds=DS, noise=p["noise"],
                                        separation=p["separation"], style_scale=p["style_scale"])
    if p["templates"] == "replace":
        return at(upto[-1])
    pops = [at(s) for s in upto]
    pop = pops[0]
    pop.views = torch.cat([pop.views] + [q.views[:, 1:] for q in pops[1:]], dim=1)
    pop.view_w = torch.full(pop.views.shape[:2], 1.0 / pop.views.shape[1], dtype=pop.views.dtype,
                            device=pop.views.device)
    return pop


def sweep(p: dict, ctx) -> dict:
    """Every strength: the population (nested view sets), its encoders, σ on a common δ grid, and Theorem 2's
    quantities per encoder (corrected constant)."""
    strengths, sizes = list(p["strengths"]), list(p["sizes"])
    t2 = dict(eps_min=0.0, rho_mutation="none", thr_slack=p["thr_slack"], bound_scale=1.0)
    rows, sigma_curves, common = [], [], None
    for j in range(len(strengths)):
        pop = augmented_population(p, sizes, strengths[: j + 1], ctx)
        enc = sub_context(ctx, 1)  # the same encoder draws at every s
        if p["encoder"] == "random":
            maps = [random_features(pop, enc, d=p["d"], Dc=DC) for _ in range(p["seeds"])]
            F, F0 = torch.stack([a for a, _ in maps]), torch.stack([b for _, b in maps])
        else:  # the seeds' MLPs train together as one batched problem
            F, F0, _ = train_infonce(pop, enc, seeds=p["seeds"], d=p["d"], steps=p["steps"])
        if common is None:  # the δ grid of the weakest augmentation, reused at every s
            common = P.concentration(pop, max_deltas=p["max_deltas"]).deltas
        conc = P.concentration(pop, deltas=common)
        sigma_curves.append(conc.sigma)
        rows.append([D.analyse(pop, F[i], F0[i], 1.0, conc, t2) for i in range(p["seeds"])])
    return dict(rows=rows, sigma=sigma_curves, deltas=common)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    strengths = list(p["strengths"])
    sw = sweep(p, ctx)
    cap = lambda x: min(x, 1.0)  # noqa: E731  (a bound ≥ 1 is vacuous: Err ≤ 1 always)
    err = np.array([[r["err"] for r in row] for row in sw["rows"]])
    bstar = np.array([[cap(r["variants"]["repaired"]["best"]) for r in row] for row in sw["rows"]])
    bstar_f = np.array([[cap(r["variants"]["repaired_delta_f"]["best"]) for r in row] for row in sw["rows"]])
    oracle = np.array([[cap(r["oracle_B_L1"]) for r in row] for row in sw["rows"]])
    mono = max(float((a - b).max()) for a, b in zip(sw["sigma"], sw["sigma"][1:], strict=False))
    mean_err = err.mean(1)
    rho = spearmanr(strengths, mean_err).statistic if np.ptp(mean_err) > 0 else 0.0
    claims = [
        Claim.at_most("bound_dominates_error", float((err - bstar).max()), 0.0,
                      "max over s, seeds of Err − min(B*_corr, 1)", atol=BOUND_ATOL),
        Claim.at_most("oracle_below_bound", float((oracle - bstar).max()), 0.0,
                      "max over s, seeds of min(B_L1*, 1) − min(B*_corr, 1)", kind="identity", atol=BOUND_ATOL),
        Claim.at_most("concentration_monotone", mono, 0.0,
                      "max over consecutive s and common δ of σ_s(δ) − σ_{s'}(δ), s < s'", kind="identity"),
        Claim.measurement("spearman_err_vs_strength", float(rho), 0.0,
                          "E1/E2 predict a negative correlation (stronger augmentation, lower error)"),
    ]
    details = {
        "strengths": strengths, "err_mean": mean_err.tolist(), "err_sd": err.std(1).tolist(),
        "B_star_mean": bstar.mean(1).tolist(), "B_star_delta_f_mean": bstar_f.mean(1).tolist(),
        "oracle_B_L1_mean": oracle.mean(1).tolist(), "non_vacuous_fraction": (bstar < 1).mean(1).tolist(),
        "non_vacuous_fraction_delta_f": (bstar_f < 1).mean(1).tolist(),
        "sigma_curves": [c.tolist() for c in sw["sigma"]], "common_deltas": sw["deltas"].tolist(),
        "spearman_err_vs_strength": float(rho), "slope_err_vs_strength": float(np.polyfit(strengths, mean_err, 1)[0]),
        "predicted_sign": "negative (stronger augmentation, lower error)", "trend_in_predicted_direction": bool(rho < 0),
        # linear axes: E1/E2 predict a direction (error falls as augmentation strengthens), not a power law
        SCALING_KEY: [scaling_series("augmentation strength s", strengths, "mean downstream error", mean_err,
                                     log=False, predicted_note="measured: E1/E2 expect it to fall"),
                      scaling_series("augmentation strength s", strengths, "mean corrected bound B*", bstar.mean(1),
                                     log=False)],
    }
    return Outcome(claims=claims, details=details, headline="bound_dominates_error")


CONTROL_REPLACE = dict(templates="replace", encoder="random", seed=2, strengths=(0.4, 0.45, 0.5))
CONTROL_SLACK = dict(encoder="random", noise=1.5, thr_slack=10.0, seed=1)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(encoder="infonce"), False
    yield AS_PRINTED, dict(encoder="random", strengths=(0.0, 0.25, 0.5, 0.75, 1.0)), False
    yield AS_PRINTED, dict(CONTROL_REPLACE), True
    yield AS_PRINTED, dict(CONTROL_SLACK), True


RESULT = register(Result(
    id=ID, paper=PAPER, section="Experiments (richer and stronger augmentation, the first two tables)",
    title="Trend (E1/E2): downstream error and the Theorem-2 bound against augmentation strength (measured)",
    statement="Richer / stronger augmentation gives sharper concentration (larger σ at fixed δ) and better "
              "downstream accuracy (CIFAR-10/100: accuracy decreases as colour-distortion strength falls).",
    correction="Only the concentration part is provable (σ(δ) nondecreasing in s for nested augmentations); the "
               "error trend is measured and reported, not asserted (a richer A also raises R_ε for fixed f, A7).",
    correction_reason="a richer A also raises R_ε for a fixed f, so only the concentration part follows from "
                      "the theory; the error direction is an empirical question.",
    status=Status.OPEN,
    logic=Logic(for_all="the augmentation families of E1/E2 (nested: A_s ⊆ A_s' for s < s'), every encoder"),
    open_reason="the slides predict lower error for stronger augmentation on every sweep they consider and name "
                "no regime where they predict the opposite (weaker augmentation is the same sweep reversed; "
                "over-augmentation and fixed-encoder misalignment are not discussed), so no trend control can be "
                "built from the paper; the measured Spearman correlation (details) is reported, not judged, and the "
                "two theory claims it rests on hold by construction; a CIFAR-scale replication would decide it",
    controls=(dict(CONTROL_SLACK, allow_violation=True),),
    params=(
        Param("strengths", list[float], (0.0, 0.5, 1.0), "augmentation strengths s (increasing, in [0, 1])",
              low=0.0, high=1.0, length=(3, 12), increasing=True),
        Param("sizes", list[int], (10, 10), "points per class", low=1, high=MAX_CLASS, length=(2, MAX_CLASSES)),
        Param("m", int, 3, "views per point and strength (identity included)", low=2, high=6),
        Param("d", int, 8, "embedding dimension", low=2, high=64),
        Param("noise", float, 0.5, "within-class content noise", low=0.0, high=10.0),
        Param("separation", float, 1.5, "distance of the class contents from the origin", low=0.0, high=100.0),
        Param("style_scale", float, 3.0, "scale of the style coordinates (the nuisance augmentation removes)",
              low=0.0, high=100.0),
        Param("encoder", str, "random", "random feature map or InfoNCE-trained MLP", choices=("random", "infonce")),
        Param("seeds", int, 2, "encoders per strength (random maps, or MLPs trained as one batch)", low=1, high=16),
        Param("steps", int, 40, "Adam steps for the trained encoder", low=1, high=5000),
        Param("max_deltas", int, 8, "δ grid size", low=1, high=64),
        Param("templates", str, "nested", "nested: A_s holds the views of every strength ≤ s; replace: only the "
              "views at s (not nested: negative control)", "nested", choices=TEMPLATES),
        Param("thr_slack", float, 0.0, "added to the divergence threshold (≠ 0: negative control)", "0", low=-10.0,
              high=10.0, breaks="exact divergence threshold"),
        seed_param("first seed"),
    ),
    cost=cost,
    evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
