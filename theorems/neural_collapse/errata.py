"""Two steps of the proof of Theorem 4.3 of paper 004 (Appendix A, the explicit construction), checked numerically.

Both ids are *proof steps*, not statements of the paper: a printed line that fails is a
:class:`~theorems.core.result.ProofErratum` (a ``proof_step`` claim that fails on a replayed instance), not a
verdict on Theorem 4.3, whose conclusion is judged at ``neural_collapse.theorem_4_3_depth`` (open).

``neural_collapse.errata_a9``: the phase-1 "one-sample mover" (Appendix A, eq. (14))
--------------------------------------------------------------------------------
As printed: for x = x_ki on the LN sphere and the unit chord direction d_ki towards the next curve point,
    W = α (1 + (m/2) d_ki) x_kiᵀ / (√(d+m²/4) √d),   b = −(1 − m/2) α √d / √(d+m²/4) · 1,
so that σ(Wx + b) = s(1 + d_ki), s = α m √d / (2√(d+m²/4)), LN(x + σ(Wx+b)) lands exactly on the point at
chord distance s, ‖W‖_F = α, and every sample x' with x'ᵀx ≤ d(1 − m) is untouched (σ(Wx'+b) = 0). The proof
states the angle moved as Δβ = 2 arcsin(α m / (2√(d+m²/4))), uses Δβ ≥ mα/(4√d), and sets the step
α^l = 4√d β^l/(L_1 m) from the *current* remaining angle β^l so that phase 1 reaches its stopping point.
Quantifiers: ∀ d ≥ 3, 0 < m < 1/2, 0 < α ≤ 0.2, ∀ x on the LN sphere, ∀ tangent direction, ∀ x' outside the
cap. Claims (kind):
* [bound] ``lands_on_target``, ``weight_norm_is_alpha``, ``angle_lower_bound`` (Δβ ≥ mα/(4√d)),
  ``others_untouched``: the printed properties the rest of the proof uses. They hold (landing error ~1e-16,
  Δβ ≈ 2× the lower bound, untouched also for x' *on* the cap boundary, where the margin binds).
* [proof_step] ``angle_formula_as_printed``: the printed Δβ is off by a factor 2 inside the arcsin: a chord s
  on a sphere of radius √d subtends 2 arcsin(s/(2√d)) = 2 arcsin(αm/(4√(d+m²/4))); at d = 8, m = 0.3,
  α = 0.1 the measured angle is 1.7666e-3, the printed formula gives 3.5333e-3 (off by 0.5 of itself).
* [proof_step] ``phase1_reaches_stopping_point``: with the printed adaptive step β^{l+1} ≈ (1 − 2/L_1)β^l
  (Δβ ≈ 2× its lower bound), so after L_1 = 40 steps ≈ e^{-2} β⁰ (measured 0.13 β⁰) remains: x̄ is not reached.
* [identity] ``angle_formula_exact`` (the chord geometry above) and ``phase1_constant_step_reaches`` (the
  constant step α = 4√dβ⁰/(L_1 m), presumably intended, same cost bound; reaching follows from the lower
  bound, the last step shortened so as not to overshoot): tests of the construction code.
Status: **verified** (unchanged by the conversion to declared parameters): the failures are broken proof steps,
recorded as two proof errata; the printed properties the proof relies on hold on random instances, where the
margin hypothesis binds (``others_at='boundary'``), and on the generated instances of ``Result.strategy``.
Negative controls: ``step_scale`` ≠ 1 scales (W, b) (a deliberately wrong constant; 1 + 1e-9 pins
EXACT_RTOL = 1e-12, 1 + 1e-5 pins ANGLE_RTOL = 1e-6 on the exact-angle identity), ``others_at='inside'``
draws the other samples inside the cap that the margin hypothesis excludes.

``neural_collapse.errata_a12``: the phase-2 "group mover" (Appendix A)
-------------------------------------------------------------------
As printed: W_j = α_j (1 + cm h̄_j) h̄_jᵀ/(‖1 + cm h̄_j‖ √d), b_j = −(1 − 2cm) α_j √d/‖1 + cm h̄_j‖ · 1, and
σ(W_j x + b_j) = (α_j/‖1+cm h̄_j‖)((h̄_jᵀx − d + 2cmd) 1 + cm h̄_jᵀx h̄_j) for x near h̄_j, i.e. the ReLU is the
identity there (pre-activation entrywise ≥ 0), from which the proof derives that the block moves x towards h̄_j.
Quantifiers: ∀ target h̄_j of a GUFM optimum (a point of the LN sphere; the optimum is only fixed up to a
rotation of 1^⊥), ∀ x at the phase-1 stopping point xᵀh̄ = d(1 − cm), 0 < cm < 0.1, 0 < α ≤ 1.
* [proof_step] ``relu_is_identity``: fraction of random (h̄, x) with a negative pre-activation entry. At
  xᵀh̄ = d(1 − cm) entry i is ≈ √d·cm(1 + h̄_i(1 − cm))·α/‖1+cm h̄‖, negative whenever some coordinate of h̄ is
  below about −1/(1 − cm), generic for a point of norm √d (the closed form also misses a factor 1/√d).
* [proof_step] ``moves_towards_target``: fraction of instances where the block moves x *away* from h̄.
Both fail on random targets (measured at d = 8, cm = 0.02, α = 0.5 over 2000 pairs: negative entries in most,
about 1 % moving away) and hold with ``target='flat'`` (h̄ a balanced ±1 pattern, entries ≥ −1: a rotated GUFM
optimum with small entries, the natural repair).
Status: **open** (unchanged): a broken proof step does not refute the statement (Theorem 4.3), and this id
asserts no statement of the paper of its own; both failures are proof errata, replayed. The repair is built:
``construction.phase2_blocks`` raises the offset 1 of v_j = 1 + cm h̄_j to a_j ≥ max_i(−(h̄_j)_i)(1 − cm), which
keeps every pre-activation ≥ 0 (``tests/test_neural_collapse_models.py``), and the whole construction built with
it lands where it predicts and costs O(log² L/L) (``theorem_4_3_depth``, where it is a proof_step check; that
result's limit is decided by the free-block network instead).

Listed, not checked numerically: the CE proof of Lemma 4.2 via [71] states the optimal norms increase with the
regularisation (reversed; Lemma 4.2's CE optimum itself is checked in ``lemma_4_2``); the transformer
construction's "a, b > 0 with a + b = −1" is impossible (ab = (2 − 4^{i+1})/2 < 0), γ(L) = Θ(L^{1/4}) should
decrease, and W_O W_V = γA² shifts by 2V (algebraic typos with nothing to measure).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Pin, ProofErratum, Result, Status,
                           Violation, seed_param)
from ..optim.manifolds import ln, random_point
from .paper import PAPER

ID_A9 = "neural_collapse.errata_a9"
ID_A12 = "neural_collapse.errata_a12"

# One LN of a d-vector and a few products: exact to a few ulps of √d.
EXACT_RTOL = 1e-12
# Angles from arccos of a cosine near 1 lose half the digits: ~1e-8 absolute on angles ~1e-3..1e-1.
ANGLE_RTOL = 1e-6
# "Reached the stopping point": the remaining angle after L_1 steps, relative to β⁰ (the constant rule lands
# to rounding; the adaptive one leaves ~0.1).
REACH_RTOL = 1e-6



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
    # The unit chord (x̃ − x)/‖x̃ − x‖ in closed form: subtracting x from x̃ loses digits relative to the chord
    # (rounding ~ε√d/‖x̃ − x‖, 1e-8 at α = 1e-6, which broke ‖W‖_F = α at the domain edge).
    chord = -torch.sin(theta / 2) * x / math.sqrt(d) + torch.cos(theta / 2) * u
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
    """The deliberate violations of the controls (the ranges of d, m, α, β⁰ are the Param domains)."""
    out = []
    if p["others_at"] == "inside":
        out.append(Violation("margin: other samples have x'ᵀx ≤ d(1 − m)", "others_at='inside' draws them inside "
                             "the cap (negative control)", ("others_at",)))
    return out


def cost_a9(p: dict) -> Cost:
    B, d = p["instances"], p["d"]
    return Cost(elements=B * d * (d + p["others"] + 4), work=B * d * d * (p["others"] + 2 * p["L1"] * 8))


def _phase1(x, goal, L1: int, beta0: float, m: float, scale: float, *, adaptive: bool) -> float:
    """L1 real blocks from x towards ``goal`` (at angle β⁰): the printed adaptive step 4√dβ^l/(L1 m) or the
    constant 4√dβ⁰/(L1 m), the last constant step shortened to land on the goal. Max remaining angle / β⁰."""
    B, d = x.shape[0], x.shape[-2]
    const = torch.full((B, 1, 1), 4 * math.sqrt(d) * beta0 / (L1 * m), dtype=x.dtype, device=x.device)
    y = x.clone()
    for _ in range(L1):
        remaining = _angle(y, goal).view(B, 1, 1)
        if adaptive:
            a = 4 * math.sqrt(d) * remaining / (L1 * m)
        else:
            need = 4 * math.sqrt(d + m * m / 4) * torch.sin(remaining / 2) / m
            a = torch.minimum(const, need)
        active = remaining > 1e-15
        Wl, bl, _ = mover(y, _tangent_unit(y, goal), a.clamp_min(1e-300), m, scale)
        y = torch.where(active, block(y, Wl, bl), y)
    return float((_angle(y, goal).flatten() / beta0).max())


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
    lower = float((moved / (m * alpha.flatten() / (4 * math.sqrt(d)))).min())
    # Other samples: random outside the cap, exactly on its boundary x'ᵀx = d(1 − m) (where the margin
    # hypothesis binds), or inside it (the control).
    R = p["others"]
    if p["others_at"] == "random":
        others = random_point(ctx, B, d=d, n=R)
        far = (others * x).sum(-2, keepdim=True) <= d * (1 - m)
        others = torch.where(far, others, -others)  # reflect the rare near ones: −x' is far when x' is near
    else:
        t = 1 - m if p["others_at"] == "boundary" else 1 - m / 4  # x'ᵀx = d·t
        v = _tangent_unit(x.expand(B, d, R), ctx.randn(B, d, R))
        others = t * x + math.sqrt(1 - t * t) * math.sqrt(d) * v
    touched = float(torch.relu(W @ others + b).max())
    # Phase 1: L1 real blocks towards a target at angle β⁰, under the printed (adaptive) and the constant step rule.
    L1, beta0 = p["L1"], p["beta0"]
    goal_dir = _tangent_unit(x, ctx.randn(B, d, 1))
    goal = math.cos(beta0) * x + math.sin(beta0) * math.sqrt(d) * goal_dir
    left_adaptive = _phase1(x, goal, L1, beta0, m, scale, adaptive=True)
    left_constant = _phase1(x, goal, L1, beta0, m, scale, adaptive=False)
    exact = exact_angle(alpha.flatten(), m, d)
    printed = printed_angle(alpha.flatten(), m, d)
    exact_err = float(((moved - exact).abs() / exact).max())
    printed_err = float(((moved - printed).abs() / printed).max())
    claims = [
        Claim.at_most("lands_on_target", land, 0.0, "max ‖LN(x + σ(Wx+b)) − x̃‖/√d", atol=EXACT_RTOL),
        Claim.at_most("weight_norm_is_alpha", wnorm, 0.0, "max |‖W‖_F − α|/α", atol=EXACT_RTOL),
        Claim.at_least("angle_lower_bound", lower, 1.0, "min (angle moved)/(mα/(4√d))"),
        Claim.at_most("others_untouched", touched, 0.0, f"max σ(Wx'+b) over {R} other samples per instance "
                      f"({p['others_at']})"),
        Claim.at_most("angle_formula_as_printed", printed_err, 0.0,
                      "max relative error of the angle moved vs the printed 2 arcsin(αm/(2√(d+m²/4)))",
                      kind="proof_step", atol=ANGLE_RTOL),
        Claim.at_most("phase1_reaches_stopping_point", left_adaptive, 0.0,
                      f"remaining angle / β⁰ after L1 = {L1} steps of the printed adaptive step", kind="proof_step",
                      atol=REACH_RTOL),
        Claim.at_most("angle_formula_exact", exact_err, 0.0,
                      "max relative error of the angle moved vs 2 arcsin(αm/(4√(d+m²/4)))", kind="identity",
                      atol=ANGLE_RTOL),
        Claim.at_most("phase1_constant_step_reaches", left_constant, 0.0,
                      f"remaining angle / β⁰ after L1 = {L1} constant steps 4√dβ⁰/(L1 m)", kind="identity",
                      atol=REACH_RTOL),
    ]
    details = {"landing_error": land, "weight_norm_error": wnorm, "angle_moved_first": float(moved[0]),
               "exact_formula_first": float(exact[0]), "printed_formula_first": float(printed[0]),
               "angle_over_lower_bound_min": lower, "max_relu_on_others": touched,
               "phase1_remaining_fraction_adaptive": left_adaptive,
               "phase1_remaining_fraction_constant": left_constant, "exp(-2)": math.exp(-2)}
    return Outcome(claims=claims, details=details)


A9_BINDING = (Binding("margin: other samples have x'ᵀx ≤ d(1 − m)", dict(others_at="boundary"),
                      "every other sample sits exactly on the cap boundary x'ᵀx = d(1 − m)"),)
A9_CONTROLS = (
    dict(step_scale=0.4, allow_violation=True),  # a wrong constant: lands short, below the angle lower bound
    dict(step_scale=1 + 1e-9, allow_violation=True),  # pins EXACT_RTOL (landing error ~1e-11, ‖W‖ error 1e-9)
    dict(step_scale=1 + 1e-5, allow_violation=True),  # pins ANGLE_RTOL on the exact-angle identity
    dict(others_at="inside", allow_violation=True),  # the margin hypothesis dropped: inside samples move
)
# The tolerances the second and third controls pin: EXACT_RTOL = 1e-12 on the landing point, ANGLE_RTOL = 1e-6 on
# the exact-angle identity
A9_PINS = (
    Pin("lands_on_target", "step_scale", fails=1 + 1e-9, within=10, params=dict(allow_violation=True), reported=True),
    Pin("angle_formula_exact", "step_scale", fails=1 + 1e-5, within=10, params=dict(allow_violation=True),
        reported=True),
)
A9_ERRATA = (
    ProofErratum(step="Appendix A, proof of Theorem 4.3, phase 1 (after eq. (14)): the angle moved by one block",
                 printed="Δβ = 2 arcsin(αm/(2√(d+m²/4)))",
                 why="a chord s = αm√d/(2√(d+m²/4)) on the sphere of radius √d subtends 2 arcsin(s/(2√d)) = "
                     "2 arcsin(αm/(4√(d+m²/4))); at d = 8, m = 0.3, α = 0.1 the block moves 1.7666e-3 rad, the "
                     "printed formula says 3.5333e-3 (the lower bound Δβ ≥ mα/(4√d) used later stays valid)",
                 params=dict(), claim="angle_formula_as_printed"),
    ProofErratum(step="Appendix A, proof of Theorem 4.3, phase 1: the step size α^l = 4√d β^l/(L_1 m)",
                 printed="with α^l = 4√dβ^l/(L_1 m) the sample reaches its stopping point after L_1 blocks",
                 why="the step uses the current remaining angle β^l, so β^{l+1} ≈ (1 − 2/L_1)β^l decays only "
                     "geometrically: after L_1 = 40 blocks about e^{-2}β⁰ (measured 0.13β⁰ at β⁰ = 0.5) remains; "
                     "the constant step 4√dβ⁰/(L_1 m) (same cost bound) reaches it",
                 params=dict(), claim="phase1_reaches_stopping_point"),
)


def report_a9(suite):
    yield AS_PRINTED, dict(), False
    for b in A9_BINDING:
        yield AS_PRINTED, dict(b.params), False
    for spec in A9_CONTROLS:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


def _strategy_a9():
    from ..strategies.neural_collapse import phase1_mover_params

    return phase1_mover_params()


RESULT_A9 = register(Result(
    id=ID_A9, paper=PAPER, section="Appendix A, proof of Theorem 4.3, phase 1 (eq. (14))",
    title="Proof of Thm 4.3, phase-1 one-sample mover (eq. 14): the properties the proof uses hold; two proof errata",
    statement=("A proof step of Theorem 4.3 (Appendix A, eq. (14)), not a statement of the paper: the block "
               "W = α(1+(m/2)d)xᵀ/(√(d+m²/4)√d), b = −(1−m/2)α√d/√(d+m²/4)·1 moves x exactly to the point at chord "
               "distance αm√d/(2√(d+m²/4)), has ‖W‖_F = α, moves by Δβ ≥ mα/(4√d), and leaves samples with "
               "x'ᵀx ≤ d(1−m) untouched. Printed besides: Δβ = 2 arcsin(αm/(2√(d+m²/4))), and the adaptive step "
               "α^l = 4√dβ^l/(L_1 m) reaches the stopping point (both proof errata)."),
    status=Status.VERIFIED,
    params=(
        Param("d", int, 8, "dimension (d ≥ 3: a tangent direction in 1^⊥ orthogonal to x)", low=3, high=256,
              sample=(3, 16)),
        Param("m", float, 0.3, "margin (the proof takes a small margin)", low=1e-4, high=0.49, sample=(0.01, 0.49)),
        Param("alpha", float, 0.1, "step α of the single-block checks", low=1e-6, high=0.2, sample=(0.001, 0.2)),
        Param("beta0", float, 0.5, "angle phase 1 travels", low=1e-3, high=1.5),
        Param("L1", int, 40, "blocks of phase 1", low=1, high=10_000),
        Param("instances", int, 64, "random instances, batched", low=1, high=100_000),
        Param("others", int, 256, "other samples per instance for the untouched check", low=1, high=100_000),
        seed_param(),
        Param("step_scale", float, 1.0, "scales (W, b): ≠ 1 is a deliberately wrong constant", "1.0", low=1e-6,
              high=1e6, breaks="exact construction constants"),
        Param("others_at", str, "random", "other samples: 'random' outside the cap, on its 'boundary', or "
              "'inside' it (negative control)", "random | boundary", choices=("random", "boundary", "inside"),
              sample=("random", "boundary")),
    ),
    evaluate=evaluate_a9, hypotheses=hypotheses_a9, cost=cost_a9, forms=(AS_PRINTED,), report_instances=report_a9,
    module=__name__,
    logic=Logic(for_all="d ≥ 3, 0 < m < 1/2, 0 < α ≤ 0.2, x on the LN sphere, a tangent direction, samples x' with "
                        "x'ᵀx ≤ d(1 − m)"),
    proof_errata=A9_ERRATA, binding=A9_BINDING, controls=A9_CONTROLS, pins=A9_PINS, strategy=_strategy_a9,
))


# ------------------------------------------------------------------------------------------------------
def hypotheses_a12(p: dict, form: str) -> list[Violation]:
    if p["target"] == "flat" and p["d"] % 2:
        return [Violation("d even for target='flat'", "a balanced ±1 pattern needs an even d", ("d", "target"),
                          bypassable=False)]
    return []


def cost_a12(p: dict) -> Cost:
    return Cost(elements=p["instances"] * p["d"] * (p["d"] + 6), work=p["instances"] * p["d"] ** 2 * 10)


def evaluate_a12(p: dict, form: str, ctx) -> Outcome:
    d, cm, B, alpha = p["d"], p["cm"], p["instances"], p["alpha"]
    if p["target"] == "flat":  # balanced ±1 patterns: 1ᵀh = 0, ‖h‖ = √d, entries ≥ −1
        signs = torch.tensor([1.0] * (d // 2) + [-1.0] * (d // 2), dtype=ctx.dtype, device=ctx.device)
        h = signs[ctx.rand(B, d).argsort(dim=-1)][..., None]  # a random permutation per instance
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
    away = float((gain <= 0).double().mean())
    claims = [Claim.at_most("relu_is_identity", frac, 0.0,
                            f"fraction of {B} instances with a negative pre-activation entry", kind="proof_step"),
              Claim.at_most("moves_towards_target", away, 0.0,
                            f"fraction of {B} instances the block does not move towards h̄", kind="proof_step")]
    details = {"fraction_negative_preactivation": frac, "min_entry_of_target": float(h.min()),
               "fraction_moving_towards_target": float((gain > 0).double().mean()),
               "min_angle_gain": float(gain.min()), "median_angle_gain": float(gain.median())}
    return Outcome(claims=claims, details=details, headline="relu_is_identity")


def report_a12(suite):
    yield AS_PRINTED, dict(), False  # the proof errata: random targets
    yield AS_PRINTED, dict(target="flat"), False  # the contrast: small-entry targets, both steps hold


A12_ERRATA = (
    ProofErratum(step="Appendix A, proof of Theorem 4.3, phase 2 (group mover): the ReLU output",
                 printed="σ(W_j x + b_j) = (α_j/‖1+cm h̄_j‖)((h̄_jᵀx − d + 2cmd)1 + cm h̄_jᵀx h̄_j) for x near h̄_j",
                 why="the formula needs the pre-activation entrywise ≥ 0; at xᵀh̄ = d(1 − cm) entry i is ≈ "
                     "√d·cm(1 + h̄_i(1 − cm))α/‖1+cm h̄‖ < 0 whenever h̄_i < −1/(1 − cm), which a generic point of "
                     "norm √d has: at d = 8, cm = 0.02, α = 0.5 most of 2000 random (h̄, x) have a negative entry "
                     "(the closed form also misses a factor 1/√d)",
                 params=dict(), claim="relu_is_identity"),
    ProofErratum(step="Appendix A, proof of Theorem 4.3, phase 2: the angle recursion",
                 printed="the block moves x towards h̄_j: β^{l+1} ≤ (1 − α_j cm/(16√d)) β^l",
                 why="it rests on the ReLU being the identity (above); with clipped entries about 1% of 2000 random "
                     "(h̄, x) at d = 8, cm = 0.02, α = 0.5 move away from h̄ (target='flat', entries ≥ −1, moves all "
                     "of them towards it)",
                 params=dict(), claim="moves_towards_target"),
)

A12_OPEN_REASON = (
    "A step of the proof of Theorem 4.3, not a statement of the paper: its two printed properties fail on generic "
    "targets and are recorded as proof errata (replayed); that decides nothing about Theorem 4.3 itself. The repair "
    "(an offset a_j ≥ max(−h̄_j) in place of 1, or small-entry targets: target='flat' passes both steps) is what the "
    "construction of theorem_4_3_depth uses, and its cost falls at the proof's rate there; no statement of the paper "
    "is left for this id to verify.")


RESULT_A12 = register(Result(
    id=ID_A12, paper=PAPER, section="Appendix A, proof of Theorem 4.3, phase 2 (the group movers)",
    title="Proof of Thm 4.3, phase-2 group mover: a proof step, two proof errata (ReLU not the identity)",
    statement=("A proof step of Theorem 4.3 (Appendix A, phase 2), not a statement of the paper: W_j = "
               "α(1+cm h̄)h̄ᵀ/(‖1+cm h̄‖√d), b_j = −(1−2cm)α√d/‖1+cm h̄‖·1 gives σ(W_jx+b_j) = "
               "(α/‖1+cm h̄‖)((h̄ᵀx − d + 2cmd)1 + cm h̄ᵀx h̄) near h̄ (pre-activation ≥ 0), moving x towards h̄."),
    status=Status.OPEN,
    params=(
        Param("d", int, 8, "dimension (x and h̄ need room on the LN sphere)", "even for target='flat'", low=3,
              high=256, sample=(3, 16)),
        Param("cm", float, 0.02, "the product c·m of the proof (10cm ≤ (d − max h̄ᵀh̄')/d ≤ 2)", low=1e-4, high=0.099,
              sample=(0.005, 0.09)),
        Param("alpha", float, 0.5, "step α_j", low=1e-4, high=1.0, sample=(0.05, 1.0)),
        Param("instances", int, 2000, "random (h̄, x) pairs, batched", low=1, high=1_000_000),
        Param("target", str, "random", "'random' h̄ on the LN sphere, or 'flat' (balanced ±1: entries ≥ −1)",
              choices=("random", "flat"), sample=("random", "flat")),
        seed_param(),
    ),
    evaluate=evaluate_a12, hypotheses=hypotheses_a12, cost=cost_a12, forms=(AS_PRINTED,), report_instances=report_a12,
    module=__name__,
    logic=Logic(for_all="targets h̄_j of a GUFM optimum (points of the LN sphere), x at the phase-1 stopping point "
                        "xᵀh̄ = d(1 − cm), 0 < cm < 0.1, 0 < α ≤ 1"),
    proof_errata=A12_ERRATA, open_reason=A12_OPEN_REASON,
))
