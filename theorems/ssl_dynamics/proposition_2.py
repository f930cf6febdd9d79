"""Proposition 2 of paper 002: a Frobenius-norm constraint does not prevent dimension collapse.

Statement as printed
--------------------
"For u^φ(x) = W₂ᵀφ(W₁x) and loss (1) or (2), min_{W₁,W₂} L s.t. ‖W₁‖_F ≤ c₁, ‖W₂‖_F ≤ c₂ has a global solution of
the form u(x) = [a(x), 0, …, 0]ᵀ."  (The paper calls this model "linear"; it is u^φ, and the proof in the
appendix treats a general φ.)

Quantifiers: ∀ data (triplets), φ, c₁, c₂, h, z: ∃ a global minimiser whose output is one-dimensional. The
witness is searched (projected GD from ``restarts`` random starts) and compared with a closed-form lower bound
over *all* feasible points, so a failure could not be blamed on one witness.

Closed forms
------------
* For fixed W₁, min_{‖W₂‖_F ≤ c₂} Tr(W₂ᵀfW₂) = c₂² min(λ_min(sym f), 0), f = Σᵢ φ(W₁xᵢ)(φ(W₁xᵢ⁻) − φ(W₁xᵢ⁺))ᵀ/n,
  attained by the rank-1 W₂ = c₂ v e₁ᵀ: a one-dimensional output. Checked for φ = ``activation`` at a random W₁.
* Linear φ: min L = c₁²c₂² λ_min(C) when λ_min(C) < 0, and every minimiser has P = W₂ᵀW₁ of rank 1 along v₁
  (‖P‖_F ≤ ‖W₂‖₂‖W₁‖_F ≤ c₁c₂ with equality only for rank-1 W₂).
The statement is true as printed ("has a global solution"): status ``verified`` (unchanged); every claim is a
``bound``. The hypothesis that nearly binds: λ_min(C) < 0 with λ_min = −0.1 (|λ_min|/‖C‖ = 0.1).

What one check does
-------------------
Projected gradient descent (step, then rescale each factor into its ball), ``restarts`` random starts batched;
certificate: the projected-gradient residual ‖W − Π(W − ∇L/L_g)‖·L_g per start (L_g the step's inverse), computed
on the unit balls (W = cU, so step and certificate do not depend on c₁, c₂). The rank and alignment claims judge
only certified starts that reach c₁²c₂²λ_min(C); with none, the run is not converged.
Claims: ``no_start_below_closed_form``, ``best_reaches_closed_form``, ``minimiser_rank_one`` (σ₂/σ₁ of P),
``minimiser_along_v1``, ``nonlinear_inner_minimum`` (the PGD value over W₂ at fixed W₁ vs c₂²λ_min(sym f)),
``nonlinear_minimiser_rank_one``. Negative controls: ``constraint='spectral'`` (‖·‖₂ balls, the setting of
Prop. 3: rank min(z, ℓ) optima below the Frobenius value), ``bound_scale`` = 1 + 3e-6 and
1 − 3e-10 (a wrong constant ~3 allowances outside REACH_RTOL and LOWER_RTOL, which pins each).
"""

from __future__ import annotations

import math
import random

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import sample_params
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..core.result import Pin
from ..optim.threads import one_thread
from .constraints import CONSTRAINTS, project_ball
from .instances import (build_C, common_C_violations, d_param, data_param, explicit_C_param, is_simple, loss_param,
                        n_param, nc_sign_param, spectrum_of)
from .paper import PAPER
from .trace_form import ACTIVATIONS, activation, sym

ID = "ssl_dynamics.proposition_2"
# No feasible point may beat the closed form by more than float64 rounding of an O(‖C‖c₁²c₂²) sum.
LOWER_RTOL = 1e-10
# Pins of REACH_RTOL and LOWER_RTOL: wrong constants that fail their claims by ~3 allowances (literals, not built
# from the tolerances they pin, so loosening a tolerance ×10 lets its control pass; their Pins below).
PIN_ABOVE = 1 + 3e-6
PIN_BELOW = 1 - 3e-10
# PGD stops at a projected-gradient residual of GTOL·|bound|; the value is then within ~GTOL² of optimal.
REACH_RTOL = 1e-6
GTOL = 1e-7
RANK_TOL = 1e-5
ALIGN_TOL = 1e-6


