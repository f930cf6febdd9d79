"""Paper 003 as a whole: checks over every registered result of `theorems.cl_generalization` beyond the conformance
checks (checks/test_conformance.py)."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import bypassing_controls
from theorems.core import recording, registry
from theorems.core.verdict import run_spec


# -- the report's instances ----------------------------------------------------------------------------------
@pytest.mark.parametrize("rid", sorted(i for i in theorems.ids() if i.startswith("cl_generalization.")))
def test_report_marks_exactly_the_instances_outside_the_hypotheses(rid):
    """A report instance marked as a negative control steps over a hypothesis; every other one is inside them
    (validated from the declarations, nothing evaluated)."""
    from theorems.core.registry import validate
    from theorems.core.suite import SUITES

    result = theorems.get(rid)
    for suite in (SUITES["ci"], SUITES["thorough"]):
        for form, params, control in result.report_instances(suite):
            _, violations = validate(result, params, form)
            assert bool(violations) == control, (rid, params, violations)


def _report_instances():
    from theorems.core.suite import SUITES

    out = []
    for rid in registry.ids():
        result = registry.get(rid)
        if rid.startswith("cl_generalization.") and result.report_instances is not None:
            for i, (form, params, *allow) in enumerate(result.report_instances(SUITES["ci"])):
                out.append(pytest.param(rid, form, dict(params), bool(allow and allow[0]), id=f"{rid}-{i}"))
    return out


@pytest.mark.parametrize("rid, form, params, control", _report_instances())
def test_report_instances_are_valid_and_marked_as_what_they_are(rid, form, params, control):
    """Every instance the report runs is inside the declared domains (a control's literal moved outside them would
    end the report in a ParameterError, and no CI test runs the report), and one marked as a control violates a
    declared hypothesis while the others lie inside them all. Nothing is evaluated."""
    from theorems.core.errors import HypothesisViolation, ParameterError

    result = registry.get(rid)
    try:
        _, violations = registry.validate(result, params, form)
    except (ParameterError, HypothesisViolation) as err:
        pytest.fail(f"{rid} report instance {params}: {err}")
    assert bool(violations) == control, f"{rid} {params} (control={control}): {[v.hypothesis for v in violations]}"


PAPERS = ("cl_generalization.",)


# Controls whose hypothesis needs the instance's data (decided by the evaluation, not by the declarations)
COMPUTED: dict = {}  # no control of paper 003 needs its instance's data


@pytest.mark.parametrize("rid, control", bypassing_controls(PAPERS), ids=lambda v: v if isinstance(v, str) else None)
def test_each_bypassing_control_violates_a_named_hypothesis(run, rid, control):
    """If the hypothesis check a bypassing control relies on were dropped, the control would be an instance
    inside the hypotheses that fails, and nothing else would notice."""
    result = registry.get(rid)
    params = {k: v for k, v in control.items() if k not in ("form", "allow_violation")}
    _, violations = registry.validate(result, params, control.get("form", result.default_form))
    if not violations and rid in COMPUTED:
        ev = recording.expect(run_spec(run, result, control), recording.FAILS, recording.NOT_CONVERGED)
        assert any(COMPUTED[rid] in v for v in ev.violations), f"{rid}: {control} violated {ev.violations}"
        return
    assert violations, f"{rid}: the control {control} violates no hypothesis"
    assert all(v.hypothesis for v in violations)


# The defaults of every form are inside the hypotheses, except where a form's defaults are a declared miniature of
# a protocol the paper prints (figure_4: the printed protocol is the thorough instance).
DEFAULTS_OUTSIDE: set = set()  # every default of paper 003 is inside its hypotheses


@pytest.mark.parametrize("rid", [r for r in registry.ids() if r.startswith(PAPERS)])
def test_defaults_are_inside_the_hypotheses(rid):
    result = registry.get(rid)
    for form in result.forms:
        found = [v.hypothesis for v in result.hypotheses(registry.validate_structure(result, {}, form), form)]
        assert bool(found) == ((rid, form) in DEFAULTS_OUTSIDE), f"{rid} [{form}] defaults: {found}"


# Each registered control and counterexample must fail (a claim, or for a certificate's control, by ending not
# converged):
# the conformance checks only ask that every bound claim be broken by *some* control, so one control changed to
# passing parameters would go unnoticed. The trained results (seconds to minutes per control) are left to their
# own tests.
TRAINED = ("cl_generalization.augmentation_trend", "cl_generalization.composition_ordering",
           "cl_generalization.revised_infonce")


def _failing_specs():
    out = []
    for rid in registry.ids():
        if rid.startswith(PAPERS) and rid not in TRAINED:
            result = registry.get(rid)
            out += [(rid, dict(c), None) for c in result.controls]
            out += [(rid, dict(c), "as_printed") for c in result.counterexamples]
    return out


@pytest.mark.parametrize("rid, spec, form", _failing_specs(), ids=lambda v: v if isinstance(v, str) else None)
def test_each_registered_control_and_counterexample_fails(run, rid, spec, form):
    ev = recording.expect(run_spec(run, registry.get(rid), spec, form=form), recording.FAILS, recording.NOT_CONVERGED)
    # a control of an identity (a wrong constant in the code's algebra) fails that identity only
    failed = [c.name for c in ev.claims if c.kind != "measurement" and not c.passed]
    assert not ev.holds or failed, f"{rid}: the registered {'counterexample' if form else 'control'} {spec} holds"
