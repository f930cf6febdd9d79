"""The deep-UFM remark of paper 004 (Section 4.2, "Deep neural collapse", after Corollary 4.5).

What the paper prints
---------------------
"Note that adding a residual connection (as in ResNets and transformers) resolves the inconsistency of deep
UFMs pointed out in [49] [...]. In fact, the optimal solution of a deep UFM with residual connections is obtained
by simply copying the shallow UFM in the first layer and setting all remaining layers to 0." Stated, not proved.

The model (the paper names no architecture; this is the L-RN1 block of Definition 3.1 on free features)
-----------------------------------------------------------------------------------------------------
Depth D (D − 1 residual blocks): free features X_1 = LN(V) (V ∈ R^{d×N} unconstrained: exactly the GUFM's
feasible set), X_{l+1} = LN(X_l + σ(W_l X_l + b_l)) for l = 1…D−1, logits W X_D, objective

    L_D = L(W X_D, Y) + (λ/2)(‖W‖_F² + Σ_{l<D} ‖W_l‖_F²),   biases unregularised (as in objective (7)).

Quantifiers: ∀ K, n, λ > 0, d ≥ K+1 (MSE) / d ≥ K (CE, Definition 3.4), ∀ D ≥ 1: min L_D = L*_UFM (Lemma 4.2's
optimum, closed form in ``ufm.closed_form``) and every minimiser has W_l = 0 for l < D, with (W, X_D) a UFM
optimum. Why it is true (derived here): X_D is LN-feasible, so L_D = L_UFM(W, X_D) + (λ/2)Σ‖W_l‖² ≥ L*_UFM +
(λ/2)Σ‖W_l‖² for every parameter (the reduction identity of Theorem 4.3's proof); the copy (X_1 = the UFM
optimum, W_l = b_l = 0, an exact identity block) attains L*_UFM. Hence min L_D = L*_UFM and every point within ε
of it has Σ‖W_l‖² ≤ 2ε/λ: the optimum zeroes the other layers.

What one check does, and its claims (kind in brackets)
------------------------------------------------------
It trains ``restarts`` random deep UFMs of depth ``D`` (batched L-BFGS in float64, every coordinate free), and
evaluates random points and the copy construction exactly.

* ``deep_ufm_above_shallow_optimum`` [bound]: min over random, trained and constructed points of L_D / L*_UFM ≥
  1 − LOWER_RTOL (the exact lower bound).
* ``trained_reaches_shallow_optimum`` [bound]: best trained L_D / L*_UFM ≤ 1 + REACH_RTOL: optimisation, not the
  construction, finds the optimum value (the sandwich closes from above).
* ``trained_inner_layers_zero`` [bound]: Σ_{l<D}‖W_l‖² at the best trained point ≤ INNER_ATOL.
* ``trained_collapsed`` [bound]: max(NC1, NC2, NC3) of (W, X_D) at the best trained point ≤ NC_TOL (NC2A for CE,
  NC2B for MSE): the copied shallow UFM is collapsed (Lemma 4.2).
* ``copy_attains_shallow_optimum`` [identity]: the copy's L_D = L*_UFM (by construction).
* ``inner_norm_certificate`` [identity]: Σ‖W_l‖² ≤ 2(L_D − L*_UFM)/λ at the best trained point (algebra).
* Convergence certificate (``converged``): the best start's gradient ≤ GTOL **and** no negative curvature: the
  smallest eigenvalue of the full Hessian there (``optim.curvature``: full Lanczos on Hessian-vector products)
  ≥ −CURV_RTOL × the largest (flat directions exist: rotations in 1^⊥, the scale of V).

Status: **verified** — the default (CE, K = 3, d = 4, D = 3), the binding instances (MSE at d = K+1, CE at
d = K with small λ) and the declared search hold. Negative controls: ``bound_scale`` 1 + 3e-10 / 1 − 3e-7 (literal, 3 allowances;
break the lower bound on the attaining copy and the reach claim), ``inner_factor`` = 0 (inner layers unregularised:
the trained blocks keep their weights, inner norm O(1)), MSE at d = K (no collapsed feasible pair: Lemma 4.2's
counterexample, the trained optimum is not collapsed and stays above the collapsed value).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Pin, Result, Status, Violation, seed_param
from ..data.frames import balanced_labels
from ..metrics.neural_collapse import nc_metrics
from ..optim.lbfgs import autograd_objective, batched_lbfgs
from ..optim.curvature import tangent_curvature
from ..optim.manifolds import ln
from .paper import PAPER
from .ufm import LOSSES, closed_form, collapsed_pair, ufm_objective

ID = "neural_collapse.deep_ufm_remark"
NC2_OF = {"mse": "nc2b", "ce": "nc2a"}

# -- tolerances -----------------------------------------------------------------------------------------
# The lower bound is exact: only float64 rounding of an O(1) objective may cross it.
LOWER_RTOL = 1e-10
# A converged L-BFGS (gradient ≤ GTOL) on the default sizes ends within ~1e-12 relative of L*; the MSE-UFM's weak
# curvature direction leaves up to ~1e-8; the control at 1 − 3e-7 (3 × REACH_RTOL) pins it.
REACH_RTOL = 1e-7
GTOL = 1e-9
# Σ‖W_l‖² ≤ 2·excess/λ ≤ 2·REACH_RTOL·L*/λ ≈ 1e-6 at the defaults: 1e-5 leaves room and is 1000× below the
# unregularised control (O(1e-2)).
INNER_ATOL = 1e-5
# NC metrics of an ε-optimal UFM point are O(√ε) (Lemma 4.1's exponents): √1e-8 = 1e-4.
NC_TOL = 1e-3
# Hessian: extreme eigenvalues by full Lanczos in float64 (exact to rounding), relative to the largest.
CURV_RTOL = 1e-6
# The copy's L_D is the shallow objective of the same pair through LN (idempotent on it): a few ulps of L*.
COPY_RTOL = 1e-12
# Σ‖W_l‖² ≤ 2(L_D − L*)/λ holds by algebra (L_D = UFM part + λ/2·Σ‖W_l‖² and the UFM part ≥ L*): only the
# rounding of L_D − L* (~1e-16 of an O(1) L*) may cross it; 1e-12 absolute is that with room.
CERT_ATOL = 1e-12


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    K, d, loss = p["K"], p["d"], p["loss"]
    need = K + 1 if loss == "mse" else K
    if d < need:
        out.append(Violation(f"d ≥ {'K+1 (MSE, Lemma 4.2)' if loss == 'mse' else 'K (CE, Definition 3.4)'}",
                             f"d = {d} < {need}: no collapsed feasible pair fits in 1^⊥", ("d", "K", "loss")))
    return out


def _layout(K: int, d: int, N: int, D: int) -> list[tuple[str, tuple[int, ...]]]:
    nb = D - 1
    return [("V", (d, N)), ("Wb", (nb, d, d)), ("bb", (nb, d, 1)), ("W", (K, d))]


def _unpack(theta: torch.Tensor, K: int, d: int, N: int, D: int) -> dict[str, torch.Tensor]:
    out, at = {}, 0
    for name, shape in _layout(K, d, N, D):
        size = math.prod(shape)
        out[name] = theta[:, at:at + size].reshape(theta.shape[0], *shape)
        at += size
    return out


def forward(theta: torch.Tensor, K: int, d: int, N: int, D: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(W (B, K, d), X_D (B, d, N), Σ_{l<D}‖W_l‖² (B,)) of the residual deep UFM, batched."""
    p = _unpack(theta, K, d, N, D)
    X = ln(p["V"])
    for l in range(D - 1):
        X = ln(X + torch.relu(p["Wb"][:, l] @ X + p["bb"][:, l]))
    return p["W"], X, p["Wb"].pow(2).flatten(1).sum(1)


