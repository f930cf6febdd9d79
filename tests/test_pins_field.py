"""``Result.pins``: tolerance pins, parameter sets just outside a tolerance that end not converged (or fail) by
design. They are registered controls (``Result.controls`` lists them, so the conformance checks'
negative-control check runs them) and the report leaves them out, whatever the
result's ``report_instances`` yields. A :class:`~theorems.core.result.Pin` is the richer declaration (the parameter
or module constant moved, the literal value on each side): its sides are left out of the report too, and
`theorems.core.pins.pin_sides` runs them (here on the fake: milliseconds)."""

from __future__ import annotations

import dataclasses

import pytest

import theorems
from fakes import make_fake
from test_runner_defaults import planned
from theorems.core.pins import pin_sides
from theorems.core.result import CORRECTED, Pin
from theorems.core.verdict import CachedRunner
from theorems.core.suite import get_suite

PIN = {"x": 0.999}
CONTROL = {"x": 2.0, "allow_violation": True}


def pinned(report_instances):
    return dataclasses.replace(make_fake("fake_pins.pinned"), controls=(CONTROL,), pins=(PIN,),
                               report_instances=report_instances)


def test_a_pin_is_a_registered_control():
    result = pinned(None)
    assert result.controls == (CONTROL, PIN)
    assert result.is_pin(CORRECTED, PIN) and not result.is_pin(CORRECTED, {"x": 2.0})
    # written in both places it is listed once
    assert dataclasses.replace(result, controls=(CONTROL, PIN)).controls == (CONTROL, PIN)


def test_the_report_leaves_the_pins_out_whatever_report_instances_yields(registered):
    every = [(CORRECTED, {}, False), (CORRECTED, dict(PIN), False), (CORRECTED, {"x": 2.0}, True)]
    result = registered(pinned(lambda suite: iter(every)))
    plan = planned(result.id)
    assert (CORRECTED, PIN, False) not in plan
    assert (CORRECTED, {}, False) in plan and (CORRECTED, {"x": 2.0}, True) in plan


def test_the_declared_default_leaves_the_pins_out(registered):
    fields = {f.name: f for f in dataclasses.fields(pinned(None))}
    result = registered(pinned(fields["report_instances"].default))
    reported = [params for _, params, _ in result.report_instances(get_suite("ci"))]
    assert PIN not in reported and {"x": 2.0} in reported
    assert all(params != PIN for _, params, _ in planned(result.id))


def test_example_1s_short_horizons_are_pins_run_as_controls_and_not_reported():
    """ssl_dynamics.example_1's three short horizons pin REACH_RTOL, PROJ_TOL and GROWTH by ending not converged."""
    result = theorems.get("ssl_dynamics.example_1")
    pins = result.pin_instances(controls_only=True)  # two of them declared as Pins (their failing sides)
    assert pins == ({"steps": 100}, {"steps": 130}, {"steps": 23})
    assert all(pin in result.controls for pin in pins)  # what the conformance checks and the pin tests run
    plan = planned(result.id)
    assert not [p for _, p, _ in plan if p in pins]
    assert len([a for _, _, a in plan if a]) == len(result.controls) - len(pins)


def test_every_registered_pin_is_a_control_and_never_reported():
    for rid in theorems.ids():
        result = theorems.get(rid)
        if not result.pins:
            continue
        assert all(pin in result.controls for pin in result.pin_instances(controls_only=True)), rid
        reported = [(f, p) for f, p, _ in planned(rid)]
        assert not [(f, p) for f, p in reported if result.is_pin(f, p)], rid


# x² ≤ x·(1 + TOL) on the fake: attained at x = 1, so x = 1 + 2e-12 lies two allowances (TOL = 1e-12) outside.
OVER = 1.000000000002


def declared(*pins):
    return dataclasses.replace(make_fake("fake_pins.declared"), pins=pins)


def test_a_parameter_pins_failing_side_is_a_control_and_no_side_is_reported(registered):
    pin = Pin("square_below_line", "x", passes=1.0, fails=OVER, within=10, params=dict(allow_violation=True))
    result = registered(declared(pin))
    assert result.declared_pins == (pin,)
    assert dict(x=OVER, allow_violation=True) in result.controls
    assert dict(x=1.0, allow_violation=True) not in result.controls  # it passes: no negative control
    assert result.is_pin(CORRECTED, {"x": OVER}) and result.is_pin(CORRECTED, {"x": 1.0})
    assert not [p for _, p, _ in planned(result.id) if p.get("x") in (1.0, OVER)]
    pin_sides(CachedRunner(), result, pin)


def test_a_constant_pin_moves_the_module_constant_for_the_call_only(registered):
    import fakes

    pin = Pin("square_below_line", "fakes:TOL", passes=1e-11, fails=1e-13, params=dict(x=OVER, allow_violation=True))
    result = registered(declared(pin))
    assert pin.is_constant and result.pin_instances() == () and result.controls == ()
    pin_sides(CachedRunner(), result, pin)
    assert fakes.TOL == 1e-12


@pytest.mark.parametrize("pin, message", [
    (Pin("square_below_line", "x", passes=OVER, params=dict(allow_violation=True)), "passing side"),
    (Pin("square_below_line", "x", passes=1.0, fails=0.5), "failing side"),
    (Pin("square_below_line", "x", fails=1.0000001, within=10, params=dict(allow_violation=True)), "allowances"),
    (Pin("square_below_line", "fakes:TOL", passes=1e-13, params=dict(x=OVER, allow_violation=True)), "passing"),
])
def test_a_pin_on_the_wrong_side_fails(registered, pin, message):
    result = registered(declared(pin))
    with pytest.raises(AssertionError, match=message):
        pin_sides(CachedRunner(), result, pin)


def test_a_pin_names_what_it_pins():
    with pytest.raises(TypeError):
        Pin((), "x", passes=1.0)
    with pytest.raises(TypeError):
        Pin("c", "x", fails=2.0)  # neither a passing side nor within=
    assert Pin("c", "x", passes=1).claims == ("c",) and Pin("c", "STEP_MIN", passes=1).is_constant


def test_an_upper_case_declared_parameter_is_moved_as_a_parameter():
    """A Pin naming one of the result's declared parameters moves that parameter even when its name is UPPER_CASE
    (a horizon ``T``); the same name on a result that does not declare it is read as a module constant."""
    fake = make_fake("fake_pins.upper")
    T = dataclasses.replace(fake.params[0], name="T")
    result = dataclasses.replace(fake, params=(T, *fake.params[1:]), pins=(Pin("c", "T", passes=1.0, fails=2.0),))
    (pin,) = result.declared_pins
    assert not pin.is_constant and pin.spec("fails") == {"T": 2.0}
    assert Pin("c", "T", passes=1.0).is_constant and {"T": 2.0} in result.controls
