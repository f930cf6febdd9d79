"""Construction errata of the proof of Theorem 4.3 of paper 004 (digest §3 A9–A12), checked numerically.

``neural_collapse.errata_a9`` (verified-corrected): the phase-1 "one-sample mover" (eq. 14)
-----------------------------------------------------------------------------------------
As printed: for x = x_ki on the LN sphere and a unit chord direction d_ki (towards the next curve point),
    W = α (1 + (m/2) d_ki) x_kiᵀ / (√(d+m²/4) √d),   b = −(1 − m/2) α √d / √(d+m²/4) · 1,
so that σ(Wx + b) = s(1 + d_ki), s = α m √d / (2√(d+m²/4)), and LN(x + σ(Wx+b)) lands exactly on the point
at chord distance s; ‖W‖_F = α; every sample x' with x'ᵀx ≤ d(1 − m) is untouched (σ(Wx'+b) = 0). The
paper states the angle moved as Δβ = 2 arcsin(α m / (2√(d+m²/4))) and uses Δβ ≥ mα/(4√d); it sets the step
α^l = 4√d β^l/(L_1 m) from the *current* remaining angle β^l.
Correction (A9): the exact angle is 2 arcsin(α m / (4√(d+m²/4))) (chord s on a sphere of radius √d; the
printed one is off by a factor 2 inside the arcsin; the lower bound mα/(4√d) stays valid). With the
adaptive step, β^{l+1} ≈ (1 − 1/L_1) β^l: after L_1 steps about β⁰/e remains and the stopping point is
not reached (the exact Δβ is ≈ 2× the lower bound, so ≈ β⁰e^{-2} remains); the constant step
α = 4√d β⁰/(L_1 m) (presumably intended; same cost bound) reaches it.
What is checked: the real map x ↦ LN(x + σ(Wx+b)) in float64 on random instances — landing, ‖W‖_F, the
measured angle against both formulas, the lower bound, untouched far samples, and L_1 steps of phase 1
under the printed (adaptive) and corrected (constant) step rules, each step a real network block aimed
along the geodesic to a target at angle β⁰ (the last corrected step is shortened so as not to overshoot).
Negative controls: ``step_scale`` ≠ 1 scales (W, b) (a deliberately wrong constant), ``cap_violation``
draws the "other" samples inside the cap x'ᵀx > d(1 − m) that the margin hypothesis excludes.

``neural_collapse.errata_a12`` (refuted): the phase-2 "group mover"
----------------------------------------------------------------
As printed: W_j = α_j (1 + cm h̄_j) h̄_jᵀ/(‖1 + cm h̄_j‖ √d), b_j = −(1 − 2cm) α_j √d/‖1 + cm h̄_j‖ · 1, and
σ(W_j x + b_j) = (α_j/‖1+cm h̄_j‖)((h̄_jᵀx − d + 2cmd) 1 + cm h̄_jᵀx h̄_j) for x near h̄_j, i.e. the ReLU is
the identity there (pre-activation entrywise ≥ 0), which is what the angle recursion uses.
Refuted (A12): at xᵀh̄ = d(1 − cm) entry i of the pre-activation is ≈ √d·cm(1 + h̄_i(1 − cm))·α/‖1+cm h̄‖,
negative whenever some coordinate of h̄_j is below about −1/(1 − cm), which is generic for a point of norm
√d (the closed form also misses a factor 1/√d). Claim ``relu_is_identity``: the fraction of random
(h̄, x) pairs with a negative pre-activation entry is 0 — it fails for random h̄ on the LN sphere. Contrast:
with ``target='flat'`` (h̄ a balanced ±1 pattern, entries ≥ −1; the digest's suggested fix of rotating the
GUFM optimum to small entries) the claim holds, so the check can pass. No correction is registered: the
proof's conclusion (the block moves x towards h̄) is reported in ``details`` but is *not* established — on
random h̄ about 1% of the instances move away (measured: 0.9% of 2000 at d = 8, cm = 0.02, α = 0.5).

Listed, not checked numerically
-------------------------------
* A10 (the CE proof's monotonicity claim via [71] is reversed): a statement about another paper's
  optimum as a function of λ; Lemma 4.2's CE optimum (checked in ``lemma_4_2``) is what matters.
* A11 (transformer construction typos): "a, b > 0 with a + b = −1" is impossible (ab = (2 − 4^{i+1})/2 < 0,
  a one-line identity); γ(L) = Θ(L^{-1/4}) not Θ(L^{1/4}); W_O W_V = γA² shifts by 2V. These are algebraic
  typos with nothing to measure; the transformer used here (``models.tx1``) is trained, not constructed.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..optim.manifolds import ln, random_point

ID_A9 = "neural_collapse.errata_a9"
ID_A12 = "neural_collapse.errata_a12"

# One LN of a d-vector and a few products: exact to a few ulps of √d.
EXACT_RTOL = 1e-12
# Angles from arccos of a cosine near 1 lose half the digits: ~1e-8 absolute on angles ~1e-3..1e-1.
ANGLE_RTOL = 1e-6
# "Reached the stopping point": the remaining angle after L_1 steps, relative to β⁰.
REACH_RTOL = 1e-6

PAPER_TITLE = ("Súkeník, Lampert, Mondelli: Neural Collapse is Globally Optimal in Deep Regularized ResNets "
               "and Transformers")


def _angle(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Angle between columns (batched), via atan2 of sine and cosine (accurate for small angles)."""
    cos = (x * y).sum(-2)
    sin = (x * (x * y).sum(-2, keepdim=True) - y * (x * x).sum(-2, keepdim=True)).norm(dim=-2) / x.norm(dim=-2)
    return torch.atan2(sin, cos)