def _pgd(ctx, C, h, z, c1, c2, constraint, restarts, max_iter, W1_fixed=None):
    """Projected GD on L = Tr(W₂ᵀW₁CW₁ᵀW₂) (or on W₂ only, for Tr(W₂ᵀfW₂) with ``W1_fixed``=f).

    Run on the unit balls, W = c·U: L(W₁, W₂) = c₁²c₂²L(U₁, U₂) and both balls scale linearly, so the iterates,
    the step and the residual certificate are independent of c₁, c₂ (in the c-coordinates the curvature is
    ~c₁²c₂²‖C‖ while a step and a GTOL fixed by max(c₁, c₂)²‖C‖ certified every start at once when c₁c₂ ≪ 1: the
    fuzz case c₂ = 1e-6 judged first-order points that never reached the minimum). The weights come back scaled;
    the starts are drawn on the unit balls whatever c₁, c₂ (a start at scale 1/c ≪ 1 sits near the saddle W = 0)."""
    d = C.shape[0]
    W2 = project_ball(ctx.randn(restarts, h, z), 1.0, constraint)  # starts on the unit balls' boundary, any c
    if W1_fixed is None:
        W1 = project_ball(ctx.randn(restarts, h, d), 1.0, constraint)
        lip = 2 * float(torch.linalg.matrix_norm(C, ord=2))
    else:
        W1 = None
        lip = 2 * float(torch.linalg.matrix_norm(W1_fixed, ord=2))
    eta = 0.5 / lip
    res = torch.full((restarts,), math.inf, dtype=C.dtype, device=C.device)
    it = 0
    for it in range(1, max_iter + 1):
        if W1 is None:
            g2 = 2 * W1_fixed @ W2
            W2n = project_ball(W2 - eta * g2, 1.0, constraint)
            res = (W2n - W2).flatten(1).norm(dim=1) / eta
            W2 = W2n
        else:
            P = W2.transpose(-1, -2) @ W1
            g1, g2 = 2 * W2 @ P @ C, 2 * W1 @ C @ P.transpose(-1, -2)
            W1n, W2n = project_ball(W1 - eta * g1, 1.0, constraint), project_ball(W2 - eta * g2, 1.0, constraint)
            res = torch.sqrt((W1n - W1).flatten(1).norm(dim=1) ** 2 + (W2n - W2).flatten(1).norm(dim=1) ** 2) / eta
            W1, W2 = W1n, W2n
        if it % 50 == 0 and bool((res <= GTOL * lip).all()):
            break
    return (None if W1 is None else W1 * c1), W2 * c2, res, it, GTOL * lip


def _linear_part(ctx, p, C, lam, V):
    """PGD on the full problem from every start; the claims on its value and on the rank of the optimal product."""
    h, z, c1, c2, cons = p["h"], p["z"], p["c1"], p["c2"], p["constraint"]
    bound = p["bound_scale"] * c1**2 * c2**2 * min(float(lam[0]), 0.0)
    W1, W2, res, iters, gtol = _pgd(ctx, C, h, z, c1, c2, cons, p["restarts"], p["max_iter"])
    P = W2.transpose(-1, -2) @ W1
    vals = (P @ C * P).sum(dim=(-1, -2))
    conv = res <= gtol
    # The rank and alignment claims are about minimisers: judge only certified starts at the known minimum
    # c₁²c₂²λ_min(C) (the true one, not ``bound_scale``'s); with none, the run is reported not converged.
    minimum = c1**2 * c2**2 * min(float(lam[0]), 0.0)
    hit = conv & (vals <= minimum + REACH_RTOL * abs(minimum))
    judged = hit
    S = torch.linalg.svdvals(P)
    ratio = (S[:, 1] / S[:, 0]) if S.shape[1] > 1 else torch.zeros_like(vals)
    align = 1 - (torch.linalg.svd(P)[2][:, 0, :] @ V[:, 0]).abs()
    best = int(torch.argmin(torch.where(conv, vals, torch.full_like(vals, math.inf)))) if bool(conv.any()) else 0
    claims = [
        Claim.at_least("no_start_below_closed_form", float(vals.min()), bound,
                       "every feasible end point is ≥ c₁²c₂²·min(λ_min(C), 0)", rtol=LOWER_RTOL),
        Claim.at_most("best_reaches_closed_form", float(vals[best]), bound,
                      "the best certified start attains c₁²c₂²λ_min(C)", rtol=REACH_RTOL),
    ]
    if bool(judged.any()):
        claims += [Claim.at_most("minimiser_rank_one", float(ratio[judged].max()), 0.0,
                                 "σ₂/σ₁ of P = W₂ᵀW₁ at the optima", atol=RANK_TOL),
                   Claim.at_most("minimiser_along_v1", float(align[judged].max()), 0.0, "1 − |⟨v_top(P), v₁⟩|",
                                 atol=ALIGN_TOL)]
    details = {"closed_form": bound, "lambda": lam.tolist(), "best_value": float(vals[best]), "values": vals.tolist(),
               "starts_converged": int(conv.sum()), "starts_reaching": int(hit.sum()),
               "best_residual": float(res[best]), "gtol": gtol, "iterations": iters, "best_sv_ratio": float(ratio[best]),
               "residual_over_gtol_min": float((res / gtol).min()),
               "judged_sv_ratios": ratio[judged].tolist(), "judged_alignments": align[judged].tolist()}
    return claims, details, bool(hit.any())


