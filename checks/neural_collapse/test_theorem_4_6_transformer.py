"""Theorem 4.6 / Corollary 4.7 for L-Tx2 (vanishing inner λ): open; the certified sandwich is recorded, the proof's
network (excess Θ(L^{-1/2})) checks Appendix A only (paper 004, `neural_collapse.theorem_4_6_transformer`): the
checks particular to this result, its hand cases against independent references, pins and hypothesis edges. What
every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse import transformer_depth as TD

T46T = TD.ID_46T


@pytest.mark.parametrize("rid, status", [(T46T, "open")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [(T46T, dict(inner_lambda="constant"), "o(1/log L)")])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    ("theorem_4_6_transformer", None, dict(inner_lambda="constant"), "λ(L) = o(1/log L)"),
    ("theorem_4_6_transformer", None, dict(inner_lambda="vanishing"), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)
