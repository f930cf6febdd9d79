"""Paper 004 as a whole: checks over every registered result of `theorems.neural_collapse` beyond the conformance
checks (checks/test_conformance.py)."""

from __future__ import annotations

import pytest

import theorems
from theorems.core import registry


# -- what the report runs ------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid", [i for i in theorems.ids() if i.startswith("neural_collapse.")])
def test_report_instances_are_marked_as_controls_exactly_when_they_violate(rid):
    """Every instance the report runs is inside the hypotheses unless it is marked a control, and a marked
    control does violate one (validation only: nothing is computed)."""
    from theorems.core.registry import validate
    from theorems.core.suite import get_suite

    result = theorems.get(rid)
    for form, params, control in result.report_instances(get_suite("ci")):
        _, violations = validate(result, params, form)
        assert bool(violations) == control, (rid, form, params, violations)


NC = "neural_collapse."


def test_every_bypassing_control_of_the_paper_violates_a_named_hypothesis():
    """A registered control that bypasses the hypotheses (``allow_violation``) must be outside them by the declared
    checks: were the check it relies on dropped, the control would be an instance inside the hypotheses that fails."""
    for rid in registry.ids():
        if not rid.startswith(NC):
            continue
        result = registry.get(rid)
        for control in (*result.controls, *result.trend_controls):
            if not control.get("allow_violation"):
                continue
            params = {k: v for k, v in control.items() if k not in ("form", "allow_violation")}
            _, violations = registry.validate(result, params, control.get("form", result.default_form))
            assert violations and all(v.hypothesis for v in violations), f"{rid}: {dict(control)} violates nothing"
