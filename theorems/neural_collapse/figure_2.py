"""Figure 2 / Appendix D of paper 004 on a real data set: L-RN2 with constant λ, "almost constant" NC metrics.

What the paper prints
---------------------
Appendix D: "we consider a ResNet with two linear layers per block trained on MNIST, but with constant weight decay
of 0.0025. As we can see, the NC metrics are almost constant across multiple depths, which is consistent with our
claim that NC is not approached in this regime." The claim is Appendix C's (heuristic): with two linear layers per
block, ‖ΔX_l‖_F ≤ √(N/4)(‖W_{l,1}‖² + ‖W_{l,2}‖²), "any change to the features will scale linearly with the
regularization cost of the matrices that were responsible for this change", so with a constant λ depth does not
make collapse cheaper — the reason Theorem 4.6 takes λ(L) → 0. Same protocol as Figure 1 (width 64, CE, 5000
epochs, 5 seeds, depths 2 … 34).

The stand-in and the readings
-----------------------------
``details["dataset"] = "digits"``: scikit-learn's bundled 8×8 digits as a small-scale stand-in for MNIST (64 pixels,
a few images per class, width 8, full-batch L-BFGS to the plateau certificate, depths up to 8, 16 in ``thorough``):
only the shape of the curves is compared, never the printed values. The training sweep is ``figure_1.sweep`` (one
batched problem, every network plateau-certified or the sweep is not converged), with λ = 0.0025 on W_L and on
every block weight. The default reading is objective (11)'s own: θ̄ "excludes biases and the parameters in
embedding layers" (Section 4.1), so the block biases are free (``bias_decay=False``). The recorded alternative is an
optimiser's weight decay on every trained block parameter (``bias_decay=True``), the reading under which Appendix
C's argument holds (every change to the features is paid for by parameter norm); it is inside the check's
parameters but not the default.

Claims (kind in brackets)
-------------------------
* ``nc1_flat_in_depth`` / ``nc3_flat_in_depth`` [bound]: |fitted log–log exponent of the seed-mean metric against L|
  ≤ FLAT_TOL · ``flat_scale`` (FLAT_TOL = 0.5: "almost constant" = not falling at the rate ``figure_1`` requires
  of Figure 1's curves, and not rising at it either; the two figures' checks are complements).
* ``nc2_exponent`` [measurement]; ``trained_above_gufm`` [identity] (every objective ≥ L*_GUFM).

Decision
--------
Status: **open** — under objective (11)'s θ̄ the verdict depends on the draw. With free biases a block whose
weights are ≈ 0 still moves every feature by x ↦ LN(x + b_{l,2}) at no cost, which Appendix C's inequality
‖ΔX_l‖ ≤ √(N/4)(‖W_{l,1}‖² + ‖W_{l,2}‖²) leaves out; whether training finds that free transport depends on the
draw. Measured with a certificate long enough for this regime (``FREE_BIASES``: K = 3, n = 6, d = 8, depths 2, 4,
8, 3 networks per depth, window 200, ≤ 4000 L-BFGS iterations; 15–55 s of CPU per draw), NC1 / NC3 exponents, seeds
0–7 (``DRAWS``):

    seed 0  −1.44 / −1.31   not certified (two L = 8 networks at the cap; best gap 1.6·10⁻⁴ vs 8.0·10⁻³ at L = 2)
    seed 1  −0.26 / −0.23   certified, flat
    seed 2  −1.15 / −1.13   not certified (one L = 8 network at the cap; best gap 2.0·10⁻⁴)
    seed 3  −0.57 / −0.50   certified, not flat
    seed 4  −0.14 / −0.14   certified, flat
    seed 5  −0.50 / −0.47   certified, NC1 not flat (−0.504)
    seed 6  −0.44 / −0.38   certified, flat
    seed 7  −0.63 / −0.55   certified, not flat

so "almost constant" holds on 3 of the 6 certified draws and fails on 3 (seeds 3, 5, 7); the 2 uncertified draws
fall fastest, and what they certify is exact: every objective is an upper bound on its depth's optimum, so the
optimum at L = 8 is within 2·10⁻⁴ of L*_GUFM (≤ 3 % of the L = 2 gap). The ci default (window 40, ≤ 600
iterations, 2 networks per depth) is too short a certificate for this regime (a window of 40 certifies networks
that later leave a slow phase): at seeds 0 and 3 it certifies flat curves (NC1 −0.31, −0.17), at seeds 1, 2 and 4
it is not converged. It is an illustration, not the decision.
What would decide it: the paper's own setting (MNIST, width 64, depths 2 … 34, 5 seeds, 5000 epochs, its treatment
of biases stated), or on the stand-in a certified optimum per depth (a sandwich whose upper bound closes at every
seed), which would say whether the constant-λ optima collapse with depth regardless of what training finds.

The recorded alternative (biases decayed with the weights, ``DECAYED_BIASES``) is flat on every draw measured,
every network certified: default size NC1 0.345 → 0.370 → 0.271 (exponent −0.18), NC3 −0.17; seeds 1–4 −0.22,
−0.19, −0.11, +0.05 (NC1); window 200 / ≤ 3000 iterations −0.20 / −0.19; depths 2 … 16 with 3 seeds −0.18 / −0.16;
the thorough size (K = 5, n = 10, d = 12, depths 2 … 16) −0.27 / −0.22. The λ ∝ 1/L regime falls under both readings
(NC1 −1.13 decayed, −1.08 free; figure_1). So the flat curves are a property of decaying *every* parameter that moves
the features, not of a constant λ on θ̄ alone. Neither reading refutes the printed sentence: its setting is not the
stand-in's.

Negative controls (each fails both flatness claims on the default sweep): ``flat_scale`` = 0.1 (|exponent| ≤ 0.05,
a deliberately tight constant), and Figure 1's regime λ ∝ 1/L on the blocks (W_L at 0.005), where the paper
predicts collapse (NC1 −1.08, NC3 −1.04). With the status open it is a control of the claims, not a trend control.
"""

