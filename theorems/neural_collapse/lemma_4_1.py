"""Lemma 4.1 of paper 004, made quantitative for the UFM: near-optimal points are nearly collapsed, with a rate.

Statement as printed (Section 4.1, Lemma 4.1)
---------------------------------------------
"Denote as distmax(A, B) = sup_{x∈A} dist(x, B) for any sets A, B. Then, we have
limsup_{ε→0} distmax(M_ε^GUFM \\ M_0^GUFM, M_0^GUFM) = 0." (for the GUFM (8) with a continuous loss; the proof is
by compactness, with no rate.) Corollaries 4.5/4.7 use it through the NC metrics: points of M_ε^GUFM have small
NC metrics. Quantifiers: ∀ ε-optimal feasible (W, X) as ε → 0.

Quantitative form checked here (derived in ``near_optimal``; not printed)
-------------------------------------------------------------------------
For the UFM-CE (d ≥ K) and UFM-MSE (d ≥ K+1), every feasible (W, X) with f(W, X) − L* ≤ ε has
    NC1 ≤ C₁(ε)·ε,   NC2 ≤ C₂(ε)·√ε (NC2A for CE, NC2B for MSE),   NC3 ≤ C₃(ε)·ε,
with explicit C_i(ε) ↓ C_i(0+) as ε ↓ 0, valid up to an explicit ε₀ (the derivation's positivity conditions).
The exponents are those of the remark after Corollary 4.5 (quadratic growth: distance ~ √ε, so squared
deviations NC1, NC3 ~ ε and NC2 ~ √ε). At the default instance (CE, K = 3, n = 2, d = 6, λ = 0.05):
C(0+) ≈ (NC1 12.4, NC2 58, NC3 37), ε₀ ≈ 2.4·10⁻³ = 2.0% of L* = 0.124; MSE at K = 3, d = 5: C(0+) ≈ (424, 286,
141), ε₀ ≈ 3.5·10⁻⁵ = 0.24% of L* (the MSE bound is looser: t*(1 − t*) with 1 − t* = Kλ/(d + Kλ) ≈ 0.03 enters
C₃, and the window δ ≤ (1 − t*)/2 is narrow).

What one check does
-------------------
* ``perturbations``: the collapsed optimum (random rotation) moved along ``draws`` random directions at 21 scales
  from 10⁻⁷ to 10⁻⁰·⁵ (W by a relative amount, X by LN(X* + s√d·noise)): every draw with ε ≤ ε₀ must have
  NC_i ≤ bound_i(ε) (``nc1/nc2/nc3_bound_on_perturbations`` [bound]); the worst ratio NC/bound is the bound's
  tightness (CE: NC1 0.35, NC2 0.055, NC3 0.17; MSE: 0.009, 0.012, 0.043).
* ``trained``: L-RN1 networks of depth 3 trained by L-BFGS on objective (7) (``train_iter``), started from the
  network that attains L*_GUFM (``deep.attaining_network``) with its first layer, blocks and last layer
  perturbed (relative 10⁻³…10⁻¹; the first layer stays frozen, so the classes do not re-collapse exactly):
  their last-layer pairs (W_L, X_L) are feasible GUFM points; those with GUFM excess ≤ ε₀ must obey the bound
  (``nc*_bound_on_trained`` [bound]), ``details['trained_checked']`` counts them (CE: 6 of 6, worst NC1 ratio
  0.92: the bound is nearly attained on a trained network; MSE: 3 of 6).
* ``sharpness`` [measurement]: the fitted log–log slope of NC_i against ε on the perturbations, ≈ the exponent p
  (1, 1/2, 1): the exponents are not loose.
Controls: ``const_scale`` < 1 multiplies every bound (a wrong constant: 10⁻⁴ breaks every claim, ``0.3`` only NC1
of CE); ``exponent_shift`` = 0.25 asserts NC ≤ C·ε^{p+1/4}, which the small-ε draws break (the exponents are sharp).

Status: new id, **verified**: the bound claims hold on the default instance, on the binding instances (d = K+1
for MSE, d = K for CE with λ = 0.005, where ε₀ is smallest) and on the worst-case search of ``Result.strategy``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..data.classification import gaussian_mixture
from ..data.frames import balanced_labels
from ..metrics.neural_collapse import nc_metrics
from ..metrics.scaling import fit_power_law
from ..optim.manifolds import ln
from .depth_sweep import train
from .models import INNER, ModelSpec, pack, unpack
from .near_optimal import EXPONENTS, NC2_OF, limit_constants, nc_bounds, validity_limit
from .paper import PAPER
from .deep import attaining_network, deep_cost
from .ufm import LOSSES, closed_form, collapsed_pair, random_rotation_of_ones_complement, ufm_objective

ID = "neural_collapse.lemma_4_1"
SCALES = np.logspace(-7, -0.5, 21)
TRAIN_DEPTH = 3
# f − L* is a difference of sums whose largest terms are the logits (|w_kᵀx| ≤ ρ*√d, CE: logsumexp − correct
# logit) or L* itself, each known to ~1e-16 of its size; so f − L* below 1e-14·(L* + ρ*√d) is rounding (~50 ulps of
# the largest term; at λ = 1e-6 f − L* of points within rounding of the optimum is ±7e-16, the floor 9e-14): a point
# there is judged at that ε (the bound is monotone in ε; NC metrics of such points are rounding too). Relative to L*
# alone (1e-13·L*, as before) the floor failed at small λ: λ = 1e-6 has L* = 2.3e-5 but logits ~9, so the floor
# 2.3e-18 sat far below the rounding, and rounding points failed NC1 ≤ C₁ε by 5×.
EPS_FLOOR_REL = 1e-14


def eps_floor(loss: str, K: int, d: int, lam: float) -> float:
    """The rounding level of f − L* (see EPS_FLOOR_REL)."""
    opt = closed_form(loss, K, d, lam)
    return EPS_FLOOR_REL * (opt.value + opt.row_norm * math.sqrt(d))
METRICS = ("nc1", "nc2", "nc3")


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    K, d, loss = p["K"], p["d"], p["loss"]
    if d < (K + 1 if loss == "mse" else K):
        out.append(Violation("d ≥ K+1 (MSE) / d ≥ K (CE)", "where Lemma 4.2's collapsed optimum exists, so that L* "
                             "is its closed form", ("d", "K"), bypassable=False))
    if p["const_scale"] != 1.0 or p["exponent_shift"] != 0.0:
        out.append(Violation("the derived constants and exponents", "const_scale ≠ 1 or exponent_shift ≠ 0 asserts a "
                             "deliberately wrong bound (a negative control)", ("const_scale", "exponent_shift")))
    return out


def cost(p: dict) -> Cost:
    K, n, d = p["K"], p["n"], p["d"]
    pts = len(SCALES) * p["draws"] * (K * d + d * K * n)
    net = deep_cost({"arch": "rn1", "L": TRAIN_DEPTH, "K": K, "n": n, "d0": K * n, "d": d, "C": 1, "V": 1,
                     "seeds": p["seeds"]}, p["train_iter"])
    return Cost(elements=pts + net.elements, work=pts * d * 10 + net.work)


def _bound(p: dict, eps: float) -> dict | None:
    b = nc_bounds(p["loss"], p["K"], p["n"], p["d"], p["lam"], eps)
    if b is None:
        return None
    return {k: p["const_scale"] * v * eps ** p["exponent_shift"] for k, v in b.items()}  # ε > 0: the floor


def _ratios(p: dict, eps: torch.Tensor, metrics: dict) -> tuple[dict, int]:
    """max over points with a bound of NC_i/bound_i, and how many points had one."""
    nc2 = NC2_OF[p["loss"]]
    floor = eps_floor(p["loss"], p["K"], p["d"], p["lam"])
    worst = {k: 0.0 for k in METRICS}
    checked = 0
    for i, e in enumerate(eps.tolist()):
        b = _bound(p, max(e, floor))
        if b is None:
            continue
        checked += 1
        for k in METRICS:
            v = float(metrics[nc2 if k == "nc2" else k][i])
            worst[k] = max(worst[k], v / b[k])  # b > 0: ε ≥ the rounding floor
    return worst, checked


def perturbations(p: dict, ctx) -> tuple[torch.Tensor, dict]:
    """ε and NC metrics of the optimum moved along random directions at every scale of SCALES (batched)."""
    K, n, d, lam, loss = p["K"], p["n"], p["d"], p["lam"], p["loss"]
    opt = closed_form(loss, K, d, lam)
    W, X = collapsed_pair(loss, K, n, d, opt.row_norm, random_rotation_of_ones_complement(ctx, d),
                          dtype=ctx.dtype, device=ctx.device)
    labels = balanced_labels(K, n, device=ctx.device)
    R, S = p["draws"], len(SCALES)
    s = torch.as_tensor(SCALES, dtype=ctx.dtype, device=ctx.device).repeat_interleave(R)
    Wp = W + s[:, None, None] * opt.row_norm * ctx.randn(S * R, K, d)
    Xp = ln(X + s[:, None, None] * math.sqrt(d) * ctx.randn(S * R, d, K * n))
    eps = ufm_objective(Wp, Xp, labels, loss, lam) - opt.value
    return eps, nc_metrics(Wp, Xp, labels)


def trained_pairs(p: dict, ctx) -> tuple[torch.Tensor, dict]:
    """ε and NC metrics of the last-layer pairs of L-RN1 networks trained from a perturbed attaining network."""
    K, n, d, lam, loss = p["K"], p["n"], p["d"], p["lam"], p["loss"]
    spec = ModelSpec("rn1", TRAIN_DEPTH, d, K, d0=K * n)
    X0, labels = gaussian_mixture(ctx, K, n, K * n)
    base = attaining_network(spec, X0, labels, loss, lam, ctx)
    parts = unpack(spec, base.expand(p["seeds"], -1).clone())
    groups = {name: g for name, _, g in spec.layout()}
    scale = torch.logspace(-3, -1, p["seeds"], dtype=ctx.dtype, device=ctx.device)
    for name in parts:  # perturb W_0 (frozen while training: NC1 > 0 then), the blocks and W_L
        if groups[name] == INNER or name in ("WL", "W0"):
            parts[name] = parts[name] + scale.view(-1, *[1] * (parts[name].dim() - 1)) * ctx.randn(*parts[name].shape)
    run = train(spec, pack(spec, parts), X0, labels, loss, lam, lam, max_iter=p["train_iter"], gtol=1e-12)
    eps = ufm_objective(run.WL, run.X, labels, loss, lam) - closed_form(loss, K, d, lam).value
    return eps, run.metrics  # both NC families


def evaluate(p: dict, form: str, ctx) -> Outcome:
    eps_p, nc_p = perturbations(p, ctx)
    eps_t, nc_t = trained_pairs(p, ctx)
    worst_p, n_p = _ratios(p, eps_p, nc_p)
    worst_t, n_t = _ratios(p, eps_t, nc_t)
    claims = [Claim.at_most(f"{k}_bound_on_perturbations", worst_p[k], 1.0,
                            f"max over {n_p} perturbed optima with ε ≤ ε₀ of {k}/(C(ε)ε^{EXPONENTS[k]:g})")
              for k in METRICS]
    if n_t:
        claims += [Claim.at_most(f"{k}_bound_on_trained", worst_t[k], 1.0,
                                 f"max over {n_t} trained networks' last-layer pairs with ε ≤ ε₀ of {k}/bound")
                   for k in METRICS]
    else:  # nothing to judge there: recorded, so that the evidence says so
        claims.append(Claim.measurement("trained_checked", 0.0, math.nan, "no trained network within ε₀"))
    details = _details(p, eps_p, nc_p, eps_t, nc_t, n_p, n_t, worst_p, worst_t)
    claims += [Claim.measurement(f"sharpness_{k}", details["sharpness"][k], EXPONENTS[k],
                                 f"fitted slope of log {k} vs log ε on the perturbations (the exponent p)")
               for k in METRICS]
    return Outcome(claims=claims, details=details, converged=None)


def _details(p, eps_p, nc_p, eps_t, nc_t, n_p, n_t, worst_p, worst_t) -> dict:
    loss, K, n, d, lam = p["loss"], p["K"], p["n"], p["d"], p["lam"]
    nc2 = NC2_OF[loss]
    eps0 = validity_limit(loss, K, n, d, lam)
    small = (eps_p > 0) & (eps_p <= eps0)
    sharp = {}
    for k in METRICS:
        y = nc_p[nc2 if k == "nc2" else k][small]
        try:
            sharp[k] = fit_power_law(eps_p[small].tolist(), y.tolist()).exponent
        except ValueError:
            sharp[k] = math.nan
    return {
        "gufm_optimum": closed_form(loss, K, d, lam).value, "validity_eps0": eps0,
        "limit_constants": limit_constants(loss, K, n, d, lam), "exponents": EXPONENTS,
        "perturbations_checked": n_p, "trained_checked": n_t, "trained_total": int(eps_t.numel()),
        "worst_ratio_perturbations": worst_p, "worst_ratio_trained": worst_t, "sharpness": sharp,
        "trained_gufm_excess": eps_t.tolist(),
        "trained_nc": {k: v.tolist() for k, v in nc_t.items()},
        "nc_metric_family": "Definition 3.4 (the paper's); trained_nc also shows the field's",
    }


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(loss="mse", d=5), False
    for b in BINDING:
        yield AS_PRINTED, dict(b.params), False
    for spec in CONTROLS:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


BINDING = (
    Binding("d ≥ K+1 (MSE), small λ", dict(loss="mse", K=3, d=4, lam=0.005),
            "d − (K+1) = 0; λ = 0.005 makes 1 − t* = Kλ/(d+Kλ) ≈ 0.004, the smallest curvature the constants use"),
    Binding("d ≥ K (CE), small λ", dict(loss="ce", K=4, n=2, d=4, lam=0.005),
            "d − K = 0: the simplex ETF fills 1^⊥; λ = 0.005 puts ρ* far out, where the wrong-class curvature is small"),
)
CONTROLS = (
    dict(const_scale=1e-4, allow_violation=True),  # a wrong constant: every bound claim fails
    dict(const_scale=1e-3, loss="mse", d=5, allow_violation=True),
    dict(exponent_shift=0.25, allow_violation=True),  # a wrong exponent: the small-ε draws break it
)
# Pins of the derived constants (near_optimal's C₁, C₂, C₃): each bound scaled down just enough that the named
# worst ratios end 1.4–9.2× above 1 at the seed (CE default: NC1 0.35/0.92, NC2 0.055/0.0008, NC3 0.17/0.15 on
# perturbations/trained; MSE d = 5: 0.009/0.011, 0.012/0.007, 0.043/0.026), so a constant loosened ×10 lets the
# pin pass (the controls above sit 1e3–1e4× outside and pin nothing). The literal scales are read off those ratios.
PINS = (
    dict(const_scale=0.1, allow_violation=True),  # NC1, NC3 on both families
    dict(const_scale=0.02, allow_violation=True),  # NC2A on the perturbations
    dict(const_scale=2e-4, allow_violation=True),  # NC2A on the trained networks
    dict(const_scale=0.005, loss="mse", d=5, allow_violation=True),  # every MSE bound
)


def _strategy():
    from ..strategies.neural_collapse import near_optimal_params

    return near_optimal_params()


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 4.1, Lemma 4.1 (used by Corollaries 4.5 and 4.7)",
    title="Lemma 4.1 (near-optimal ⇒ near the optima), quantitative for the UFM: NC1, NC3 ≤ C·ε and NC2 ≤ C·√ε",
    statement=("limsup_{ε→0} distmax(M_ε^GUFM \\ M_0^GUFM, M_0^GUFM) = 0; checked in the quantitative form the "
               "corollaries use, for the UFM-CE (d ≥ K) and UFM-MSE (d ≥ K+1): every feasible (W, X) with "
               "f − L* ≤ ε ≤ ε₀ has NC1 ≤ C₁(ε)ε, NC2 ≤ C₂(ε)√ε, NC3 ≤ C₃(ε)ε, constants derived in the module."),
    status=Status.VERIFIED,
    params=(
        Param("K", int, 3, "number of classes", low=2, high=16, sample=(2, 5)),
        Param("n", int, 2, "samples per class", low=1, high=32, sample=(1, 3)),
        Param("d", int, 6, "feature dimension", "d ≥ K (CE) / K+1 (MSE)", low=3, high=64, sample=(3, 9)),
        Param("lam", float, 0.05, "weight decay λ (> 0: the GUFM's optimal set is compact only then)", "λ > 0",
              low=1e-6, high=100.0, sample=(0.003, 1.0), log=True),
        Param("loss", str, "ce", "'ce' or 'mse'", choices=LOSSES, sample=LOSSES),
        seed_param(),
        Param("draws", int, 24, "random directions per perturbation scale (21 scales), batched", low=1, high=4096),
        Param("seeds", int, 6, "trained networks (perturbations 10⁻³…10⁻¹ of the attaining one), batched",
              low=1, high=256),
        Param("train_iter", int, 40, "L-BFGS iterations of the trained networks", low=0, high=100_000),
        Param("const_scale", float, 1.0, "multiplies every bound; ≠ 1 is a deliberately wrong constant", "1.0",
              low=1e-12, high=1e12),
        Param("exponent_shift", float, 0.0, "added to every exponent; ≠ 0 is a deliberately wrong exponent", "0.0",
              low=-2.0, high=2.0),
    ),
    evaluate=evaluate, hypotheses=hypotheses, cost=cost, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="K ≥ 2, n ≥ 1, d ≥ K (CE) / K+1 (MSE), λ > 0, ε ≤ ε₀, every feasible (W, X) with f − L* ≤ ε"),
    binding=BINDING, controls=CONTROLS, pins=PINS, strategy=_strategy,
))