def deep_objective(theta, labels, K, d, N, D, loss, lam, lam_inner) -> torch.Tensor:
    W, X, inner = forward(theta, K, d, N, D)
    return ufm_objective(W, X, labels, loss, lam) + 0.5 * lam_inner * inner


def no_negative_curvature(lo_eig: float, hi_eig: float) -> bool:
    """The Hessian's smallest eigenvalue is ≥ 0 up to CURV_RTOL of its largest (a minimum, not a saddle)."""
    return lo_eig >= -CURV_RTOL * abs(hi_eig)


def remark_claims(lows, best_value, bound, inner, metrics, nc2, copy_value, optimum_value, excess,
                  lam_inner) -> list[Claim]:
    """The remark's claims from the measured numbers: ``lows`` the lowest L_D of every family of points, ``inner``
    Σ_{l<D}‖W_l‖² and ``metrics`` the NC metrics at the best trained point, ``copy_value`` L_D of the copy (None
    where the UFM optimum is not attained), ``excess`` = best L_D − L*."""
    claims = [
        Claim.at_least("deep_ufm_above_shallow_optimum", min(lows) / bound, 1.0,
                       "min over random, trained and copied points of L_D / L*_UFM", rtol=LOWER_RTOL),
        Claim.at_most("trained_reaches_shallow_optimum", best_value / bound, 1.0,
                      "best trained L_D / L*_UFM", rtol=REACH_RTOL),
        Claim.at_most("trained_inner_layers_zero", inner, 0.0,
                      "Σ_{l<D}‖W_l‖² at the best trained point", atol=INNER_ATOL),
        Claim.at_most("trained_collapsed", max(metrics["nc1"], metrics[nc2], metrics["nc3"]), 0.0,
                      f"max(NC1, {nc2.upper()}, NC3) of (W, X_D) at the best trained point", atol=NC_TOL),
    ]
    if copy_value is not None:
        claims.append(Claim.close("copy_attains_shallow_optimum", copy_value, optimum_value,
                                  "L_D of the copy (shallow optimum, zero blocks) vs L*_UFM", kind="identity",
                                  rtol=COPY_RTOL))
    if lam_inner > 0:
        claims.append(Claim.at_most("inner_norm_certificate", inner, 2 * max(excess, 0.0) / lam_inner,
                                    "Σ‖W_l‖² ≤ 2(L_D − L*)/λ (reduction identity)", kind="identity", atol=CERT_ATOL))
    return claims


