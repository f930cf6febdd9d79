"""Fuzz the paper-002 results of issue 26 at the classes the shared fuzz does not reach (issue 26, item 8): both ends
of every numeric domain (budgets included), lists of length 1, every choice. Each call runs with
``allow_violation=True`` and must end in an Evidence or a typed error (ParameterError / HypothesisViolation /
ResourceLimit). Inside the hypotheses, a converged run of a verified statement must not fail a bound claim: that
would be a silent "fails" (a finding to register, a hypothesis to declare, or a run to report as not converged).

Calls whose cost exceeds 20× the default's are left out, as in tools/fuzz.py (the cost model refuses the rest).
The campaign (51 runs, ~90 s on 2 busy cores) runs in the thorough suite (``pytest --suite thorough``); the default
run keeps the plan's own test.
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems.core.errors import HypothesisViolation, ParameterError
from theorems.core.result import Status

IDS = ["ssl_dynamics.remark_2", "ssl_dynamics.lemma_2", "ssl_dynamics.theorem_1", "ssl_dynamics.theorem_3"]
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
    for rid in IDS:
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
        pytest.skip("the edge campaign runs in the thorough suite")
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
