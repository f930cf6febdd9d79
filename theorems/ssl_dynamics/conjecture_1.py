"""Conjecture 1 of paper 002: linear and nonlinear networks stay close during training (measured, not proved).

Statement as printed
--------------------
"Consider the setup of Theorem 1 … and an optimisation of min Tr(u_(t)ᵀu_(t)) s.t. W₂ᵀW₂ = I_z, W₁ᵀW₁ = I_d.
Assume φ(0) = 0 and φ'(0) = 1. Then ‖u^φ_(t) − u^I_(t)‖ → 0 for all t > 0 as h → ∞."

Reading chosen
--------------
The objective "Tr(uᵀu)" is garbled; it is read as the mean contrastive loss (1) on half moons (n anchors, d = 2).
Both networks start from the *same* Haar (W₁, W₂) and take ``steps`` Riemannian GD steps (tangent step + QR,
η = ``eta``), batched over ``seeds`` (``ssl_dynamics.networks``: back-propagation written out, the linear network
through the trace form (7)). Metric: max over anchors of ‖u^φ_t(xᵢ) − u^I_t(xᵢ)‖, median over seeds, at t = 0 and
t = ``steps``, for each width in ``widths``.

Quantifiers: ∀ φ with φ(0) = 0, φ'(0) = 1, ∀ t > 0: lim_{h→∞} ‖u^φ_(t) − u^I_(t)‖ = 0 (Haar initialisation).

Status ``trend`` (unchanged, now with the contrast the rules ask for): the check fits the log-log slope of the
trained gap against width and asserts it is ≤ ``SLOPE_MAX`` (the gap shrinks with width,
``gap_decreases_with_width``). The regime where the paper predicts the opposite is the sigmoid (φ(0) ≠ 0): the
section "Numerical Evaluation" says "with increased layer width the difference between linear and non-linear
increases". That sweep is the trend control (``trend_controls``) and it fails the same claim (its trained gap grows
with width). Default (CI) instance: widths 20, 60, 200, 100 steps, 2 initialisations: fitted slope −0.67 (tanh)
against +0.03 (sigmoid). The thorough suite adds Figure 2's scale (widths 10–2000, 500 steps, 10 initialisations),
where ``ssl_dynamics.figure_2``'s sweep (n = 200) measures tanh −0.85 and sigmoid +0.17.
A finite sweep is evidence, not a proof of a limit. ReLU is outside the hypotheses (φ'(0) does not exist); the
paper's "consistent with tanh but slower" for ReLU is recorded by ``ssl_dynamics.figure_2``.
"""

from __future__ import annotations

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..data.ssl_pairs import make_moons, ssl_triplets
from ..metrics.scaling import SCALING_KEY, fit_power_law, scaling_series
from ..optim.stiefel import haar_stiefel
from ..optim.threads import one_thread
from .instances import n_param, widths_param
from .networks import sweep_cost, sweep_violations, train_and_compare
from .paper import PAPER
from .trace_form import activation_violations

ID = "ssl_dynamics.conjecture_1"
ACTS = ("tanh", "softplus2", "relu", "sigmoid")
# The conjecture predicts no rate; "decreasing" is a negative slope, with a margin above the fit's noise.
SLOPE_MAX = -0.1


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    widths = list(p["widths"])
    t = ssl_triplets(ctx, make_moons(ctx, p["n"], 0.05), 0.1)
    g0, gT = [], []
    for h in widths:  # one batched run per width: the activation and the linear network, every seed
        W1, W2 = haar_stiefel(ctx, p["seeds"], h=h, k=2), haar_stiefel(ctx, p["seeds"], h=h, k=p["z"])
        gaps, _ = train_and_compare(t, W1, W2, (p["activation"],), p["eta"], p["steps"])
        g0.append(float(gaps[0, 0].median()))
        gT.append(float(gaps[-1, 0].median()))
    fit = fit_power_law(widths, gT)
    claims = [Claim.at_most("gap_decreases_with_width", fit.exponent, SLOPE_MAX,
                            f"fitted exponent of the trained gap (t = {p['steps']} steps) over h ∈ {widths}")]
    fit_init = fit_power_law(widths, g0).to_dict() if min(g0) > 0 else None
    details = {"widths": widths, "gap_init": g0, "gap_trained": gT, "fit_trained": fit.to_dict(), "fit_init": fit_init,
               SCALING_KEY: [
                   scaling_series("width h", widths, f"median gap after {p['steps']} steps", gT, fit=fit,
                                  predicted=(None, SLOPE_MAX), predicted_note="conjectured: the gap shrinks"),
                   scaling_series("width h", widths, "median gap at initialisation", g0, fit=fit_init),
               ]}
    return Outcome(claims=claims, details=details)


def hypotheses(p: dict, form: str) -> list[Violation]:
    return sweep_violations(p) + activation_violations(p["activation"])


def cost(p: dict) -> Cost:
    return sweep_cost(p, networks=1)


# Figure 2's scale: widths 10 to 2000, 500 epochs, 10 initialisations (the thorough suite).
PAPER_SCALE = dict(widths=(10, 30, 100, 300, 1000, 2000), steps=500, seeds=10)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(activation="sigmoid"), True
    if suite.name == "thorough":
        yield AS_PRINTED, dict(PAPER_SCALE), False
        yield AS_PRINTED, dict(PAPER_SCALE, activation="sigmoid"), True


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Non-Linear SSL Models are Almost Linear', Conjecture 1 and Figure 2",
    title="Conjecture 1 (trend, measured): linear and nonlinear networks stay close during training",
    statement="Under Theorem 1's setup with orthonormality constraints and φ(0) = 0, φ'(0) = 1, "
              "‖u^φ_(t) − u^I_(t)‖ → 0 for all t > 0 as h → ∞.",
    status=Status.TREND,
    logic=Logic(for_all="every φ with φ(0) = 0, φ'(0) = 1 and every t > 0, as h → ∞ (Haar initialisation, shared "
                        "by both networks)"),
    trend_controls=(dict(activation="sigmoid", allow_violation=True),),
    params=(
        Param("activation", str, "tanh", "φ (relu, sigmoid: outside the hypotheses)", "tanh | softplus2", choices=ACTS),
        widths_param((20, 60, 200), "widths of the sweep", low=2),
        Param("z", int, 2, "output dimension", low=1, high=64),
        n_param(200, sample=None),
        Param("eta", float, 0.01, "step size", low=1e-9, high=10.0),
        Param("steps", int, 100, "Riemannian GD steps", low=1, high=100_000),
        Param("seeds", int, 2, "initialisations per width, batched", low=1, high=256),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