def evaluate(p: dict, form: str, ctx) -> Outcome:
    K, n, d, D, lam, loss = p["K"], p["n"], p["d"], p["D"], p["lam"], p["loss"]
    lam_inner, R = p["inner_factor"] * p["lam"], p["restarts"]
    N = K * n
    labels = balanced_labels(K, n, device=ctx.device)
    optimum = closed_form(loss, K, d, lam)
    bound = optimum.value * p["bound_scale"]

    def fn(theta):
        return deep_objective(theta, labels, K, d, N, D, loss, lam, lam_inner)

    # Random starts: features at random, blocks at scale 1/√d, W at 1/√d; biases 0.
    parts = [ctx.randn(R, d * N), ctx.randn(R, (D - 1) * d * d) / math.sqrt(d),
             torch.zeros(R, (D - 1) * d, dtype=ctx.dtype, device=ctx.device), ctx.randn(R, K * d) / math.sqrt(d)]
    theta0 = torch.cat(parts, dim=1)
    with torch.no_grad():
        random_values = fn(theta0)
    res = batched_lbfgs(autograd_objective(fn), theta0, max_iter=p["train_iter"], gtol=GTOL)
    best = int(torch.argmin(res.f))
    theta_best = res.x[best:best + 1]
    with torch.no_grad():
        W, X, inner = forward(theta_best, K, d, N, D)
        best_value = float(fn(theta_best)[0])
        metrics = {k: float(v[0]) for k, v in nc_metrics(W, X, labels).items()}
    # The copy: X_1 = the collapsed UFM optimum (V = X_1, LN is idempotent on it), zero blocks, W optimal.
    if optimum.attainable:
        Wc, Xc = collapsed_pair(loss, K, n, d, optimum.row_norm, device=ctx.device)
        copy = torch.cat([Xc.reshape(1, -1), torch.zeros(1, (D - 1) * d * (d + 1), dtype=ctx.dtype,
                                                          device=ctx.device), Wc.reshape(1, -1)], dim=1)
        with torch.no_grad():
            copy_value = float(fn(copy)[0])
    else:
        copy_value = math.nan
    # Full Lanczos (as many Hessian-vector products as parameters): the whole spectrum's extremes, to rounding.
    curvature = tangent_curvature(fn, theta_best, generator=ctx.generator)
    lo_eig, hi_eig = float(curvature.lam_min[0]), float(curvature.lam_max[0])
    grad = float(res.stationarity[best])
    no_neg_curv = no_negative_curvature(lo_eig, hi_eig)
    converged = bool(res.converged[best]) and no_neg_curv
    excess = best_value - optimum.value
    nc2 = NC2_OF[loss]
    lows = [float(random_values.min()), float(res.f.min())] + ([copy_value] if optimum.attainable else [])
    claims = remark_claims(lows, best_value, bound, float(inner[0]), metrics, nc2,
                           copy_value if optimum.attainable else None, optimum.value, excess, lam_inner)
    claims.append(Claim.measurement("hessian_min_eig", lo_eig, 0.0, "smallest Hessian eigenvalue at the best point"))
    details = {
        "shallow_optimum": optimum.value,
        "shallow_formula": optimum.formula,
        "bound_used": bound,
        "best_value": best_value,
        "best_excess": excess,
        "copy_value": copy_value,
        "trained_values": res.f.tolist(),
        "trained_status": res.status,
        "best_grad_norm": grad,
        "hessian_min_eig": lo_eig,
        "hessian_max_eig": hi_eig,
        "no_negative_curvature": no_neg_curv,
        "best_inner_sq_norm": float(inner[0]),
        **{f"best_{k}": v for k, v in metrics.items()},
        "random_min_value": float(random_values.min()),
        "model": "X_1 = LN(V) free, X_{l+1} = LN(X_l + σ(W_l X_l + b_l)), logits W X_D",
    }
    return Outcome(claims=claims, details=details, converged=converged, headline="trained_reaches_shallow_optimum")