from __future__ import annotations

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, Result, Status, Violation
from ..metrics.scaling import fit_power_law, scaling_series
from . import figure_1 as F1
from .paper import PAPER

ID = "neural_collapse.figure_2"
# "Almost constant": the complement of figure_1's fall bar, |exponent| ≤ 0.5 (the paper prints no number; a
# heuristic margin between the regimes as measured, see figure_1.FALL_EXPONENT). Measured: constant λ with every
# block parameter decayed −0.28 … +0.05; the λ ∝ 1/L regime −0.94 … −1.19; free biases −0.14 … −1.44 depending on
# the draw (docstring, 'Decision').
FLAT_TOL = -F1.FALL_EXPONENT


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["inner_lambda"] == "vanishing":
        out.append(Violation("constant λ on every weight (Appendix D, Figure 2)", "inner_lambda='vanishing' is Figure "
                             "1's regime (λ ∝ 1/L), where the curves fall (the trend control)", ("inner_lambda",)))
    return out


def flat_claims(rows: list[dict], tol: float) -> tuple[list[Claim], dict]:
    """Figure 2's claims on a sweep: the fitted exponents of NC1 and NC3 against L within ``tol`` of 0."""
    depths = [r["L"] for r in rows]
    fits = {k: fit_power_law(depths, [r[k] for r in rows]) for k in F1.METRICS}
    claims = [Claim.close(f"{k}_flat_in_depth", fits[k].exponent, 0.0,
                          f"fitted log–log exponent of the seed-mean {k.upper()} against L (Figure 2: almost constant)",
                          atol=tol) for k in ("nc1", "nc3")]
    claims.append(Claim.measurement("nc2_exponent", fits["nc2a"].exponent, 0.0,
                                    "fitted log–log exponent of the seed-mean NC2A against L"))
    return claims, fits


