"""Every hypothesis check of the audited modules is named by a test: the parameters that break it raise a
HypothesisViolation whose message names the hypothesis (before any computation)."""


from __future__ import annotations


import pytest
import theorems
from theorems import HypothesisViolation


CASES = [
    ("cl_generalization.theorem_1", dict(eta_scale=0.5), "η(ε)"),
]


@pytest.mark.parametrize("rid, params, name", CASES)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)