def _nonlinear_part(ctx, p, t):
    """φ nonlinear at a random W₁ on the Frobenius sphere: the inner problem over W₂ against c₂²λ_min(sym f)."""
    h, z, c1, c2 = p["h"], p["z"], p["c1"], p["c2"]
    phi = activation(p["activation"])
    W1r = project_ball(ctx.randn(h, t.d), c1, "frobenius")
    W1r = W1r * c1 / W1r.norm()
    f = sym(phi(t.x @ W1r.T).T @ (phi(t.neg @ W1r.T) - phi(t.pos @ W1r.T)) / t.n)
    mu = float(torch.linalg.eigvalsh(f)[0])
    bound = p["bound_scale"] * c2**2 * min(mu, 0.0)
    _, W2f, res, it, gtol = _pgd(ctx, f, h, z, c1, c2, p["constraint"], p["restarts"], p["max_iter"], W1_fixed=f)
    vf = (W2f * (f @ W2f)).sum(dim=(-1, -2))
    conv = res <= gtol
    best = int(torch.argmin(torch.where(conv, vf, torch.full_like(vf, math.inf)))) if bool(conv.any()) else 0
    Sf = torch.linalg.svdvals(W2f[best])
    claims = [
        Claim.at_least("nonlinear_no_start_below", float(vf.min()), bound,
                       f"φ = {p['activation']}: every W₂ gives ≥ c₂²·min(λ_min(sym f), 0) at a random W₁",
                       rtol=LOWER_RTOL),
        Claim.at_most("nonlinear_inner_minimum", float(vf[best]), bound, "the best certified W₂ attains c₂²λ_min(sym f)",
                      rtol=REACH_RTOL),
        Claim.at_most("nonlinear_minimiser_rank_one", float(Sf[1] / Sf[0]) if Sf.numel() > 1 else 0.0, 0.0,
                      "σ₂/σ₁ of the optimal W₂: a one-dimensional output", atol=RANK_TOL),
    ]
    details = {"nonlinear_lambda_min_f": mu, "nonlinear_best": float(vf[best]), "nonlinear_iterations": it,
               "nonlinear_converged": int(conv.sum())}
    return claims, details, bool(conv.any())


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    C, t = build_C(p, ctx)
    lam, V = torch.linalg.eigh(C)
    claims, details, converged = _linear_part(ctx, p, C, lam, V)
    if t is not None:
        nl_claims, nl_details, nl_conv = _nonlinear_part(ctx, p, t)
        claims, details, converged = claims + nl_claims, {**details, **nl_details}, converged and nl_conv
    return Outcome(claims=claims, details=details, converged=converged, headline="best_reaches_closed_form")


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = common_C_violations(p)
    if p["constraint"] != "frobenius":
        out.append(Violation("Frobenius-norm constraints ‖W₁‖_F ≤ c₁, ‖W₂‖_F ≤ c₂",
                             f"constraint = {p['constraint']!r} (operator-norm balls are Prop. 3's setting)",
                             ("constraint",)))
    if any(not v.bypassable for v in out):
        return out
    lam = spectrum_of(p)
    if lam[0] >= 0:
        out.append(Violation("λ_min(C) < 0", f"λ_min(C) = {lam[0]:.4g}: the minimum is 0 at W = 0", ("C",)))
    elif not is_simple(lam):
        out.append(Violation("λ_min(C) simple", f"λ₁ = {lam[0]:.6g}, λ₂ = {lam[1]:.6g}", ("C",)))
    return out


