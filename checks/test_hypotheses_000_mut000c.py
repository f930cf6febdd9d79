"""Hypothesis checks of paper 000 that no test named on both sides of their edge (issue 26, item 9; a scan of every
``Violation`` in the modules of the seed-37 sample). One row on each side: a dropped check, a flipped comparison
or a moved constant changes one row. The declared hypotheses are evaluated alone (before any computation): these
tests compute nothing."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

CASES = [
    # algorithm_1: the exact ρ reference enumerates the sign patterns of at most 12 out-of-cluster samples
    # (N − ν = 12 inside, 13 outside; the literal 12 is the enumeration's limit, 2^11 patterns per instance)
    ("deep_fusion.algorithm_1", None, dict(K=2, nu=12, imbalance=0, r=1, m=6), None),
    ("deep_fusion.algorithm_1", None, dict(K=2, nu=13, imbalance=0, r=1, m=6), "out-of-cluster samples"),
    # ... counted from the smallest cluster: sizes 3, 5, 7 leave 12 outside it, sizes 3, 6, 9 leave 15
    ("deep_fusion.algorithm_1", None, dict(K=3, nu=3, imbalance=2, r=1, m=6), None),
    ("deep_fusion.algorithm_1", None, dict(K=3, nu=3, imbalance=3, r=1, m=6), "out-of-cluster samples"),
    # trained_attention on the union-of-subspaces data: K·r ≤ m (12 = 12 inside, 15 > 12 outside)
    ("deep_fusion.trained_attention", None, dict(K=3, r=4, m=12), None),
    ("deep_fusion.trained_attention", None, dict(K=3, r=5, m=12), "independent subspaces (K·r ≤ m)"),
    # ... the digits data set has no subspace dimension: K·r > m is not checked there
    ("deep_fusion.trained_attention", None, dict(data="digits", K=3, nu=4, r=5, m=12), None),
    # ... the digits checks at their literal edges (10 classes, 64 pixels)
    ("deep_fusion.trained_attention", None, dict(data="digits", K=3, nu=4, m=64, r=2, heads=2), None),
    ("deep_fusion.trained_attention", None, dict(data="digits", K=10, nu=4, m=12, r=2), None),
    # fusion_trend: m ≥ 2r at its edge (m = 2r inside, 2r − 1 outside)
    ("deep_fusion.fusion_trend", None, dict(m=4, r=2), None),
    ("deep_fusion.fusion_trend", None, dict(m=3, r=2), "m ≥ 2r"),
]


@pytest.mark.parametrize("rid, form, params, name", CASES, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(CASES)])
def test_hypothesis_edge_mut000c(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
