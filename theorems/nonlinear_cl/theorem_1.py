"""Theorem 1 of paper 001 (Tian): stability of an LME.

Statement as printed
--------------------
"If w_* is an LME of A(w_*) and λ_gap(w_*) > ρ(w_*), then w_* is stable." Here λ_gap = λ₁ − λ₂ of A(w_*) and
ρ(w_*) is the local roughness, the smallest ρ with ‖(A(v) − A(w_*))w_*‖ ≤ ρ‖v − w_*‖ + O(‖v − w_*‖²). The proof
(B.3) shows that the tangential component of a perturbation shrinks at rate at least λ_gap − ρ under
ẇ = P⊥_w A(w) w.

Reading chosen (digest 001 §2, Theorem 1)
-----------------------------------------
"Stable" is read as the proof shows it: the linearisation J = Qᵀ[(A(w_*) − λ_*I) + D]Q on the tangent space
w_*⊥ (Q an orthonormal basis, D the derivative u ↦ ∂_u[A(v)]w_*) has λ_max(J) ≤ −(λ_gap − ρ), and small
perturbations return at least at that rate. ρ = ‖D Q‖₂ is measured by central finite differences on the
sphere, and for ReLU on a Gaussian mixture also by the digest's closed form D = −𝔼[ReLU(w_*ᵀx)]·M (M the
plane measure), which the check compares. Setting: uniform α, no augmentation, N → ∞ (A is a covariance).

Instances (``model``)
---------------------
* ``mixture``: d+1 isotropic Gaussian clusters at a rotated regular simplex (closed-form A); LMEs are found
  by power iteration / projected ascent from ``starts`` random starts (batched) and each one is checked.
* ``summation``: latent summation model (§3.1) with q_m = q, candidate w_* = u_1; exact enumeration, ρ = 0.
  For q ≥ (3 − √5)/2 the candidate is not an LME: the negative control the issue names (perturbations grow).
* ``categorical``: latent categorical model, candidate u_1. Every other atom sits on the gating plane: a kink,
  ρ = ∞, so the theorem does not apply; the LME finder reports a kink (negative control, allow_violation).

Claims
------
* ``lme_found``: at least one candidate is an LME (self-consistent top eigenvector, distinct top eigenvalue,
  no kink) with λ_gap > ρ.
* ``roughness_closed_form_matches_fd`` (mixture): ‖D_fd − D_formula‖ ≤ FD_RTOL·‖D_formula‖.
* ``linearised_rate_at_least_guaranteed``: min over LMEs of −λ_max(J)/(λ_gap − ρ) ≥ 1 − RATE_RTOL.
* ``perturbations_return``: perturbations of angle ``perturb`` shrink over the run at least as fast as
  the guaranteed rate (Euler-corrected): max distance ratio ≤ exp(−(1 − FLOW_RTOL)·r_euler·T).
Negative controls: the summation model above threshold, the categorical kink, ``rate_scale`` > 1 (a wrong
constant in the guaranteed rate) and ``closed_form_scale`` ≠ 1 (a wrong constant in D).

``observed`` = min −λ_max(J) over the LMEs checked, ``bound`` = the guaranteed λ_gap − ρ there, tightness =
bound/observed (digest §6 B: ≈ 0.985 on the tetrahedral mixture; exactly 1 for discrete data, ρ = 0).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Outcome, Param, Result, Status, Violation
from ..data.latents import (categorical_model, dirichlet, random_orthonormal, random_signed_permutation, simplex_mixture,
                            summation_model)
from ..optim.sphere_flow import projected_flow, random_tangent, random_unit, retract
from .covariance import A_discrete, A_mixture, kink_margin, roughness_D_mixture, roughness_fd, tangent_basis
from .lme import classify, find_lmes

ID = "nonlinear_cl.theorem_1"
Q_STAR = (3 - math.sqrt(5)) / 2
MODELS = ("mixture", "summation", "categorical")

# Central differences with ε = 1e-5: truncation ~ε²·‖∂³A‖, which grows like (radius/σ)³ for narrow clusters
# (observed up to 1e-5 relative at σ = 0.2), rounding ~1e-16·‖A‖/ε ≈ 1e-11·‖A‖ (what FD_ATOL covers when D ≈ 0).
FD_EPS = 1e-5
FD_RTOL = 1e-4
FD_ATOL = 1e-9
# −λ_max(J) and λ_gap − ρ are both exact up to the FD error above; 1e-6 relative leaves room for it.
RATE_RTOL = 1e-6
# The perturbation (angle 1e-3) feels second-order terms of relative size ~1e-3; 2% covers them.
FLOW_RTOL = 2e-2
GAP_MIN = 1e-6  # an LME whose gap exceeds ρ by less than this is too close to call in float64


def build(p: dict, ctx):
    """(A_fn, kink_fn, candidates or None) for the chosen model."""
    if p["model"] == "mixture":
        gm = simplex_mixture(ctx, p["d"], p["radius"], p["sigma"])
        return gm, (lambda W: A_mixture(gm, W)), None, None
    M = p["d"]
    # categorical: exact zeros uᵢᵀuⱼ so that the other atoms lie exactly on the plane (see examples.py)
    U = random_orthonormal(ctx, M, M) if p["model"] == "summation" else random_signed_permutation(ctx, M)
    if p["model"] == "summation":
        data = summation_model(U, torch.full((M,), p["q"], dtype=ctx.dtype, device=ctx.device))
    else:
        data = categorical_model(U, dirichlet(ctx, M, 0.2))
    return data, (lambda W: A_discrete(data, W)), (lambda W: kink_margin(data, W)), U[:, :1].T.contiguous()


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["d"] < 2:
        out.append(Violation("d ≥ 2", "the sphere needs a tangent direction", ("d",), bypassable=False))
    if p["starts"] < 1:
        out.append(Violation("starts ≥ 1", "the LME finder needs a start", ("starts",), bypassable=False))
    if not (p["sigma"] > 0 and math.isfinite(p["sigma"])):
        out.append(Violation("σ > 0", "cluster covariances must be positive definite", ("sigma",), bypassable=False))
    if not (p["radius"] >= 0 and math.isfinite(p["radius"])):
        out.append(Violation("radius ≥ 0", "cluster radius must be a finite non-negative number", ("radius",),
                             bypassable=False))
    if not 0 < p["q"] < 1:
        out.append(Violation("0 < q < 1", "q is a Bernoulli probability; q ∈ {0, 1} has no standardised levels",
                             ("q",), bypassable=False))
    elif p["model"] == "summation" and p["q"] >= Q_STAR:
        out.append(Violation("w_* = u_m is an LME (q < (3 − √5)/2)", "above the threshold u_m is an eigenvector "
                             "of A(u_m) but not its top one", ("q",)))
    if p["model"] == "categorical":
        out.append(Violation("ρ(w_*) finite (no atom on w_*ᵀx = 0)", "at u_m every other atom lies on the gating "
                             "plane, A jumps there and ρ = ∞", ("model",)))
    if not 0 < p["perturb"] <= 0.1:
        out.append(Violation("0 < perturb ≤ 0.1", "the check is local: perturbation angle in (0, 0.1]", ("perturb",),
                             bypassable=False))
    if not 0 < p["dt"] <= 0.1 or p["steps"] < 1:
        out.append(Violation("0 < dt ≤ 0.1, steps ≥ 1", "Euler step and length of the perturbation run",
                             ("dt", "steps"), bypassable=False))
    if p["rate_scale"] != 1.0:
        out.append(Violation("exact guaranteed rate λ_gap − ρ", "rate_scale ≠ 1 deliberately inflates the "
                             "guaranteed rate (negative control)", ("rate_scale",)))
    if p["closed_form_scale"] != 1.0:
        out.append(Violation("exact closed form of D", "closed_form_scale ≠ 1 deliberately falsifies "
                             "D = −𝔼[ReLU]M (negative control)", ("closed_form_scale",)))
    return out


def linearisation(A_fn, W: torch.Tensor, lam_star: torch.Tensor):
    """J (B, d−1, d−1), D_fd Q (B, d, d−1), Q, for candidates W with eigenvalues lam_star."""
    Q = tangent_basis(W)
    A = A_fn(W)
    D = roughness_fd(A_fn, W, FD_EPS)
    eye = torch.eye(W.shape[1], dtype=W.dtype, device=W.device)
    J = Q.transpose(1, 2) @ (A - lam_star[:, None, None] * eye) @ Q + Q.transpose(1, 2) @ D
    return J, D, Q


def evaluate(p: dict, form: str, ctx) -> Outcome:
    data, A_fn, kink_fn, cand = build(p, ctx)
    details: dict = {"model": p["model"]}
    if cand is None:
        search = find_lmes(A_fn, random_unit(ctx, p["starts"], p["d"]), kink_fn=kink_fn)
        details.update(search.summary())
        W = search.lmes
        converged = search.n_unconverged == 0
    else:
        W = cand
        converged = None
    claims = []
    if W.shape[0] == 0:
        claims.append(Claim.at_least("lme_found", 0, 1, "no LME among the end points"))
        return Outcome(math.nan, math.nan, None, claims, details, converged)
    cl = classify(A_fn, W, kink_fn)
    A = A_fn(W)
    lam_star = torch.einsum("bi,bij,bj->b", W, A, W)  # eigenvalue of the candidate's own eigenvector
    J, D, Q = linearisation(A_fn, W, lam_star)
    tangent_top = torch.linalg.eigvalsh(Q.transpose(1, 2) @ A @ Q)[:, -1]
    gap = lam_star - tangent_top  # = λ₁ − λ₂ at an LME; negative when the candidate is not the top eigenvector
    rho = torch.linalg.matrix_norm(D, ord=2)
    if cand is not None and bool(cl.is_kink.any()):
        rho = torch.where(cl.is_kink, torch.full_like(rho, math.inf), rho)  # A jumps at a kink
    lam_J = torch.linalg.eigvals(J).real.max(dim=1).values
    margin = p["rate_scale"] * (gap - rho)
    ok = cl.is_lme & (gap - rho > GAP_MIN)
    details.update({
        "lambda_1": cl.lam1.tolist(), "lambda_star": lam_star.tolist(), "lambda_gap": gap.tolist(),
        "rho_fd": rho.tolist(), "lambda_max_J": lam_J.tolist(), "is_lme": cl.is_lme.tolist(),
        "is_kink": cl.is_kink.tolist(), "kink_margin": cl.kink_margin.tolist(),
        "top_eigvec_residual": cl.top_residual.tolist(),
        "J_asymmetry": float((J - J.transpose(1, 2)).abs().max()),
        # Derived fact (digest §2): for ReLU, fixed α, no augmentation, D ⪯ 0 on the tangent space.
        "max_eig_sym_QtD": float(torch.linalg.eigvalsh(0.5 * (Q.transpose(1, 2) @ D + (Q.transpose(1, 2) @ D)
                                                           .transpose(1, 2))).max()),
    })
    claims.append(Claim.at_least("lme_found", int(ok.sum()), 1,
                                 f"LMEs with λ_gap > ρ among {W.shape[0]} candidate(s)"))
    if p["model"] == "mixture":
        Dcf = p["closed_form_scale"] * roughness_D_mixture(data, W) @ Q
        scale = (torch.linalg.matrix_norm(Dcf, ord=2)
                 + FD_ATOL / FD_RTOL * torch.linalg.matrix_norm(A, ord=2))  # absolute floor when D ≈ 0
        err = float((torch.linalg.matrix_norm(D - Dcf, ord=2) / scale).max())
        claims.append(Claim.at_most("roughness_closed_form_matches_fd", err, FD_RTOL,
                                    "max ‖D_fd − D_formula‖₂/(‖D_formula‖ + 1e5·‖A‖·1e-9), "
                                    "D_formula = −𝔼[ReLU(w_*ᵀx)]·M"))
        details["rho_closed_form"] = torch.linalg.matrix_norm(Dcf, ord=2).tolist()
    sel = ok if bool(ok.any()) else torch.ones_like(ok)  # judge the LMEs the theorem covers; else all
    rate = -lam_J[sel]
    ratio = rate / margin[sel]
    worst = int(torch.argmin(torch.where(margin[sel] > 0, ratio, torch.full_like(ratio, -math.inf))))
    claims.append(Claim.at_least("linearised_rate_at_least_guaranteed", float(ratio.min()), 1 - RATE_RTOL,
                                 "min over LMEs of −λ_max(J)/(λ_gap − ρ)"))
    # Perturbed starts: P per candidate, angle `perturb`, projected Euler for `steps`.
    P = 8
    Wc = W[sel].repeat_interleave(P, dim=0)
    W0 = retract(Wc, random_tangent(ctx, Wc), p["perturb"])
    run = projected_flow(A_fn, W0, dt=p["dt"], steps=p["steps"])
    dist0 = (W0 - Wc).norm(dim=1)
    dist = (run.W - Wc).norm(dim=1)
    T = p["dt"] * p["steps"]
    guaranteed = margin[sel].repeat_interleave(P).clamp_min(0)
    r_euler = -torch.log1p(-p["dt"] * guaranteed) / p["dt"]
    allowed = torch.exp(-(1 - FLOW_RTOL) * r_euler * T)
    shrink = dist / dist0
    excess = shrink / allowed
    i = int(torch.argmax(excess))
    claims.append(Claim.at_most("perturbations_return", float(shrink[i]), float(allowed[i]),
                                f"distance ratio after T = {T:g} vs exp(−(λ_gap − ρ)·T) (Euler-corrected), "
                                f"worst of {len(shrink)} perturbations"))
    fitted = -torch.log(shrink) / T  # per-unit-time log contraction of Euler
    observed_rate = (1 - torch.exp(-p["dt"] * fitted)) / p["dt"]  # back to the continuous rate
    details.update({"perturbation_distance_ratio": shrink.tolist(), "observed_flow_rate": observed_rate.tolist(),
                    "flow_T": T, "flow_dt": p["dt"]})
    obs, bnd = float(rate[worst]), float(margin[sel][worst])
    tight = bnd / obs if obs > 0 and bnd > 0 else None
    return Outcome(obs, bnd, tight, claims, details, converged)


def report_instances(suite):
    yield AS_PRINTED, {}, False
    for d in (2, 4):
        yield AS_PRINTED, dict(d=d, sigma=0.5, seed=d), False
    yield AS_PRINTED, dict(model="summation", d=4, q=0.1), False
    yield AS_PRINTED, dict(model="summation", d=4, q=0.3), False
    for i in range(suite.report_examples):
        yield AS_PRINTED, dict(d=2 + i % 3, sigma=round(0.2 + 0.1 * i, 2), seed=100 + i, starts=32), False
    yield AS_PRINTED, dict(model="summation", d=4, q=0.45), True  # not an LME: perturbations grow
    yield AS_PRINTED, dict(model="categorical", d=4), True  # kink: ρ = ∞
    yield AS_PRINTED, dict(rate_scale=1.05), True
    yield AS_PRINTED, dict(closed_form_scale=1.01), True


RESULT = register(Result(
    id=ID,
    paper="001",
    paper_title="Tian: Understanding the Role of Nonlinearity in Training Dynamics of Contrastive Learning",
    title="Theorem 1: an LME with λ_gap > ρ is stable under ẇ = P⊥_w A(w) w",
    statement=("If w_* is an LME of A(w_*) (self-consistent top eigenvector with a distinct top eigenvalue) and "
               "λ_gap(w_*) > ρ(w_*), then w_* is stable; the proof gives the tangential contraction rate "
               "λ_gap − ρ."),
    status=Status.VERIFIED,
    params=(
        Param("model", str, "mixture", "data model: Gaussian mixture (closed form), latent summation or "
              "categorical (exact enumeration)", "mixture | summation | categorical", choices=MODELS),
        Param("d", int, 3, "dimension (= M latent patterns for summation/categorical)", "d ≥ 2"),
        Param("radius", float, 3.0, "mixture: distance of the cluster means from 0", "≥ 0"),
        Param("sigma", float, 0.3, "mixture: cluster standard deviation", "> 0"),
        Param("q", float, 0.2, "summation: P[y_m = y⁺] for every m", "0 < q < (3 − √5)/2"),
        Param("seed", int, 0, "seed of the instance, the starts and the perturbations", "any integer"),
        Param("starts", int, 64, "mixture: random starts of the LME finder", "≥ 1"),
        Param("perturb", float, 1e-3, "angle of the perturbations", "(0, 0.1]"),
        Param("dt", float, 0.01, "Euler step of the perturbation run", "(0, 0.1]"),
        Param("steps", int, 400, "Euler steps of the perturbation run", "≥ 1"),
        Param("rate_scale", float, 1.0, "multiplies the guaranteed rate; ≠ 1 is a wrong constant (control)", "= 1"),
        Param("closed_form_scale", float, 1.0, "multiplies the closed-form D; ≠ 1 is a wrong constant (control)",
              "= 1"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
))
