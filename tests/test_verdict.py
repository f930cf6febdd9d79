"""The verdict machinery: claim kinds decide `holds`, and `derive_status` re-derives a status from the
evidence (and catches a deliberately wrong one), on a fake theorem small enough to reason about by hand.

The fake theorem: for 0 ≤ x ≤ 1, x² ≤ c·x, with c = 1 (corrected) and the printed c = 1/2, false for
x > 1/2. Its evidence carries one ``bound`` claim, one ``identity`` (x·x = x²), one ``proof_step`` (a
"proof" step x ≤ 3/4 that fails for x > 3/4) and one ``measurement``.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import strategies as st

from theorems.core import registry
from theorems.core.errors import HypothesisViolation, IdentityFailure
from theorems.core.evidence import Claim, decides_holds
from theorems.core.result import (
    AS_PRINTED, CORRECTED, Binding, Logic, Outcome, Param, ProofErratum, Result, Status, Violation,
)
from theorems.core.verdict import CachedRunner, derive_status, status_problems

C = {AS_PRINTED: 0.5, CORRECTED: 1.0}
TREND = (-1.2, -0.8)


def _evaluate(p, form, ctx) -> Outcome:
    x = p["x"]
    square = x * x if not p["bug"] else x * x + 0.1
    return Outcome(
        observed=square, bound=C[form] * x, tightness=None,
        claims=[
            Claim.at_most("square_below_line", x * x, C[form] * x),
            Claim.at_most("square_is_product", abs(square - x * x), 1e-15, kind="identity"),
            Claim.at_most("proof_step_x_small", x, 0.75, kind="proof_step"),
            Claim.measurement("gap", C[form] * x - x * x),
        ],
        details={"no_witness_certificate": "by hand"} if p["certified"] else {},
        converged=p["converges"],
    )


def _hypotheses(p, form):
    return [] if 0 <= p["x"] <= 1 else [Violation("0 ≤ x ≤ 1", "outside the unit interval", ("x",))]


def fake(**changes) -> Result:
    base = Result(
        id="fake_verdict.parabola", paper="999", paper_title="No Paper", title="x² ≤ x on [0, 1]",
        statement="x² ≤ x/2 on [0, 1]", status=Status.VERIFIED_CORRECTED,
        params=(Param("x", float, 0.25, "the point"), Param("bug", bool, False, "break the identity"),
                Param("certified", bool, True, "carry a no-witness certificate"),
                Param("converges", bool, True, "pretend optimiser converged")),
        evaluate=_evaluate, hypotheses=_hypotheses, correction="x² ≤ x on [0, 1]", correction_reason="c = 1",
        forms=(AS_PRINTED, CORRECTED), module=__name__,
        logic=Logic(for_all="x in [0, 1]"),
        counterexamples=({"x": 0.8},),
        binding=(Binding("x ≤ 1", {"x": 1.0}, "x = 1: the bound is attained"),),
        strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, 1)}),
        proof_errata=(ProofErratum("step 1", "x ≤ 3/4", "fails at x = 0.9", {"x": 0.9}, "proof_step_x_small"),),
    )
    return dataclasses.replace(base, **changes)


def _trend_evaluate(p, form, ctx) -> Outcome:
    a = p["a"]
    return Outcome(observed=a, bound=TREND[1], tightness=None,
                   claims=[Claim.at_least("exponent_at_least", a, TREND[0]), Claim.at_most("exponent_at_most", a, TREND[1])],
                   details={}, converged=p["converges"])


def fake_trend(**changes) -> Result:
    base = Result(
        id="fake_verdict.trend", paper="999", paper_title="No Paper", title="y ~ 1/n", statement="y = O(1/n)",
        status=Status.TREND, params=(Param("a", float, -1.0, "exponent"),
                                     Param("converges", bool, True, "pretend the fit's optimiser converged")),
        evaluate=_trend_evaluate,
        hypotheses=lambda p, form: [] if TREND[0] <= p["a"] <= TREND[1] else [Violation("rate", "excluded", ("a",))],
        module=__name__, logic=Logic(for_all="n → ∞"),
        trend_controls=({"a": -0.5, "allow_violation": True},),
    )
    return dataclasses.replace(base, **changes)


def derive(result: Result):
    return derive_status(result, CachedRunner())


# -- claims ---------------------------------------------------------------------------------------------
def test_only_bound_claims_decide_holds():
    ok = Claim.at_most("b", 1.0, 2.0)
    assert decides_holds([ok, Claim.at_most("p", 3.0, 2.0, kind="proof_step"), Claim.measurement("m", 7.0)], None)
    assert not decides_holds([Claim.at_most("p", 1.0, 2.0, kind="proof_step")], None), "nothing asserted"
    assert not decides_holds([ok], converged=False)
    assert not decides_holds([Claim.at_most("b", math.nan, 2.0)], None), "a NaN never holds"
    assert not decides_holds([ok, Claim.at_least("b2", 1.0, 2.0)], None)


def test_claim_kind_is_validated():
    with pytest.raises(ValueError, match="kind"):
        Claim.at_most("x", 1.0, 2.0, kind="lemma")


@pytest.mark.parametrize("claim, slack", [
    (Claim.at_most("a", 1.0, 2.0), 0.5), (Claim.at_most("a", 2.0, 1.0), -0.5), (Claim.at_least("a", 3.0, 1.0), 2 / 3),
    (Claim.at_most("a", 1.0, 1.0), 0.0), (Claim.at_most("a", 1.0, math.inf), 1.0), (Claim.at_most("a", math.inf, 1.0), -1.0),
    (Claim.at_most("a", 0.0, 0.0), 0.0), (Claim.at_most("a", 0.0, 1e-300), 1.0),
])
def test_slack_is_normalised_and_signed(claim, slack):
    assert claim.slack == pytest.approx(slack)


def test_slack_of_nan_and_measurement_is_nan():
    assert math.isnan(Claim.at_most("a", math.nan, 1.0).slack)
    assert math.isnan(Claim.measurement("m", 1.0).slack)


def test_failed_identity_raises_unless_a_control(registered):
    registered(fake())
    with pytest.raises(IdentityFailure, match="square_is_product"):
        registry.check("fake_verdict.parabola", bug=True)
    ev = registry.check("fake_verdict.parabola", bug=True, x=2.0, allow_violation=True)
    assert not ev.claim("square_is_product").passed  # recorded under a negative control


def test_proof_step_and_measurement_do_not_decide(registered):
    registered(fake())
    ev = registry.check("fake_verdict.parabola", x=0.9)
    assert ev.holds and ev.failed_proof_steps and not ev.failed_bounds
    assert ev.slack == pytest.approx((0.9 - 0.81) / 0.9)


# -- status derivation ----------------------------------------------------------------------------------
def test_verified_corrected_is_derived(registered):
    d = derive(registered(fake()))
    assert d.status is Status.VERIFIED_CORRECTED and not d.problems, d.explain()


def test_a_deliberately_wrong_status_is_caught(registered):
    for wrong in (Status.VERIFIED, Status.REFUTED, Status.TREND, Status.OPEN, Status.VACUOUS):
        result = registered(fake(status=wrong, open_reason="x"))
        assert status_problems(result, CachedRunner()), f"registered {wrong} was not caught"
    assert not status_problems(registered(fake()), CachedRunner())


def test_counterexample_must_fail_a_bound_inside_the_hypotheses(registered):
    holds = derive(registered(fake(counterexamples=({"x": 0.3},))))
    assert holds.status is Status.OPEN and any("no bound claim fails" in p for p in holds.problems)
    outside = derive(registered(fake(counterexamples=({"x": 2.0},))))
    assert any("outside the printed hypotheses" in p for p in outside.problems)
    unconverged = derive(registered(fake(counterexamples=({"x": 0.8, "converges": False},))))
    assert any("did not converge" in p for p in unconverged.problems)


def test_existential_counterexample_needs_a_certificate(registered):
    ex = Logic(for_all="x in [0, 1]", exists="a constant c")
    assert not derive(registered(fake(logic=ex))).problems
    d = derive(registered(fake(logic=ex, counterexamples=({"x": 0.8, "certified": False},))))
    assert any("no_witness_certificate" in p for p in d.problems), d.explain()


def test_refuted_when_the_correction_is_not_verified(registered):
    d = derive(registered(fake(binding=())))  # no instance where the hypothesis binds
    assert d.status is Status.REFUTED
    assert any("nearly binds" in r for r in d.reasons)


def test_verified_needs_binding_and_search(registered):
    printed_true = dict(counterexamples=(), forms=(AS_PRINTED,), correction=None,
                        binding=(Binding("x ≤ 1/2", {"x": 0.5}, "attained"),), proof_errata=())
    assert derive(registered(fake(**printed_true))).status is Status.VERIFIED
    assert derive(registered(fake(**printed_true, strategy=None))).status is Status.OPEN
    assert derive(registered(fake(**{**printed_true, "binding": ()}))).status is Status.OPEN
    # a binding instance outside the hypotheses does not count
    bad = derive(registered(fake(**{**printed_true, "binding": (Binding("x ≤ 1", {"x": 2.0}, "outside"),)})))
    assert bad.status is Status.OPEN


def test_open_needs_a_reason(registered):
    d = derive(registered(fake(counterexamples=(), forms=(AS_PRINTED,), binding=(), proof_errata=())))
    assert d.status is Status.OPEN and any("open_reason" in p for p in d.problems)


def test_trend_needs_a_contrasting_control(registered):
    assert derive(registered(fake_trend())).status is Status.TREND
    no_control = derive(registered(fake_trend(trend_controls=())))
    assert no_control.status is Status.OPEN
    holding_control = derive(registered(fake_trend(trend_controls=({"a": -1.1},), open_reason="r")))
    assert holding_control.status is Status.OPEN


def test_unconverged_trend_control_does_not_contrast(registered):
    """A control that fails its bound but did not converge fails `holds` by the convergence rule alone: it
    tells nothing about the regime, so it must not make a trend (audit: 'failed only by not converging')."""
    d = derive(registered(fake_trend(trend_controls=({"a": -0.5, "converges": False, "allow_violation": True},),
                                     open_reason="r")))
    assert d.status is Status.OPEN
    assert any("did not converge" in p for p in d.problems)
    # an unconverged control inside the trend's range (bounds pass, holds False by convergence only)
    d2 = derive(registered(fake_trend(trend_controls=({"a": -1.0, "converges": False},), open_reason="r")))
    assert d2.status is Status.OPEN


def _trend_unjudged_control(p, form, ctx) -> Outcome:
    """The trend's sweep at its default; outside the predicted range (the control) a run that judged nothing:
    no bound claim, only a measurement (`holds` is False for want of a bound, not because one failed)."""
    if TREND[0] <= p["a"] <= TREND[1]:
        return _trend_evaluate(p, form, ctx)
    return Outcome(observed=p["a"], bound=TREND[1], tightness=None, claims=[Claim.measurement("exponent", p["a"])],
                   details={}, converged=True)


def test_a_trend_control_that_judged_nothing_does_not_contrast(registered):
    """A control contrasts only by a FAILED bound claim on a converged run: one whose evidence fails `holds`
    because it has no bound claim at all says nothing about the regime (held-out mutant: `or` → `and` in the
    trend rule counted it)."""
    d = derive(registered(fake_trend(evaluate=_trend_unjudged_control, open_reason="r")))
    assert d.status is Status.OPEN
    assert any("holds" in p for p in d.problems), d.explain()


def test_proof_erratum_must_replay(registered):
    wrong = ProofErratum("step 1", "x ≤ 3/4", "claimed to fail", {"x": 0.5}, "proof_step_x_small")
    d = derive(registered(fake(proof_errata=(wrong,))))
    assert any("passes" in p for p in d.problems)
    not_a_step = ProofErratum("s", "p", "w", {"x": 0.9}, "square_below_line")
    assert any("not a proof_step" in p for p in derive(registered(fake(proof_errata=(not_a_step,)))).problems)


def test_cached_runner_evaluates_once_and_caches_violations(registered):
    calls = []

    def counting(rid, **kw):
        calls.append(kw)
        return registry.check(rid, **kw)

    registered(fake())
    run = CachedRunner(counting)
    a = run("fake_verdict.parabola", x=0.5)
    assert run("fake_verdict.parabola", x=0.5) is a and len(calls) == 1
    with pytest.raises(HypothesisViolation):
        run("fake_verdict.parabola", x=3.0)
    with pytest.raises(HypothesisViolation):
        run("fake_verdict.parabola", x=3.0)
    assert len(calls) == 2
    assert run("fake_verdict.parabola", x=0.5, fresh=True) is not a


# -- the three survivors of `python tools/mutants.py theorems/core/verdict.py` (first run: 9/12) ------------
def test_a_spec_without_allow_violation_is_not_a_control(registered):
    from theorems.core.verdict import run_spec

    result = registered(fake())
    with pytest.raises(HypothesisViolation):
        run_spec(CachedRunner(), result, {"x": 2.0})


def test_proof_erratum_outside_the_hypotheses_is_a_problem(registered):
    outside = ProofErratum("step 1", "x ≤ 3/4", "fails at x = 2", {"x": 2.0}, "proof_step_x_small")
    d = derive(registered(fake(proof_errata=(outside,))))
    assert any("outside the hypotheses" in p for p in d.problems), d.explain()


def test_a_failing_binding_instance_blocks_verified(registered):
    printed_true = dict(counterexamples=(), forms=(AS_PRINTED,), correction=None, proof_errata=(),
                        binding=(Binding("x ≤ 1/2", {"x": 0.9}, "past the printed constant"),), open_reason="r")
    d = derive(registered(fake(**printed_true)))
    assert d.status is Status.OPEN and any("does not hold" in r for r in d.reasons), d.explain()


def test_verified_needs_the_default_instance_to_hold(registered):
    """Binding instance holds (x = 0.4: 0.16 ≤ 0.2) but the default (x = 0.8) does not: not verified."""
    params = tuple(dataclasses.replace(p, default=0.8) if p.name == "x" else p for p in fake().params)
    d = derive(registered(fake(counterexamples=(), forms=(AS_PRINTED,), proof_errata=(), params=params,
                               binding=(Binding("x ≤ 1", {"x": 0.4}, "inside"),), open_reason="r",
                               status=Status.OPEN)))
    assert d.status is Status.OPEN and any("default instance" in r for r in d.reasons)


def _vacuous_evaluate(flag):
    def evaluate(p, form, ctx):
        out = _evaluate(p, form, ctx)
        out.details["vacuous"] = flag
        return out
    return evaluate


def test_vacuous_needs_the_default_instance_to_show_it(registered):
    common = dict(counterexamples=(), proof_errata=(), status=Status.VACUOUS, vacuity="a free scale")
    assert derive(registered(fake(evaluate=_vacuous_evaluate(True), **common))).status is Status.VACUOUS
    d = derive(registered(fake(evaluate=_vacuous_evaluate(False), **common)))
    assert d.status is not Status.VACUOUS and any("does not show the vacuity" in p for p in d.problems)


def test_cached_runner_knows_what_it_computed(registered):
    r = registered(fake())
    runner = CachedRunner()
    runner(r.id)
    assert runner.has(r.id) and runner.has(r.id, x=0.25) and not runner.has(r.id, x=0.5)


def test_an_instance_a_search_found_must_hold_for_verified(registered):
    """Result.searched: a hard instance inside the hypotheses that does not converge (or fails) keeps the corrected
    form from 'verified', so the status falls to the printed form's refutation (here, 'refuted'); one that holds
    changes nothing."""
    holds = derive(registered(fake(searched=({"x": 0.9},))))
    assert holds.status is Status.VERIFIED_CORRECTED, holds.explain()
    stalls = derive(registered(fake(searched=({"x": 0.9, "converges": False},))))
    assert stalls.status is Status.REFUTED, stalls.explain()
    assert "({'x': 0.9, 'converges': False}) does not converge" in stalls.explain()


# -- the trend rule on both of its entries: a declared TREND without controls, trend controls under another status
def test_a_declared_trend_without_controls_is_open_for_that_reason(registered):
    """Registered TREND with no trend control: OPEN, and the problem says the trend has no contrasting control (not
    merely some other rule failing on the way)."""
    d = derive_status(registered(fake_trend(trend_controls=(), open_reason="r")), CachedRunner())
    assert d.status is Status.OPEN
    assert any("a trend with no control" in p for p in d.problems), d.problems


def test_trend_controls_make_a_trend_whatever_status_is_registered(registered):
    """A result with trend controls is judged by the trend rule even when registered under another status: the
    evidence supports TREND, and the wrong registration is what the conformance check then reports."""
    d = derive_status(registered(fake_trend(status=Status.VERIFIED)), CachedRunner())
    assert d.status is Status.TREND, d.problems
    assert any("contrasting regimes fail it" in r for r in d.reasons), d.reasons


def test_open_reason_is_given_only_for_open(registered):
    """Result.open_reason is quoted as the reason of an OPEN status, and not where the evidence decides another."""
    opened = derive_status(registered(fake_trend(trend_controls=(), open_reason="why not")), CachedRunner())
    assert "open: why not" in opened.reasons
    trend = derive_status(registered(fake_trend(open_reason="why not")), CachedRunner())
    assert trend.status is Status.TREND and "open: why not" not in trend.reasons
