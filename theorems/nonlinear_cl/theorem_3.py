"""Theorem 3 of paper 001 (Tian): power iteration from an approximate LME converges to a nearby LME.

Statement as printed
--------------------
Let c₀ = c(w(0)) ≠ 0. If there is γ < 1 with sup_{w∈B_γ} ω(w) ≤ γ, where
B_γ = {w: wᵀw(0) ≥ (c₀ − c_γ)/(1 − c_γ)}, c_γ = 2√γ/(1 + γ), and ω = μ + ν is the irregularity of Def. 4
(μ = (1+c)/(2c²)(λ₂/λ₁)², ν = 2κL²(1 + μc) + (2L/λ_gap)√(μ(1 + μc))), then power iteration
w(t+1) = A(w(t))w(t)/‖A(w(t))w(t)‖ converges to a critical point w_* ∈ B_γ of (7). Lemma 11 gives
1 − c_t ≤ γ^t(1 − c₀) and ‖w_* − w(0)‖ ≤ R_γ = √(2(1+γ)(1−c₀))/(1 − √γ).

Reading chosen (digest 001 §2 Theorem 3, §3 items 7–8, R8)
---------------------------------------------------------
L and κ are the local constants on the cap B_γ (the global L is infinite for discrete data, and the proof only
uses pairs inside the cap). They are *estimated* on a sample of the cap (plus its boundary): L_γ from finite
differences of A (the ℓ² combination of the directional derivatives, an over-estimate of the operator norm),
κ_γ from pairs of sampled points. The hypothesis is declared met only if the estimated sup ω ≤ SAFETY·γ, a
margin for the sampling (the digest found random sampling can miss the worst region). A derived corollary is
also checked: the limit satisfies λ₂/λ₁ ≤ √γ, so it is an LME.

Instance: two Gaussian clusters in d = 3 at an angle (digest §6 C: 150°, weights 0.6/0.4, radius 3), closed-form
A; w_* is the LME of the heavier cluster and w(0) = cos θ₀ w_* + sin θ₀ u for a random unit u ⊥ w_*.

Claims: ``cap_hypothesis_met`` (estimated sup ω ≤ SAFETY·γ), ``rate_bound`` (max_t (1 − c_t)/(γ^t(1 − c₀)) ≤ 1),
``radius_bound`` (max_t ‖w(t) − w(0)‖ ≤ R_γ), ``limit_is_lme`` (residual and λ₂/λ₁ ≤ √γ at the limit).
Negative controls: γ below μ(w_*) (the rate and the LME corollary fail), ``radius_scale`` < 1 (wrong
constant), and wide clusters where the hypothesis fails although PI still converges (the theorem's
conservativeness, recorded in ``details['pi_converged']``). tightness = ‖w_∞ − w(0)‖/R_γ.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Outcome, Param, Result, Status, Violation
from ..data.latents import gaussian_mixture
from ..optim.sphere_flow import normalize, power_iteration, random_tangent, retract
from .covariance import A_mixture, tangent_basis
from .lme import RESIDUAL_TOL, classify

ID = "nonlinear_cl.theorem_3"
SAFETY = 0.5  # declare the hypothesis met only with a factor-2 margin for the sampled sup (digest R8)
N_CAP = 600  # sampled cap points (half interior, half on the boundary circle where ω peaks)
FD_EPS = 1e-6
RATE_SLACK = 1e-9  # relative slack on 1 − c_t ≤ γ^t(1 − c₀) for rounding of c_t near 1
C_FLOOR = 1e-13  # 1 − c_t below this is float64 noise; those iterations are not judged
PI_ITERS = 40


def omega_on(A_fn, W: torch.Tensor):
    """μ, λ_gap, c, L-estimate per point of W (B, d)."""
    A = A_fn(W)
    evals, evecs = torch.linalg.eigh(A)
    l1, l2 = evals[:, -1], evals[:, -2]
    phi = evecs[:, :, -1]
    c = (W * phi).sum(1).abs()
    mu = (1 + c) / (2 * c**2) * (l2 / l1) ** 2
    Q = tangent_basis(W)
    B, d = W.shape
    norms = []
    for j in range(d - 1):
        vp = normalize(W + FD_EPS * Q[:, :, j])
        vm = normalize(W - FD_EPS * Q[:, :, j])
        norms.append(torch.linalg.matrix_norm(A_fn(vp) - A_fn(vm), ord=2) / (2 * FD_EPS))
    L = torch.stack(norms, 1).pow(2).sum(1).sqrt()  # ≥ the operator norm of u ↦ DA[u]
    return A, l1, l2, phi, c, mu, L


def estimate_kappa(A: torch.Tensor, idx_a: torch.Tensor, idx_b: torch.Tensor) -> float:
    """max ‖φ₁(A') − φ₁(A) − Δφ₁‖/‖A' − A‖² over the pairs (Lemma 9's κ), pairs with ‖δA‖ > 1e-5 only."""
    evals, evecs = torch.linalg.eigh(A)
    Aa, Ab = A[idx_a], A[idx_b]
    la, Va = evals[idx_a], evecs[idx_a]
    phi_a, phi_b = Va[:, :, -1], evecs[idx_b][:, :, -1]
    dA = Ab - Aa
    coef = torch.einsum("bij,bjk,bk->bi", Va.transpose(1, 2), dA, phi_a)  # φ_jᵀ δA φ₁
    denom = la[:, -1:] - la
    coef = torch.where(denom > 0, coef / denom.clamp_min(1e-300), torch.zeros_like(coef))
    coef[:, -1] = 0
    dphi = torch.einsum("bij,bj->bi", Va, coef)
    phi_b = phi_b * torch.sign((phi_b * phi_a).sum(1, keepdim=True))
    nA = torch.linalg.matrix_norm(dA, ord=2)
    ok = nA > 1e-5
    if not bool(ok.any()):
        return 0.0
    return float(((phi_b - phi_a - dphi).norm(dim=1)[ok] / nA[ok] ** 2).max())


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if not 0 < p["gamma"] < 1:
        out.append(Violation("0 < γ < 1", "the contraction factor of the theorem", ("gamma",), bypassable=False))
    if not 0 < p["theta0"] < 0.5 * math.pi:
        out.append(Violation("c₀ ≠ 0 (0 < θ₀ < π/2)", "the start must correlate with φ₁", ("theta0",), bypassable=False))
    if not p["sigma"] > 0:
        out.append(Violation("σ > 0", "cluster covariances must be positive definite", ("sigma",), bypassable=False))
    if p["radius_scale"] != 1.0:
        out.append(Violation("exact radius R_γ", "radius_scale ≠ 1 deliberately shrinks R_γ (negative control)",
                             ("radius_scale",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    a = math.radians(p["angle"])
    gm = gaussian_mixture([0.6, 0.4], [[p["radius"], 0.0, 0.0], [p["radius"] * math.cos(a), p["radius"] * math.sin(a), 0.0]],
                          p["sigma"], ctx)
    A_fn = lambda V: A_mixture(gm, V)  # noqa: E731
    gamma = p["gamma"]
    # w_*: the LME of the heavier cluster, by PI from its mean direction.
    star = power_iteration(A_fn, normalize(gm.means[:1].clone()), max_iter=200, tol=1e-14)
    w_star = star.W
    w0 = retract(w_star, random_tangent(ctx, w_star), p["theta0"])
    run = power_iteration(A_fn, w0, max_iter=PI_ITERS, tol=0.0, record=True)
    Wt = run.history[:, 0, :]  # (T+1, d)
    _, l1, l2, phi, c, mu, L = omega_on(A_fn, Wt)
    c0 = float(c[0])
    c_gamma = 2 * math.sqrt(gamma) / (1 + gamma)
    R = p["radius_scale"] * math.sqrt(2 * (1 + gamma) * (1 - c0)) / (1 - math.sqrt(gamma))
    # Sample the cap ‖w − w0‖ ≤ R_γ: angle ≤ 2 asin(R/2) from w0 (all of it if R ≥ 2).
    ang = 2 * math.asin(min(1.0, R / 2)) if R < 2 else math.pi
    n = N_CAP // 2
    dirs = random_tangent(ctx, w0.expand(2 * n, -1).contiguous())
    radii = torch.cat([ang * ctx.rand(n).sqrt(), torch.full((n,), ang, dtype=ctx.dtype, device=ctx.device)])
    cap = torch.cat([w0, retract(w0.expand(2 * n, -1), dirs, radii)])
    A_cap, l1c, l2c, _, cc, muc, Lc = omega_on(A_fn, cap)
    L_gamma = float(Lc.max())
    perm = torch.randperm(len(cap), generator=ctx.generator).to(ctx.device)
    kappa = estimate_kappa(A_cap, torch.arange(len(cap), device=ctx.device), perm)
    gap_c = l1c - l2c
    nu = 2 * kappa * L_gamma**2 * (1 + muc * cc) + 2 * L_gamma / gap_c * torch.sqrt(muc * (1 + muc * cc))
    omega = muc + nu
    sup_omega = float(omega.max())
    # Conclusions along the run
    one_minus = (1 - c).clamp_min(0)
    t = torch.arange(len(c), dtype=ctx.dtype, device=ctx.device)
    judged = one_minus > C_FLOOR
    ratio = one_minus / (gamma**t * (1 - c0))
    rate = float(ratio[judged].max()) if bool(judged.any()) else 0.0
    dist0 = (Wt - w0).norm(dim=1)
    final = Wt[-1:]
    cl = classify(A_fn, final)
    claims = [
        Claim.at_most("cap_hypothesis_met", sup_omega, SAFETY * gamma,
                      f"estimated sup_(B_γ) ω over {len(cap)} cap points (L_γ = {L_gamma:.4g}, κ_γ = {kappa:.4g}) "
                      f"≤ {SAFETY}·γ"),
        Claim.at_most("rate_bound", rate, 1 + RATE_SLACK, "max_t (1 − c_t)/(γ^t(1 − c₀)) over iterations with "
                      f"1 − c_t > {C_FLOOR:g}"),
        Claim.at_most("radius_bound", float(dist0.max()), R, "max_t ‖w(t) − w(0)‖ ≤ R_γ"),
        Claim.at_most("limit_is_lme", max(float(cl.top_residual[0]) / RESIDUAL_TOL,
                                          float(cl.lam2[0] / cl.lam1[0]) / math.sqrt(gamma)), 1.0,
                      "max(residual/tol, (λ₂/λ₁)/√γ) at the limit (self-consistent top eigenvector, λ₂/λ₁ ≤ √γ)"),
    ]
    details = {
        "c0": c0, "c_gamma": c_gamma, "R_gamma": R, "gamma": gamma, "sup_omega": sup_omega,
        "sup_mu": float(muc.max()), "sup_nu": float(nu.max()), "L_gamma": L_gamma, "kappa_gamma": kappa,
        "one_minus_c_t": one_minus.tolist()[:12], "c_monotone": bool((c[1:] - c[:-1]).min() >= -1e-12),
        "observed_ratio_(1-c_t+1)/(1-c_t)": float(one_minus[2] / one_minus[1]) if float(one_minus[1]) > C_FLOOR
        else 0.0,
        "mu_at_limit": float(mu[-1]), "lambda2/lambda1_at_limit": float(cl.lam2[0] / cl.lam1[0]),
        "pi_converged": bool(cl.top_residual[0] <= RESIDUAL_TOL),
        "limit_distance_to_w_star": float((final - w_star).norm()),
    }
    tight = float((final - w0).norm()) / R
    # The hypothesis needs the instance's A on the cap, so only the evaluation can decide it.
    unmet = [] if claims[0].passed else [Violation(
        "sup_{B_γ} ω ≤ γ", f"estimated sup ω = {sup_omega:.4g} > {SAFETY}·γ = {SAFETY * gamma:.4g} on the cap",
        ("gamma", "sigma", "angle", "radius"))]
    return Outcome(tight * R, R, tight, claims, details, bool(cl.top_residual[0] <= RESIDUAL_TOL), unmet)


def report_instances(suite):
    yield AS_PRINTED, {}, False
    yield AS_PRINTED, dict(sigma=0.3, gamma=2e-3, theta0=0.2), False
    yield AS_PRINTED, dict(sigma=0.5, gamma=0.01, theta0=0.2), False
    for i in range(suite.report_examples):
        yield AS_PRINTED, dict(theta0=round(0.05 + 0.05 * i, 3), seed=i), False
    yield AS_PRINTED, dict(gamma=1e-7), True  # γ below μ(w_*): the conclusions fail (and the hypothesis)
    yield AS_PRINTED, dict(sigma=1.0, angle=109.5, gamma=0.1, theta0=0.05), True  # hypothesis fails, PI converges
    yield AS_PRINTED, dict(radius_scale=0.5), True


RESULT = register(Result(
    id=ID,
    paper="001",
    paper_title="Tian: Understanding the Role of Nonlinearity in Training Dynamics of Contrastive Learning",
    title="Theorem 3: power iteration from an approximate LME (sup ω ≤ γ on the cap) converges to a nearby LME",
    statement="If c₀ = c(w(0)) ≠ 0 and sup_{B_γ} ω ≤ γ < 1, power iteration converges to a critical point w_* ∈ B_γ "
              "of (7), with 1 − c_t ≤ γ^t(1 − c₀) and ‖w_* − w(0)‖ ≤ √(2(1+γ)(1−c₀))/(1 − √γ).",
    status=Status.VERIFIED,
    params=(
        Param("sigma", float, 0.15, "cluster standard deviation", "> 0"),
        Param("radius", float, 3.0, "distance of the two cluster means from 0", "> 0"),
        Param("angle", float, 150.0, "angle between the two cluster means (degrees)", "(0, 180]"),
        Param("theta0", float, 0.05, "angle of w(0) from the LME w_* (radians)", "(0, π/2)"),
        Param("gamma", float, 1e-4, "the theorem's γ", "(0, 1)"),
        Param("seed", int, 0, "seed of the perturbation direction and of the cap sample", "any integer"),
        Param("radius_scale", float, 1.0, "multiplies R_γ; < 1 is a wrong constant (negative control)", "= 1"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
))
