"""Theorem 1 (trend): the linear/nonlinear gap at initialisation decays at least like log²h/√h (paper 002,
`ssl_dynamics.theorem_1_rate`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation

P = "ssl_dynamics."


@pytest.mark.parametrize("act, w2", [("tanh", "random"), ("tanh", "worst"), ("softplus2", "worst")])
def test_theorem_1_rate_in_predicted_range(run, act, w2):
    ev = run(P + "theorem_1_rate", activation=act, w2=w2)
    assert ev.holds
    # The second-order slopes (measurement) agree within 0.1 with the fit on these widths.
    assert abs(ev.observed - ev.details["second_order_slope"]) < 0.1


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [("theorem_1_rate", dict(activation="sigmoid"), "φ(0) = 0")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


HYPOTHESIS_EDGES = [
    # theorem_1_rate: h ≥ z judged at the smallest width of the sweep
    ("ssl_dynamics.theorem_1_rate", None, dict(widths=(2, 100, 1000), z=3), "h ≥ z"),
    ("ssl_dynamics.theorem_1_rate", None, dict(widths=(3, 100, 1000), z=3), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