def evaluate(p: dict, form: str, ctx) -> Outcome:
    rows = F1.sweep(ctx, p)
    depths = [r["L"] for r in rows]
    tol = FLAT_TOL * p["flat_scale"]
    claims, fits = flat_claims(rows, tol)
    claims += F1.identity_claims(rows)
    series = [scaling_series("L", depths, k.upper(), [r[k] for r in rows], fit=fits[k], predicted=(-tol, tol),
                             predicted_note="almost constant (Figure 2)") for k in F1.METRICS]
    details = {**F1.sweep_details(rows, p), "fits": {k: f.to_dict() for k, f in fits.items()}, "scaling": series}
    return Outcome(claims=claims, details=details, converged=F1.sweep_converged(rows), headline="nc1_flat_in_depth")


def cost(p: dict) -> Cost:
    return F1.cost(p)


# |exponent| ≤ 0.05: a tolerance 10× too tight (the default's ≈ −0.3 is outside it); and the regime where the paper
# predicts collapse (Figure 1: λ₀ = 0.005 on W_L, λ₀/L on the block weights), where both curves fall (≈ −1.1).
CONTROLS = (dict(flat_scale=0.1, allow_violation=True), dict(inner_lambda="vanishing", lam=0.005, allow_violation=True))
# The decision's protocol: a certificate window long enough for the free biases' slow phases (docstring), and the
# draws it was measured on; the recorded alternative reading (block biases decayed with the weights).
FREE_BIASES = dict(bias_decay=False, train_iter=4000, window=200, seeds=3)
DRAWS = tuple(range(8))
DECAYED_BIASES = dict(bias_decay=True)


def report_instances(suite):
    yield AS_PRINTED, {}, False
    yield AS_PRINTED, dict(DECAYED_BIASES), False
    if suite.name == "thorough":
        yield AS_PRINTED, dict(DECAYED_BIASES, depths=(2, 4, 8, 16), seeds=3), False
        yield AS_PRINTED, dict(F1.THOROUGH, lam=0.0025, **DECAYED_BIASES), False
        for seed in DRAWS:
            yield AS_PRINTED, dict(FREE_BIASES, seed=seed), False
    for spec in CONTROLS:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Appendix D, Figure 2 (L-RN2 on MNIST, constant weight decay 0.0025); Appendix C",
    title="Figure 2 (L-RN2, constant λ) on the digits stand-in: NC metrics almost constant in depth? Under objective "
          "(11)'s free biases it depends on the draw (flat only when the biases are decayed too)",
    statement=("Trained L-RN2 networks with constant weight decay λ = 0.0025 (CE, MNIST) have NC metrics that are "
               "almost constant across depth L ∈ {2, …, 34}, consistent with NC not being approached in this regime "
               "(Appendix D, Figure 2; Appendix C)."),
    status=Status.OPEN,
    open_reason=("under objective (11)'s θ̄ (block biases free) the constant-λ curves are flat on 3 of 6 certified "
                 "draws and fall on 3 (seeds 3, 5, 7: NC1 exponents −0.57, −0.50, −0.63 against |·| ≤ 0.5; window 200, "
                 "≤ 4000 iterations); the 2 uncertified draws fall fastest (−1.44, −1.15). Flat on every draw only when "
                 "the biases are decayed too (the recorded alternative). MNIST at the paper's size, or a certified "
                 "optimum per depth on the stand-in, would decide it"),
    params=F1.COMMON_PARAMS + (
        Param("lam", float, 0.0025, "λ: the weight decay on W_L and every block parameter (constant); with "
              "'vanishing', λ₀ on W_L and λ₀/L on the blocks", "λ > 0", low=1e-6, high=10.0),
        Param("inner_lambda", str, "constant", "'constant' (Figure 2) or 'vanishing' (Figure 1's λ₀/L; the trend "
              "control)", "constant", choices=F1.LAMBDAS),
        Param("flat_scale", float, 1.0, "multiplies FLAT_TOL; ≠ 1 is a deliberately different tolerance (negative "
              "control)", "1.0", low=0.0, high=1e3, breaks="the flatness tolerance"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="depths L, seeds; L-RN2 networks trained to convergence on objective (11) (CE, constant "
                        "λ on θ̄) on MNIST (here: the digits stand-in)"),
    controls=CONTROLS,
))
