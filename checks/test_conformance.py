"""Checks every registered result must pass, written once (scikit-learn's ``parametrize_with_checks`` is
the model): the registered status follows from the evidence by the rules of `theorems.core.verdict`,
every ``bound`` claim is broken by some negative control, counterexamples and proof errata replay, the
worst case is searched (``hypothesis.target`` on the normalised slack), bad input names the parameter,
Evidence survives JSON, and a seed fixes the numbers.

The per-paper files in ``checks/`` keep only what is particular to a paper.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, target
from hypothesis import strategies as st

import theorems
from theorems import HypothesisViolation, ParameterError
from theorems.core.evidence import CLAIM_KINDS, Evidence, bound_claims
from theorems.core.result import Status
from theorems.core.verdict import run_spec, status_problems

IDS = theorems.ids()


def _result(result_id):
    return theorems.get(result_id)


# -- status ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("result_id", IDS)
def test_declares_its_logic(result_id):
    result = _result(result_id)
    assert result.logic is not None, f"{result_id}: Result.logic (the statement's quantifiers) is missing"
    assert result.logic.for_all, f"{result_id}: Logic.for_all is empty"
    if result.status is Status.OPEN:
        assert result.open_reason, f"{result_id}: an open result must say why and what would decide it"


@pytest.mark.parametrize("result_id", IDS)
def test_status_follows_from_the_evidence(result_id, run):
    problems = status_problems(_result(result_id), run)
    assert not problems, f"{result_id}:\n" + "\n".join(problems)


@pytest.mark.parametrize("result_id", [i for i in IDS if _result(i).counterexamples])
def test_counterexamples_replay(result_id, run):
    result = _result(result_id)
    for cx in result.counterexamples:
        ev = run(result_id, form="as_printed", **cx)
        assert not ev.holds and ev.failed_bounds and not ev.violations, ev.explain()


@pytest.mark.parametrize("result_id", [i for i in IDS if _result(i).proof_errata])
def test_proof_errata_replay(result_id, run):
    for erratum in _result(result_id).proof_errata:
        ev = run(result_id, form=erratum.form, **erratum.params)
        claim = ev.claim(erratum.claim)
        assert claim.kind == "proof_step" and not claim.passed, ev.explain()


# -- every bound can fail ------------------------------------------------------------------------------
def _asserted(result, run) -> set[str]:
    evs = [run(result.id)] + [run_spec(run, result, b.params, b.form) for b in result.binding]
    return {c.name for ev in evs for c in bound_claims(ev.claims)}


def _broken(result, run) -> set[str]:
    specs = [*result.controls, *result.trend_controls, *({**cx, "form": "as_printed"} for cx in result.counterexamples)]
    return {c.name for spec in specs for c in run_spec(run, result, spec).failed_bounds}


@pytest.mark.parametrize("result_id", IDS)
def test_every_bound_claim_has_a_negative_control(result_id, run):
    result = _result(result_id)
    asserted = _asserted(result, run)
    unbroken = sorted(asserted - _broken(result, run))
    assert not unbroken, f"{result_id}: bound claims no control breaks (a check that cannot fail): {unbroken}"


@pytest.mark.parametrize("result_id", IDS)
def test_claims_have_known_kinds_and_default_instance_holds_identities(result_id, run):
    result = _result(result_id)
    ev = run(result_id)
    assert all(c.kind in CLAIM_KINDS for c in ev.claims)
    assert all(c.passed for c in ev.claims if c.kind in ("identity", "measurement")), ev.explain()
    if result.status is not Status.OPEN:
        assert bound_claims(ev.claims), f"{result_id}: its default form asserts no bound claim"


# -- worst-case search ---------------------------------------------------------------------------------
SEARCHED = [i for i in IDS if _result(i).strategy is not None
            and _result(i).status in (Status.VERIFIED, Status.VERIFIED_CORRECTED, Status.VACUOUS)]


@pytest.mark.slow
@pytest.mark.parametrize("result_id", SEARCHED)
@given(data=st.data())
def test_bound_holds_at_the_worst_instance_found(result_id, run, data):
    """hypothesis steers towards the smallest normalised slack of the bound claims (targeted search), so
    the instances tried move towards the boundary rather than staying where the bound is slack."""
    result = _result(result_id)
    params = data.draw(result.strategy(), label="params")
    ev = run(result_id, **params)
    if not math.isnan(ev.slack):
        target(-ev.slack, label="minus the normalised slack of the tightest bound claim")
    assert ev.holds, ev.explain()


# -- bad input -----------------------------------------------------------------------------------------
_WRONG_TYPE = {int: "three", float: "0.5", str: 3, bool: "yes"}


@pytest.mark.parametrize("result_id", IDS)
def test_bad_input_names_the_parameter(result_id):
    result = _result(result_id)
    with pytest.raises(ParameterError, match="no_such_parameter"):
        theorems.check(result_id, no_such_parameter=1)
    with pytest.raises(ParameterError, match="no form"):
        theorems.check(result_id, form="printed")
    for p in result.params:
        with pytest.raises(HypothesisViolation) as err:
            theorems.check(result_id, allow_violation=True, **{p.name: _WRONG_TYPE[p.kind]})
        assert p.name in str(err.value), f"{result_id}: the error for a bad {p.name} does not name it"


# -- serialisation and determinism ---------------------------------------------------------------------
@pytest.mark.parametrize("result_id", IDS)
def test_json_round_trip(result_id, run):
    ev = run(result_id)
    data = ev.to_dict()
    json.dumps(data, allow_nan=False)
    assert Evidence.from_dict(json.loads(json.dumps(data))).to_dict() == data


def _cheapest_spec(result, run) -> dict:
    """The registered instance (default, binding or control) that took least time: determinism is a property
    of the code path, not of the instance, so the cheapest one tests it at a fraction of the cost."""
    specs = [{}, *({**b.params, **({"form": b.form} if b.form else {})} for b in result.binding), *result.controls]
    timed = []
    for spec in specs:
        try:
            timed.append((run_spec(run, result, spec).elapsed_s, spec))
        except HypothesisViolation:
            continue
    return min(timed, key=lambda t: t[0])[1]


@pytest.mark.slow
@pytest.mark.parametrize("result_id", IDS)
def test_same_seed_same_numbers(result_id, run):
    result = _result(result_id)
    spec = _cheapest_spec(result, run)
    first = run_spec(run, result, spec).to_dict()
    second = run_spec(run, result, spec, fresh=True).to_dict()
    for d in (first, second):
        d.pop("elapsed_s")
    assert first == second, f"{result_id}: the same seed gave different numbers on {spec or 'the default instance'}"


# -- worst case over the continuous instance data ---------------------------------------------------------
ADVERSARIAL = [i for i in IDS if any(p.name == "adversarial_steps" for p in _result(i).params)
               and _result(i).status in (Status.VERIFIED, Status.VERIFIED_CORRECTED, Status.VACUOUS)]


@pytest.mark.slow
@pytest.mark.parametrize("result_id", ADVERSARIAL)
def test_bound_holds_after_adversarial_search(result_id, run, suite):
    """A batched optimiser moves the instance data towards the smallest slack (``adversarial_steps``); the
    bound must still hold there, and the search must have moved towards the boundary, not away from it."""
    ev = run(result_id, adversarial_steps=suite.adversarial_steps)
    assert ev.holds, ev.explain()
    start, end = ev.details["adversarial_start_slack"], ev.details["adversarial_end_slack"]
    assert end <= start, f"{result_id}: the adversarial search increased the slack ({start} -> {end})"