def _tangent_unit(x: torch.Tensor, toward: torch.Tensor) -> torch.Tensor:
    """Unit vector in 1^⊥, orthogonal to x, pointing from x along the geodesic towards ``toward``."""
    d = x.shape[-2]
    u = toward - x * (x * toward).sum(-2, keepdim=True) / d
    u = u - u.mean(-2, keepdim=True)
    return u / u.norm(dim=-2, keepdim=True)


def mover(x: torch.Tensor, u: torch.Tensor, alpha: torch.Tensor, m: float, scale: float = 1.0):
    """Eq. (14) aimed from x along the tangent unit u, step α: returns (W, b, target x̃). Batched (B, d, 1)."""
    d = x.shape[-2]
    s = alpha * m * math.sqrt(d) / (2 * math.sqrt(d + m * m / 4))
    theta = 2 * torch.asin(s / (2 * math.sqrt(d)))
    target = torch.cos(theta) * x + torch.sin(theta) * math.sqrt(d) * u
    chord = (target - x) / (target - x).norm(dim=-2, keepdim=True)
    ones = torch.ones_like(x)
    W = scale * alpha * (ones + 0.5 * m * chord) @ x.transpose(-1, -2) / (math.sqrt(d + m * m / 4) * math.sqrt(d))
    b = -scale * (1 - m / 2) * alpha * math.sqrt(d) / math.sqrt(d + m * m / 4) * ones
    return W, b, target


def block(x, W, b):
    return ln(x + torch.relu(W @ x + b))


def exact_angle(alpha, m, d):
    return 2 * torch.asin(alpha * m / (4 * math.sqrt(d + m * m / 4)))


def printed_angle(alpha, m, d):
    return 2 * torch.asin((alpha * m / (2 * math.sqrt(d + m * m / 4))).clamp(max=1.0))


# ------------------------------------------------------------------------------------------------------
def hypotheses_a9(p: dict, form: str) -> list[Violation]:
    out = []
    if p["d"] < 3:
        out.append(Violation("d ≥ 3", "the mover needs a tangent direction in 1^⊥ orthogonal to x", ("d",),
                             bypassable=False))
    if not 0 < p["m"] < 0.5:
        out.append(Violation("0 < m < 0.5 (margin)", "the proof takes a small margin m", ("m",), bypassable=False))
    if not 0 < p["alpha"] <= 0.2:
        out.append(Violation("0 < α ≤ 0.2", "the step size of one block", ("alpha",), bypassable=False))
    if p["instances"] < 1 or p["others"] < 1 or p["L1"] < 1:
        out.append(Violation("instances, others, L1 ≥ 1", "structural counts", ("instances", "others", "L1"),
                             bypassable=False))
    if not 0 < p["beta0"] < math.pi / 2:
        out.append(Violation("0 < β⁰ < π/2", "the phase-1 angle to travel", ("beta0",), bypassable=False))
    if p["step_scale"] != 1.0:
        out.append(Violation("exact construction constants", "step_scale ≠ 1 scales (W, b): a deliberately wrong "
                             "constant (negative control)", ("step_scale",)))
    if p["cap_violation"]:
        out.append(Violation("margin: other samples have x'ᵀx ≤ d(1 − m)", "cap_violation draws them inside the "
                             "cap (negative control)", ("cap_violation",)))
    return out


