"""Hypothesis checks of paper 000 that no test named on both sides of their edge (issue 26, item 9; found by the
held-out seed-23 mutation sample and a scan of every ``Violation`` in theorems/deep_fusion). One row on each side:
a dropped check, a flipped comparison or a moved constant changes one row. The declared hypotheses are evaluated
alone (before any computation): these tests compute nothing."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

CASES = [
    # noise_lemma: eq. (6) allows rotations up to φ = arccos(1 − ε), not beyond
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0 + 1e-12), "x_iᵀx̃_i ≥ 1 − ε (eq. 6)"),
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0), None),
    ("deep_fusion.noise_lemma", None, dict(noisy_norm=1.0 + 1e-12), "unit-norm noisy samples"),
    ("deep_fusion.noise_lemma", None, dict(mode="adversarial", theta_scale=1.0 - 1e-12), "extremal construction"),
    # theorem_1 (as printed): the exact Definition-1 ρ enumerates sign patterns of ≤ 12 out-of-cluster samples
    ("deep_fusion.theorem_1", "as_printed", dict(K=2, nu=12, imbalance=0), None),  # N − ν = 12
    ("deep_fusion.theorem_1", "as_printed", dict(K=2, nu=13, imbalance=0), "out-of-cluster samples"),  # 13
    # theorem_1 (corrected): the bilinear A of the statement
    ("deep_fusion.theorem_1", "corrected", dict(attention="bilinear"), None),
    # trained_attention: a trained head on the data's own labels (the untrained / shuffled runs are controls)
    ("deep_fusion.trained_attention", None, dict(steps=1), None),
    ("deep_fusion.trained_attention", None, dict(steps=0), "a trained head (steps ≥ 1)"),
    ("deep_fusion.trained_attention", None, dict(labels="true"), None),
    ("deep_fusion.trained_attention", None, dict(labels="shuffled"), "the data's own clusters as labels"),
    ("deep_fusion.trained_attention", None, dict(m=12, heads=3), None),
    ("deep_fusion.trained_attention", None, dict(m=12, heads=5), "heads divides m"),
    ("deep_fusion.trained_attention", None, dict(data="digits", K=10, nu=4, m=64, r=2), None),
    ("deep_fusion.trained_attention", None, dict(data="digits", K=11, nu=4, m=64, r=2), "K ≤ 10 digit classes"),
    ("deep_fusion.trained_attention", None, dict(data="digits", K=3, nu=4, m=65, r=2, heads=5), "m ≤ 64"),
    # tables: a perturbation must name a printed cell and a decimal
    ("deep_fusion.tables", None, dict(perturb=""), None),
    ("deep_fusion.tables", None, dict(perturb="no-such-cell=1.0"), "perturb names a printed cell and a decimal"),
]


@pytest.mark.parametrize("rid, form, params, name", CASES,
                         ids=[f"{r}-{i}" for i, (r, *_) in enumerate(CASES)])
def test_hypothesis_edge_mut000s(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
