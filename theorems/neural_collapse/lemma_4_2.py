"""Lemma 4.2 of paper 004: the global optima of the unconstrained features model are collapsed.

Statement as printed
--------------------
"Assume that only the samples within the same class are in relation R. Then, the global optima
M_0^{UFM-CE} and M_0^{UFM-MSE} are all perfectly collapsed, i.e., for all (W,X) ∈ M_0^{UFM-CE},
NC1 = NC2A = NC3 = 0 and for all (W,X) ∈ M_0^{UFM-MSE}, NC1 = NC2B = NC3 = 0. Conversely, for any
feasible pair (W,X) s.t. NC1 = NC2A = NC3 = 0 [resp. NC2B], there exists a unique scalar c s.t.
(cW, X) ∈ M_0^{UFM-CE} [resp. M_0^{UFM-MSE}]."  The proof assumes d ≥ K ("W has at least as many
columns as rows") and, for MSE, gives the optimal row norm ‖w_k‖ = 1/(√d(1+λK)).

Correction (digest 004 §2.2, §3 A2/A3)
--------------------------------------
* MSE needs d ≥ K+1, not d ≥ K. The features, and so at an optimum the rows of W, live in the
  (d−1)-dimensional space 1^⊥ (LayerNorm output); K orthonormal rows need d−1 ≥ K. At d = K every
  global optimum has NC2B = 1/√K > 0: the optimum is a *signed simplex* with value ½c/(d+c),
  c = d/(K−1) + λK, far above the collapsed value.
* The optimal MSE row norm is z* = √d/(d+Kλ), not 1/(√d(1+λK)) (they agree only at d = 1).
* CE is right as printed for d ≥ K (a simplex ETF spans K−1 dims).
The closed forms that the corrected check compares against (not in the paper, derived in the digest):
MSE L* = Kλ/(2(d+Kλ)); CE L* = g(ρ*) = log(1+(K−1)e^{−aρ*}) + (λK/2)ρ*², a = √d K/(K−1), ρ* the unique
root of g'(ρ) = 0. Both are lower bounds on every feasible point (digest §2.2 proofs) and attained by
the collapsed frames.

Reading chosen: the digest's conventions (mean CE, (1/2N)‖WX−Y‖², (λ/2)‖W‖², no bias, E_K = I − 11ᵀ/K,
LayerNorm with the population std so ‖x‖ = √d). Any other normalisation changes the constants, not
the collapse.

What one check does
-------------------
1. Solves the UFM from ``restarts`` random feasible starts as one batched L-BFGS problem on
   R^{K×d} × (LN sphere)^N, with a Riemannian-gradient certificate per start.
2. Claims (each a named :class:`~theorems.Claim`):
   * ``no_start_beats_closed_form``: every start, converged or not, ends ≥ L* (a hard bound: L* bounds
     every feasible point);
   * ``best_run_reaches_closed_form``: the best certified start reaches L*;
   * ``optimum_collapsed_*``: every converged start that reaches L* has NC1, the loss's NC2 and NC3 ≈ 0
     (the lemma's claim about *all* optima, sampled); where none reaches L*, the best converged start
     is judged instead, which is how the MSE counterexample at d = K shows NC2B = 1/√K;
   * ``row_norm``: their rows have norm z* / ρ* (corrected) or the printed 1/(√d(1+λK)) (as printed);
   * ``converse_*``: a random collapsed feasible pair with random scale s attains L* at c = ρ*/s (or
     z*/s; the printed row norm under ``form="as_printed"``) and at no other c (the minimiser is found
     independently by a 1-D search, and a grid of other c stays above L*), while a perturbed,
     non-collapsed pair cannot reach L* at any c.
   Negative controls (``allow_violation=True``): CE with d = K−1, λ = 0, and ``closed_form_scale`` ≠ 1,
   a deliberately wrong constant in the closed form; the printed MSE row norm is a wrong constant too.
3. ``observed`` is the best certified value, ``bound`` the closed form, ``tightness`` = bound/observed.
   ``converged`` says whether any start earned its certificate (the best start is taken among those);
   no Evidence holds without it.

Verifier limitation (not a hypothesis of the lemma): at d = 2 the LN sphere is two points, so the
optimiser cannot move between them from a random start (digest §5.1); such instances are refused.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.optimize import minimize_scalar

from ..core.registry import register
from ..core.evidence import Claim
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..data.frames import balanced_labels
from ..metrics.neural_collapse import nc_metrics
from ..optim.manifolds import ln
from .ufm import (
    LOSSES,
    UFMOptimum,
    UFMSolution,
    closed_form,
    collapsed_pair,
    mse_signed_simplex_value,
    printed_mse_row_norm,
    random_rotation_of_ones_complement,
    solve_ufm,
    ufm_objective,
)

ID = "neural_collapse.lemma_4_2"

# -- tolerances, all relative to the closed-form value or dimensionless ------------------------------
# A feasible point may sit below L* only by float64 rounding of the objective (sums of O(1) terms):
LOWER_RTOL = 1e-10
# "Reaches L*": the digest's calibration (§5.1) saw ≤ 6e-9 with gtol 1e-12; ours stops at gtol 1e-9.
REACH_RTOL = 1e-7
# Absolute floor for "reaches" so that λ = 0 (L* = 0) is decidable: far below any O(λ) optimum here.
REACH_ATOL = 1e-12
# NC1, NC3 are quadratic in the distance to the collapsed optimum, NC2 linear in it; the distance of a
# certified point is ≲ gtol/μ, μ the smallest Hessian eigenvalue, ≈ λK/(N(d+λK)²) for MSE (A7): at the
# sampled λ ≥ 1e-3 that is ≤ 1e-4, so NC2 ≤ 1e-3 is the honest scale; NC1, NC3 are far smaller.
NC1_TOL = 1e-6
NC2_TOL = 1e-3
NC3_TOL = 1e-6
ROW_NORM_RTOL = 1e-4
# The converse is a 1-D problem: its value is exact to rounding, its argmin only to ~√eps ≈ 1.5e-8.
CONVERSE_VALUE_RTOL = 1e-10
CONVERSE_C_RTOL = 1e-6
# How far a non-collapsed pair must stay above L*: its perturbation is of size 0.3 (see _converse).
NONCOLLAPSED_MARGIN_RTOL = 1e-6
GTOL = 1e-9

NC2_OF = {"mse": "nc2b", "ce": "nc2a"}


# ------------------------------------------------------------------------------------------------------
# Hypotheses
# ------------------------------------------------------------------------------------------------------
def hypotheses(p: dict, form: str) -> list[Violation]:
    K, n, d, lam, loss = p["K"], p["n"], p["d"], p["lam"], p["loss"]
    out: list[Violation] = []
    if K < 2:
        out.append(Violation("K ≥ 2 classes", "a classification problem needs at least two classes", ("K",),
                             bypassable=False))
    if n < 1:
        out.append(Violation("n ≥ 1 samples per class", "every class needs a sample", ("n",), bypassable=False))
    if p["restarts"] < 1:
        out.append(Violation("restarts ≥ 1", "the optimiser needs a start", ("restarts",), bypassable=False))
    if p["max_iter"] < 1:
        out.append(Violation("max_iter ≥ 1", "the optimiser needs an iteration", ("max_iter",), bypassable=False))
    if not math.isfinite(lam):
        out.append(Violation("λ finite", "the weight decay must be a finite number", ("lam",), bypassable=False))
    elif lam < 0:
        out.append(Violation("λ ≥ 0", "negative weight decay makes the UFM unbounded below", ("lam",),
                             bypassable=False))
    elif lam == 0:
        out.append(Violation("λ > 0 (weight decay)", "without weight decay CE has no minimiser and MSE has "
                             "non-collapsed global optima", ("lam",)))
    if p["closed_form_scale"] != 1.0:
        out.append(Violation("exact closed-form constant", "closed_form_scale ≠ 1 deliberately falsifies the "
                             "closed form (a negative control)", ("closed_form_scale",)))
    if d < 3:
        out.append(Violation("d ≥ 3 (connected LN sphere; the verifier's requirement, not the lemma's)",
                             "at d = 2 the LayerNorm sphere is two points and random starts cannot move between "
                             "them, so optimisation cannot certify the optimum (digest 004 §5.1)", ("d",),
                             bypassable=False))
    if K >= 2:
        if form == AS_PRINTED and d < K:
            out.append(Violation("d ≥ K (W has at least as many columns as rows)",
                                 "the printed lemma assumes d ≥ K", ("d", "K")))
        if form == CORRECTED:
            need = K + 1 if loss == "mse" else K
            if d < need:
                why = ("the K orthonormal rows of an MSE optimum must fit in the (d−1)-dimensional 1^⊥, so "
                       "d ≥ K+1 (erratum A3; at d = K the optimum is not NC2B-collapsed, see form='as_printed')"
                       if loss == "mse" else
                       "a simplex ETF of K vectors needs K−1 dimensions of 1^⊥, so d ≥ K")
                out.append(Violation(f"d ≥ {'K+1' if loss == 'mse' else 'K'} ({loss.upper()})", why, ("d", "K")))
    return out


# ------------------------------------------------------------------------------------------------------
# Claims on a batch of optimised starts
# ------------------------------------------------------------------------------------------------------
def reached(values: torch.Tensor, optimum: UFMOptimum) -> torch.Tensor:
    """Which starts reached the closed-form value (relative tolerance, absolute floor for L* = 0)."""
    return values <= optimum.value * (1 + REACH_RTOL) + REACH_ATOL


def best_start(sol: UFMSolution) -> int:
    """The lowest value among certified starts (among all starts when none is certified)."""
    masked = torch.where(sol.converged, sol.values, torch.full_like(sol.values, math.inf))
    return int(torch.argmin(masked if bool(sol.converged.any()) else sol.values))


def optimiser_claims(sol: UFMSolution, optimum: UFMOptimum, expected_row_norm: float,
                     row_norm_name: str) -> tuple[list[Claim], dict]:
    """The claims about the optimised starts, against ``optimum`` (which a negative control may falsify)."""
    loss = optimum.loss
    values = sol.values
    best = best_start(sol)
    hit = reached(values, optimum) & sol.converged
    nc2 = NC2_OF[loss]
    claims = [
        Claim.at_least("no_start_beats_closed_form", float(values.min()), optimum.value * (1 - LOWER_RTOL),
                       "every start ends at or above L* (L* bounds every feasible point)"),
        Claim.at_most("best_run_reaches_closed_form", float(values[best]),
                      optimum.value * (1 + REACH_RTOL) + REACH_ATOL, "the best certified start attains L*"),
    ]
    details: dict = {
        "closed_form": optimum.value,
        "closed_form_formula": optimum.formula,
        "closed_form_row_norm": optimum.row_norm,
        "best_value": float(values[best]),
        "worst_value": float(values.max()),
        "best_ratio_to_closed_form": _ratio(float(values[best]), optimum.value),
        "starts": int(values.numel()),
        "starts_converged": int(sol.converged.sum()),
        "starts_reaching_closed_form": int(hit.sum()),
        "best_grad_norm": float(sol.grad_norm[best]),
        "best_iterations": int(sol.iterations[best]),
        "gtol": sol.gtol,
        "best_status": sol.status[best],
        **{f"best_{k}": float(v[best]) for k, v in sol.metrics.items()},
        "best_row_norms": sol.row_norms[best].tolist(),
        "values": values.tolist(),
    }
    # The lemma speaks of global optima: test collapse on every certified start that reaches L*; when none
    # does (a counterexample, or a control), on the best certified start, the best candidate optimum.
    if bool(hit.any()):
        judged, who = hit, f"all {int(hit.sum())} converged starts that reach L*"
    else:
        judged = torch.zeros_like(hit)
        judged[best] = bool(sol.converged[best])
        who = "the best converged start (none reaches L*)" if bool(judged.any()) else "no converged start"
    if bool(judged.any()):
        worst = {k: float(sol.metrics[k][judged].max()) for k in ("nc1", nc2, "nc3")}
        row_dev = float(((sol.row_norms[judged] - expected_row_norm).abs() / expected_row_norm).max())
        claims += [
            Claim.at_most("optimum_collapsed_nc1", worst["nc1"], NC1_TOL, who),
            Claim.at_most(f"optimum_collapsed_{nc2}", worst[nc2], NC2_TOL, who),
            Claim.at_most("optimum_collapsed_nc3", worst["nc3"], NC3_TOL, who),
            Claim.at_most(row_norm_name, row_dev, ROW_NORM_RTOL,
                          f"max relative deviation of ‖w_k‖ from {expected_row_norm:.6g}, {who}"),
        ]
        details.update({f"max_{k}_judged": v for k, v in worst.items()})
    other = "nc2a" if nc2 == "nc2b" else "nc2b"
    details[f"best_{other}_expected_1/sqrt(K)"] = 1 / math.sqrt(optimum.K)
    return claims, details


def _ratio(a: float, b: float) -> float:
    """a/b, with 0/0 = 1 (an exactly attained zero bound) and a/0 = inf."""
    if b == 0:
        return 1.0 if a == 0 else math.inf
    return a / b


# ------------------------------------------------------------------------------------------------------
# Converse: a collapsed feasible pair is optimal after exactly one rescaling
# ------------------------------------------------------------------------------------------------------
def _minimise_over_scale(phi):
    """Minimise a convex c ↦ φ(c) on c > 0 without using the closed form: a log grid over twelve decades
    brackets the minimum, then bounded Brent refines it to machine precision."""
    grid = np.logspace(-6, 6, 241)
    values = np.array([phi(c) for c in grid])
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    return minimize_scalar(phi, bounds=(lo, hi), method="bounded", options={"xatol": 1e-14 * hi})


def _converse(p: dict, optimum: UFMOptimum, row_norm: float, ctx) -> tuple[list[Claim], dict]:
    """A random collapsed pair with row norm s must attain ``optimum`` at c = row_norm/s and nowhere else."""
    K, n, d, lam, loss = p["K"], p["n"], p["d"], p["lam"], p["loss"]
    s = float(0.1 * 100 ** ctx.rand(1).item())  # random row scale in [0.1, 10), log-uniform
    rotation = random_rotation_of_ones_complement(ctx, d)
    W, X = collapsed_pair(loss, K, n, d, s, rotation, dtype=ctx.dtype, device=ctx.device)
    labels = balanced_labels(K, n, device=ctx.device)
    # A non-collapsed feasible pair: perturb the features off the frame (NC1, NC3 > 0).
    X_bad = ln(X + 0.3 * math.sqrt(d) * ctx.randn(d, K * n))

    def phi(c: float, X_: torch.Tensor = X) -> float:
        return float(ufm_objective(c * W, X_, labels, loss, lam))

    c_star = row_norm / s
    found = _minimise_over_scale(phi)
    grid = c_star * np.array([0.5, 0.8, 0.95, 0.99, 0.999, 1.001, 1.01, 1.05, 1.25, 2.0])
    off = np.array([phi(c) for c in grid])
    curv_c = c_star * np.linspace(0.25, 4.0, 41)
    curv = np.array([phi(c) for c in curv_c])
    second_diff = curv[2:] - 2 * curv[1:-1] + curv[:-2]
    bad = _minimise_over_scale(lambda c: phi(c, X_bad))
    metrics_collapsed = {k: float(v) for k, v in nc_metrics(W, X, labels).items()}
    value_at_c = phi(c_star)
    claims = [
        Claim.at_most("converse_attains_at_unique_c", abs(value_at_c - optimum.value),
                      CONVERSE_VALUE_RTOL * max(optimum.value, REACH_ATOL),
                      f"|L(c*W, X) − L*| for a collapsed pair with row norm s = {s:.4g}, c* = {c_star:.6g}"),
        Claim.at_most("converse_minimiser_is_c_star", abs(found.x - c_star) / c_star, CONVERSE_C_RTOL,
                      f"a 1-D minimiser finds c = {found.x:.10g}"),
        Claim.at_least("converse_no_other_c", float((off - optimum.value).min()), 0.0,
                       "L(cW, X) − L* > 0 at c ≠ c* (grid 0.5c*..2c*)"),
        Claim.at_least("converse_noncollapsed_pair_misses", float(bad.fun) - optimum.value,
                       NONCOLLAPSED_MARGIN_RTOL * max(optimum.value, REACH_ATOL),
                       "a perturbed, non-collapsed feasible pair stays above L* for every c"),
    ]
    details = {
        "converse_scale_s": s,
        "converse_c_star": c_star,
        "converse_c_found": float(found.x),
        "converse_value_at_c_star": value_at_c,
        "converse_noncollapsed_best_value": float(bad.fun),
        "converse_min_second_difference": float(second_diff.min()),  # > 0: strictly convex in c
        **{f"converse_pair_{k}": v for k, v in metrics_collapsed.items()},
    }
    return claims, details


# ------------------------------------------------------------------------------------------------------
# Evaluation
# ------------------------------------------------------------------------------------------------------
def evaluate(p: dict, form: str, ctx) -> Outcome:
    """One instance: solve, compare with the closed form, and check the converse where it can be built.

    ``closed_form_scale`` ≠ 1 multiplies the closed-form value: the wrong-constant negative control.
    """
    K, n, d, lam, loss = p["K"], p["n"], p["d"], p["lam"], p["loss"]
    optimum = closed_form(loss, K, d, lam)
    if p["closed_form_scale"] != 1.0:
        optimum = optimum.scaled(p["closed_form_scale"], "deliberately wrong constant")
    sol = solve_ufm(loss, K, n, d, lam, restarts=p["restarts"], ctx=ctx, max_iter=p["max_iter"], gtol=GTOL)
    if form == AS_PRINTED and loss == "mse":
        row_norm, name = printed_mse_row_norm(K, d, lam), "row_norm_as_printed"
    else:
        row_norm, name = optimum.row_norm, "row_norm"
    claims, details = optimiser_claims(sol, optimum, row_norm, name)
    details["form_reading"] = ("printed: optima collapsed for d ≥ K, MSE row norm 1/(√d(1+λK))" if form == AS_PRINTED
                               else "corrected: d ≥ K+1 for MSE, row norm √d/(d+Kλ); closed forms of digest §2.2")
    if loss == "mse":
        details["printed_row_norm"] = printed_mse_row_norm(K, d, lam)
        if d == K:
            details["signed_simplex_value"] = mse_signed_simplex_value(K, d, lam)
    if optimum.attainable and lam > 0:  # the collapsed pair exists, and c* is finite
        more, extra = _converse(p, optimum, row_norm, ctx)
        claims += more
        details.update(extra)
    best = best_start(sol)
    observed = float(sol.values[best])
    return Outcome(observed=observed, bound=optimum.value, tightness=_ratio(optimum.value, observed),
                   claims=claims, details=details, converged=bool(sol.converged[best]))


def report_instances(suite):
    """What the report runs: the default instances, both losses, the counterexample and the controls."""
    rng = np.random.default_rng(0)
    yield CORRECTED, dict(loss="mse"), False
    yield CORRECTED, dict(loss="ce"), False
    for _ in range(suite.report_examples):
        K = int(rng.integers(2, 7))
        loss = str(rng.choice(LOSSES))
        d = int(rng.integers(max(3, K + (loss == "mse")), K + 5))
        lam = float(10 ** rng.uniform(-2.5, 0.5))
        yield CORRECTED, dict(K=K, n=int(rng.integers(1, 4)), d=d, lam=round(lam, 4), loss=loss,
                              seed=int(rng.integers(0, 1000)), restarts=suite.restarts), False
    yield AS_PRINTED, dict(loss="ce", K=4, d=4), False  # printed CE statement holds
    yield AS_PRINTED, dict(loss="mse", K=4, d=4), False  # counterexample: MSE at d = K
    yield AS_PRINTED, dict(loss="mse"), False  # the printed row norm (A2)
    yield CORRECTED, dict(loss="ce", K=4, d=3), True  # negative control: d = K − 1
    yield CORRECTED, dict(loss="mse", K=3, n=4, d=10, lam=0.0), True  # negative control: λ = 0
    yield CORRECTED, dict(loss="ce", closed_form_scale=1.001), True  # negative control: wrong constant
    yield CORRECTED, dict(loss="ce", closed_form_scale=0.999), True


RESULT = register(Result(
    id=ID,
    paper="004",
    paper_title="Súkeník, Lampert, Mondelli: Neural Collapse is Globally Optimal in Deep Regularized ResNets "
                "and Transformers",
    title="Lemma 4.2: every global optimum of the UFM (CE / MSE) is collapsed, and conversely",
    statement=(
        "With features on the LayerNorm sphere and weight decay λ > 0 on W (no bias), every global optimum of "
        "UFM-CE has NC1 = NC2A = NC3 = 0 and every global optimum of UFM-MSE has NC1 = NC2B = NC3 = 0, for d ≥ K. "
        "Conversely a feasible collapsed (W, X) becomes optimal after a unique rescaling W → cW. The proof "
        "gives the optimal MSE row norm ‖w_k‖ = 1/(√d(1+λK))."
    ),
    correction=(
        "MSE needs d ≥ K+1 (at d = K every optimum has NC2B = 1/√K, value ½c/(d+c), c = d/(K−1)+λK); the optimal "
        "MSE row norm is √d/(d+Kλ). Closed forms: MSE L* = Kλ/(2(d+Kλ)); CE L* = log(1+(K−1)e^{−aρ*}) + λKρ*²/2, "
        "a = √d·K/(K−1), ρ* the root of λKρ = a(K−1)e^{−aρ}/(1+(K−1)e^{−aρ})."
    ),
    correction_reason=(
        "LayerNorm features satisfy 1ᵀx = 0, so at an optimum the rows of W lie in the (d−1)-dimensional 1^⊥: K "
        "orthonormal rows need d − 1 ≥ K, which the proof's 'W has at least as many columns as rows' overlooks "
        "(digest 004 §3 A3). The printed row norm solves the 1-D problem with a wrong constant (A2)."
    ),
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("K", int, 4, "number of classes", "K ≥ 2"),
        Param("n", int, 3, "samples per class", "n ≥ 1"),
        Param("d", int, 6, "feature dimension", "d ≥ 3; corrected: d ≥ K+1 (MSE), d ≥ K (CE); printed: d ≥ K"),
        Param("lam", float, 0.05, "weight decay λ on W", "λ > 0"),
        Param("loss", str, "mse", "loss: 'mse' = (1/2N)‖WX−Y‖², 'ce' = mean cross-entropy", "mse | ce",
              choices=LOSSES),
        Param("seed", int, 0, "seed of the random starts and of the converse's random pair", "any integer"),
        Param("restarts", int, 8, "random feasible starts optimised together", "≥ 1"),
        Param("max_iter", int, 5000, "L-BFGS iterations per start", "≥ 1"),
        Param("closed_form_scale", float, 1.0, "multiplies the closed-form value; ≠ 1 is a deliberately wrong "
              "constant (negative control)", "= 1"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
