"""The one-dimensional intuition of paper 004 (proof sketch of Theorem 4.3; Section 4.3 after Theorem 4.6).

What the paper prints
---------------------
Proof sketch of Theorem 4.3: "consider a 1D example where we want to fit the label exp(a) when the input is 1
with a 1D ResNet. Let x be a shared weight across all layers. Then, we need exp(a) = (1+x)^L, which can be
asymptotically achieved by setting x = a/L. Importantly, the sum of Frobenius norms Σ_{l=1}^L (a/L)² = a²/L
vanishes as L → ∞." After Theorem 4.6 (two linear layers per block): "in order to ensure that (1+x²)^L
converges to exp(a) as L → ∞, one needs to pick x = √a/√L, which implies that the sum of squares
Σ_l (√a/√L)² is of constant order w.r.t. L" — which is why Theorem 4.6 needs a vanishing λ(L).

The problem checked (made exact)
--------------------------------
C_m(L) = min Σ_l cost_l subject to Π_l (1 + g_l) = e^a, over real per-layer weights (not only a shared one):
one layer per block (m = 1): g_l = x_l, cost_l = x_l²; two layers per block (m = 2): g_l = x_l y_l, cost_l =
x_l² + y_l². Quantifiers: ∀ a > 0, ∀ L ≥ 1, the minimum over all weights. Closed forms (derived here, not
printed), each with its proof of global optimality:

* m = 1: C_1(L) = L(e^{a/L} − 1)², at x_l = e^{a/L} − 1 ≈ a/L. Proof: with s_l = |1 + x_l|, x_l² ≥ (s_l − 1)²
  and Π s_l = e^a, so it suffices to minimise Σ(s_l − 1)² over s > 0; a minimiser exists (the cost blows up
  at the boundary of Π s_l = e^a) and at it s_l(s_l − 1) = μ/2 for all l; μ < 0 puts every s_l in (0, 1),
  against Π s_l = e^a > 1, so μ ≥ 0 and every s_l is the same root s ≥ 1: s_l = e^{a/L}.
* m = 2: C_2(L) = 2L(e^{a/L} − 1), at x_l = y_l = √(e^{a/L} − 1) ≈ √(a/L). Proof: x² + y² ≥ 2|xy| = 2|g|,
  Π(1 + |g_l|) ≥ Π|1 + g_l| = e^a, and by AM–GM Σ(1 + |g_l|) ≥ L e^{a/L}.

So C_1(L) = a²/L·(1 + O(a/L)) vanishes at rate L^{-1} (the cost of a fixed multiplicative change vanishes
with depth), while C_2(L) → 2a is of constant order: the paper's reason why constant λ on two-layer blocks
does not make the regularisation vanish (Appendix C) and Theorem 4.6 takes λ(L) → 0.

What one check does, and its claims (kind in brackets)
------------------------------------------------------
For every depth of ``depths``, ``restarts`` random starts of a batched L-BFGS over the weights (the
constraint is kept exactly by the parametrisation t_l = log(1 + g_l) = a/L + u_l − mean(u), so each start
is feasible; with two layers the split of each product g_l = x_l y_l is minimised in closed form, x² + y² ≥
2|xy| by AM–GM) find the best point.

* ``optimiser_not_below_closed_form`` [bound]: min over depths and starts of found / closed form ≥ 1 − RTOL
  (the closed form is a certified lower bound: an optimiser below it refutes the proof above).
* ``optimiser_reaches_closed_form`` [bound]: max over depths of (best found) / closed form ≤ 1 + RTOL: the
  closed form is attained, and the optimiser is good enough to find it (a converged start, ‖∇‖ ≤ GTOL).
* ``cost_vanishes_at_rate_1_over_L`` [bound]: the fitted log–log exponent of C_m(L) over ``depths`` lies in
  [−1 − EXP_TOL, −1 + EXP_TOL], the paper's a²/L.
* measurements: the optimiser's weight at the largest depth over the paper's a/L (m = 1) or √(a/L) (m = 2),
  and L·C_1 / a² or C_2 / (2a) there (both → 1).

Status: **trend**. The default (m = 1) holds: exponent −1.02 over depths 16…1024. The trend control is the
regime where the paper predicts otherwise, for its reason: with two layers per block (m = 2) the fitted
exponent is ≈ 0 (C_2 → 2a) and the same rate claim fails. Negative controls: ``bound_scale`` = 1 + 3e-10 and
1 − 3e-10 (literal numbers; 3 × RTOL) break the two closed-form claims; depths 2, 8, 32, 128 at a = 1 (the
hypothesis L ≫ a dropped) give exponent −1.12 and break the rate claim (EXP_TOL pinned from outside).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, Pin, Result, Status, Violation, seed_param
from ..metrics.scaling import fit_power_law, scaling_series
from ..optim.lbfgs import autograd_objective, batched_lbfgs
from .paper import PAPER

ID = "neural_collapse.toy_1d"

# -- tolerances -----------------------------------------------------------------------------------------
# The optimum of an O(a²/L)…O(a) smooth objective in float64, from a converged L-BFGS (gradient ≤ GTOL): the
# value is within ~GTOL² / curvature of the minimum, far below 1e-10 relative; the controls at 1 ± 3e-10 pin it.
RTOL = 1e-10
GTOL = 1e-11
# The local exponent of L(e^{a/L} − 1)² is about −1 − a/L (its Taylor correction), so over depths ≥ 16·a the
# fitted exponent is within 1/16 of −1 (default sweep: −1.02); EXP_TOL = 0.07 leaves that room and is 14× smaller
# than the distance to the two-layer exponent 0.
EXP_TOL = 0.07
MIN_DEPTH_OVER_A = 16
PREDICTED = -1.0


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["depths"][0] < MIN_DEPTH_OVER_A * p["a"]:
        out.append(Violation(f"L ≫ a (the asymptotic regime: smallest depth ≥ {MIN_DEPTH_OVER_A}·a)",
                             "the rate a²/L is the leading term of L(e^{a/L} − 1)²; its local exponent is about "
                             "−1 − a/L", ("depths", "a")))
    return out


def closed_form(a: float, L: int, layers: int) -> tuple[float, float]:
    """(C_m(L), the optimal per-layer weight) of the 1-D problem."""
    g = math.expm1(a / L)
    if layers == 1:
        return L * g * g, g
    return 2 * L * g, math.sqrt(g)


def _objective(a: float, L: int, layers: int):
    """Feasible parametrisation: u (B, L) -> cost, with Π(1 + g_l) = e^a exactly (t_l = log(1 + g_l))."""

    def fn(u: torch.Tensor) -> torch.Tensor:
        g = torch.expm1(a / L + u - u.mean(dim=1, keepdim=True))
        if layers == 1:
            return g.pow(2).sum(dim=1)
        # Two layers: x_l y_l = g_l at cost x_l² + y_l² ≥ 2|g_l|, with equality at |x_l| = |y_l| = √|g_l|, so the
        # minimum over the split of each product is 2|g_l| (searching the split too only adds flat directions).
        return 2 * g.abs().sum(dim=1)

    return fn


def evaluate(p: dict, form: str, ctx) -> Outcome:
    a, layers, depths, restarts = p["a"], p["layers"], p["depths"], p["restarts"]
    found, closed, weights, grads, converged, ratios_below = [], [], [], [], True, []
    for L in depths:
        # Starts: the log-gains t_l perturbed relatively around the even split a/L (the two-layer cost |g| has a
        # kink at g = 0 that a quasi-Newton method cannot cross cleanly).
        z0 = ctx.randn(restarts, L) * (p["init_scale"] * a / L)
        res = batched_lbfgs(autograd_objective(_objective(a, L, layers)), z0, max_iter=p["max_iter"], gtol=GTOL)
        value, w = closed_form(a, L, layers)
        value *= p["bound_scale"]
        f = res.f
        best = int(torch.argmin(f))
        ok = res.converged
        converged = converged and bool(ok[best])
        found.append(float(f[best]))
        closed.append(value)
        ratios_below.append(float(f.min()) / value)
        u = res.x[best, :L]
        t = a / L + u - u.mean()
        g = torch.expm1(t)
        weights.append(float((g.abs().sqrt() if layers == 2 else g.abs()).mean()))
        grads.append(float(res.stationarity[best]))
    fit = fit_power_law(depths, found)
    L_max = depths[-1]
    paper_weight = a / L_max if layers == 1 else math.sqrt(a / L_max)
    limit = a * a / L_max if layers == 1 else 2 * a
    claims = [
        Claim.at_least("optimiser_not_below_closed_form", min(ratios_below), 1.0,
                       "min over depths and starts of the cost found / the closed form C_m(L) (a certified lower "
                       "bound)", rtol=RTOL),
        Claim.at_most("optimiser_reaches_closed_form", max(f / c for f, c in zip(found, closed, strict=True)), 1.0,
                      "max over depths of the best cost found / C_m(L) (attained)", rtol=RTOL),
        Claim.close("cost_vanishes_at_rate_1_over_L", fit.exponent, PREDICTED,
                    "fitted log–log exponent of the optimal cost over depth (the paper: a²/L)", atol=EXP_TOL),
        Claim.measurement("weight_over_paper_formula", weights[-1] / paper_weight, 1.0,
                          f"optimal weight at L = {L_max} over the paper's {'a/L' if layers == 1 else '√(a/L)'}"),
        Claim.measurement("cost_over_limit", found[-1] / limit, 1.0,
                          f"optimal cost at L = {L_max} over {'a²/L' if layers == 1 else '2a (constant order)'}"),
    ]
    details = {
        "depths": list(depths),
        "optimal_cost_found": found,
        "closed_form": closed,
        "optimal_weight_found": weights,
        "grad_norm_best": grads,
        "fit": fit.to_dict(),
        "layers_per_block": layers,
        "scaling": [scaling_series("L", depths, "optimal Σ cost", found, fit=fit,
                                   predicted=(PREDICTED - EXP_TOL, PREDICTED + EXP_TOL),
                                   predicted_note="a²/L (one layer per block)")],
    }
    return Outcome(claims=claims, details=details, converged=converged, headline="cost_vanishes_at_rate_1_over_L")


def cost(p: dict) -> Cost:
    P = sum(p["depths"]) * p["restarts"]
    return Cost(elements=30 * P, work=40 * P * p["max_iter"])


CONTROLS = (
    # the closed form 3e-10 too high (the optimiser is below it) and too low (it does not reach it): 3 allowances of
    # RTOL outside, so RTOL loosened ×10 lets them pass
    dict(bound_scale=1 + 3e-10, allow_violation=True),
    dict(bound_scale=1 - 3e-10, allow_violation=True),
    # The hypothesis L ≫ a dropped (smallest depth 2a, not 16a): the Taylor correction −a/L tilts the fitted exponent
    # to −1.118 (numpy polyfit of L(e^{1/L} − 1)² over 2, 8, 32, 128), outside EXP_TOL by 0.048: the rate claim fails.
    # It pins EXP_TOL from outside (×1.7 of it) and shows where the hypothesis bites.
    dict(depths=(2, 8, 32, 128), allow_violation=True),
)
# The tolerances the controls above pin (each failing side one of them, 1–10 allowances outside): RTOL = 1e-10 on
# the closed form from both sides, EXP_TOL = 0.07 from outside (the hypothesis L ≫ a dropped)
PINS = (
    Pin("optimiser_not_below_closed_form", "bound_scale", fails=1 + 3e-10, within=10,
        params=dict(allow_violation=True), reported=True),
    Pin("optimiser_reaches_closed_form", "bound_scale", fails=1 - 3e-10, within=10,
        params=dict(allow_violation=True), reported=True),
    Pin("cost_vanishes_at_rate_1_over_L", "depths", fails=(2, 8, 32, 128), within=10,
        params=dict(allow_violation=True), reported=True),
)
TREND_CONTROLS = (dict(layers=2, allow_violation=True),)  # two layers per block: cost → 2a, exponent ≈ 0


def report_instances(suite):
    yield AS_PRINTED, {}, False
    yield AS_PRINTED, dict(a=0.3), False
    if suite.name == "thorough":
        yield AS_PRINTED, dict(a=1.0, depths=(16, 32, 128, 512, 2048)), False  # L ≥ 16a: inside the hypothesis
    for spec in (*CONTROLS, *TREND_CONTROLS):
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Section 4.2, proof sketch of Theorem 4.3; Section 4.3 after Theorem 4.6 (the 1-D example)",
    title="The 1-D example: a fixed gain e^a costs Σx² = L(e^{a/L}−1)² ~ a²/L over L one-layer blocks, but → 2a "
          "over two-layer blocks",
    statement=("1-D ResNet fitting e^a from input 1: (1+x)^L = e^a with x ≈ a/L costs Σ_l x² ≈ a²/L, which vanishes "
               "as L → ∞; with two layers per block, (1+x²)^L → e^a needs x = √(a/L) and Σ_l x² is of constant "
               "order. Checked on the exact minimum over per-layer weights."),
    status=Status.TREND,
    params=(
        Param("a", float, 1.0, "log of the target gain e^a (a > 0: the proof of the closed form uses e^a > 1)",
              "a > 0", low=1e-6, high=10.0, sample=(0.05, 1.0)),
        Param("layers", int, 1,
              "linear layers per block: 1 ((1+x)^L, Theorem 4.3) or 2 ((1+xy)^L, Theorem 4.6's two-layer block, "
              "where the paper predicts a cost of constant order: the trend control)",
              "1", low=1, high=2, breaks="one linear layer per block (Theorem 4.3's regime, where the cost vanishes)"),
        Param("depths", list[int], (16, 64, 256, 1024), "depths L of the sweep", "smallest ≥ 16a", low=1, high=4096,
              length=(3, 12), increasing=True),
        Param("restarts", int, 4, "random starts per depth, batched", low=1, high=256),
        Param("max_iter", int, 400, "L-BFGS iterations", low=1, high=100_000),
        Param("init_scale", float, 0.3, "scale of the random starts: log-gain perturbations relative to a/L",
              low=0.0, high=5.0),
        Param("bound_scale", float, 1.0, "multiplies the closed form; ≠ 1 is a deliberately wrong constant", "1.0",
              low=1e-6, high=1e6, breaks="exact closed form"),
        seed_param(),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="a > 0 and depths L ≥ 1; the minimum over all per-layer weights"),
    controls=CONTROLS,
    pins=PINS,
    trend_controls=TREND_CONTROLS,
))