def cost(p: dict) -> Cost:
    """The triplets, the nonlinear f (3n·h), and PGD over restarts·h·(d + z) for max_iter iterations (twice)."""
    per_iter = p["restarts"] * p["h"] * (p["d"] + p["z"]) * max(p["d"], p["z"]) * 4
    return Cost(elements=3 * p["n"] * max(p["d"], p["h"]) + 4 * p["restarts"] * p["h"] * (p["d"] + p["z"]),
                work=2 * p["max_iter"] * per_iter + 6 * p["n"] * p["h"] * p["d"])


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(data="moons", d=2, z=2, activation="softplus2"), False
    rng = random.Random(3)
    for _ in range(suite.report_examples):
        yield AS_PRINTED, sample_params(RESULT, AS_PRINTED, rng, fixed=dict(data="gaussian")), False
    yield AS_PRINTED, dict(constraint="spectral"), True
    yield AS_PRINTED, dict(bound_scale=PIN_ABOVE), True
    yield AS_PRINTED, dict(bound_scale=PIN_BELOW), True


BINDING_LMIN = dict(C="-0.1,0,0;0,0.5,0;0,0,1", d=3, z=2)


def _strategy():
    from ..strategies import declared_params

    return declared_params(ID, AS_PRINTED, data="gaussian")


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'SSL with (Orthogonality) Constraints', Proposition 2",
    title="Proposition 2: Frobenius-norm constraints do not prevent dimension collapse",
    statement="For u^φ(x) = W₂ᵀφ(W₁x) and loss (1) or (2), min L s.t. ‖W₁‖_F ≤ c₁, ‖W₂‖_F ≤ c₂ has a global solution "
              "u(x) = [a(x), 0, …, 0]ᵀ.",
    status=Status.VERIFIED,
    logic=Logic(for_all="every SSL data set (loss (1) or (2)), activation φ, c₁, c₂ > 0, width h and z",
                exists="a global minimiser whose output is [a(x), 0, …, 0]ᵀ (rank-one output)"),
    binding=(Binding("λ_min(C) < 0", BINDING_LMIN, "λ_min = −0.1, |λ_min|/‖C‖ = 0.1"),),
    controls=(dict(constraint="spectral", allow_violation=True),
              dict(bound_scale=PIN_ABOVE, allow_violation=True),
              dict(bound_scale=PIN_BELOW, allow_violation=True)),
    # Pin of RANK_TOL: PGD stopped after 32 iterations (not converged) leaves the nonlinear inner problem's W₂ at
    # σ₂/σ₁ between 1 and 10 RANK_TOLs (a literal budget; loosened ×10 the claim passes; its Pin below).
    # Pin of GTOL: 80 iterations leave every start's projected-gradient residual 2.3–11 GTOLs (not converged);
    # GTOL loosened ×10 certifies them (checks/ssl_dynamics/test_proposition_2.py).
    pins=(
        Pin("nonlinear_minimiser_rank_one", "max_iter", fails=32, within=10),
        dict(max_iter=80),
        Pin(("best_reaches_closed_form", "nonlinear_inner_minimum"), "bound_scale", fails=1 + 3e-6, within=10,
            params=dict(allow_violation=True), reported=True),
        Pin(("no_start_below_closed_form", "nonlinear_no_start_below"), "bound_scale", fails=1 - 3e-10,
            within=10, params=dict(allow_violation=True), reported=True),
    ),
    strategy=_strategy,
    params=(
        data_param(), loss_param(), nc_sign_param(), explicit_C_param("symmetric, λ_min < 0 simple (linear part only)"),
        d_param(5, sample=(2, 5)),
        Param("z", int, 3, "output dimension", low=2, high=64, sample=(2, 4)),
        Param("h", int, 12, "hidden width", low=1, high=10_000, sample=(4, 16)),
        n_param(400, sample=None),
        Param("c1", float, 1.5, "‖W₁‖_F bound", low=1e-6, high=1e3, sample=(0.5, 2.0)),
        Param("c2", float, 0.8, "‖W₂‖_F bound", low=1e-6, high=1e3, sample=(0.5, 2.0)),
        Param("activation", str, "tanh", "φ of the nonlinear inner problem", choices=ACTIVATIONS,
              sample=("tanh", "softplus2")),
        Param("constraint", str, "frobenius", "norm balls (spectral = negative control)", "frobenius",
              choices=CONSTRAINTS),
        Param("restarts", int, 8, "random starts batched", low=1, high=1024),
        Param("max_iter", int, 20000, "PGD iterations", low=1, high=1_000_000),
        Param("bound_scale", float, 1.0,
              "multiplies the closed form c₁²c₂²λ_min(C); ≠ 1 is a deliberately wrong constant", "= 1", low=-1e3,
              high=1e3, breaks="exact closed form c₁²c₂²λ_min(C)"),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
