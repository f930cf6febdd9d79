"""New datapoint: the trained network's output on an unseen x̂ is q_tᵀVᵀx̂, with q_t from (9) (paper 002,
`ssl_dynamics.new_data_point`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest

from checks.pinning import assert_hypothesis_edge, assert_refused_naming, assert_registered_pin, row_ids
from checks.probes import computed_once, evaluate_outcome, one_entry_off, signed_excess, with_global_error
from theorems import HypothesisViolation
from theorems.core import registry
from theorems.core.context import Context

P = "ssl_dynamics."


# -- new data point -------------------------------------------------------------------------------------------
def test_new_data_point_polar_flow_misses(run):
    ev = run(P + "new_data_point", flow="stiefel", allow_violation=True)
    assert 1e-3 < ev.claim("ode_predicts_new_points").observed < 0.2
    assert ev.claim("limit_on_new_points").passed  # same limit, another path


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [("new_data_point", dict(flow="stiefel"), "Theorem 2's proof")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, hypothesis", [("new_data_point", dict(h=2), "h ≥ d + z")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.new_data_point (d = 2)
    ("ssl_dynamics.new_data_point", None, dict(h=3, z=1), None),  # h = d + z
    ("ssl_dynamics.new_data_point", None, dict(h=2, z=1), "h ≥ d + z"),
    ("ssl_dynamics.new_data_point", None, dict(time_scale=1.5), "q_t solves (9)"),
    ("ssl_dynamics.new_data_point", None, dict(flow="stiefel"), "the flow of Theorem 2's proof"),
    # new_data_point: T at least the limit's horizon log(h)/(8|λ₁|) + 20/r (h = 50: 13.71)
    ("ssl_dynamics.new_data_point", None, dict(T=13.8), None),
    ("ssl_dynamics.new_data_point", None, dict(T=13.6), "T long enough for the limit"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# Not Pin declarations: these pins move the horizon T, a parameter, and Pin takes an UPPER_CASE name for a
# module constant (Pin.is_constant), so they stay rows of this file.
REGISTERED_PINS = [
    ("ssl_dynamics.new_data_point", dict(T=8.0, allow_violation=True), ("limit_on_new_points",)),
]


@pytest.mark.parametrize("rid, control, claims", REGISTERED_PINS, ids=row_ids(REGISTERED_PINS))
def test_registered_control_pins_the_tolerance(run, rid, control, claims):
    assert_registered_pin(run, rid, control, claims)


# monkeypatch, not a Pin: it replaces R._runs, code that a Pin (a parameter or constant set to a literal) cannot move
def test_new_data_point_certificate_margin_is_a_tenth_of_the_prediction_tolerance(monkeypatch):
    """The ODE solutions must be certified to PREDICTION_RTOL/10 = 1e-9 (a tenth of what the prediction claim
    allows): one network's certified global error of 1.05e-9 (a literal 5 % outside) is not converged, 0.95e-9 is."""

    from theorems.ssl_dynamics import new_data_point as R

    computed_once(monkeypatch, R, "_runs")
    exact = R._runs
    for value, converged in ((1.05e-9, False), (0.95e-9, True)):
        monkeypatch.setattr(R, "_runs", lambda *a, v=value: (with_global_error(exact(*a)[0], 1, v), *exact(*a)[1:]))
        result = registry.get(R.ID)
        full, _ = registry.validate(result, dict(ND), result.default_form)
        out = result.evaluate(full, result.default_form, Context.make(None, seed=0))
        assert out.converged is converged, value


# -- new_data_point: the narrowest width (h = d + z), two networks, 20 new points --------------------------------
ND = dict(h=3, seeds=2, n_test=20)


def _point_norm(args, index):
    return float(np.linalg.norm(args[2][index[2]]))  # network_outputs(Y1, Y2, X): ‖x̂‖ of the entry's point


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_new_data_point_linearity_takes_the_worst_output_and_pins_its_tolerance(monkeypatch):
    """One output of one network at one inner time off by 3e-12·‖x̂‖ (3 LINEARITY_RTOLs; the others are at ~5e-16):
    linearity fails (loosened ×10 it passes; a min over entries would pass), the prediction (tolerance 1e-8) and the
    limit (the last time only) pass. 3e-13·‖x̂‖ passes (tightened ÷10 it fails)."""
    from theorems.ssl_dynamics import new_data_point as R

    computed_once(monkeypatch, R, "_runs")
    one_entry_off(monkeypatch, R, "network_outputs", None, (20, 1, 7, 0), 3e-12, _point_norm)
    out, c = evaluate_outcome(R.ID, **ND)
    assert not c["linearity"].passed and 1.0 < signed_excess(c["linearity"]) <= 10.0, c["linearity"]
    assert c["ode_predicts_new_points"].passed and c["limit_on_new_points"].passed and out.converged
    monkeypatch.undo()
    computed_once(monkeypatch, R, "_runs")
    one_entry_off(monkeypatch, R, "network_outputs", None, (20, 1, 7, 0), 3e-13, _point_norm)
    _, c = evaluate_outcome(R.ID, **ND)
    assert c["linearity"].passed and 0.1 < signed_excess(c["linearity"]) < 1.0, c["linearity"]


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_new_data_point_limit_and_prediction_take_the_worst_point(monkeypatch):
    """One output at the horizon off by 3e-6·‖x̂‖: the limit claim fails 3 LIMIT_RTOLs out and the prediction fails;
    one output at an inner time off by 3e-8·‖x̂‖: the prediction fails 3 PREDICTION_RTOLs out. Both judge the worst
    network, time and point (a claim that took the best would pass)."""
    from theorems.ssl_dynamics import new_data_point as R

    computed_once(monkeypatch, R, "_runs")
    one_entry_off(monkeypatch, R, "network_outputs", None, (-1, 0, 11, 0), 3e-6, _point_norm)
    _, c = evaluate_outcome(R.ID, **ND)
    assert not c["limit_on_new_points"].passed and 1.0 < signed_excess(c["limit_on_new_points"]) <= 10.0
    assert not c["ode_predicts_new_points"].passed
    monkeypatch.undo()
    computed_once(monkeypatch, R, "_runs")
    one_entry_off(monkeypatch, R, "network_outputs", None, (9, 1, 2, 0), 3e-8, _point_norm)
    _, c = evaluate_outcome(R.ID, **ND)
    assert not c["ode_predicts_new_points"].passed and 1.0 < signed_excess(c["ode_predicts_new_points"]) <= 10.0
    assert c["limit_on_new_points"].passed


# monkeypatch, not a Pin: it replaces R._runs, code that a Pin (a parameter or constant set to a literal) cannot move
def test_new_data_point_certificate_takes_the_worst_member(monkeypatch):
    """One network's certified global error set to 3e-9 (3× the PREDICTION_RTOL/10 it must stay below): not
    converged; 5e-10: converged."""
    from theorems.ssl_dynamics import new_data_point as R

    computed_once(monkeypatch, R, "_runs")
    exact = R._runs
    for value, converged in ((3e-9, False), (5e-10, True)):
        monkeypatch.setattr(R, "_runs", lambda *a, v=value: (with_global_error(exact(*a)[0], 1, v), *exact(*a)[1:]))
        out, c = evaluate_outcome(R.ID, **ND)
        assert out.converged is converged and c["ode_global_error"].observed == value
