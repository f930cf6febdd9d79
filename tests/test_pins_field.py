"""``Result.pins``: tolerance pins, parameter sets just outside a tolerance that end not converged (or fail) by
design. They are registered controls (``Result.controls`` lists them, so the conformance checks'
negative-control check and checks/test_pins_000_002.py run them) and the report leaves them out, whatever the
result's ``report_instances`` yields. Nothing is evaluated here."""

from __future__ import annotations

import dataclasses

import theorems
from fakes import make_fake
from test_runner_defaults import planned
from theorems.core.result import CORRECTED
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
    assert result.pins == ({"steps": 100}, {"steps": 130}, {"steps": 23})
    assert all(pin in result.controls for pin in result.pins)  # what the conformance checks and the pin tests run
    plan = planned(result.id)
    assert not [p for _, p, _ in plan if p in result.pins]
    assert len([a for _, _, a in plan if a]) == len(result.controls) - len(result.pins)


def test_every_registered_pin_is_a_control_and_never_reported():
    for rid in theorems.ids():
        result = theorems.get(rid)
        if not result.pins:
            continue
        assert all(pin in result.controls for pin in result.pins), rid
        reported = [(f, p) for f, p, _ in planned(rid)]
        assert not [(f, p) for f, p in reported if result.is_pin(f, p)], rid
