"""The silent dimension conditions of Corollaries 4.5 / 4.7 of paper 004 (digest §2.4, §3 A4).

Statement as printed
--------------------
Corollary 4.5: "under Assumption 4.4 and the hypotheses of Theorem 4.3 (L-RN1 with d ≥ 4), with CE or MSE,
all global optima of (7) exhibit approximate neural collapse which gets tighter as L increases" (same for
4.7 with RN2). The only dimension hypothesis is d ≥ 4 (ResNets).

Correction (digest A4)
----------------------
The corollaries reduce to Lemma 4.2 through Theorem 4.3: as L → ∞ the last-layer pairs approach the GUFM
optima. Those are collapsed only when d ≥ K (CE: a simplex ETF needs K−1 dims of 1^⊥) and d ≥ K+1 (MSE:
K orthonormal rows in 1^⊥, erratum A3). Below, the limit object itself is not collapsed (NC2A > 0 for CE at
d = K−1, NC2B = 1/√K for MSE at d = K), so no depth gives approximate NC. E.g. an RN1 with d = 4 satisfies
the printed hypothesis, yet K = 4 (MSE) or K = 5 (CE) classes do not collapse.

What one check does
-------------------
1. Solves the GUFM (= the UFM under Assumption 4.4) from ``restarts`` random starts (``ufm.solve_ufm``,
   batched L-BFGS with a Riemannian-gradient certificate) and compares with the collapsed closed form.
   Claims: ``gufm_optimum_is_collapsed_value`` (best certified value / closed form ≤ 1 + tol) and
   ``gufm_optimum_collapsed_<nc2>`` (its NC2 for the loss ≤ tol): the L → ∞ limit of the corollary.
2. Trains ``seeds`` L-RN1 networks at depth ``L`` (objective (7)) on distinct Gaussian-mixture inputs and
   reports, in ``details``, their objective against the GUFM optimum (never below it: Thm 4.3's exact half)
   and their NC metrics: below the condition the networks are bounded by a non-collapsed optimum.
The counterexample is the printed form at d = 4 with K = 4 (MSE) or K = 5 (CE); the corrected form refuses
those instances (HypothesisViolation naming d ≥ K / d ≥ K+1); with allow_violation they are the negative
controls of the corrected claims.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from .depth_sweep import train
from .models import init_params
from .theorem_4_3 import deep_hypotheses, make_data
from .ufm import LOSSES, closed_form, solve_ufm

ID = "neural_collapse.dimension_conditions"

# As in Lemma 4.2 (digest §5.1 calibration): a certified UFM start reaches the closed form to ≤ 6e-9.
REACH_RTOL = 1e-7
# NC2 at a certified optimum is ≲ 1e-3 (weak curvature, A7); the counterexamples sit at ≥ 1/√K ≈ 0.45.
NC2_TOL = 1e-3
UFM_GTOL = 1e-9
NC2_OF = {"mse": "nc2b", "ce": "nc2a"}


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = deep_hypotheses({**p, "arch": "rn1"}, form, archs=("rn1",))
    K, d, loss = p["K"], p["d"], p["loss"]
    if p["restarts"] < 1:
        out.append(Violation("restarts ≥ 1", "the UFM solver needs a start", ("restarts",), bypassable=False))
    if form == CORRECTED and K >= 2:
        need = K + 1 if loss == "mse" else K
        if d < need:
            out.append(Violation(f"d ≥ {'K+1' if loss == 'mse' else 'K'} ({loss.upper()})",
                                 "the corollary reduces to Lemma 4.2, whose optima are collapsed only when 1^⊥ ⊂ R^d "
                                 "holds the frame (erratum A4): the printed corollary omits this", ("d", "K")))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    K, n, d, lam, loss = p["K"], p["n"], p["d"], p["lam"], p["loss"]
    optimum = closed_form(loss, K, d, lam)
    sol = solve_ufm(loss, K, n, d, lam, restarts=p["restarts"], ctx=ctx, gtol=UFM_GTOL)
    masked = torch.where(sol.converged, sol.values, torch.full_like(sol.values, math.inf))
    best = int(torch.argmin(masked if bool(sol.converged.any()) else sol.values))
    nc2 = NC2_OF[loss]
    best_value = float(sol.values[best])
    claims = [
        Claim.at_most("gufm_optimum_is_collapsed_value", best_value / optimum.value, 1 + REACH_RTOL,
                      "best certified GUFM value / collapsed closed form (Lemma 4.2)"),
        Claim.at_most(f"gufm_optimum_collapsed_{nc2}", float(sol.metrics[nc2][best]), NC2_TOL,
                      f"{nc2} of the GUFM optimum, the L → ∞ limit of the corollary"),
    ]
    spec, X0, labels, min_dist = make_data({**p, "arch": "rn1"}, ctx)
    net = train(spec, init_params(spec, ctx, p["seeds"]), X0, labels, loss, lam, lam, max_iter=p["train_iter"],
                gtol=1e-9)
    details = {
        "closed_form": optimum.value,
        "closed_form_attainable": optimum.attainable,
        "gufm_best_value": best_value,
        "gufm_converged_starts": int(sol.converged.sum()),
        "gufm_best_grad_norm": float(sol.grad_norm[best]),
        **{f"gufm_best_{k}": float(v[best]) for k, v in sol.metrics.items()},
        "reference_1/sqrt(K)": 1 / math.sqrt(K),
        "condition": f"d ≥ {'K+1' if loss == 'mse' else 'K'}: {d >= (K + 1 if loss == 'mse' else K)}",
        "deep_net_depth": p["L"],
        "deep_net_objective": net.objective.tolist(),
        "deep_net_min_over_gufm_optimum": float(net.objective.min()) / best_value,
        **{f"deep_net_median_{k}": float(v.median()) for k, v in net.metrics.items()},
        "deep_net_status": net.status,
        "min_input_distance": min_dist,
    }
    return Outcome(observed=best_value, bound=optimum.value, tightness=optimum.value / best_value, claims=claims,
                   details=details, converged=bool(sol.converged[best]))


def report_instances(suite):
    yield CORRECTED, dict(loss="mse"), False
    yield CORRECTED, dict(loss="ce", K=4, d=4), False
    yield AS_PRINTED, dict(loss="mse", K=4, d=4), False  # counterexample: d ≥ 4 holds, d ≥ K+1 does not
    yield AS_PRINTED, dict(loss="ce", K=5, d=4), False  # counterexample: d ≥ 4 holds, d ≥ K does not
    yield CORRECTED, dict(loss="mse", K=4, d=4), True  # control of the corrected claims


RESULT = register(Result(
    id=ID,
    paper="004",
    paper_title="Súkeník, Lampert, Mondelli: Neural Collapse is Globally Optimal in Deep Regularized ResNets "
                "and Transformers",
    title="Corollaries 4.5 / 4.7: approximate NC needs d ≥ K (CE) and d ≥ K+1 (MSE), not only d ≥ 4",
    statement=("Under Assumption 4.4 and Thm 4.3's hypotheses (L-RN1, d ≥ 4), with CE or MSE, all global optima of "
               "(7) are approximately collapsed, increasingly so as L grows."),
    correction="Add d ≥ K for CE and d ≥ K+1 for MSE: below, the GUFM optimum (the L → ∞ limit) is not collapsed.",
    correction_reason=("The corollary invokes Lemma 4.2, whose collapsed optima need a simplex ETF (K−1 dims) or K "
                       "orthonormal rows (K dims) inside the (d−1)-dimensional 1^⊥ (digest 004 §3 A3, A4)."),
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("K", int, 3, "number of classes", "K ≥ 2"),
        Param("n", int, 2, "samples per class", "n ≥ 1"),
        Param("d0", int, 4, "input dimension", "≥ 1"),
        Param("d", int, 4, "inner width", "printed: d ≥ 4; corrected: also d ≥ K (CE), d ≥ K+1 (MSE)"),
        Param("L", int, 3, "depth of the trained L-RN1 reported beside the GUFM", "L ≥ 1"),
        Param("lam", float, 0.2, "weight decay λ (0.2 rather than 0.05: the MSE-UFM's weak curvature "
              "λK/(N(d+λK)²), which sets the solver's speed, is ~4x larger)", "λ > 0"),
        Param("loss", str, "mse", "'mse' or 'ce'", "mse | ce", choices=LOSSES),
        Param("seed", int, 0, "seed", "any integer"),
        Param("seeds", int, 2, "trained networks, batched", "≥ 1"),
        Param("train_iter", int, 60, "L-BFGS iterations of the trained networks", "≥ 0"),
        Param("restarts", int, 8, "random starts of the GUFM solver", "≥ 1"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