def cost(p: dict) -> Cost:
    K, d, N, D, R = p["K"], p["d"], p["K"] * p["n"], p["D"], p["restarts"]
    P = d * N + (D - 1) * d * (d + 1) + K * d
    per = D * (d * d * N + K * d * N)
    return Cost(elements=R * (20 * P + D * d * N) + P * P, work=R * p["train_iter"] * 10 * per + P * 4 * per)


BINDING = (
    Binding("d ≥ K+1 (MSE), small λ", dict(loss="mse", K=3, d=4, lam=0.05), "d − (K+1) = 0"),
    Binding("d ≥ K (CE; Definition 3.4), small λ", dict(loss="ce", K=3, d=3, lam=0.01), "d − K = 0"),
)
CONTROLS = (
    dict(bound_scale=1 + 3e-10, allow_violation=True),  # L* too high by 3 × LOWER_RTOL: the copy (exactly L*) is below it
    dict(bound_scale=1 - 3e-7, allow_violation=True),  # L* too low by 3 × REACH_RTOL: nothing reaches it
    dict(inner_factor=0.0, allow_violation=True),  # blocks unregularised: nothing drives them to zero
    dict(loss="mse", K=3, d=3, allow_violation=True),  # d = K (MSE): no collapsed feasible pair (Lemma 4.2)
)
# The tolerances the first two controls pin (3 allowances outside): LOWER_RTOL = 1e-10 on the attaining copy,
# REACH_RTOL = 1e-7 on the trained networks
PINS = (
    Pin("deep_ufm_above_shallow_optimum", "bound_scale", fails=1 + 3e-10, within=10,
        params=dict(allow_violation=True), reported=True),
    Pin("trained_reaches_shallow_optimum", "bound_scale", fails=1 - 3e-7, within=10,
        params=dict(allow_violation=True), reported=True),
)


def report_instances(suite):
    yield AS_PRINTED, {}, False
    for b in BINDING:
        yield AS_PRINTED, dict(b.params), False
    if suite.name == "thorough":
        yield AS_PRINTED, dict(D=6, K=4, n=2, d=6, restarts=6, train_iter=3000), False
    for spec in CONTROLS:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


def _strategy():
    from ..strategies._common import declared_params

    return declared_params(ID, restarts=2, train_iter=800)  # one example of the search stays about a second


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Section 4.2, 'Deep neural collapse' (after Corollary 4.5)",
    title="Deep-UFM remark: the residual deep UFM's optimum copies the shallow UFM and zeroes every other layer",
    statement=("The optimal solution of a deep UFM with residual connections is obtained by copying the shallow "
               "UFM in the first layer and setting all remaining layers to 0 (checked for LN residual blocks "
               "X_{l+1} = LN(X_l + σ(W_l X_l + b_l)) on free LN-sphere features, weight decay λ on every W)."),
    status=Status.VERIFIED,
    params=(
        Param("K", int, 3, "number of classes", low=2, high=8, sample=(2, 3)),
        Param("n", int, 2, "samples per class", low=1, high=8, sample=(1, 2)),
        Param("d", int, 4, "width", "d ≥ K+1 (MSE), d ≥ K (CE)", low=3, high=16, sample=(3, 5)),
        Param("D", int, 3, "depth of the deep UFM (D − 1 residual blocks)", low=1, high=16, sample=(1, 3)),
        Param("lam", float, 0.1, "weight decay λ on W and on every block", "λ > 0", low=1e-4, high=10.0,
              sample=(0.05, 1.0), log=True),
        Param("inner_factor", float, 1.0, "the blocks' weight decay is inner_factor·λ (≠ 1: a different model; 0 is "
              "the negative control)", "1.0", low=0.0, high=10.0,
              breaks="every layer regularised with the same λ (a deep UFM with weight decay)"),
        Param("loss", str, "ce", "'ce' or 'mse'", choices=LOSSES, sample=LOSSES),
        Param("restarts", int, 4, "random starts, batched", low=1, high=64),
        Param("train_iter", int, 1500, "L-BFGS iterations", low=1, high=100_000),
        Param("bound_scale", float, 1.0, "multiplies L*_UFM; ≠ 1 is a deliberately wrong constant", "1.0",
              low=1e-6, high=1e6, breaks="exact UFM optimum"),
        seed_param(),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="K, n, λ > 0, d ≥ K+1 (MSE) / K (CE), depth D ≥ 1; every global minimiser of the residual "
                        "deep UFM"),
    binding=BINDING,
    controls=CONTROLS,
    pins=PINS,
    strategy=_strategy,
))
