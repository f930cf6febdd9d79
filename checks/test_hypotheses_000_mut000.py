"""Hypothesis checks of paper 000 at their edges, one row on each side (issue 26, item 9): the checks of
``_common.structural_violations`` and ``independence_violation`` that every paper-000 result shares, and the
sides of each result's own checks that checks/test_hypotheses_000_002.py leaves unnamed. A dropped check, a
flipped comparison or a strict/non-strict change moves one row of a pair. The declared hypotheses are evaluated
alone (before any computation): these tests compute nothing.
"""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

CASES = [
    # _common.structural_violations: r < m (m = r is the whole space), every result that builds a union
    ("deep_fusion.definition_1", None, dict(m=2, r=2, K=2, nu=2), "subspace dimension r < m"),
    ("deep_fusion.definition_1", None, dict(m=3, r=2, K=2, nu=2), None),
    ("deep_fusion.theorem_2_depth", None, dict(m=2, r=2), "subspace dimension r < m"),
    ("deep_fusion.noise_lemma", None, dict(m=3, r=3), "subspace dimension r < m"),
    ("deep_fusion.noise_lemma", None, dict(m=3, r=2), None),
    # ... arrangement='angle' needs m ≥ 2r (K = 2) or (K+1)r
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=2, r=2, m=4, nu=2), None),
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=2, r=2, m=3, nu=2), "arrangement='angle'"),
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=3, r=1, m=4, nu=2), None),
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=3, r=1, m=3, nu=2), "arrangement='angle'"),
    # ... arrangement='dependent' needs K ≥ 3 (Definition 1 does not ask for independence)
    ("deep_fusion.definition_1", None, dict(arrangement="dependent", K=3, r=1, m=3, nu=2), None),
    ("deep_fusion.definition_1", None, dict(arrangement="dependent", K=2, r=1, m=3, nu=2), "K ≥ 3"),
    # _common.independence_violation (corrected Theorem 1, Theorem 2 and its depth version): K·r ≤ m
    ("deep_fusion.theorem_1", "corrected", dict(K=2, r=2, m=4), None),
    ("deep_fusion.theorem_1", "corrected", dict(K=2, r=2, m=3), "independent subspaces (K·r ≤ m"),
    ("deep_fusion.theorem_1", "corrected", dict(arrangement="dependent", K=3, r=1, m=3), "independent subspaces (𝒰_c"),
    ("deep_fusion.theorem_1", "corrected", dict(arrangement="angle", K=2, r=2, m=4), None),
    ("deep_fusion.theorem_2", None, dict(K=2, r=2, m=4), None),
    ("deep_fusion.theorem_2", None, dict(K=2, r=2, m=3), "independent subspaces (K·r ≤ m"),
    ("deep_fusion.theorem_2_depth", None, dict(K=2, r=2, m=4), None),
    ("deep_fusion.theorem_2_depth", None, dict(K=2, r=2, m=3), "independent subspaces (K·r ≤ m"),
    # definition_1: the intersecting instance is inside the hypotheses once its sample leaves 𝒰_1
    ("deep_fusion.definition_1", None, dict(instance="intersecting", offset=1e-3), None),
    ("deep_fusion.definition_1", None, dict(row_norm=1.0), None),
    # noise_lemma: θ = φ exactly is inside both θ checks, in either mode
    ("deep_fusion.noise_lemma", None, dict(mode="adversarial", theta_scale=1.0), None),
    ("deep_fusion.noise_lemma", None, dict(mode="random", theta_scale=0.5), None),
    ("deep_fusion.noise_lemma", None, dict(noisy_norm=1.0), None),
    # theorem_1: the printed form has no sign or independence hypothesis (its counterexamples live there)
    ("deep_fusion.theorem_1", "as_printed", dict(signs="arbitrary"), None),
    ("deep_fusion.theorem_1", "corrected", dict(instance="antipodal"), "sign-consistent clusters"),
    ("deep_fusion.theorem_1", "corrected", dict(instance="k3_near_dependent"), None),
    ("deep_fusion.theorem_1", None, dict(attention="scaled"), "A = XWWᵀXᵀ"),
    ("deep_fusion.theorem_1", None, dict(w_scale=1.0), None),
    # theorem_2
    ("deep_fusion.theorem_2", None, dict(signs="arbitrary", K=2, r=2, m=4), "sign-consistent clusters"),
    ("deep_fusion.theorem_2", None, dict(gamma_factor=1.0, constant_scale=1.0), None),
    ("deep_fusion.theorem_2", None, dict(gamma_factor=1.0 - 1e-12), "exact γ_B"),
    ("deep_fusion.theorem_2", None, dict(constant_scale=1.0 - 1e-12), "exact constants δ, Δ"),
    # theorem_2_depth: the printed claim (step_shift = 0) with row normalisation
    ("deep_fusion.theorem_2_depth", None, dict(step_shift=0.0, normalise=True), None),
    ("deep_fusion.theorem_2_depth", None, dict(step_shift=1e-12), "the printed claim"),
    ("deep_fusion.theorem_2_depth", None, dict(step_shift=-1e-12), "the printed claim"),
    ("deep_fusion.theorem_2_depth", None, dict(normalise=False), "row normalisation"),
    # algorithm_1
    ("deep_fusion.algorithm_1", None, dict(exact_scale=1.0), None),
    ("deep_fusion.algorithm_1", None, dict(exact_scale=1.0 - 1e-12), "exact reference ρ"),
    # definition_2, tables: the defaults are inside every hypothesis
    ("deep_fusion.definition_2", None, dict(), None),
    ("deep_fusion.tables", None, dict(), None),
    ("deep_fusion.tables", None, dict(perturb="t3:512:FFN_unsup:0.01"), "the cells as printed"),
    # fusion_trend: m ≥ 2r
    ("deep_fusion.fusion_trend", None, dict(m=5, r=2), None),
    ("deep_fusion.fusion_trend", None, dict(m=4, r=3), "m ≥ 2r"),
]


@pytest.mark.parametrize("rid, form, params, name", CASES, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(CASES)])
def test_hypothesis_edge_is_named_mut000(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
