"""Theorem 4.3 for pre-LN ResNets (paper 004, Appendix B.2): the construction of the proof, built and checked.

What the paper prints
---------------------
Appendix B.2 defines pre-L-RN1 (Definition B.1, eq. (15)): X_1 = LN(W_0X_0 + b_0), X_{l+1} = X_l + σ(W_l LN(X_l) +
b_l), f_θ(X_0) = W_L LN(X_L), and states that "Theorem 4.3 and 4.6 and, thus, also Corollary 4.5 and 4.7 hold for
pre-LN architectures too", with these "necessary adaptations to the proof": the one-sample mover (14) shifts x_ki
by (α m√d/(2√(d+m²/4)))(1 + d_ki); "the 1 will not get absorbed in the residual stream, but is orthogonal to the
zero-sum component [...] This allows us to copy the entire first part of the post-LN proof [...] after the first N
blocks, the projections of all the samples on the zero-sum hyperplane are identical to those in the post-LN proof
[...] The construction for the next K̃ blocks works by the same reasoning as well. Thus, after these layers, the
projections of the samples on the zero-sum ball are identical to the post-LN proof". For transformers: "if the
norm of the ball along which a sample is traveling is larger [...] we need to upscale α by that ratio".
Quantifiers of the theorem: ∀ data with distinct inputs, d ≥ 4, λ > 0, CE/MSE: limsup_{L→∞} distmax(M̃_L \\ M_0^GUFM,
M_0^GUFM) = 0 for pre-L-RN1, i.e. (through Lemma 4.1) the optimum L*_L of (7) tends to L*_GUFM.

What this module builds
-----------------------
The post-LN network of the proof of Theorem 4.3 (``construction.build_resnet``: phase-1 one-sample movers with
the constant step of erratum A9, phase-2 group movers with the offsets of erratum A12, W_L = W*), its blocks
copied unchanged into pre-L-RN1, as Appendix B.2 says; and, with ``upscale=True``, every phase-2 block scaled by
the radius ρ = ‖P x‖/√d of the samples it moves (the transformer paragraph's fix, applied to ResNets). Both are
evaluated exactly in float64 by a forward pass, so U_pre(L) is a certified upper bound on L*_L (pre-LN), and
L*_GUFM (Lemma 4.2's closed form; every LN output is GUFM-feasible) a certified lower bound.

Findings (derived here, then checked)
-------------------------------------
* Phase 1 copies exactly: the mover's step lands on the sphere (x + s·d_ki = x̃, a chord of the sphere), so the
  zero-sum part of the stream keeps radius √d and LN(X_l^pre) = X_l^post to rounding.
* Phase 2 does not: a group mover adds t·h̄_j (+ a 1-component), x + t h̄_j is off the sphere, and in the pre-LN
  stream the radius ρ of the zero-sum part grows (dρ ≈ t cos β per block), so each later block turns the sample
  by t/ρ instead of t. The projections differ from the post-LN proof's (**proof erratum**: "identical to the
  post-LN proof" after the next K̃ blocks; gap 0.085·√d at the default) and the samples end farther from the
  targets: the last layer's fit excess falls from 1.4e-3 to 1.8e-4 over L = 19 … 577 (post-LN: 9.7e-4 to 8.4e-7),
  214× the post-LN one at L = 577, with ρ up to 5.5.
* Upscaling α by ρ (the transformer paragraph's fix) makes the steps the post-LN ones again (σ is positively
  homogeneous in (W, b)), but ρ then grows with every step and the phase-2 cost with it: U_pre rises from 90 to
  234 over L = 19 … 145 (``upscale=True``), so that fix does not keep the construction's cost bounded.

Claims (kind in brackets)
-------------------------
* ``pre_ln_above_gufm_optimum`` [identity]: min over depths of U_pre(L)/L*_GUFM ≥ 1 − LOWER_RTOL (the lower side
  of the sandwich holds for every θ by Theorem 4.3's step 1, checked as such in ``theorem_4_3``).
* ``phase1_projections_identical`` [proof_step]: max over phase-1 blocks and samples of ‖LN(X_l^pre) − X_l^post‖/√d
  ≤ COPY_ATOL.
* ``phase2_projections_identical`` [proof_step]: the same over phase-2 blocks; fails without ``upscale``.
* ``forward_matches_models`` [identity]: this module's pre-LN forward against ``models.objective`` (pre_rn1).
* measurements: U_pre(L) − L*_GUFM and its fitted exponent in L, the post-LN excess beside it, the fit excess
  pre-LN over post-LN, the final radius ρ (``details['sweep']``).

Status: **open**. The certified sandwich L*_GUFM ≤ L*_L ≤ U_pre(L) has width U_pre − L* = 86 → 15 over the
default depths L = 19 … 145 (fitted exponent −0.86; 4.9 at L = 577, still 97× L*_GUFM = 0.051), dominated by
the phase-1 cost, which copies the post-LN proof exactly: the width falls but does not close at any depth built,
and the step that is specific to pre-LN (phase 2) is broken. The width is the post-LN construction's to 4 digits
(86.17 vs 86.17 at L = 19, 14.851 vs 14.851 at L = 145): the phase-1 cost dominates both, which is why the post-LN
limit is decided by trained networks (``theorem_4_3_depth``), not by the proof's.
What depth and budget would decide it (``depth_to_close_at_fitted_rate``, a measurement): at its fitted rate the
construction's width reaches 1 % of L*_GUFM only at L ≈ 2·10⁷ (from the default depths), far beyond the 4096 this
check builds. The trained pre-L-RN1 sandwich (``theorem_4_3_depth arch=pre_rn1``, same machinery as the post-LN
one, depths 5 … 37 trained): 4.3 % of L* at L = 37 with 120 L-BFGS iterations per depth (fitted −0.20), 3.8 % with
400 (−0.23, 80 s of CPU); at that rate 1 % needs L ≈ 10⁴. So neither side decides it on a CPU: what would is a
trained pre-L-RN1 sweep to depth ≥ 300 with ≥ 1000 iterations per depth and restarts (a GPU's budget), showing
whether its certified excess steepens to the post-LN rate (−0.85 on the same kind of data) with a control whose
excess plateaus (an input copied across classes), or a pre-LN phase 2 with a proven rate.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, ProofErratum, Result, Status, Violation, seed_param
from ..data.classification import gaussian_mixture
from ..metrics.scaling import fit_power_law, scaling_series
from ..optim.manifolds import ln
from .construction import build_resnet
from .models import ModelSpec, init_params, objective as model_objective, unpack
from .paper import PAPER
from .ufm import LOSSES, closed_form, ufm_objective

ID = "neural_collapse.theorem_4_3_pre_ln"

# -- tolerances -----------------------------------------------------------------------------------------
# Exact lower bound: float64 rounding of an O(1) objective.
LOWER_RTOL = 1e-10
# Phase 1 copies the post-LN trajectory exactly; each block adds rounding of order 1e-16·√d to both streams, and
# the pre-LN stream's 1-component (up to ~α·N·L₁ ≲ 10) costs two more digits when LN centres it: 1e-9 leaves a
# margin far above the worst seen (4e-15) and is 10⁸ below the phase-2 discrepancy (~0.1).
COPY_ATOL = 1e-9
# Two forward passes of the same network (this module's and models'): summation order only.
FORWARD_RTOL = 1e-12
# "Closed" for the page's what-would-decide number: a sandwich width of 1 % of L*_GUFM, the certified-excess target
# the depth sweeps of theorem_4_3_depth ask (their ``target``).
CLOSE_TARGET = 0.01


def depth_to_close(depth: float, excess: float, optimum: float, exponent: float, target: float = CLOSE_TARGET) -> float:
    """The depth at which a width ``excess`` at ``depth``, falling as L^exponent, reaches ``target``·L*_GUFM
    (inf when it does not fall): what the fitted rate says a construction would need, not a certified number."""
    if not exponent < 0:
        return math.inf
    ratio = excess / (target * optimum)
    return depth * ratio ** (-1.0 / exponent) if ratio > 1 else depth


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    K, n, d = p["K"], p["n"], p["d"]
    if d < 4:
        out.append(Violation("d ≥ 4 (Theorem 4.3)", "the proof's curves need d ≥ 4: the construction cannot be built",
                             ("d",), bypassable=False))
    if d < (K + 1 if p["loss"] == "mse" else K):
        out.append(Violation("d ≥ K+1 (MSE) / K (CE)", "L*_GUFM is Lemma 4.2's closed form only there", ("d", "K"),
                             bypassable=False))
    groups = K * n + K
    if p["depths"][0] < 2 * groups + 1:
        out.append(Violation(f"depths ≥ 2(N+K)+1 = {2 * groups + 1}", "each depth needs L_1 = L_2 ≥ 2 blocks per "
                             "moved point and per class", ("depths",), bypassable=False))
    return out


def _streams(parts: dict, X0: torch.Tensor, labels: torch.Tensor, phase2: slice, upscale: bool):
    """Post-LN and pre-LN forward passes of the same blocks, with LN(X_l) recorded at every block.
    Returns (post features (nb+1, d, N), pre LN'd stream (nb+1, d, N), final pre-LN radius (N,), the block
    weights actually used by the pre-LN network (W, b) and the upscaling factors)."""
    W0, b0, Wb, bb = parts["W0"][0], parts["b0"][0], parts["W1"][0], parts["b1"][0]
    X = ln(W0 @ X0 + b0)
    Y = X.clone()
    d = X.shape[0]
    post, pre = [X], [X]
    Wpre, bpre = Wb.clone(), bb.clone()
    factors = torch.ones(Wb.shape[0], dtype=X.dtype, device=X.device)
    for l in range(Wb.shape[0]):
        X = ln(X + torch.relu(Wb[l] @ X + bb[l]))
        H = ln(Y)
        if upscale and phase2.start <= l < phase2.stop:
            # The radius of the zero-sum part of the samples this block moves (its ReLU output is non-zero for
            # them only); they share one radius (same ring angle, same steps), the mean is used.
            active = torch.relu(Wb[l] @ H + bb[l]).abs().sum(0) > 0
            centred = Y - Y.mean(0, keepdim=True)
            rho = centred.norm(dim=0) / math.sqrt(d)
            if bool(active.any()):
                factors[l] = rho[active].mean()
            Wpre[l], bpre[l] = Wb[l] * factors[l], bb[l] * factors[l]
        Y = Y + torch.relu(Wpre[l] @ H + bpre[l])
        post.append(X)
        pre.append(ln(Y))
    centred = Y - Y.mean(0, keepdim=True)
    return torch.stack(post), torch.stack(pre), centred.norm(dim=0) / math.sqrt(d), Wpre, bpre, factors


def construction_claims(U_pre, optimum_value, phase1_errs, phase2_errs, fwd_errs) -> list[Claim]:
    """The claims on the explicit networks, from per-depth numbers: ``U_pre`` their objectives, ``phase*_errs`` the
    largest gap ‖LN(X_l^pre) − X_l^post‖/√d over each phase's blocks and samples, ``fwd_errs`` the relative
    difference of the two forward passes (None: not compared, the upscaled network is not models' pre_rn1)."""
    claims = [
        Claim.at_least("pre_ln_above_gufm_optimum", min(U_pre) / optimum_value, 1.0,
                       "min over depths of U_pre(L) / L*_GUFM (the lower side of the sandwich: LN outputs are "
                       "GUFM-feasible, Theorem 4.3's step 1, checked on every θ in theorem_4_3)", kind="identity",
                       rtol=LOWER_RTOL),
        Claim.at_most("phase1_projections_identical", max(phase1_errs), 0.0,
                      "max over depths, phase-1 blocks and samples of ‖LN(X_l^pre) − X_l^post‖/√d (App. B.2: the "
                      "first N blocks copy the post-LN proof)", kind="proof_step", atol=COPY_ATOL),
        Claim.at_most("phase2_projections_identical", max(phase2_errs), 0.0,
                      "max over depths, phase-2 blocks and samples of ‖LN(X_l^pre) − X_l^post‖/√d (App. B.2: "
                      "'identical to the post-LN proof' after the next K̃ blocks)", kind="proof_step", atol=COPY_ATOL),
    ]
    if fwd_errs is not None:
        claims.append(Claim.at_most("forward_matches_models", max(fwd_errs), 0.0,
                                    "max over depths of |U_pre (this module) − objective (7) of models' pre_rn1| / "
                                    "U_pre", kind="identity", atol=FORWARD_RTOL))
    return claims


def evaluate(p: dict, form: str, ctx) -> Outcome:
    K, n, d, d0, loss, lam = p["K"], p["n"], p["d"], p["d0"], p["loss"], p["lam"]
    X0, labels = gaussian_mixture(ctx, K, n, d0)
    optimum = closed_form(loss, K, d, lam)
    theta0 = init_params(ModelSpec("rn1", 2, d, K, d0=d0), ctx, 1)
    sqrt_d = math.sqrt(d)
    rows, phase1_errs, phase2_errs, fwd_errs = [], [], [], []
    for L in p["depths"]:
        spec = ModelSpec("rn1", L, d, K, d0=d0)
        built = build_resnet(spec, theta0, X0, labels, loss, lam, lam)
        parts = unpack(spec, built.theta)
        P, G, q = built.extra["points"], built.extra["groups"], built.L1
        ph1, ph2 = slice(0, P * q), slice(P * q, (P + G) * q)
        post, pre, radius, Wpre, bpre, factors = _streams(parts, X0, labels, ph2, p["upscale"])
        gap = (post - pre).norm(dim=1).amax(dim=1) / sqrt_d  # (nb+1,) per block, max over samples
        phase1_errs.append(float(gap[1:ph1.stop + 1].max()) if ph1.stop else 0.0)
        phase2_errs.append(float(gap[ph2.start + 1:ph2.stop + 1].max()))
        WL = parts["WL"][0]
        inner = float(Wpre.pow(2).sum())
        U_pre = float(ufm_objective(WL, pre[-1], labels, loss, lam)) + 0.5 * lam * inner
        U_post = built.objective
        if not p["upscale"]:
            ref = float(model_objective(ModelSpec("pre_rn1", L, d, K, d0=d0), built.theta, X0, labels, loss, lam,
                                        lam)[0])
            fwd_errs.append(abs(ref - U_pre) / abs(U_pre))
        rows.append(dict(L=L, q=q, U_pre=U_pre, U_post=U_post, excess_pre=U_pre - optimum.value,
                         excess_post=U_post - optimum.value, inner_pre=inner,
                         fit_excess_pre=U_pre - 0.5 * lam * inner - optimum.value, fit_excess_post=built.fit_excess,
                         phase2_cost_pre=float(Wpre[ph2].pow(2).sum()), radius_max=float(radius.max()),
                         upscale_max=float(factors.max())))
    depths = [r["L"] for r in rows]
    excess = [max(r["excess_pre"], 0.0) for r in rows]
    fit = fit_power_law(depths, excess) if all(e > 0 for e in excess) else None
    claims = construction_claims([r["U_pre"] for r in rows], optimum.value, phase1_errs, phase2_errs,
                                 None if p["upscale"] else fwd_errs)
    phase1_err, phase2_err = max(phase1_errs), max(phase2_errs)
    claims += [
        Claim.measurement("excess_at_largest_depth", rows[-1]["excess_pre"], 0.0,
                          "U_pre − L*_GUFM at the largest depth: the width of the certified sandwich"),
        Claim.measurement("excess_exponent", fit.exponent if fit else math.nan, math.nan,
                          "fitted exponent of U_pre(L) − L*_GUFM in L"),
        Claim.measurement("depth_to_close_at_fitted_rate",
                          depth_to_close(depths[-1], excess[-1], optimum.value, fit.exponent) if fit else math.inf,
                          math.nan, f"the depth at which the width would reach {CLOSE_TARGET:g}·L*_GUFM at the fitted "
                          "rate (extrapolated from the depths built: what the construction would need, not evidence)"),
        Claim.measurement("fit_excess_pre_over_post", rows[-1]["fit_excess_pre"] / rows[-1]["fit_excess_post"], 1.0,
                          "the last layer's fit excess L_GUFM(W*, features) − L*, pre-LN over post-LN, at the largest "
                          "depth (> 1: the slowed phase 2 leaves the samples farther from the targets)"),
    ]
    details = {
        "gufm_optimum": optimum.value,
        "depths": depths,
        "sweep": rows,
        "phase1_max_gap": phase1_err,
        "phase2_max_gap": phase2_err,
        "upscale": p["upscale"],
        "fit": fit.to_dict() if fit else None,
        "scaling": [scaling_series("L", depths, "U_pre − L*_GUFM", excess, fit=fit),
                    scaling_series("L", depths, "U_post − L*_GUFM", [r["excess_post"] for r in rows])],
        "note": ("U_pre is a certified upper bound on the pre-LN optimum L*_L (an exact forward pass of an explicit "
                 "network) and L*_GUFM a certified lower bound; the limit claim needs the width to → 0"),
    }
    return Outcome(claims=claims, details=details, converged=None)


def cost(p: dict) -> Cost:
    d, N = p["d"], p["K"] * p["n"]
    built = sum(p["depths"]) * d * d * (N + 4)
    return Cost(elements=max(p["depths"]) * d * (d + 2 * N) * 3, work=8 * built)


ERRATA = (
    ProofErratum(
        step="Appendix B.2, adaptation of the proof of Theorem 4.3 to pre-LN ResNets (the K̃ group-mover blocks)",
        printed="the construction for the next K̃ blocks works by the same reasoning [...] after these layers, the "
                "projections of the samples on the zero-sum ball are identical to the post-LN proof",
        why="a group mover adds t·h̄_j, which leaves the sphere; in the pre-LN stream the zero-sum radius grows and "
            "later blocks turn the samples by t/ρ instead of t: the projections differ from the post-LN proof's by "
            "0.085·√d at the default instance (phase 1 copies to 4e-15), and the last layer's fit excess is 20× the "
            "post-LN one at L = 145 (214× at L = 577)",
        params={}, claim="phase2_projections_identical"),
)


def report_instances(suite):
    yield AS_PRINTED, {}, False
    yield AS_PRINTED, dict(upscale=True), False
    if suite.name == "thorough":
        yield AS_PRINTED, dict(depths=(19, 37, 73, 145, 289, 577)), False
        yield AS_PRINTED, dict(loss="mse", d=5), False


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Appendix B.2 (Definition B.1, pre-L-RN1; 'Necessary adaptations to the proof')",
    title="Theorem 4.3 for pre-LN ResNets (App. B.2): the adapted construction bounds the optimum; phase 2 does not "
          "copy the post-LN proof",
    statement=("Theorem 4.3 holds for pre-LN ResNets (Definition B.1): as L → ∞ the last-layer pairs of the global "
               "optima of (7) converge to the GUFM optima; proof: the post-LN construction's blocks, copied, move the "
               "zero-sum projections of the samples exactly as in the post-LN proof."),
    status=Status.OPEN,
    params=(
        Param("K", int, 2, "number of classes", low=2, high=8, sample=(2, 3)),
        Param("n", int, 2, "samples per class", low=1, high=8, sample=(1, 2)),
        Param("d0", int, 6, "input dimension", low=1, high=64),
        Param("d", int, 6, "inner width", "d ≥ 4, d ≥ K (CE) / K+1 (MSE)", low=3, high=64),
        Param("lam", float, 0.05, "weight decay λ", "λ > 0", low=1e-4, high=10.0, log=True),
        Param("loss", str, "ce", "'ce' or 'mse'", choices=LOSSES),
        Param("depths", list[int], (19, 37, 73, 145), "depths of the construction (forward passes only)",
              "each ≥ 2(N+K)+1", low=2, high=4096, length=(2, 12), increasing=True),
        Param("upscale", bool, False, "scale each phase-2 block by the radius of the samples it moves (the "
              "transformer paragraph's fix)"),
        seed_param(),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="data with distinct inputs, d ≥ 4, λ > 0, CE or MSE; the global optima of (7) for pre-L-RN1 "
                        "as L → ∞"),
    proof_errata=ERRATA,
    open_reason=("the certified sandwich L*_GUFM ≤ L*_L ≤ U_pre(L) does not close at the depths built (width 86 → "
                 "15 over L = 19 … 145, fitted exponent −0.86; 97× L*_GUFM at L = 577) and the pre-LN step of the "
                 "proof (phase 2 copying the post-LN trajectory) fails; at its fitted rate the construction needs "
                 "L ≈ 2·10⁷ to reach 1 % of L*, and the trained pre-L-RN1 sandwich (theorem_4_3_depth arch=pre_rn1) "
                 "stays at 3.8 % of L* at L = 37 (400 iterations per depth, rate −0.23: L ≈ 10⁴ at that rate). A "
                 "trained pre-L-RN1 sweep to depth ≥ 300 with ≥ 1000 iterations per depth and restarts (a GPU's "
                 "budget), with an input copied across classes as its control, or a pre-LN phase 2 with a proven "
                 "rate, would decide it"),
))
