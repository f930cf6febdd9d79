"""``theorems.deep_fusion._common``, shared by several results: its checks."""

from __future__ import annotations

from theorems.deep_fusion import algorithm_1 as algorithm_1


# ------------------------------------------------------------------------------------------------------
# _common: the cost model of the exact ρ (what the ResourceLimit check sees before any computation)
# ------------------------------------------------------------------------------------------------------
def test_enumeration_elements_counts_every_sign_pattern():
    """instances · K · 2^(N−1) · N · (m + N), N = n − ν the out-of-cluster samples, written out by hand:
    K = 2, ν = 3 (n = 6, N = 3, m = 4): 2 · 4 · 3 · 7 = 168; K = 3, ν = 2, imbalance 1 (sizes 2, 3, 4: n = 9,
    N = 7, m = 5), 2 instances: 2 · 3 · 64 · 7 · 12 = 32256 (an underestimate would let a blow-up through)."""
    from theorems.deep_fusion._common import enumeration_elements

    assert enumeration_elements(dict(K=2, nu=3, imbalance=0, m=4, instances=1)) == 168.0
    assert enumeration_elements(dict(K=3, nu=2, imbalance=1, m=5, instances=2)) == 32256.0
