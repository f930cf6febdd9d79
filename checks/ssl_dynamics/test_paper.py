"""Paper 002 as a whole: checks over every registered result of `theorems.ssl_dynamics` beyond the conformance checks
(checks/test_conformance.py)."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import bypassing_controls
from theorems.core import registry
from theorems.core.errors import HypothesisViolation, ParameterError
from theorems.core.result import Status

P = "ssl_dynamics."


# -- what every result of the paper declares ---------------------------------------------------------------
SSL_IDS = [i for i in theorems.ids() if i.startswith(P)]


@pytest.mark.parametrize("rid", SSL_IDS)
def test_report_instances_are_marked_as_their_hypotheses_say(rid):
    """A report instance is a negative control (allow_violation) exactly when it violates a hypothesis."""
    from theorems.core.registry import validate
    from theorems.core.suite import get_suite

    result = theorems.get(rid)
    for suite in ("ci", "thorough"):
        for form, params, allow in result.report_instances(get_suite(suite)):
            violations = validate(result, dict(params), form)[1]
            assert bool(violations) == allow, f"{rid} {form} {params}: allow_violation={allow}, violates {violations}"


COST_SIZES = {"h": 2, "n": 2, "draws": 2, "steps": 2, "seeds": 2, "restarts": 2, "max_iter": 2, "resamples": 2,
              "n_test": 2, "starts": 2, "pairs": 2}


@pytest.mark.parametrize("rid", SSL_IDS)
def test_cost_grows_with_every_size(rid):
    """Result.cost is what keeps an instance on the machine: doubling a size (or the widest width) must raise it."""
    result = theorems.get(rid)
    base = {p.name: p.default for p in result.params}
    if rid == P + "theorem_3":
        base["start"] = "network"  # the width h is only used by the network start
    cost0 = result.cost(base)
    grown = [(name, {**base, name: base[name] * factor}) for name, factor in COST_SIZES.items() if name in base]
    if "widths" in base:
        grown.append(("widths", {**base, "widths": tuple(base["widths"][:-1]) + (2 * base["widths"][-1],)}))
    for name, params in grown:
        cost = result.cost(params)
        assert cost.elements > cost0.elements or cost.work > cost0.work, f"{rid}: doubling {name} costs nothing"


PAPERS = ("ssl_dynamics.",)


@pytest.mark.parametrize("rid, control", bypassing_controls(PAPERS), ids=lambda v: v if isinstance(v, str) else None)
def test_each_bypassing_control_violates_a_named_hypothesis(rid, control):
    """A registered control that bypasses the hypotheses (``allow_violation``) must violate one: if the
    hypothesis check it relies on were dropped, the control would be an instance inside the hypotheses that
    fails, and nothing else would notice (issue 26: hypothesis checks that no test names). Checked on the
    declared hypotheses alone, before any computation."""
    result = registry.get(rid)
    params = {k: v for k, v in control.items() if k not in ("form", "allow_violation")}
    _, violations = registry.validate(result, params, control.get("form", result.default_form))
    assert violations, f"{rid}: the control {control} violates no hypothesis"
    assert all(v.hypothesis for v in violations)


def _swept():
    return [rid for rid in registry.ids() if rid.startswith("ssl_dynamics.")
            and any(p.name == "widths" for p in registry.get(rid).params)]


@pytest.mark.parametrize("rid", _swept())
def test_memory_grows_with_the_widest_width(rid):
    """What a sweep holds at once is its widest width's batch: doubling the widest width raises Result.cost's
    elements (not only its work, which grows with any width)."""
    result = registry.get(rid)
    base = {p.name: p.default for p in result.params}
    grown = {**base, "widths": tuple(base["widths"][:-1]) + (2 * base["widths"][-1],)}
    assert result.cost(grown).elements > result.cost(base).elements


# -- both ends of every numeric domain, lists of length 1, every choice, of the results whose domains the shared
# fuzz does not reach: each call (allow_violation=True) ends in an Evidence or a typed error, and a converged run
# of a verified statement inside the hypotheses fails no bound claim (a silent "fails"). Calls costing over 20x
# the default's are left out, as in tools/fuzz.py; the 51 runs (~90 s on 2 busy cores) run in the thorough suite.
FUZZED_IDS = ["ssl_dynamics.remark_2", "ssl_dynamics.lemma_2", "ssl_dynamics.theorem_1", "ssl_dynamics.theorem_3"]
COST_FACTOR = 20


def _edge_values(p):
    if p.choices is not None:
        return list(p.choices)
    if p.is_list:
        d = list(p.default)
        return [d[:1]] if len(d) > 1 and (p.length is None or p.length[0] <= 1) else []
    if not p.numeric:
        return []
    return [v for v in (p.low, p.high) if v is not None and v != p.default]


def _calls():
    out = []
    for rid in FUZZED_IDS:
        res = theorems.get(rid)
        base = res.cost(res.defaults) if res.cost else None
        for p in res.params:
            if p.name == "seed":
                continue
            for v in _edge_values(p):
                v = p.element(v) if not p.is_list and p.choices is None else v
                try:
                    cost = res.cost({**res.defaults, p.name: p.coerce(v, rid)}) if base else None
                except Exception:  # noqa: BLE001 - the run says what is wrong
                    cost = None
                if cost is not None and (cost.work > COST_FACTOR * max(base.work, 1.0)
                                         or cost.elements > COST_FACTOR * max(base.elements, 1.0)):
                    continue
                out.append((rid, {p.name: v}))
    return out


CALLS = _calls()


@pytest.mark.slow
@pytest.mark.parametrize("rid, params", CALLS, ids=[f"{r.split('.')[1]}-{next(iter(p))}={next(iter(p.values()))}"
                                                     for r, p in CALLS])
def test_edge_runs_end_in_evidence_or_a_typed_error(rid, params, suite):
    if suite.name != "thorough":
        pytest.skip("the edge runs run in the thorough suite")
    try:
        ev = theorems.check(rid, allow_violation=True, **params)
    except (ParameterError, HypothesisViolation):
        return
    assert not (ev.holds and not math.isfinite(ev.observed)), ev.explain()
    res = theorems.get(rid)
    if (not ev.violations and ev.converged is not False and res.status in (Status.VERIFIED, Status.VERIFIED_CORRECTED)
            and ev.form == res.default_form):
        assert not ev.failed_bounds, f"silent 'fails' of a verified statement on valid input {params}\n{ev.explain()}"


def test_the_plan_reaches_lists_of_length_one_and_both_budget_ends():
    kinds = {(rid, k) for rid, p in CALLS for k in p}
    assert ("ssl_dynamics.theorem_3", "lams") in kinds and ("ssl_dynamics.lemma_2", "widths") in kinds
    assert ("ssl_dynamics.theorem_3", "starts") in kinds and ("ssl_dynamics.remark_2", "restarts") in kinds
