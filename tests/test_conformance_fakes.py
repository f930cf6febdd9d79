"""The conformance checks of issue 39 held to fakes built to break them (a check that cannot fail is a defect):
``test_other_seeds_hold_or_do_not_converge`` fails a result whose default instance fails on seed 3 and nowhere
else, accepts one that only ends not converged there, and its known-failure list masks exactly what it names;
``test_every_control_fails_a_bound_claim`` fails a control that breaks only an identity, unless that control is
registered as an identity control (which must then break one), and a pin that pins nothing. Nothing real runs."""

from __future__ import annotations

import dataclasses

import pytest

from fakes import make_fake
from theorems import conformance
from theorems.core.evidence import Claim
from theorems.core.result import CORRECTED, Outcome, Param, Status
from theorems.core.suite import get_suite
from theorems.core.verdict import CachedRunner

FRAGILE_SEED = 3
CI = get_suite("ci")


def _seed_fragile(fails_how: str):
    """The fake theorem x² ≤ c·x (c = 1, corrected form) whose evaluation on ``FRAGILE_SEED`` either fails (a
    constant ten times too small: 'fails') or reports an optimiser that did not converge ('not converged')."""
    def evaluate(params, form, ctx):
        x, fragile = params["x"], params["seed"] == FRAGILE_SEED
        c = 0.1 if fragile and fails_how == "fails" else 1.0
        return Outcome(claims=[Claim.at_most("square_below_line", x * x, c * x)],
                       converged=not (fragile and fails_how == "not converged"))
    return dataclasses.replace(make_fake(f"fake_other_seeds.{fails_how.replace(' ', '_')}"), evaluate=evaluate)


def _other_seeds(result, known=None):
    conformance.test_other_seeds_hold_or_do_not_converge(result.id, CachedRunner(), CI, known or {})


def test_a_result_that_fails_on_one_other_seed_fails_the_check(registered):
    result = registered(_seed_fragile("fails"))
    assert conformance._seeded(result) and FRAGILE_SEED in CI.other_seeds
    with pytest.raises(AssertionError, match=f"seed {FRAGILE_SEED}: square_below_line"):
        _other_seeds(result)


def test_not_converged_on_another_seed_is_no_failure(registered):
    _other_seeds(registered(_seed_fragile("not converged")))


def test_the_known_failures_list_masks_only_what_it_names(registered):
    fragile = registered(_seed_fragile("fails"))
    with pytest.raises(pytest.xfail.Exception, match="issue 39"):  # listed: an expected failure, with the reason
        _other_seeds(fragile, {fragile.id: ((FRAGILE_SEED,), "issue 39: tracked")})
    with pytest.raises(AssertionError, match=f"seed {FRAGILE_SEED}"):  # another seed listed: still a failure
        _other_seeds(fragile, {fragile.id: ((FRAGILE_SEED + 1,), "issue 39: tracked")})
    robust = registered(_seed_fragile("not converged"))
    with pytest.raises(AssertionError, match="remove them from the list"):  # fixed: the stale entry fails
        _other_seeds(robust, {robust.id: ((FRAGILE_SEED,), "issue 39: tracked")})


def test_the_check_applies_to_asserted_statuses_with_a_seed_only():
    fragile = _seed_fragile("fails")
    assert conformance._seeded(fragile)
    assert not conformance._seeded(dataclasses.replace(fragile, status=Status.OPEN, open_reason="undecided"))
    no_seed = dataclasses.replace(fragile, params=tuple(p for p in fragile.params if p.name != "seed"))
    assert not conformance._seeded(no_seed)


# -- controls -------------------------------------------------------------------------------------------------
def _with_identity(**fields):
    """The fake with an identity claim beside its bound: ``identity_scale`` ≠ 1 breaks the identity only,
    ``x`` > 1 (outside the hypothesis) the bound."""
    def evaluate(params, form, ctx):
        x, s = params["x"], params["identity_scale"]
        return Outcome(claims=[Claim.at_most("square_below_line", x * x, x),
                               Claim.at_most("square_is_x_times_x", abs(s * x * x - x * x), 0.0, kind="identity")])
    base = make_fake("fake_controls.with_identity")
    scale = Param("identity_scale", float, 1.0, "multiplies x² in the identity (≠ 1: a control)", low=0.0, high=10.0,
                  breaks="x² computed exactly")
    return dataclasses.replace(base, evaluate=evaluate, params=(*base.params, scale), counterexamples=(),
                               forms=(CORRECTED,), **fields)


BOUND_CONTROL = dict(x=2.0, allow_violation=True)
IDENTITY_ONLY = dict(identity_scale=2.0, allow_violation=True)


def _controls(result, known=None):
    conformance.test_every_control_fails_a_bound_claim(result.id, CachedRunner(), known or {})


def test_a_control_that_breaks_only_an_identity_fails_the_check(registered):
    result = registered(_with_identity(controls=(BOUND_CONTROL, IDENTITY_ONLY)))
    with pytest.raises(AssertionError, match="fails no bound claim.*identity_controls"):
        _controls(result)
    _controls(registered(_with_identity(controls=(BOUND_CONTROL,))))  # the bound control alone passes


def test_an_identity_control_passes_and_must_break_an_identity(registered):
    relabelled = registered(_with_identity(controls=(BOUND_CONTROL,), identity_controls=(IDENTITY_ONLY,)))
    assert IDENTITY_ONLY in relabelled.controls  # listed with the controls, like a pin
    _controls(relabelled)
    idle = registered(_with_identity(controls=(BOUND_CONTROL,), identity_controls=(dict(x=0.5),)))
    with pytest.raises(AssertionError, match="identity control .* fails no identity"):
        _controls(idle)


def test_a_pin_that_pins_nothing_fails_the_check(registered):
    result = registered(_with_identity(controls=(BOUND_CONTROL,), pins=(dict(x=0.5),)))
    with pytest.raises(AssertionError, match="pins no tolerance"):
        _controls(result)
    _controls(registered(_with_identity(controls=(BOUND_CONTROL,), pins=(dict(identity_scale=1.5,
                                                                               allow_violation=True),))))


def test_the_known_control_failures_list_is_strict(registered):
    result = registered(_with_identity(controls=(BOUND_CONTROL, IDENTITY_ONLY)))
    with pytest.raises(pytest.xfail.Exception, match="issue 39"):
        _controls(result, {result.id: "issue 39: tracked"})
    fixed = registered(_with_identity(controls=(BOUND_CONTROL,)))
    with pytest.raises(AssertionError, match="remove it"):
        _controls(fixed, {fixed.id: "issue 39: tracked"})
