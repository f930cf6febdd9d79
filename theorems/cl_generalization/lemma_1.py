"""Lemma 1 of paper 003 (Error Rate): a classifier correct on the well-aligned main parts errs at most (1−σ)+R_ε.

Statement as printed (slide "Main Part Samples With Good Alignment", Lemma 1)
-----------------------------------------------------------------------------
"For (σ,δ)-augmentation with main part C_k⁰ of each class, if all samples in (C_1⁰ ∪ … ∪ C_K⁰) ∩ S_ε can be
correctly classified by a classifier G, then its downstream error rate Err(G) ≤ (1 − σ) + R_ε."
Err(G) is printed as Σ_k P[G(x) ≠ k, ∀x ∈ C_k]; the "∀" cannot be meant (it would make Err the mass of classes
misclassified everywhere): Err = Σ_k P[G(x) ≠ k, x ∈ C_k].

Reading chosen: an exact finite population with uniform point weights; the main parts are
maximum cliques of {d_A ≤ δ} per class, σ(δ) = min_k |C_k⁰|/n_k; S_ε = {x : diam f(A(x)) ≤ ε}. The lemma must
hold for every admissible (σ, δ) and every ε ≥ 0, so one check runs the whole (δ, ε) grid of the instance.
The proof uses only the mass condition of Def. 1: errors lie in (∪C_k⁰)ᶜ ∪ S̄_ε.

What one check does
-------------------
For every (δ, ε) it builds the classifier G the hypothesis allows and checks Err(G) ≤ (1−σ)+R_ε:
* ``classifier=worst``: G is right exactly on (∪C_k⁰) ∩ S_ε and wrong everywhere else: the largest error the
  hypothesis permits, so the check is sharp; equality holds when the two bad sets are disjoint and every class
  has the same main-part ratio (the adversarial ``antipodal_bad`` instance: one bad point whose views but one
  are antipodal to its class);
* ``classifier=random``: right on the good set, random labels elsewhere;
* ``classifier=nearest_centre``: G_f, on the settings where it satisfies the hypothesis (the oracle bound B_L1*).
Negative controls: ``classifier=wrong_on_good`` breaks the hypothesis (one good point per class misclassified);
``bound_scale`` = 1 − 10⁻¹⁰ on the attained instance pins ``BOUND_ATOL``.

Quantifiers: ∀ populations, ∀ admissible (σ, δ) with main parts C_k⁰, ∀ ε ≥ 0, ∀ classifiers G correct on
(∪C_k⁰) ∩ S_ε: Err(G) ≤ (1−σ)+R_ε. Nothing is existential. The bound is a piecewise-constant function of the
instance (masses of finite sets), so the worst case is searched combinatorially, not by gradient: the ``worst``
classifier is the largest error the hypothesis allows, the whole (δ, ε) grid is checked, and the adversarial
population (one bad point, σ = 1 at δ = 0) attains it with equality: Err = (1−σ)+R_ε = 0.05.

Status: verified (unchanged). The claim is the statement's own inequality (a union bound over the two bad sets
plus Definition 1's mass condition); it is attained, the hypothesis "G correct on the good set" binds for the
``worst`` classifier (it is wrong on everything else), and it fails as soon as that hypothesis is dropped.
"""

from __future__ import annotations

import random

import torch

from ..core.evidence import Claim
from ..core.params import sample_params
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation
from ..core.result import Pin
from . import population as P
from .instances import build, grid, instance_cost, instance_hypotheses, instance_params
from .paper import PAPER

ID = "cl_generalization.lemma_1"
CLASSIFIERS = ("worst", "random", "nearest_centre", "wrong_on_good")
# Err and the bound are probabilities (sums of multiples of 1/N, scale 1): only float rounding of such sums
# separates them; the control bound_scale = 1 − 1e-10 on the attained instance (a gap of 5e-12) pins it.
BOUND_ATOL = 1e-12


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = instance_hypotheses(p)
    if p["classifier"] == "wrong_on_good":
        out.append(Violation("G correct on (∪C_k⁰) ∩ S_ε", "classifier=wrong_on_good misclassifies one good point "
                             "per class (a negative control)", ("classifier",)))
    return out


def classifier_errors(kind: str, good: torch.Tensor, labels: torch.Tensor, K: int, correct_f: torch.Tensor,
                      ctx) -> torch.Tensor:
    """(..., N) bool: where the classifier errs, for every setting's good set ``good`` (..., N)."""
    if kind == "worst":
        return ~good
    if kind == "random":
        guess = (ctx.rand(*good.shape) * K).floor().long()
        return ~good & (guess != labels)
    if kind == "nearest_centre":
        return (~correct_f).expand_as(good)
    err = ~good  # wrong_on_good: also wrong on the first good point of each class
    for k in range(K):
        in_k = good & (labels == k)
        first = torch.where(in_k.any(-1, keepdim=True), in_k.float().argmax(-1, keepdim=True), -1)
        hit = torch.zeros_like(good).scatter_(-1, first.clamp_min(0), True) & (first >= 0)
        err = err | hit
    return err


