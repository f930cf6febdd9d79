"""Theorem 4.3 / Corollary 4.5 (L-RN1, L → ∞): the optimum sandwiched between L*_GUFM and certified trained networks,
whose excess falls with depth to ≤ 1 % of L*; the proof's network checks Appendix A (paper 004,
`neural_collapse.theorem_4_3_depth`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse import depth_trend as DT

T43D = DT.ID_43


@pytest.mark.parametrize("rid, status", [(T43D, "trend")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (T43D, dict(depths=(9, 19, 37)), "depths ≥ 2(N+K)+1"),
    (T43D, dict(arch="rn2"), "one linear layer per block"),
    (T43D, dict(duplicates=1), "Assumption 4.4 (distinct inputs)"),
    (T43D, dict(data="appendix_c", d0=2), "d0 ≥ K (Appendix C's data)"),
    (T43D, dict(loss="mse", d=3), "d ≥ K+1 (MSE)"),
    (T43D, dict(d=3, depths=(19, 37, 73)), "d ≥ 4 (Theorems 4.3/4.6)"),
    (T43D, dict(rate_shift=-0.1), "the predicted rate"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    with pytest.raises((HypothesisViolation, ParameterError)) as err:
        theorems.check(rid, **params)
    assert hypothesis in str(err.value)


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # the depth sweeps (depth_trend): d ≥ K+1 (MSE) / K (CE), then d ≥ 4; depths ≥ 2(N+K)+1 (K=3, n=2: 19)
    ("theorem_4_3_depth", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE) / d ≥ K (CE)"),
    ("theorem_4_3_depth", None, dict(d=3, K=2, loss="ce"), "d ≥ 4 (Theorems 4.3/4.6)"),
    ("theorem_4_3_depth", None, dict(d=4, K=3, loss="mse"), None),
    ("theorem_4_3_depth", None, dict(depths=(18, 37, 73)), "depths ≥ 2(N+K)+1"),
    ("theorem_4_3_depth", None, dict(depths=(19, 37, 73)), None),
    ("theorem_4_3_depth", None, dict(arch="rn2"), "one linear layer per block"),
    # Appendix C's data needs d0 ≥ K input coordinates (K = 3)
    ("theorem_4_3_depth", None, dict(data="appendix_c", d0=2, K=3), "d0 ≥ K (Appendix C's data)"),
    ("theorem_4_3_depth", None, dict(data="appendix_c", d0=3, K=3), None),
    ("theorem_4_3_depth", None, dict(data="mixture", d0=2, K=3), None),
    # duplicates (inputs of class 1 copied from class 0): at most n of them, only in the mixture; any is a control
    ("theorem_4_3_depth", None, dict(duplicates=3, n=2), "duplicates ≤ n"),
    ("theorem_4_3_depth", None, dict(duplicates=2, n=2), "Assumption 4.4 (distinct inputs)"),
    ("theorem_4_3_depth", None, dict(duplicates=1, data="appendix_c", d0=3), "duplicates with data='mixture'"),
    ("theorem_4_3_depth", None, dict(duplicates=0, data="appendix_c", d0=3), None),
    # the shared sweep checks (the deliberate wrong rate and L*); a pre-LN sweep with trained depths is inside
    ("theorem_4_3_depth", None, dict(arch="pre_rn1", train_depths=(5, 10)), None),
    ("theorem_4_3_depth", None, dict(rate_shift=-0.1), "the predicted rate"),
    ("theorem_4_3_depth", None, dict(bound_scale=2.0), "the exact L*_GUFM"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES,
                         ids=[f"{r}-{i}" for i, (r, *_) in enumerate(HYPOTHESIS_EDGES)])
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


@pytest.mark.parametrize("rid, arch", [("theorem_4_3_depth", "pre_rn1")])
def test_an_empty_trained_sweep_is_refused_by_the_domain(rid, arch):
    """Pre-LN variants have no construction, only the trained sweep: an empty one is refused before anything runs,
    naming train_depths (the declared domain is 1 to 16 depths)."""
    from theorems.core import registry
    from theorems.core.errors import ParameterError

    result = registry.get(NC + rid)
    with pytest.raises(ParameterError, match="train_depths"):
        registry.validate_structure(result, dict(arch=arch, train_depths=()), result.default_form)