def evaluate_a9(p: dict, form: str, ctx) -> Outcome:
    d, m, B, scale = p["d"], p["m"], p["instances"], p["step_scale"]
    alpha = torch.full((B, 1, 1), p["alpha"], dtype=ctx.dtype, device=ctx.device)
    x = random_point(ctx, B, d=d, n=1)
    u = _tangent_unit(x, ctx.randn(B, d, 1))
    W, b, target = mover(x, u, alpha, m, scale)
    x_new = block(x, W, b)
    land = float(((x_new - target).norm(dim=-2) / math.sqrt(d)).max())
    wnorm = float(((W.norm(dim=(-2, -1)) - alpha.flatten()).abs() / alpha.flatten()).max())
    moved = _angle(x, x_new).flatten()
    formula = (printed_angle if form == AS_PRINTED else exact_angle)(alpha.flatten(), m, d)
    angle_err = float(((moved - formula).abs() / formula).max())
    lower = float((moved / (m * alpha.flatten() / (4 * math.sqrt(d)))).min())
    # Other samples: outside the cap (x'ᵀx ≤ d(1 − m)), or inside it for the control.
    R = p["others"]
    if p["cap_violation"]:
        t = 1 - m / 4  # x'ᵀx = d(1 − m/4) > d(1 − m)
        v = _tangent_unit(x.expand(B, d, R), ctx.randn(B, d, R))
        others = t * x + math.sqrt(1 - t * t) * math.sqrt(d) * v
    else:
        others = random_point(ctx, B, d=d, n=R)
        far = (others * x).sum(-2, keepdim=True) <= d * (1 - m)
        others = torch.where(far, others, -others)  # reflect the rare near ones: −x' is far when x' is near
    touched = float(torch.relu(W @ others + b).max())
    # Phase 1: L1 real blocks towards a target at angle β⁰ under the printed (adaptive) or corrected (constant)
    # step rule.
    L1, beta0 = p["L1"], p["beta0"]
    goal_dir = _tangent_unit(x, ctx.randn(B, d, 1))
    goal = math.cos(beta0) * x + math.sin(beta0) * math.sqrt(d) * goal_dir
    y = x.clone()
    const = torch.full((B, 1, 1), 4 * math.sqrt(d) * beta0 / (L1 * m), dtype=ctx.dtype, device=ctx.device)
    for _ in range(L1):
        remaining = _angle(y, goal).view(B, 1, 1)
        if form == AS_PRINTED:
            a = 4 * math.sqrt(d) * remaining / (L1 * m)
        else:  # constant step; the last one shortened to land on the goal (a cheaper step)
            need = 4 * math.sqrt(d + m * m / 4) * torch.sin(remaining / 2) / m
            a = torch.minimum(const, need)
        active = remaining > 1e-15
        Wl, bl, _ = mover(y, _tangent_unit(y, goal), a.clamp_min(1e-300), m, scale)
        y = torch.where(active, block(y, Wl, bl), y)
    left = float((_angle(y, goal).flatten() / beta0).max())
    name = "angle_formula_as_printed" if form == AS_PRINTED else "angle_formula"
    claims = [
        Claim.at_most("lands_on_target", land, EXACT_RTOL, "max ‖LN(x + σ(Wx+b)) − x̃‖/√d"),
        Claim.at_most("weight_norm_is_alpha", wnorm, EXACT_RTOL, "max |‖W‖_F − α|/α"),
        Claim.at_most(name, angle_err, ANGLE_RTOL, "max relative error of the angle moved vs the formula"),
        Claim.at_least("angle_lower_bound", lower, 1.0, "min (angle moved)/(mα/(4√d))"),
        Claim.at_most("others_untouched", touched, 0.0, f"max σ(Wx'+b) over {R} other samples per instance"),
        Claim.at_most("phase1_reaches_stopping_point", left, REACH_RTOL,
                      f"remaining angle / β⁰ after L1 = {L1} steps ({'adaptive' if form == AS_PRINTED else 'constant'}"
                      " step)"),
    ]
    details = {"landing_error": land, "weight_norm_error": wnorm, "angle_moved_first": float(moved[0]),
               "exact_formula_first": float(exact_angle(alpha.flatten(), m, d)[0]),
               "printed_formula_first": float(printed_angle(alpha.flatten(), m, d)[0]),
               "angle_over_lower_bound_min": lower, "max_relu_on_others": touched,
               "phase1_remaining_fraction": left, "exp(-2)": math.exp(-2)}
    return Outcome(observed=angle_err, bound=ANGLE_RTOL, tightness=None, claims=claims, details=details)


