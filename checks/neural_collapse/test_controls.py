"""Paper 004's registered controls are what they say (issue 39, item 5): every negative control and every trend
control of every ``neural_collapse`` result fails at least one of that result's *bound* claims. A control that
fails only an identity (an algebraic test of the code) or only by not converging shows nothing about the bound it
is registered against; the conformance check (``test_every_bound_claim_has_a_negative_control``) asks only that
each bound claim is broken by *some* control, which such a control can hide behind.

Parametrised by ``result_id``: the tests of one result share an xdist worker with its conformance checks, which
compute the same control instances (the ``run`` cache), so this adds no evaluation of its own.
"""

from __future__ import annotations

import pytest

import theorems
from theorems.core.verdict import run_spec

PAPER_004 = [rid for rid in theorems.ids() if rid.startswith("neural_collapse.")]
SPECS = [(rid, kind, i) for rid in PAPER_004 for kind in ("controls", "trend_controls")
         for i in range(len(getattr(theorems.get(rid), kind)))]


@pytest.mark.parametrize("result_id, kind, index", SPECS, ids=[f"{r.split('.')[1]}-{k}-{i}" for r, k, i in SPECS])
def test_each_control_fails_a_bound_claim(result_id, kind, index, run):
    result = theorems.get(result_id)
    spec = getattr(result, kind)[index]
    ev = run_spec(run, result, spec)
    failed = {c.name for c in ev.failed_bounds}
    assert failed, (
        f"{result_id} {kind} {dict(spec)} fails no bound claim (failed: "
        f"{[f'{c.name} [{c.kind}]' for c in ev.failed_claims]}): relabel it or make it bite\n{ev.explain()}")
    if kind == "trend_controls":  # a trend control contrasts only on a converged run (core.verdict)
        assert ev.converged is not False, ev.explain()


def test_paper_004_registers_controls():
    assert len(SPECS) >= 30 and any(k == "trend_controls" for _, k, _ in SPECS)