def evaluate(p: dict, form: str, ctx) -> Outcome:
    inst = build(p, ctx)
    pop, F, F0 = inst.pop, inst.F[0], inst.F0[0]
    g = grid(pop, F, max_deltas=p["max_deltas"], eps_min=p["eps_min"])
    good = g.main[:, None, :] & g.S[None, :, :]  # (Dn, En, N)
    bound = p["bound_scale"] * ((1 - g.sigma)[:, None] + g.R[None, :])  # (Dn, En)
    mu = P.class_centres(F, pop.view_w, pop.labels, pop.K)
    correct_f, _ = P.nearest_centre(F0, mu, pop.labels)
    errs = classifier_errors(p["classifier"], good, pop.labels, pop.K, correct_f, ctx)
    err = errs.to(F.dtype).mean(-1)
    # the hypothesis "G correct on the good set" per setting (true by construction except for G_f and the control)
    applies = ~(errs & good).any(-1)
    if p["classifier"] == "wrong_on_good":
        applies = torch.ones_like(applies)
    slack = torch.where(applies, err - bound, torch.full_like(err, -torch.inf))
    worst = int(torch.argmax(slack.flatten()))
    di, ei = divmod(worst, bound.shape[1])
    n_applies = int(applies.sum())
    if n_applies:
        observed, b = float(err[di, ei]), float(bound[di, ei])
        claims = [Claim.at_most("error_bound", observed, b,
                                f"Err(G) against (1−σ)+R_ε at the tightest of the {n_applies} (δ, ε) settings where "
                                "G is correct on the good set", atol=BOUND_ATOL)]
    else:  # G is correct on the good set of no setting: the lemma asserts nothing beyond Err ≤ 1
        observed, b = float(correct_f.logical_not().double().mean()), 1.0
        claims = [Claim.at_most("error_bound", observed, b, "Err(G) against the trivial bound 1: G is correct on "
                                "the good set of no (δ, ε) setting, so the lemma's premise never holds")]
    main_mass = g.main.to(F.dtype).mean(-1)
    details = {
        "settings": int(bound.numel()), "settings_where_hypothesis_holds": n_applies,
        "delta_at_tightest": float(g.deltas[di]), "eps_at_tightest": float(g.eps[ei]),
        "sigma_at_tightest": float(g.sigma[di]), "R_eps_at_tightest": float(g.R[ei]),
        "max_mass_outside_main_minus_1_minus_sigma": float((1 - main_mass - (1 - g.sigma)).max()),
        "err_nearest_centre": float((~correct_f).double().mean()),
        "oracle_bound_B_L1": float(torch.where(~(~correct_f & good).any(-1), bound,
                                               torch.full_like(bound, torch.inf)).min()),
        "equality": bool(abs(observed - b) <= BOUND_ATOL),
        "sigma_grid": g.sigma.tolist(), "delta_grid": g.deltas.tolist(), "R_grid": g.R.tolist(),
        "eps_grid": g.eps.tolist(),
    }
    return Outcome(claims=claims, details=details)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(ATTAINED), False  # equality case
    yield AS_PRINTED, dict(mode="bad_aligned", classifier="random", bad_frac=0.3), False
    yield AS_PRINTED, dict(harness="style_content", encoder="random", d=8, classifier="nearest_centre"), False
    rng = random.Random(100)
    for _ in range(suite.report_examples):
        drawn = sample_params(RESULT, AS_PRINTED, rng)
        if drawn is not None:
            yield AS_PRINTED, drawn, False
    yield AS_PRINTED, dict(classifier="wrong_on_good"), True
    yield AS_PRINTED, dict(ATTAINED, bound_scale=1 - 1e-10), True


ATTAINED = dict(mode="antipodal_bad", sizes=[10, 10], m=10)


def _strategy():
    from hypothesis import strategies as st

    from ..strategies.cl_generalization import cl_lemma_1_params

    return st.one_of(cl_lemma_1_params("random"), cl_lemma_1_params("adversarial"))


def cost(p: dict) -> Cost:
    return instance_cost(p, extra_elements=p["max_deltas"] * 17 * sum(p["sizes"]))


RESULT = register(Result(
    id=ID, paper=PAPER, section="Main Part Samples With Good Alignment, Lemma 1 (Error Rate)",
    title="Lemma 1: Err(G) ≤ (1−σ) + R_ε for G correct on (∪C_k⁰) ∩ S_ε",
    statement="If all samples in (C_1⁰ ∪ … ∪ C_K⁰) ∩ S_ε are correctly classified by G, then "
              "Err(G) ≤ (1 − σ) + R_ε (Err with the stray '∀' read as 'x ∈ C_k').",
    status=Status.VERIFIED,
    logic=Logic(for_all="every population, every admissible (σ, δ) with its main parts C_k⁰, every ε ≥ 0 and every "
                        "classifier G that is correct on (∪C_k⁰) ∩ S_ε"),
    binding=(Binding(hypothesis="G correct on (∪C_k⁰) ∩ S_ε (the worst such G: wrong everywhere else)",
                     params=ATTAINED, margin="Err(G) = (1−σ)+R_ε = 0.05 exactly (σ = 1 at δ = 0, R_ε = 0.05)"),),
    controls=(dict(classifier="wrong_on_good", allow_violation=True),
              dict(ATTAINED, bound_scale=1 - 1e-10, allow_violation=True)),
    strategy=_strategy,
    params=instance_params() + (
        Param("classifier", str, "worst", "the classifier G: worst (wrong off the good set), random, "
              "nearest_centre (G_f), wrong_on_good (negative control)", "G correct on (∪C_k⁰) ∩ S_ε",
              choices=CLASSIFIERS, sample=("worst", "random", "nearest_centre")),
        Param("max_deltas", int, 12, "candidate δ values (quantiles of the within-class d_A)", low=1, high=64),
        Param("eps_min", float, 0.0, "smallest ε of the grid (the grid is 0 and the diameters above it)", low=0.0,
              high=10.0),
        Param("bound_scale", float, 1.0, "multiplies (1−σ)+R_ε (≠ 1 rescales the bound: negative control)", "1",
              low=0.0, high=10.0, breaks="exact bound (1−σ)+R_ε"),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
    pins=(
        Pin("error_bound", "bound_scale", fails=1 - 1e-10, within=10,
            params=dict(mode="antipodal_bad", sizes=[10, 10], m=10, allow_violation=True), reported=True),
    ),
))
