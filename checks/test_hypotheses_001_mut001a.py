"""Hypothesis checks of paper 001 named at their edges (issue 26, item 9): Theorem 6's verifier conditions on c_max
(both sides of each comparison) and the negative-control switches that pin tolerances (Lemmas 1, 2, 5, Theorem 6,
its Remark, Corollary 2). Evaluated on the declared hypotheses alone: nothing is computed, so dropping a check or
flipping its comparison fails a row here."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

T6, REMARK = "nonlinear_cl.theorem_6", "nonlinear_cl.theorem_6_remark"

EDGES = [
    (T6, None, dict(c_max=0.0), "c_max ≠ 0"),
    (T6, None, dict(c_max=0.96), "|c_max − 1| ≥ 0.05"),  # 0.04 from 1: inside the verifier's exclusion
    (T6, None, dict(c_max=1.04), "|c_max − 1| ≥ 0.05"),
    (T6, None, dict(c_max=0.94), None),  # 0.06 from 1: outside it (and c > 0)
    (T6, None, dict(c_max=1.06), None),
    (T6, None, dict(c_max=0.01), None),  # c > 0, however small
    (T6, None, dict(c_max=-0.01), "c > 0"),
    (T6, None, dict(ode_scale=1.001), "eqs. (147), (150), (151) as printed"),
    (REMARK, "as_printed", dict(formula_scale=1.001), "eq. (155) as printed"),
    (REMARK, None, dict(formula_scale=0.999), "eq. (155) as printed"),
    (REMARK, None, dict(bound_scale=1.001), "the modulation bound as stated"),
    (REMARK, None, dict(dist="uniform"), None),
    ("nonlinear_cl.lemma_1", None, dict(map_scale=1.001), "the proof's map itself"),
    ("nonlinear_cl.lemma_1", None, dict(psd_shift=1e-12), "α itself (no shift)"),  # any shift > 0
    ("nonlinear_cl.lemma_2", None, dict(rep_scale=1.001), "the printed form of the limit itself"),
    ("nonlinear_cl.lemma_2", None, dict(psd_shift=1e-12), "the limit L itself (no shift)"),
    ("nonlinear_cl.lemma_5", None, dict(rank_slack=-1), "rank ≤ C"),
    ("nonlinear_cl.lemma_5", None, dict(rank_slack=1), "rank ≤ C"),
    ("nonlinear_cl.lemma_5", None, dict(power=3), "the coefficient p_c(1 − p_c)² of eq. (13)"),
    ("nonlinear_cl.corollary_2", None, dict(quad_scale=1.001), "the s-quadrature itself"),
    ("nonlinear_cl.corollary_2", None, dict(alpha_offset=1e-6), "α_g is the 1-D Gaussian α of w_* itself"),
    ("nonlinear_cl.corollary_2", None, dict(), None),
    ("nonlinear_cl.theorem_4", None, dict(top_rank=2), "rank-1 top layer S = ssᵀ"),
    ("nonlinear_cl.lemma_3", None, dict(activation="tanh"), "homogeneous activation"),
    ("nonlinear_cl.lemma_4", None, dict(formula_scale=1.001), "exact formula (12)"),
    ("nonlinear_cl.lemma_3", None, dict(formula_scale=1.001), "exact formula (7)"),
    ("nonlinear_cl.lemma_4", None, dict(activation="leaky"), None),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(EDGES)])
def test_hypothesis_edge(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
