"""Theorem 4.6 / Corollary 4.7 (L-RN2, vanishing inner λ, L → ∞): the certified sandwich closes with depth; Appendix
C's constant λ collapses too on generic data (finding) (paper 004, `neural_collapse.theorem_4_6`): the checks
particular to this result, its hand cases against independent references, pins and hypothesis edges. What every
result passes runs in checks/test_conformance.py.

Theorem 4.6 / Corollary 4.7 (``neural_collapse.theorem_4_6``, L-RN2, objective (11)): the certified sandwich closes
to rounding at the free-block network's depth, and the hypothesis λ(L) = o(1/log L) plays no role in it (issue 39
item 2): a constant inner λ closes it identically, so no control can fail for the paper's reason and the status is
``verified``, not ``trend``. The seeds and corners of the full check run in ``test_theorem_4_3_depth.py``
(thorough, both results).
"""

from __future__ import annotations

import pytest
import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse import depth_trend as DT
from theorems.core.verdict import run_spec


T46 = DT.ID_46


@pytest.mark.parametrize("rid, status", [(T46, "verified")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (T46, dict(inner_lambda="constant"), "o(1/log L)"),
    (T46, dict(arch="rn1"), "arch"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    ("theorem_4_6", None, dict(inner_lambda="constant"), "λ(L) = o(1/log L)"),
    ("theorem_4_6", None, dict(inner_lambda="vanishing"), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


ID = DT.ID_46


FAST = dict(train_depths=(3,), train_iter=0, seeds=1, depths=(19, 35, 51))


def test_registered_verified_and_says_the_hypothesis_plays_no_role():
    result = theorems.get(ID)
    assert str(result.status) == "verified" and not result.trend_controls
    assert "plays no role" in result.title
    assert "plays no role" in DT.__doc__


def test_default_instance_closes_the_sandwich(run):
    ev = run(ID)
    assert ev.holds, ev.explain()
    assert abs(ev.claim("certified_sandwich_closed").observed) <= 1e-12
    assert ev.claim("free_blocks_cost_nothing").observed == 0.0


@pytest.mark.parametrize("seed", (0, 3))
def test_constant_inner_lambda_closes_exactly_as_the_vanishing_one(seed, run):
    """Appendix C's regime (outside the hypothesis): the same free-block network, the same objective to the last bit
    (its inner cost is 0 at any λ): the hypothesis λ(L) = o(1/log L) does not enter the sandwich."""
    vanishing = run(ID, seed=seed, **FAST)
    constant = run(ID, seed=seed, inner_lambda="constant", allow_violation=True, **FAST)
    assert constant.holds and vanishing.holds, constant.explain()
    assert (constant.details["free_network"]["objective"] == vanishing.details["free_network"]["objective"])
    assert any("o(1/log L)" in str(v) for v in constant.violations), constant.violations


def test_mse_and_the_binding_widths_hold(run):
    for spec in ({"loss": "mse"}, *(dict(b.params) for b in theorems.get(ID).binding)):
        ev = run_spec(run, theorems.get(ID), {**spec, **FAST})
        assert ev.holds, (spec, ev.explain())