def report_a9(suite):
    yield CORRECTED, dict(), False
    yield AS_PRINTED, dict(), False
    yield CORRECTED, dict(step_scale=0.4), True
    yield CORRECTED, dict(cap_violation=True), True


RESULT_A9 = register(Result(
    id=ID_A9, paper="004", paper_title=PAPER_TITLE,
    title="Proof of Thm 4.3, phase-1 one-sample mover (eq. 14): exact landing; angle and step rule (erratum A9)",
    statement=("The block W = α(1+(m/2)d)xᵀ/(√(d+m²/4)√d), b = −(1−m/2)α√d/√(d+m²/4)·1 moves x exactly to the point at "
               "chord distance αm√d/(2√(d+m²/4)), has ‖W‖_F = α, leaves samples with x'ᵀx ≤ d(1−m) untouched, moves by "
               "Δβ = 2 arcsin(αm/(2√(d+m²/4))) ≥ mα/(4√d); with α^l = 4√dβ^l/(L_1 m) phase 1 reaches its "
               "stopping point."),
    correction=("Δβ = 2 arcsin(αm/(4√(d+m²/4))); the step must be the constant α = 4√dβ⁰/(L_1 m) (the adaptive one "
                "leaves ≈ β⁰/e after L_1 steps)."),
    correction_reason="A chord s on a sphere of radius √d subtends 2 arcsin(s/(2√d)); the adaptive step decays "
                      "geometrically (digest 004 §3 A9).",
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("d", int, 8, "dimension", "d ≥ 3"),
        Param("m", float, 0.3, "margin", "0 < m < 0.5"),
        Param("alpha", float, 0.1, "step α of the single-block checks", "0 < α ≤ 0.2"),
        Param("beta0", float, 0.5, "angle phase 1 travels", "0 < β⁰ < π/2"),
        Param("L1", int, 40, "blocks of phase 1", "≥ 1"),
        Param("instances", int, 64, "random instances, batched", "≥ 1"),
        Param("others", int, 256, "other samples per instance for the untouched check", "≥ 1"),
        Param("seed", int, 0, "seed", "any integer"),
        Param("step_scale", float, 1.0, "scales (W, b): ≠ 1 is a deliberately wrong constant", "1.0"),
        Param("cap_violation", bool, False, "draw the other samples inside the cap (negative control)", "False"),
    ),
    evaluate=evaluate_a9, hypotheses=hypotheses_a9, forms=(AS_PRINTED, CORRECTED), report_instances=report_a9,
    module=__name__,
))


