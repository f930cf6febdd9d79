"""What the report runs of a result that writes no ``report_instances``: what it declares (the default instance,
its binding instances, draws from its declared ranges, its controls), as `declared_instances` gives them; ``None``
written out runs the default instance alone (the fakes of `fakes.py` rely on it); a module's own function is
used as written. Planned by `theorems.core.runner.plan_instances`, nothing evaluated."""

from __future__ import annotations

import dataclasses


import theorems
from fakes import PLAIN_ID, make_fake
from theorems.core.params import declared_instances
from theorems.core.result import AS_PRINTED, CORRECTED, Binding, DeclaredInstances
from theorems.core.runner import plan_instances
from theorems.core.suite import get_suite

DECLARING_ID = "fake_defaults.declares"
BINDING = {"x": 1.0}
CONTROL = {"x": 2.0, "allow_violation": True}


def declaring(**changes):
    """A fake that declares a binding instance and a control, and writes no report_instances (``make_fake`` writes
    ``report_instances=None``: ``replace`` puts the field back to its default)."""
    base = make_fake(DECLARING_ID)
    fields = {f.name: f for f in dataclasses.fields(base)}
    return dataclasses.replace(base, report_instances=fields["report_instances"].default,
                               binding=(Binding("x ≤ 1", BINDING, "x = 1: the bound is attained"),),
                               controls=(CONTROL,), **changes)


def planned(rid: str, suite: str = "ci") -> list[tuple[str, dict, bool]]:
    instances, errors = plan_instances(get_suite(suite), [rid])
    assert not errors
    return [(i.form, i.params, i.allow_violation) for i in instances]


def test_a_result_without_report_instances_reports_what_it_declares(registered):
    result = registered(declaring())
    suite = get_suite("ci")
    plan = planned(result.id)
    assert (CORRECTED, {}, False) in plan
    assert (CORRECTED, BINDING, False) in plan
    assert (CORRECTED, {"x": 2.0}, True) in plan  # the control, as a negative control
    drawn = [p for f, p, a in plan if f == CORRECTED and p not in ({}, BINDING) and not a]
    assert len(drawn) == suite.report_examples
    # exactly the declared instances, then the registered counterexample (run once for the errata list)
    assert plan == [*declared_instances(result, suite), (AS_PRINTED, {"x": 0.8}, False)]
    assert list(result.report_instances(suite)) == list(declared_instances(result, suite))


def test_the_default_follows_the_result_through_replace():
    """``dataclasses.replace`` copies the field: the copy reports its own declarations, not the original's."""
    first = declaring()
    second = dataclasses.replace(first, controls=({"x": 3.0, "allow_violation": True},))
    assert isinstance(second.report_instances, DeclaredInstances) and second.report_instances.result is second
    controls = [p for _, p, a in second.report_instances(get_suite("quick")) if a]
    assert controls == [{"x": 3.0}]
    assert first == dataclasses.replace(first)  # the default compares equal, whichever result it is bound to


def test_none_runs_the_default_instance_alone(registered):
    result = registered(dataclasses.replace(declaring(), report_instances=None))
    assert planned(result.id) == [(CORRECTED, {}, False), (AS_PRINTED, {"x": 0.8}, False)]
    assert make_fake(PLAIN_ID).report_instances is None  # the fake the report tests run once with defaults


def test_a_modules_own_report_instances_is_used_as_written(registered):
    result = registered(dataclasses.replace(declaring(), report_instances=lambda suite: [(CORRECTED, {"x": 0.5}, False)]))
    assert planned(result.id) == [(CORRECTED, {"x": 0.5}, False), (AS_PRINTED, {"x": 0.8}, False)]


def test_the_paper_modules_that_write_no_report_instances_report_their_controls():
    """The modules whose one-line wrappers the default replaced (nonlinear_cl.lemma_3 is one)."""
    result = theorems.get("nonlinear_cl.lemma_3")
    plan = planned(result.id)
    for control in result.controls:
        params = {k: v for k, v in control.items() if k not in ("form", "allow_violation")}
        assert (control.get("form", result.default_form), params, True) in plan
    assert (result.default_form, dict(result.binding[0].params), False) in plan
