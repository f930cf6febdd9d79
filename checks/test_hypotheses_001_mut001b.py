"""Hypothesis edges of paper 001 not named elsewhere (issue 26, item 9; the rule is in checks/test_pins_001_003.py):
each row is an instance on one side of a declared check's edge, evaluated on the declared hypotheses alone, so
dropping the check, flipping its comparison or moving its constant fails a row."""

from __future__ import annotations

import pytest
import torch

from checks.pinning import assert_hypothesis_edge
from theorems import HypothesisViolation
from theorems.nonlinear_cl import covariance

# (result id, form, params, a fragment of the hypothesis named, or None: inside every hypothesis)
EDGES = [
    # eq. (9)'s threshold (3 − √5)/2 = 0.38196601125: the verifier refuses q within 1e-6 of it (literal distances)
    ("nonlinear_cl.summation_model", None, dict(q=0.381966), "|q − (3 − √5)/2| ≥ 1e-6"),  # 1.1e-8 away
    ("nonlinear_cl.summation_model", None, dict(q=0.3819665), "|q − (3 − √5)/2| ≥ 1e-6"),  # 4.9e-7 away
    ("nonlinear_cl.summation_model", None, dict(q=0.381971), None),  # 5.0e-6 away
    ("nonlinear_cl.summation_model", None, dict(q=0.38196), None),  # 6.0e-6 below
    ("nonlinear_cl.theorem_5", None, dict(bns_tilt=1e-6), "exact s_BNS"),
    ("nonlinear_cl.theorem_3", None, dict(rate_bound_scale=0.99), "exact rate γ^t(1 − c₀)"),
    ("nonlinear_cl.lemma_7", None, dict(bound_scale=0.99), "exact bound μ_t(1 − c_t)"),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=[f"{r}-{i}" for i, (r, _, _, _) in enumerate(EDGES)])
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("deviation, refused", [(5e-9, True), (5e-10, False)])
def test_filters_off_the_unit_sphere_are_refused_at_the_edge(deviation, refused):
    """A(w) is defined on the unit sphere: a filter whose norm is off 1 by more than UNIT_TOL = 1e-9 is refused
    (literal deviations ×5 either side of it)."""
    W = torch.tensor([[1.0 + deviation, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
    if refused:
        with pytest.raises(HypothesisViolation, match="unit sphere"):
            covariance.check_filters(W, 3)
    else:
        covariance.check_filters(W, 3)
    with pytest.raises(HypothesisViolation, match="matches the data dimension"):
        covariance.check_filters(W, 4)