# ------------------------------------------------------------------------------------------------------
def hypotheses_a12(p: dict, form: str) -> list[Violation]:
    out = []
    if p["d"] < 3:
        out.append(Violation("d ≥ 3", "x and h̄ need room on the LN sphere", ("d",), bypassable=False))
    if p["target"] == "flat" and p["d"] % 2:
        out.append(Violation("d even for target='flat'", "a balanced ±1 pattern needs an even d", ("d", "target"),
                             bypassable=False))
    if not 0 < p["cm"] < 0.1:
        out.append(Violation("0 < cm < 0.1", "the proof needs 10cm ≤ (d − max h̄ᵀh̄')/d ≤ 2", ("cm",),
                             bypassable=False))
    if not 0 < p["alpha"] <= 1:
        out.append(Violation("0 < α ≤ 1", "the step of one block", ("alpha",), bypassable=False))
    if p["instances"] < 1:
        out.append(Violation("instances ≥ 1", "structural count", ("instances",), bypassable=False))
    return out


def evaluate_a12(p: dict, form: str, ctx) -> Outcome:
    d, cm, B, alpha = p["d"], p["cm"], p["instances"], p["alpha"]
    if p["target"] == "flat":  # balanced ±1 patterns: 1ᵀh = 0, ‖h‖ = √d, entries ≥ −1
        signs = torch.tensor([1.0] * (d // 2) + [-1.0] * (d // 2), dtype=ctx.dtype)
        h = torch.stack([signs[torch.randperm(d, generator=ctx.generator)] for _ in range(B)]).to(ctx.device)[..., None]
    else:
        h = random_point(ctx, B, d=d, n=1)
    u = _tangent_unit(h, ctx.randn(B, d, 1))
    t = 1 - cm  # xᵀh̄ = d(1 − cm): the stopping point of phase 1
    x = t * h + math.sqrt(1 - t * t) * math.sqrt(d) * u
    v = torch.ones_like(h) + cm * h
    W = alpha * v @ h.transpose(-1, -2) / (v.norm(dim=-2, keepdim=True) * math.sqrt(d))
    b = -(1 - 2 * cm) * alpha * math.sqrt(d) / v.norm(dim=-2, keepdim=True) * torch.ones_like(h)
    pre = W @ x + b
    negative = (pre < 0).any(dim=-2).flatten()
    x_new = ln(x + torch.relu(pre))
    gain = (_angle(x, h) - _angle(x_new, h)).flatten()
    frac = float(negative.double().mean())
    claims = [Claim.at_most("relu_is_identity", frac, 0.0,
                            f"fraction of {B} instances with a negative pre-activation entry")]
    details = {"fraction_negative_preactivation": frac, "min_entry_of_target": float(h.min()),
               "fraction_moving_towards_target": float((gain > 0).double().mean()),
               "min_angle_gain": float(gain.min()), "median_angle_gain": float(gain.median())}
    return Outcome(observed=frac, bound=0.0, tightness=None, claims=claims, details=details)


def report_a12(suite):
    yield AS_PRINTED, dict(), False  # the counterexample: random targets
    yield AS_PRINTED, dict(target="flat"), False  # the contrast: small-entry targets


RESULT_A12 = register(Result(
    id=ID_A12, paper="004", paper_title=PAPER_TITLE,
    title="Proof of Thm 4.3, phase-2 group mover: the ReLU is not the identity for generic targets (erratum A12)",
    statement=("W_j = α(1+cm h̄)h̄ᵀ/(‖1+cm h̄‖√d), b_j = −(1−2cm)α√d/‖1+cm h̄‖·1 gives σ(W_jx+b_j) = "
               "(α/‖1+cm h̄‖)((h̄ᵀx − d + 2cmd)1 + cm h̄ᵀx h̄) near h̄ (pre-activation ≥ 0), moving x towards h̄."),
    status=Status.REFUTED,
    params=(
        Param("d", int, 8, "dimension", "d ≥ 3 (even for target='flat')"),
        Param("cm", float, 0.02, "the product c·m of the proof", "0 < cm < 0.1"),
        Param("alpha", float, 0.5, "step α_j", "0 < α ≤ 1"),
        Param("instances", int, 2000, "random (h̄, x) pairs, batched", "≥ 1"),
        Param("target", str, "random", "'random' h̄ on the LN sphere, or 'flat' (balanced ±1: entries ≥ −1)",
              "random | flat", choices=("random", "flat")),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate_a12, hypotheses=hypotheses_a12, forms=(AS_PRINTED,), report_instances=report_a12,
    module=__name__,
))
