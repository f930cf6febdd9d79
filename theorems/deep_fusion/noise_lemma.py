"""The noise lemma of paper 000 (unnamed; "1)" and "2)" in §Deep Fusion and App. B): the constants δ, Δ.

Statement as printed
--------------------
For noisy samples with x_iᵀx̃_i ≥ 1 − ε, ε ∈ [0, 1] (eq. 6), and
δ := √(1 − (1−ε)²), Δ := (1−ε)ρ − √((1−(1−ε)²)(1−ρ²)):
1. if x_i ∈ 𝒰_k and u ⟂ 𝒰_k then x̃_iᵀu ≤ δ;
2. if x_i ∉ 𝒰_k and u = u_k^⊥ (so x_iᵀu ≥ ρ) then x̃_iᵀu ≥ Δ.
The paper gives no proof; unit norms of x_i, x̃_i, u are implicit (digest 000 §1.6, §2.2).

Reading and proof (digest §2.2, derived): write x̃ = cos θ·x + sin θ·e, e ⟂ x unit, θ ≤ φ := arccos(1−ε).
Then δ = sin φ and Δ = cos(ψ + φ) with ψ = arccos ρ; case 1 even gives |x̃ᵀu| ≤ δ; case 2 needs the *signed*
margin x_iᵀu ≥ ρ (with Definition 1's |·| the sign can be wrong). Both bounds are tight: e = u in case 1,
and x, u, x̃ coplanar with x̃ rotated away from u and xᵀu = ρ in case 2. Hidden hypotheses the checks
expose: unit ‖x̃‖, the positive sign, and θ ≤ φ. Status ``verified`` (the statement holds as printed
under its implicit unit-norm reading, with equality on the extremal constructions).

What one check does
-------------------
Batched over ``instances``: a random r-dimensional 𝒰_k ⊂ R^m, a random unit u ⟂ 𝒰_k, case-1 samples
x ∈ 𝒰_k and case-2 samples x = ρ'u + √(1−ρ'²)t (t ⟂ u, ρ' ∈ [ρ, 1]), noise by ``mode`` (``random``:
θ ~ U[0, φ], random e; ``adversarial``: the extremal constructions, ρ' = ρ). Claims:
``case1_upper_bound`` max|x̃ᵀu| ≤ δ, ``case2_lower_bound`` min x̃ᵀu ≥ Δ, and in adversarial mode
``case1_attained`` / ``case2_attained`` (ratio 1). Negative controls: ``theta_scale`` = 1.05 (noise beyond
eq. 6), ``noisy_norm`` = 1.5 (x̃ not unit), ``margin_sign='negative'`` (xᵀu = −ρ), ``theta_scale`` = 0.5 in
adversarial mode (not the extremal construction: the bounds are not attained).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Outcome, Param, Result, Status, Violation
from ..data.subspaces import orthonormalise
from ._common import PAPER, PAPER_TITLE, structural_violations

ID = "deep_fusion.noise_lemma"

# Inner products of unit vectors built from cos/sin of the same angles: exact to a few ulps.
BOUND_ATOL = 1e-12
ATTAIN_ATOL = 1e-12


def delta_of(eps: float) -> float:
    """δ as printed: √(1 − (1−ε)²)."""
    return math.sqrt(max(1.0 - (1.0 - eps) ** 2, 0.0))


def Delta_of(eps: float, rho: float) -> float:
    """Δ as printed: (1−ε)ρ − √((1−(1−ε)²)(1−ρ²))."""
    return (1.0 - eps) * rho - math.sqrt(max((1.0 - (1.0 - eps) ** 2) * (1.0 - rho**2), 0.0))


def angular_forms(eps: float, rho: float) -> tuple[float, float]:
    """(sin φ, cos(ψ + φ)), φ = arccos(1−ε), ψ = arccos ρ: the closed angular forms of δ, Δ."""
    phi, psi = math.acos(1.0 - eps), math.acos(rho)
    return math.sin(phi), math.cos(psi + phi)


def separable(eps: float, rho: float) -> bool:
    """δ < Δ ⇔ ψ + 2φ < π/2 ⇔ ρ > sin 2φ = 2(1−ε)δ (digest §1.6, derived)."""
    return rho > 2 * (1 - eps) * delta_of(eps) and eps < 1 - 1 / math.sqrt(2)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = structural_violations(p)
    if not 0.0 <= p["rho"] <= 1.0 or not math.isfinite(p["rho"]):
        out.append(Violation("ρ ∈ [0, 1]", "a margin between unit vectors lies in [0, 1]", ("rho",), False))
    if p["noisy_norm"] <= 0 or p["theta_scale"] < 0:
        out.append(Violation("noisy_norm > 0, theta_scale ≥ 0", "scales of the noise construction", 
                             ("noisy_norm", "theta_scale"), False))
    if out:
        return out
    if p["theta_scale"] > 1.0:
        out.append(Violation("x_iᵀx̃_i ≥ 1 − ε (eq. 6)", "theta_scale > 1 rotates beyond the angle φ = arccos(1−ε) "
                             "that eq. (6) allows", ("theta_scale",)))
    if p["mode"] == "adversarial" and p["theta_scale"] < 1.0:
        out.append(Violation("extremal construction (θ = φ)", "the bounds are attained only at the full noise "
                             "angle", ("theta_scale", "mode")))
    if p["noisy_norm"] != 1.0:
        out.append(Violation("unit-norm noisy samples", "‖x̃‖ ≠ 1 breaks the cosine reading of eq. (6)",
                             ("noisy_norm",)))
    if p["margin_sign"] != "positive":
        out.append(Violation("signed margin x_iᵀu ≥ ρ", "margin_sign='negative' takes x_iᵀu = −ρ (Definition 1's "
                             "|·| allows it, the lemma does not)", ("margin_sign",)))
    return out


def _unit(v: torch.Tensor) -> torch.Tensor:
    return v / v.norm(dim=-1, keepdim=True)


def _perp(v: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Unit component of v orthogonal to unit x."""
    return _unit(v - (v * x).sum(-1, keepdim=True) * x)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    B, m, r, eps, rho = p["instances"], p["m"], p["r"], p["eps"], p["rho"]
    phi = math.acos(1.0 - eps)
    delta, Delta = delta_of(eps), Delta_of(eps, rho)
    U = orthonormalise(ctx.randn(B, m, r))  # 𝒰_k
    g = ctx.randn(B, m)
    u = _unit(g - (U @ (U.transpose(-1, -2) @ g.unsqueeze(-1))).squeeze(-1))  # unit u ⟂ 𝒰_k
    x1 = _unit((U @ ctx.randn(B, r, 1)).squeeze(-1))  # case 1: x ∈ 𝒰_k
    t = _perp(ctx.randn(B, m), u)
    adversarial = p["mode"] == "adversarial"
    rho_p = torch.full((B, 1), rho, dtype=ctx.dtype, device=ctx.device) if adversarial else \
        rho + (1 - rho) * ctx.rand(B, 1)
    sgn = 1.0 if p["margin_sign"] == "positive" else -1.0
    x2 = sgn * rho_p * u + torch.sqrt(1 - rho_p**2) * t  # case 2: x_iᵀu = ±ρ' (ρ' ≥ ρ)
    theta = p["theta_scale"] * phi * (torch.ones(B, 1, dtype=ctx.dtype, device=ctx.device) if adversarial
                                      else ctx.rand(B, 1))
    if adversarial:
        e1 = u.clone()  # x1 ⟂ u already: rotate straight toward u
        w = u - (u * x2).sum(-1, keepdim=True) * x2
        # rotate x2 away from u in the plane of x2 and u (any direction ⟂ x2 = u when ρ = 1)
        e2 = torch.where(w.norm(dim=-1, keepdim=True) > 1e-12, -_unit(w), t)
    else:
        e1, e2 = _perp(ctx.randn(B, m), x1), _perp(ctx.randn(B, m), x2)
    xt1 = p["noisy_norm"] * (torch.cos(theta) * x1 + torch.sin(theta) * e1)
    xt2 = p["noisy_norm"] * (torch.cos(theta) * x2 + torch.sin(theta) * e2)
    c1 = (xt1 * u).sum(-1).abs()
    c2 = (xt2 * u).sum(-1)
    claims = [
        Claim.at_most("case1_upper_bound", float(c1.max()), delta + BOUND_ATOL,
                      "max |x̃ᵀu| over x ∈ 𝒰_k, u ⟂ 𝒰_k"),
        Claim.at_least("case2_lower_bound", float(c2.min()), Delta - BOUND_ATOL,
                       "min x̃ᵀu over x with xᵀu ≥ ρ, u ⟂ 𝒰_k"),
    ]
    if adversarial:
        claims += [
            Claim.at_least("case1_attained", float(c1.min()), delta - ATTAIN_ATOL,
                           "e = u: every |x̃ᵀu| equals δ"),
            Claim.at_most("case2_attained", float(c2.max()), Delta + ATTAIN_ATOL,
                          "coplanar rotation away from u with xᵀu = ρ: every x̃ᵀu equals Δ"),
        ]
    s_phi, c_psiphi = angular_forms(eps, rho)
    cos_eps = ((xt1 * x1).sum(-1) / xt1.norm(dim=-1)).min()
    details = {
        "delta": delta, "Delta": Delta, "delta_angular": s_phi, "Delta_angular": c_psiphi,
        "separable_delta_lt_Delta": delta < Delta, "separable_closed_form": separable(eps, rho),
        "case1_max_ratio": float(c1.max()) / delta if delta > 0 else float("nan"),
        "case2_min_minus_Delta": float(c2.min()) - Delta, "min_cosine_noisy_clean": float(cos_eps),
        "phi_deg": math.degrees(phi),
    }
    tight = float(c1.max()) / delta if delta > 0 and float(c1.max()) <= delta * (1 + 1e-9) else None
    return Outcome(observed=float(c1.max()), bound=delta, tightness=tight, claims=claims, details=details)


