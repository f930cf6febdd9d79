"""Fake results for the CLI and report tests: trivial to evaluate, so those tests take milliseconds and
never run a real (slow) theorem check.

The fake theorem: for 0 ≤ x ≤ 1, x² ≤ c·x with c = 1 (corrected); the "printed" constant c = 1/2 is
wrong for x > 1/2. ``converges=false`` imitates an optimiser that failed its certificate and
``explode=true`` an evaluation that raises.

The fake trend: y = 3·n^a on a sweep of n, with the predicted exponent range [-1.2, -0.8]; its evidence
carries ``details["scaling"]`` like a real trend result, so the report draws its sweep.
"""

from __future__ import annotations

from theorems.core.evidence import Claim
from theorems.core.result import (AS_PRINTED, CORRECTED, Cost, Outcome, Paper, Param, Result, Status, Violation,
                                  seed_param)
from theorems.metrics.scaling import SCALING_KEY, fit_power_law, scaling_series

FAKE_ID = "fake.square_below_line"
PLAIN_ID = "fake.defaults_only"  # has no report_instances: the report runs it once with defaults
BROKEN_ID = "fake.broken_instances"  # its report_instances raises
TREND_ID = "fake.power_sweep"
TREND_RANGE = (-1.2, -0.8)
TREND_SIZES = (4, 8, 16, 32)
CONSTANT = {AS_PRINTED: 0.5, CORRECTED: 1.0}
STATEMENT = "For 0 ≤ x ≤ 1, x² ≤ x/2 <script>alert(1)</script>"  # markup checks the report's escaping
FAKE_CX = {"x": 0.8}  # the registered counterexample to the printed constant 1/2
TOL = 1e-12  # x² and c·x are each one rounding from exact
PAPER = Paper(number="999", title="A Paper That Does Not Exist", authors="Nobody", venue="Nowhere", year=2099)


def _evaluate(params, form, ctx) -> Outcome:
    if params["explode"]:
        raise RuntimeError("boom")
    x, c = params["x"], CONSTANT[form]
    return Outcome(
        claims=[Claim.at_most("square_below_line", x * x, c * x, rtol=TOL)],
        details={"x": x, "c": c}, converged=params["converges"],
        violations=[Violation("x checked late", "only the evaluation can tell", ("x",))] if params["late"] else [],
    )


def _hypotheses(params, form) -> list[Violation]:
    if not 0 <= params["x"] <= 1:
        return [Violation("0 ≤ x ≤ 1", "the line lies above the parabola only on [0, 1]", ("x",))]
    return []


def fake_instances(suite):
    yield CORRECTED, {}, False  # holds
    yield CORRECTED, {"x": 0.9}, False  # holds
    yield AS_PRINTED, {"x": 0.8}, False  # the counterexample to the printed constant
    yield CORRECTED, {"x": 2.0}, True  # negative control: fails outside the hypothesis
    yield CORRECTED, {"converges": False}, False  # not converged
    yield CORRECTED, {"explode": True}, False  # raises: an error row


# What the report must count for FAKE_ID's instances above.
FAKE_COUNTS = {"instances": 5, "holds": 2, "fails": 3, "not_converged": 1, "errors": 1}


def broken_instances(suite):
    yield CORRECTED, {}, False
    raise RuntimeError("instance generator broke")


def make_fake(result_id: str, report_instances=None) -> Result:
    return Result(
        id=result_id,
        paper=PAPER,
        section="Section 1, Theorem 1",
        title=f"{result_id}: the parabola lies below the line",
        statement=STATEMENT,
        status=Status.VERIFIED_CORRECTED,
        params=(
            Param("x", float, 0.25, "the point", valid="0 ≤ x ≤ 1", sample=(0.0, 1.0)),
            Param("n", int, 3, "an integer that changes nothing", low=1, high=100, sample=(1, 10)),
            Param("loss", str, "mse", "a choice that changes nothing", choices=("mse", "ce"), sample=("mse", "ce")),
            Param("converges", bool, True, "whether the pretend optimiser converged"),
            Param("explode", bool, False, "raise inside evaluate"),
            Param("late", bool, False, "a hypothesis violation that only the evaluation finds"),
            seed_param(),
        ),
        cost=lambda p: Cost(elements=1.0, work=1.0),
        evaluate=_evaluate,
        hypotheses=_hypotheses,
        correction="For 0 ≤ x ≤ 1, x² ≤ x",
        correction_reason="the printed constant 1/2 is off by a factor 2",
        forms=(AS_PRINTED, CORRECTED),
        report_instances=report_instances,
        module=__name__,
        counterexamples=(FAKE_CX,),
    )


FAKES = {FAKE_ID: fake_instances, PLAIN_ID: None}


def _evaluate_trend(params, form, ctx) -> Outcome:
    sizes = list(TREND_SIZES)
    ys = [3.0 * n ** params["a"] for n in sizes]
    fit = fit_power_law(sizes, ys)
    lo, hi = TREND_RANGE
    return Outcome(
        claims=[Claim.at_least("exponent_at_least", fit.exponent, lo), Claim.at_most("exponent_at_most", fit.exponent, hi)],
        details={SCALING_KEY: [scaling_series("n", sizes, "y", ys, fit=fit, predicted=TREND_RANGE)]},
    )


def trend_instances(suite):
    yield AS_PRINTED, {}, False  # a = -1: inside the predicted range
    yield AS_PRINTED, {"a": -0.5}, True  # negative control: a rate outside the prediction


def make_fake_trend() -> Result:
    return Result(
        id=TREND_ID, paper=PAPER, section="Section 2, Proposition 1", title="y falls like 1/n",
        statement="y = O(1/n)", status=Status.TREND,
        params=(Param("a", float, -1.0, "the true exponent", valid="-1.2 ≤ a ≤ -0.8", low=-10.0, high=10.0,
                      sample=(-1.2, -0.8)),),
        cost=lambda p: Cost(elements=len(TREND_SIZES), work=len(TREND_SIZES)),
        evaluate=_evaluate_trend,
        hypotheses=lambda p, form: [] if TREND_RANGE[0] <= p["a"] <= TREND_RANGE[1]
        else [Violation("-1.2 ≤ a ≤ -0.8", "a rate the prediction excludes", ("a",))],
        report_instances=trend_instances, module=__name__,
    )


def all_fakes() -> list[Result]:
    """Every fake result, in the order the report lists them."""
    return [make_fake(rid, inst) for rid, inst in FAKES.items()] + [make_fake_trend()]
