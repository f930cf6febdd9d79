"""The noise lemma of paper 000 (unnamed; "1)" and "2)" after eq. (6) in §"Deep Fusion", reused in App. B).

Statement as printed
--------------------
For noisy samples with x_iᵀx̃_i ≥ 1 − ε, ε ∈ [0, 1] (eq. 6), δ := √(1 − (1−ε)²) and
Δ := (1−ε)ρ − √((1−(1−ε)²)(1−ρ²)):
1. when x_i belongs to 𝒰_k (u ⟂ 𝒰_k): x̃ᵀu_k^⊥ ≤ δ;
2. when x_i does NOT belong to 𝒰_k, with u_k^⊥ the vector of Definition 1 (eq. 2): x̃ᵀu_k^⊥ ≥ Δ.
No proof is given; unit norms of x_i, x̃_i, u are implicit (ρ "ranges from 0 to 1", eq. 6 is a cosine bound).

Quantifiers: ∀ ε, ρ, unit x_i, x̃_i with eq. (6), ∀ u ⟂ 𝒰_k; case 2's hypothesis is what Definition 1 gives
u_k^⊥: |x_iᵀu| ≥ ρ (eq. 2 has an absolute value). Nothing is existential.

Verdict: verified-corrected (was verified)
------------------------------------------
Case 2 is false under Definition 1's |·| margin: Definition 1 only guarantees |x_iᵀu| ≥ ρ, and a sample with
x_iᵀu = −ρ' (ρ' ≥ ρ) has x̃ᵀu ≤ −ρ' + (1 − cos θ)… far below Δ (``margin_sign='negative'``, default ε = 0.05,
ρ = 0.7: min x̃ᵀu = −0.99 < Δ = 0.508). Such a u is forced, not chosen: for a cluster holding y and −y every
u has one of them on the negative side. The old status read case 2 with the *signed* margin x_iᵀu ≥ ρ, a
hypothesis the paper does not state. Correction (``form='corrected'``): |x̃ᵀu| ≥ Δ whenever |x_iᵀu| ≥ ρ
(apply the signed proof to sign(x_iᵀu)·u), and case 1 even as |x̃ᵀu| ≤ δ.
Proof of the correction: write x̃ = cos θ·x + sin θ·e, e ⟂ x unit, θ ≤ φ := arccos(1−ε); then δ = sin φ and
Δ = cos(ψ + φ), ψ = arccos ρ; case 1: x̃ᵀu = sin θ·eᵀu; case 2: |eᵀu| ≤ √(1−(xᵀu)²) gives
|x̃ᵀu| ≥ cos(θ + arccos|xᵀu|) ≥ Δ. Both bounds are attained (e = u in case 1; x, u, x̃ coplanar with x̃
rotated away from u and |xᵀu| = ρ in case 2): ``mode='adversarial'`` is where eq. (6) binds (θ = φ), and
``adversarial_steps`` > 0 moves random noise directions toward the bound by gradient steps.

What one check does
-------------------
Batched over ``instances``: a random r-dimensional 𝒰_k ⊂ R^m, a random unit u ⟂ 𝒰_k, case-1 samples
x ∈ 𝒰_k and case-2 samples x = ±ρ'u + √(1−ρ'²)t (t ⟂ u, ρ' ∈ [ρ, 1]), noise by ``mode`` (``random``:
θ ~ U[0, φ], random e; ``adversarial``: the extremal constructions, ρ' = ρ). Negative controls: ``theta_scale``
just above 1 (noise beyond eq. 6, by 1e-10 relative: pins the tolerance), ``noisy_norm`` = 1.5 (x̃ not unit).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Binding, Logic, Outcome, Param, Result, Status, Violation
from ..data.subspaces import orthonormalise
from ._common import PAPER, PAPER_TITLE, structural_violations

ID = "deep_fusion.noise_lemma"

# Inner products of unit vectors built from cos/sin of the same angles: exact to a few ulps.
BOUND_ATOL = 1e-12
ATTAIN_ATOL = 1e-12
ADV_LR = 0.05  # Adam step of the adversarial search over the noise directions (unit vectors: O(1) scale)


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
    """δ < Δ ⇔ ψ + 2φ < π/2 ⇔ ρ > sin 2φ = 2(1−ε)δ (derived from the angular forms)."""
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
    if p["adversarial_steps"] < 0:
        out.append(Violation("adversarial_steps ≥ 0", "a number of steps", ("adversarial_steps",), False))
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
        w = sgn * u - (sgn * u * x2).sum(-1, keepdim=True) * x2  # rotate away from sign(xᵀu)·u
        # rotate x2 away from u in the plane of x2 and u (any direction ⟂ x2 = u when ρ = 1)
        e2 = torch.where(w.norm(dim=-1, keepdim=True) > 1e-12, -_unit(w), t)
    else:
        e1, e2 = _perp(ctx.randn(B, m), x1), _perp(ctx.randn(B, m), x2)
    absolute = form == CORRECTED

    def measures(e1, e2):
        xt1 = p["noisy_norm"] * (torch.cos(theta) * x1 + torch.sin(theta) * e1)
        xt2 = p["noisy_norm"] * (torch.cos(theta) * x2 + torch.sin(theta) * e2)
        c2 = (xt2 * u).sum(-1)
        return xt1, (xt1 * u).sum(-1).abs(), c2.abs() if absolute else c2, sgn * c2

    def slack(c1, c2):  # normalised slack of the tighter of the two bounds (as Claim.slack)
        s1 = (delta - c1.max()) / max(float(c1.max().abs()), delta, 1e-300)
        s2 = (c2.min() - Delta) / max(float(c2.min().abs()), abs(Delta), 1e-300)
        return float(torch.minimum(s1, s2))

    xt1, c1, c2, c2s = measures(e1, e2)
    details_adv = {}
    if p["adversarial_steps"] > 0:
        # move the noise directions (unit, ⟂ x) toward the bounds: maximise |x̃₁ᵀu|, minimise x̃₂ᵀu
        details_adv["adversarial_start_slack"] = slack(c1, c2)
        g1, g2 = e1.clone().requires_grad_(True), e2.clone().requires_grad_(True)
        opt = torch.optim.Adam([g1, g2], lr=ADV_LR)
        for _ in range(p["adversarial_steps"]):
            f1, f2 = _perp(g1, x1), _perp(g2, x2)
            _, a1, a2, _ = measures(f1, f2)
            loss = (a2 - a1).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            e1n, e2n = _perp(g1, x1), _perp(g2, x2)
            xt1n, c1n, c2n, c2sn = measures(e1n, e2n)
        keep = slack(c1n, c2n) <= details_adv["adversarial_start_slack"]  # the search only moves toward the bound
        if keep:
            xt1, c1, c2, c2s = xt1n, c1n, c2n, c2sn
        details_adv["adversarial_end_slack"] = slack(c1, c2)
    claims = [
        Claim.at_most("case1_upper_bound", float(c1.max()), delta + BOUND_ATOL,
                      "max |x̃ᵀu| over x ∈ 𝒰_k, u ⟂ 𝒰_k"),
        Claim.at_least("case2_lower_bound", float(c2.min()), Delta - BOUND_ATOL,
                       ("min |x̃ᵀu|" if absolute else "min x̃ᵀu") + " over x with |xᵀu| ≥ ρ (Definition 1), u ⟂ 𝒰_k"),
    ]
    if adversarial:
        claims += [
            Claim.at_least("case1_attained", float(c1.min()), delta - ATTAIN_ATOL,
                           "e = u: every |x̃ᵀu| equals δ", kind="identity"),
            Claim.at_most("case2_attained", float(c2s.max()), Delta + ATTAIN_ATOL,
                          "coplanar rotation away from sign(xᵀu)·u with |xᵀu| = ρ: every sign(xᵀu)·x̃ᵀu equals Δ",
                          kind="identity"),
        ]
    s_phi, c_psiphi = angular_forms(eps, rho)
    cos_eps = ((xt1 * x1).sum(-1) / xt1.norm(dim=-1)).min()
    details = {
        "delta": delta, "Delta": Delta, "delta_angular": s_phi, "Delta_angular": c_psiphi,
        "separable_delta_lt_Delta": delta < Delta, "separable_closed_form": separable(eps, rho),
        "case1_max_ratio": float(c1.max()) / delta if delta > 0 else float("nan"),
        "case2_min_minus_Delta": float(c2.min()) - Delta, "min_cosine_noisy_clean": float(cos_eps),
        "phi_deg": math.degrees(phi), **details_adv,
    }
    tight = float(c1.max()) / delta if delta > 0 and float(c1.max()) <= delta * (1 + 1e-9) else None
    return Outcome(observed=float(c1.max()), bound=delta, tightness=tight, claims=claims, details=details)


def report_instances(suite):
    rng = np.random.default_rng(2)
    yield CORRECTED, dict(), False
    yield CORRECTED, dict(mode="adversarial"), False
    yield CORRECTED, dict(adversarial_steps=suite.adversarial_steps), False
    for _ in range(suite.report_examples):
        yield CORRECTED, dict(eps=round(float(rng.uniform(0, 0.99)), 4), rho=round(float(rng.uniform(0.01, 1)), 4),
                              m=int(rng.integers(3, 25)), r=1, mode=str(rng.choice(["random", "adversarial"])),
                              margin_sign=str(rng.choice(["positive", "negative"])),
                              seed=int(rng.integers(0, 1000))), False
    for cx in COUNTEREXAMPLES:
        yield AS_PRINTED, dict(cx), False
    for spec in CONTROLS:
        yield CORRECTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


COUNTEREXAMPLES = (dict(margin_sign="negative"),)
CONTROLS = (
    dict(mode="adversarial", theta_scale=1 + 1e-10, allow_violation=True),  # just beyond eq. (6): pins BOUND_ATOL
    dict(mode="adversarial", theta_scale=1.05, margin_sign="negative", allow_violation=True),
    dict(mode="adversarial", noisy_norm=1.5, allow_violation=True),
)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    paper_title=PAPER_TITLE,
    title="Noise lemma: x̃ᵀu ≤ δ on the own subspace's normal, ≥ Δ on another's (eq. 6 noise)",
    statement=("If x_iᵀx̃_i ≥ 1 − ε (unit vectors), δ = √(1−(1−ε)²), Δ = (1−ε)ρ − √((1−(1−ε)²)(1−ρ²)): for "
               "x_i ∈ 𝒰_k and u ⟂ 𝒰_k, x̃_iᵀu ≤ δ; for x_i ∉ 𝒰_k and u = u_k^⊥ of Definition 1, x̃_iᵀu ≥ Δ."),
    correction=("Case 2 with absolute values: |x_iᵀu| ≥ ρ (what Definition 1 gives u_k^⊥) implies |x̃_iᵀu| ≥ Δ; "
                "case 1 holds as |x̃_iᵀu| ≤ δ. Both are attained."),
    correction_reason=("Definition 1's margin has an absolute value, so x_iᵀu_k^⊥ = −ρ is allowed, and then "
                       "x̃_iᵀu ≈ −ρ < Δ (margin_sign='negative': min x̃ᵀu = −0.99 against Δ = 0.508)."),
    status=Status.VERIFIED_CORRECTED,
    logic=Logic(for_all="ε ∈ [0, 1], ρ ∈ [0, 1], unit x_i, x̃_i with x_iᵀx̃_i ≥ 1 − ε, u ⟂ 𝒰_k with |x_iᵀu| ≥ ρ "
                        "in case 2 (Definition 1)"),
    counterexamples=COUNTEREXAMPLES,
    binding=(Binding(hypothesis="x_iᵀx̃_i ≥ 1 − ε (eq. 6) and |x_iᵀu| ≥ ρ", params=dict(mode="adversarial"),
                     margin="θ = φ and |x_iᵀu| = ρ exactly: both bounds attained (slack 0 to 1e-12)"),
             Binding(hypothesis="x_iᵀx̃_i ≥ 1 − ε (eq. 6)", params=dict(mode="adversarial", margin_sign="negative",
                                                                       eps=0.2, rho=0.3),
                     margin="θ = φ, x_iᵀu = −ρ, Δ = −0.18 < 0 (the bound is below zero)")),
    controls=CONTROLS,
    strategy=lambda: _strategy(),
    params=(
        Param("eps", float, 0.05, "noise level ε of eq. (6)", "[0, 1]"),
        Param("rho", float, 0.7, "margin ρ: case-2 samples have |x_iᵀu| ≥ ρ", "[0, 1]"),
        Param("m", int, 8, "ambient dimension", "m > r"),
        Param("r", int, 2, "dimension of 𝒰_k", "1 ≤ r < m"),
        Param("mode", str, "random", "random noise, or the adversarial (extremal) construction",
              choices=("random", "adversarial")),
        Param("theta_scale", float, 1.0, "noise angle θ = theta_scale·φ (> 1 leaves eq. 6)", "≤ 1"),
        Param("noisy_norm", float, 1.0, "‖x̃‖ (≠ 1 breaks the unit-norm reading)", "= 1"),
        Param("margin_sign", str, "positive", "sign of x_iᵀu in case 2 (Definition 1 allows both)",
              choices=("positive", "negative")),
        Param("adversarial_steps", int, 0, "gradient steps moving the noise directions toward the bounds", "≥ 0"),
        Param("instances", int, 256, "instances checked together", "≥ 1"),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))


def _strategy():
    from ..strategies.deep_fusion import noise_lemma_params

    return noise_lemma_params()