def report_instances(suite):
    rng = np.random.default_rng(2)
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(mode="adversarial"), False
    for _ in range(suite.report_examples):
        yield AS_PRINTED, dict(eps=round(float(rng.uniform(0, 0.99)), 4), rho=round(float(rng.uniform(0.01, 1)), 4),
                               m=int(rng.integers(3, 25)), r=1, mode=str(rng.choice(["random", "adversarial"])),
                               seed=int(rng.integers(0, 1000))), False
    yield AS_PRINTED, dict(mode="adversarial", theta_scale=1.05), True
    yield AS_PRINTED, dict(mode="adversarial", noisy_norm=1.5), True
    yield AS_PRINTED, dict(mode="adversarial", margin_sign="negative"), True
    yield AS_PRINTED, dict(mode="adversarial", theta_scale=0.5), True


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    paper_title=PAPER_TITLE,
    title="Noise lemma: x̃ᵀu ≤ δ on the own subspace's normal, ≥ Δ on another's (eq. 6 noise)",
    statement=("If x_iᵀx̃_i ≥ 1 − ε (unit vectors), δ = √(1−(1−ε)²), Δ = (1−ε)ρ − √((1−(1−ε)²)(1−ρ²)): for "
               "x_i ∈ 𝒰_k and u ⟂ 𝒰_k, x̃_iᵀu ≤ δ; for x_i ∉ 𝒰_k and u = u_k^⊥ (x_iᵀu ≥ ρ), x̃_iᵀu ≥ Δ."),
    status=Status.VERIFIED,
    params=(
        Param("eps", float, 0.05, "noise level ε of eq. (6)", "[0, 1]"),
        Param("rho", float, 0.7, "margin ρ: case-2 samples have x_iᵀu ≥ ρ", "[0, 1]"),
        Param("m", int, 8, "ambient dimension", "m > r"),
        Param("r", int, 2, "dimension of 𝒰_k", "1 ≤ r < m"),
        Param("mode", str, "random", "random noise, or the adversarial (extremal) construction",
              choices=("random", "adversarial")),
        Param("theta_scale", float, 1.0, "noise angle θ = theta_scale·φ (> 1 leaves eq. 6)", "≤ 1"),
        Param("noisy_norm", float, 1.0, "‖x̃‖ (≠ 1 breaks the unit-norm reading)", "= 1"),
        Param("margin_sign", str, "positive", "sign of x_iᵀu in case 2", choices=("positive", "negative")),
        Param("instances", int, 256, "instances checked together", "≥ 1"),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
))
