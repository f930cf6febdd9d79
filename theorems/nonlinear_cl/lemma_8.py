"""Lemma 8 of paper 001 (Tian, App. G): the length of a power-iteration step, ‖δw(t)‖ ≤ √(2(1 + μ_tc_t)(1 − c_t)).

Statement as printed (Lemma 8, App. G; used by Lemma 10 and Theorem 3)
----------------------------------------------------------------------
"If c_t > 0 and λ_i(t) > 0 for all i, then ‖δw(t)‖₂ ≤ √(2(1 + μ_tc_t)(1 − c_t))", δw(t) = w(t+1) − w(t) for power
iteration (eq. 101), μ as in Lemma 7 (eq. 182).

Quantifiers: ∀ A(·), ∀ steps t with c_t > 0 and A(w(t)) positive definite. Nothing existential.

What one check does
-------------------
Every step of power iteration from ``starts`` random starts on a real A(·) (``theorems.nonlinear_cl.pi_steps``: the
Gaussian-mixture closed form, or the finite batch of eq. (3) shifted to PD as App. B.4 prescribes; the raw batch is
indefinite, so only its PD steps are judged), converged steps (1 − c_t < 1e-10) left out.
Claim ``weight_difference_bound`` (bound): max ‖δw(t)‖/√(2(1 + μ_tc_t)(1 − c_t)) ≤ 1 + RTOL over the judged steps.
Negative control: ``include_indefinite=True`` also judges steps where A(w(t)) has a negative eigenvalue (the
hypothesis λ_i > 0 dropped): on the batch with N = 16, aug = 4 the ratio reaches 2.9 (w(t+1)ᵀw(t) < 0 there).
Binding: the shifted batch with λ_min(Â) = 1e-6 (λ_i > 0 nearly binds): ratio 0.993.

Status: new result, verified.
"""

from __future__ import annotations


import torch

from ..core.evidence import Claim
from ..core.params import declared_instances
from ..core.registry import register
from ..core.result import Pin, AS_PRINTED, Binding, Logic, Outcome, Result, Status, Violation
from .common import declared_strategy
from .paper import PAPER
from .pi_steps import cost, judged, judged_step_hypotheses, judged_step_params, params, run, worst

ID = "nonlinear_cl.lemma_8"
RTOL = 1e-8  # ‖δw‖ is a difference of unit vectors, 1 − c_t is cancellation-free: ratios exact to ~1e-10

# The bound's constant 1 multiplied by ``bound_scale`` (negative control): on the binding instance the worst ratio is
# 0.992911, so bound_scale = 0.99291074751 puts it 3 allowances (RTOL) outside, pinning RTOL.
BOUND_PIN = 0.99291074751


def hypotheses(p: dict, form: str) -> list[Violation]:
    return judged_step_hypotheses(p)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    st = run(p, ctx)
    mask = judged(st, positive_definite=not p["include_indefinite"])
    ratio = st.dw / torch.sqrt(2 * (1 + st.mu * st.c) * st.one_minus_c)
    claims = [
        Claim.at_most("weight_difference_bound", worst(ratio, mask), p["bound_scale"],
                      "max over the judged PI steps of ‖δw(t)‖/√(2(1 + μ_tc_t)(1 − c_t))", rtol=RTOL),
        Claim.measurement("judged_steps", int(mask.sum()), message=f"of {mask.numel()} steps"),
        Claim.measurement("min_lambda_min", float(st.lam[:, -1][mask].min()) if bool(mask.any()) else float("nan"),
                          message="smallest eigenvalue of A(w(t)) over the judged steps"),
    ]
    unmet = [] if bool(mask.any()) else [Violation("c_t > 0, λ_i(t) > 0 on some step", "no step of the trajectories "
                                                   "is inside the hypotheses", ("model", "seed"))]
    details = {"steps": int(mask.numel()), "judged": int(mask.sum()), "pi_iterations": st.iterations,
               "worst_ratio": worst(ratio, mask)}
    return Outcome(claims=claims, details=details, violations=unmet)


BINDING = dict(model="shifted", shift=1e-6)
CONTROLS = (dict(model="batch", N=16, aug=4.0, include_indefinite=True, allow_violation=True),
            dict(BINDING, bound_scale=BOUND_PIN, allow_violation=True))


def report_instances(suite):
    yield from declared_instances(RESULT, suite, dict(model="batch", N=16, aug=4.0))


# tolerance pins, both sides declared (theorems.core.result.Pin; run by checks/test_conformance.py)
PINS = (
    Pin('weight_difference_bound', 'bound_scale', fails=0.99291074751, within=10,
        params=dict(model='shifted', shift=1e-06, allow_violation=True), reported=True),
)


RESULT = register(Result(
    pins=PINS, id=ID,
    paper=PAPER,
    section="Appendix G, Lemma 8 (used in the proof of Theorem 3, Appendix B.4)",
    title="Lemma 8: ‖w(t+1) − w(t)‖ ≤ √(2(1 + μ_tc_t)(1 − c_t)) along power iteration (A positive definite)",
    statement="If c_t > 0 and λ_i(t) > 0 for all i, then ‖δw(t)‖₂ ≤ √(2(1 + μ_tc_t)(1 − c_t)) (Lemma 8, App. G).",
    status=Status.VERIFIED,
    params=params() + judged_step_params("√(2(1 + μ_tc_t)(1 − c_t))"),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="every A(·) and every power-iteration step t with c_t > 0 and A(w(t)) positive definite"),
    binding=(Binding("λ_i(t) > 0", BINDING, "λ_min(Â) = 1e-6: the ratio reaches 0.993"),),
    controls=CONTROLS,
    strategy=lambda: declared_strategy(ID, starts=8, pi_iters=40),
))
