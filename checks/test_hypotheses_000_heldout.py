"""A hypothesis edge the held-out mutation sample of stop 34 (seed 11) found unnamed: trained_attention on digits
draws ν images per class from half of the class, so ν = ⌊smallest class / 2⌋ is inside and one more is outside.
The edge is read off the data set, not off the module's own constant."""

from __future__ import annotations

from checks.pinning import assert_hypothesis_edge
from theorems.data.digits import class_sizes

RID = "deep_fusion.trained_attention"


def test_trained_attention_nu_edge_is_half_the_smallest_digit_class():
    K = 3
    half = min(class_sizes()[:K]) // 2
    assert_hypothesis_edge(RID, None, dict(data="digits", K=K, nu=half), None)
    assert_hypothesis_edge(RID, None, dict(data="digits", K=K, nu=half + 1), "ν ≤ half a digit class")
