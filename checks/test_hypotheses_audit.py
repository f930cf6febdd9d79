"""Every hypothesis check of the audited modules is named by a test: the parameters that break it raise a
HypothesisViolation whose message names the hypothesis (before any computation)."""

from __future__ import annotations

import pytest

import theorems
from theorems import HypothesisViolation

CASES = [
    ("deep_fusion.theorem_2_depth", dict(K=3, r=8, m=20), "independent subspaces"),
    ("deep_fusion.theorem_2_depth", dict(step_shift=1.0), "the printed claim"),
    ("deep_fusion.theorem_2_depth", dict(normalise=False), "row normalisation"),
    ("deep_fusion.theorem_2", dict(signs="arbitrary"), "sign-consistent clusters"),
    ("deep_fusion.theorem_2", dict(constant_scale=2.0), "exact constants"),
    ("deep_fusion.theorem_2", dict(gamma_factor=2.0), "exact γ_B"),
    ("deep_fusion.theorem_2", dict(K=3, r=8, m=20), "independent subspaces"),
    ("deep_fusion.definition_1", dict(row_norm=1.5), "unit-norm rows"),
    ("deep_fusion.definition_1", dict(instance="intersecting"), "x_i ∉ 𝒰_k"),
    ("deep_fusion.definition_1", dict(patterns="positive"), "all sign patterns"),
    ("nonlinear_cl.theorem_3", dict(cap_scale=0.98), "exact cap"),
    ("nonlinear_cl.theorem_3", dict(radius_scale=0.5), "exact radius"),
    ("nonlinear_cl.theorem_3", dict(sigma=0.4, radius=2.0, angle=90.0, theta0=0.2, gamma=0.2), "sup_"),
    ("nonlinear_cl.figure_8", dict(leak=0.3), "ReLU activation"),
    ("nonlinear_cl.figure_8", dict(points="uniform"), "the paper's 9 points"),
    ("cl_generalization.theorem_1", dict(eta_scale=0.5), "η(ε)"),
]


@pytest.mark.parametrize("rid, params, name", CASES)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)
