"""Corollaries 4.5 / 4.7 with MSE at d = K (≥ 4): no network of any depth approaches NC (paper 004,
`neural_collapse.dimension_conditions`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse import dimension_conditions as DC
from theorems.neural_collapse.rank_certificate import collapse_floor

DIM = DC.ID


@pytest.mark.parametrize("rid, status", [(DIM, "refuted")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (DIM, dict(loss="mse", K=5, d=4), "d ≥ K (Definition 3.4"),
    (DIM, dict(d=3), "d ≥ 4 (L-RN1)"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


# -- Corollary 4.5 at d = K (MSE) -------------------------------------------------------------------------------
def test_counterexample_fails_for_every_network_by_the_rank_certificate(run):
    cx = DC.COUNTEREXAMPLES[0]
    ev = run(DIM, form="as_printed", **cx)
    assert ev.converged and not ev.holds and not ev.violations, ev.explain()
    assert ev.claim("gufm_optimum_collapsed_nc2b").observed == pytest.approx(0.5, rel=1e-5)  # 1/√K, K = 4
    assert ev.claim("rank_inequality").kind == "identity" and ev.claim("rank_inequality").passed
    # The trained networks' last layers obey the same floor: max(NC2B, NC3) ≥ δ_K at every depth.
    assert ev.details["deep_net_min_of_max_nc2b_nc3"] >= collapse_floor(cx["K"])
    assert ev.details["deep_net_min_over_gufm_optimum"] >= 1 - 1e-10  # step 1 of Thm 4.3 again


@pytest.mark.parametrize("params", [dict(loss="mse", K=3, d=4), dict(loss="ce", K=4, d=4)])
def test_limit_object_is_collapsed_where_the_dimension_suffices(params, run):
    ev = run(DIM, **params)
    assert ev.converged and ev.holds, ev.explain()


def test_ce_at_d_below_K_is_outside_definition_3_4():
    # The earlier CE 'counterexample' (K = 5, d = 4) is outside the paper's own reading: refused, naming Def. 3.4.
    with pytest.raises(HypothesisViolation, match="Definition 3.4"):
        theorems.check(DIM, loss="ce", K=5, d=4)


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    ("dimension_conditions", None, dict(lam=0.0), "λ > 0"),
    ("dimension_conditions", None, dict(lam=1.0), None),
    ("dimension_conditions", None, dict(d=3, K=4), "d ≥ K (Definition 3.4"),
    ("dimension_conditions", None, dict(d=4, K=4), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)
