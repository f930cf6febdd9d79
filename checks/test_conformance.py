"""The checks every registered result must pass run here on every result the run registers: they are written
once, in the package (`theorems.conformance`), so that anyone's results can be held to them too (``pytest
--theorems-conformance PKG``, `theorems.pytest_plugin`). This file adds what is particular to the built-in
papers: the edge calls that the fuzz campaign (tools/fuzz.py) once found ending in a raw exception.
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems import HypothesisViolation, ParameterError
from theorems.conformance import *  # noqa: F401,F403  (the checks, and the pytest_generate_tests that feeds them)
from theorems.conformance import _hang_guard
from theorems.core import recording
from theorems.core.evidence import Evidence

# Calls at the edges that tools/fuzz.py found ending in a raw exception (each fixed in the result's module); they
# must now end cleanly, like every edge call above.
FUZZ_FINDINGS = [
    ("nonlinear_cl.lemma_2", dict(N_min=4, doublings=2, replicates=8, tau=0.001)),  # α underflows: L = 0
    ("neural_collapse.theorem_4_3", dict(lam=0.0, seeds=1)),  # L*_GUFM = 0: a ratio to zero
    ("neural_collapse.theorem_4_3_depth", dict(d=3, depths=(19, 37))),  # no construction below d = 4
    ("ssl_dynamics.theorem_2", dict(h=2)),  # the violation names a derived d
    ("deep_fusion.theorem_2", dict(constant_scale=1e-6)),  # γ_ν overflowed math.exp
    ("ssl_dynamics.remark_3", dict(r=1)),  # one singular value
    ("ssl_dynamics.figure_3", dict(T=1e-12)),  # a horizon of no steps
    ("nonlinear_cl.theorem_6", dict(inits=10, c_max=-9.99)),  # fewer starts than the ODE check takes
    ("neural_collapse.dimension_conditions", dict(K=3, d=2)),  # no tangent directions at d = 2
]


@pytest.mark.parametrize("result_id, params", FUZZ_FINDINGS, ids=[f"{r}-{sorted(p)}" for r, p in FUZZ_FINDINGS])
def test_edge_calls_the_fuzz_campaign_found_end_cleanly(result_id, params):
    with _hang_guard(120, f"{result_id} {params}"):
        try:
            with recording.expecting(*recording.OUTCOMES):  # an edge call must end cleanly, whatever its verdict
                ev = theorems.check(result_id, allow_violation=True, **params)
        except (ParameterError, HypothesisViolation):
            return
    assert isinstance(ev, Evidence)
    if ev.holds:
        assert all(math.isfinite(x) for x in (ev.observed, ev.bound)), ev.explain()




def test_every_check_of_the_package_runs_here():
    """The star import above brings every check of `theorems.conformance` into this module (a check added there
    and hidden from it by a leading underscore or an __all__ would silently not run in CI)."""
    import theorems.conformance as conformance

    checks = [name for name in vars(conformance) if name.startswith("test_")]
    assert checks and all(name in globals() for name in checks)


# -- declared tolerance pins (theorems.core.result.Pin): every one, both sides, once ----------------------------
def _declared_pins():
    return [(rid, pin) for rid in theorems.ids() for pin in theorems.get(rid).declared_pins]


_PINS = _declared_pins()


@pytest.mark.parametrize("rid, pin", _PINS, ids=[f"{p.label()}-{rid}" for rid, p in _PINS])
def test_declared_pins_hold_on_their_sides(run, rid, pin):
    """Each ``Pin`` of a result's ``pins=``: its claims pass at the literal value on one side of the tolerance
    and fail at the other (`theorems.core.pins.pin_sides`)."""
    from theorems.core.pins import pin_sides

    pin_sides(run, theorems.get(rid), pin)
