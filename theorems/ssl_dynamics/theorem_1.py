"""Theorem 1 of paper 002: linear and nonlinear networks are close at a random orthonormal initialisation.

Statement as printed
--------------------
"Let W₁ ∈ St(h, d), W₂ ∈ St(h, z) be uniformly random, φ(0) = 0, φ'(0) = 1, |φ''| ≤ c. Then for a fixed x,
‖u^φ_(0)(x) − u^I_(0)(x)‖ ≤ K c ‖x‖² d √(log⁴h / h), K a universal constant."

Correction (digest 002 §2 Thm 1, §3 item 11)
--------------------------------------------
The proof (Lemma 2: max |W₁ᵢⱼ| ≤ L log h/√h w.h.p.) only gives the bound **with probability → 1** over the
Haar draw. As a statement about every orthonormal W₁ it is false: a W₁ with W₁x = ‖x‖e₁ (and W₂'s column e₁)
has gap |φ(‖x‖) − ‖x‖|, constant in h, while the bound → 0. The paper gives no K; the check uses ``K`` = 1.

Claims (``theorem_1``): over ``draws`` Haar draws at once, ``bound_holds_every_draw`` (max gap vs the bound) and
``deterministic_intermediate`` (gap ≤ ‖ε‖ ≤ (c/2)‖W₁x‖₄², no unknown constant). As printed, the adversarial W₁
is added: ``bound_holds_adversarial_W1``. ``w2='worst'`` takes W₂ with a column ε/‖ε‖ (gap = ‖ε‖).
Trend (``theorem_1_rate``): the fitted log-log slope of the median gap over ``widths`` against the digest's rates
(random W₂: −1 if φ''(0) ≠ 0, −3/2 for tanh; worst W₂: −1/2, −1). ReLU and sigmoid (φ'(0) = 1 or φ(0) = 0
fails) are the controls: their slopes leave the range.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..metrics.scaling import SCALING_KEY, fit_power_law, scaling_series
from ..optim.stiefel import haar_stiefel
from .trace_form import PAPER, PAPER_TITLE, SECOND_DERIVATIVE, activation, activation_violations

ID = "ssl_dynamics.theorem_1"
RATE_ID = "ssl_dynamics.theorem_1_rate"
ACTS = ("tanh", "softplus2", "relu", "sigmoid")
W2_KINDS = ("random", "worst")
# The deterministic chain gap ≤ ‖ε‖ ≤ (c/2)‖a‖₄² is exact up to rounding of O(h) sums.
DETERMINISTIC_SLACK = 1e-12
# Predicted slope ranges (digest §5 R6), for φ''(0) ≠ 0 (generic) and φ''(0) = 0 (tanh).
SLOPE_RANGES = {("generic", "random"): (-1.15, -0.85), ("generic", "worst"): (-0.6, -0.4),
                ("odd", "random"): (-1.7, -1.3), ("odd", "worst"): (-1.15, -0.85)}
# sup |φ''| used for the controls (no hypothesis-satisfying c exists for them; these make the bound finite).
CONTROL_C = {"relu": 1.0, "sigmoid": 0.0962}


def _const(act):
    return SECOND_DERIVATIVE[act][0] if act in SECOND_DERIVATIVE else CONTROL_C[act]


def gaps(ctx, act, h, d, z, r, draws, w2):
    """(gap, ‖ε‖, ‖a‖₄²) per Haar draw, batched: a = W₁x, ε = φ(a) − a."""
    x = ctx.randn(d)
    x = r * x / x.norm()
    W1 = haar_stiefel(ctx, draws, h=h, k=d)
    a = W1 @ x
    eps = activation(act)(a) - a
    enorm = eps.norm(dim=-1)
    if w2 == "worst":
        gap = enorm
    else:
        W2 = haar_stiefel(ctx, draws, h=h, k=z)
        gap = (W2.transpose(-1, -2) @ eps[..., None]).squeeze(-1).norm(dim=-1)
    return gap, enorm, (a**4).sum(-1).sqrt()


def bound_shape(h, d, r, c, K):
    return K * c * r**2 * d * math.log(h) ** 2 / math.sqrt(h)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    act, h, d, z, r, K = p["activation"], p["h"], p["d"], p["z"], p["r"], p["K"]
    c = _const(act)
    gap, enorm, a4 = gaps(ctx, act, h, d, z, r, p["draws"], p["w2"])
    bound = bound_shape(h, d, r, c, K)
    det = float((torch.maximum(gap - enorm, enorm - 0.5 * c * a4)).max())
    claims = [
        Claim.at_most("bound_holds_every_draw", float(gap.max()), bound,
                      f"max over {p['draws']} Haar draws of ‖u^φ − u^I‖ vs Kc‖x‖²d log²h/√h (K = {K:g})"),
        Claim.at_most("deterministic_intermediate", det, DETERMINISTIC_SLACK * max(1.0, float(a4.max())),
                      "max of gap − ‖ε‖ and ‖ε‖ − (c/2)‖W₁x‖₄²"),
    ]
    adv = abs(float(activation(act)(torch.tensor(r, dtype=torch.float64))) - r)
    if form == AS_PRINTED:
        claims.append(Claim.at_most("bound_holds_adversarial_W1", adv, bound,
                                    "W₁x = ‖x‖e₁, W₂ ∋ e₁: gap |φ(‖x‖) − ‖x‖|, constant in h"))
    details = {"c": c, "bound": bound, "max_gap": float(gap.max()), "median_gap": float(gap.median()),
               "K_empirical": float(gap.max()) / bound * K if bound > 0 else math.inf, "adversarial_gap": adv,
               "K_needed_adversarial": adv / bound * K if bound > 0 else math.inf}
    return Outcome(observed=float(gap.max()), bound=bound, tightness=float(gap.max()) / bound if bound > 0 else None,
                   claims=claims, details=details)


def _common(p):
    out = []
    if p["h"] < p["z"]:
        out.append(Violation("h ≥ z (W₂ ∈ St(h, z))", f"width h = {p['h']} < output dimension z = {p['z']}",
                             ("h", "z"), bypassable=False))
    if p["d"] < 1 or p["z"] < 1 or p["draws"] < 1:
        out.append(Violation("d, z, draws ≥ 1", "dimensions and draws must be positive", ("d", "z", "draws"),
                             bypassable=False))
    if not (math.isfinite(p["r"]) and p["r"] > 0):
        out.append(Violation("‖x‖ > 0", f"r = {p['r']}", ("r",), bypassable=False))
    out += activation_violations(p["activation"])
    return out


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = _common(p)
    if p["h"] < p["d"]:
        out.append(Violation("h ≥ d (W₁ ∈ St(h, d))", f"width h = {p['h']} < input dimension d = {p['d']}",
                             ("h", "d"), bypassable=False))
    if not (math.isfinite(p["K"]) and p["K"] > 0):
        out.append(Violation("K > 0", f"K = {p['K']}", ("K",), bypassable=False))
    return out


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield CORRECTED, dict(activation="softplus2", w2="worst"), False
    yield AS_PRINTED, dict(h=10**6, d=1, r=2.0, draws=2), False  # adversarial W₁ counterexample
    rng = np.random.default_rng(7)
    for _ in range(suite.report_examples):
        yield CORRECTED, dict(activation=str(rng.choice(["tanh", "softplus2"])), h=int(rng.integers(10, 3000)),
                              d=int(rng.integers(1, 6)), z=int(rng.integers(1, 3)), r=float(rng.choice([0.5, 1, 2])),
                              seed=int(rng.integers(1000))), False
    yield CORRECTED, dict(activation="sigmoid", w2="worst", h=3000), True


RESULT = register(Result(
    id=ID, paper=PAPER, paper_title=PAPER_TITLE,
    title="Theorem 1: linear and nonlinear networks are close at a Haar-random orthonormal initialisation",
    statement="For W₁ ∈ St(h, d), W₂ ∈ St(h, z) uniformly random and φ(0) = 0, φ'(0) = 1, |φ''| ≤ c: "
              "‖u^φ_(0)(x) − u^I_(0)(x)‖ ≤ Kc‖x‖²d√(log⁴h/h).",
    correction="The bound holds with probability → 1 over the Haar draw (checked with K = 1 on every draw); it is "
               "false for adversarial orthonormal W₁ (W₁x = ‖x‖e₁), where the gap does not shrink with h.",
    correction_reason="The proof goes through Lemma 2, a high-probability bound on max |W₁ᵢⱼ|; the statement omits "
                      "'with probability → 1' (digest 002 §3 item 11).",
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("activation", str, "tanh", "φ (relu, sigmoid: controls outside the hypotheses)", "tanh | softplus2",
              choices=ACTS),
        Param("h", int, 1000, "width", "≥ max(d, z)"),
        Param("d", int, 3, "input dimension", "≥ 1"),
        Param("z", int, 2, "output dimension", "≥ 1"),
        Param("r", float, 2.0, "‖x‖", "> 0"),
        Param("draws", int, 64, "Haar draws, batched", "≥ 1"),
        Param("w2", str, "random", "independent Haar W₂ or the worst case (column ε/‖ε‖)", "", choices=W2_KINDS),
        Param("K", float, 1.0, "the universal constant (not given by the paper)", "> 0"),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED, CORRECTED), report_instances=report_instances,
    module=__name__,
))


# -- the width-scaling trend -----------------------------------------------------------------------------
def evaluate_rate(p: dict, form: str, ctx) -> Outcome:
    act, w2 = p["activation"], p["w2"]
    widths = [int(v) for v in p["widths"].split(",")]
    med = []
    for h in widths:
        g, _, _ = gaps(ctx, act, h, p["d"], p["z"], p["r"], p["draws"], w2)
        med.append(float(g.median()))
    fit = fit_power_law(widths, med)
    cls = p["phi_class"] if p["phi_class"] != "auto" else ("odd" if act == "tanh" else "generic")
    lo, hi = SLOPE_RANGES[(cls, w2)]
    claims = [Claim.at_least("slope_at_least", fit.exponent, lo,
                             f"fitted exponent of the median gap, {cls} φ, {w2} W₂"),
              Claim.at_most("slope_at_most", fit.exponent, hi, "upper end of the predicted range")]
    details = {"widths": widths, "median_gap": med, "fit": fit.to_dict(), "predicted_range": [lo, hi],
               SCALING_KEY: [scaling_series("width h", widths, "median linear/nonlinear gap", med, fit=fit,
                                            predicted=(lo, hi), predicted_note=f"{cls} φ, {w2} W₂")]}
    return Outcome(observed=fit.exponent, bound=0.5 * (lo + hi), tightness=None, claims=claims, details=details)


def hypotheses_rate(p: dict, form: str) -> list[Violation]:
    try:
        widths = [int(v) for v in p["widths"].split(",")]
    except ValueError:
        return [Violation("widths a list of integers", f"cannot read widths = {p['widths']!r}", ("widths",),
                          bypassable=False)]
    out = _common({**p, "h": min(widths)})
    if p["phi_class"] != "auto":
        out.append(Violation("rate class from φ''(0) (φ''(0) = 0: odd, else generic)",
                             f"phi_class = {p['phi_class']!r} overrides the class of {p['activation']!r} (a "
                             "deliberately "
                             "wrong prediction, negative control)", ("phi_class",)))
    if len(widths) < 3:
        out.append(Violation("≥ 3 widths", "a slope with an error estimate needs three widths", ("widths",),
                             bypassable=False))
    if min(widths) < p["d"]:
        out.append(Violation("h ≥ d (W₁ ∈ St(h, d))", f"smallest width {min(widths)} < d = {p['d']}", ("widths", "d"),
                             bypassable=False))
    return out


def report_rate(suite):
    for act in ("tanh", "softplus2"):
        for w2 in W2_KINDS:
            yield AS_PRINTED, dict(activation=act, w2=w2), False
    yield AS_PRINTED, dict(activation="relu", w2="worst"), True
    yield AS_PRINTED, dict(activation="sigmoid", w2="random"), True


RATE = register(Result(
    id=RATE_ID, paper=PAPER, paper_title=PAPER_TITLE,
    title="Theorem 1 (trend): width scaling of the linear/nonlinear gap at initialisation",
    statement="The gap ‖u^φ_(0)(x) − u^I_(0)(x)‖ decays with the width h (the theorem's bound: like log²h/√h).",
    status=Status.TREND,
    params=(
        Param("activation", str, "softplus2", "φ (relu, sigmoid: controls)", "tanh | softplus2", choices=ACTS),
        Param("w2", str, "random", "independent Haar W₂ or the worst case", "", choices=W2_KINDS),
        Param("phi_class", str, "auto", "rate class of φ: auto (from φ''(0)); generic / odd override it (control)",
              "auto", choices=("auto", "generic", "odd")),
        Param("widths", str, "100,300,1000,3000", "widths of the sweep (comma-separated)", "≥ 3 widths ≥ d"),
        Param("d", int, 3, "input dimension", "≥ 1"),
        Param("z", int, 2, "output dimension", "≥ 1"),
        Param("r", float, 2.0, "‖x‖", "> 0"),
        Param("draws", int, 64, "Haar draws per width", "≥ 1"),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate_rate, hypotheses=hypotheses_rate, forms=(AS_PRINTED,), report_instances=report_rate,
    module=__name__,
))
