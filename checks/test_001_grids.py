"""Paper 001, §5 (issue 28): figure_4's d_out hypothesis and the full-grid decisions of figure_4 and table_1."""

from __future__ import annotations

import pytest

import theorems
from theorems.core.errors import HypothesisViolation

F4 = "nonlinear_cl.figure_4"


def test_figure_4_d_out_is_free_except_one():
    """The paper's account (§4: V only through S = VᵀV, stationary V = v sᵀ for any d_out) singles out no d_out; only
    d_out = 1 is declared, because the protocol's ℓ2 normalisation of a 1-dimensional output has zero gradient."""
    res = theorems.get(F4)
    for form in res.forms:
        for d_out in (2, 3, 20, 50, 256):
            assert not [v for v in res.hypotheses({**res.defaults, "d_out": d_out}, form) if "d_out" in v.names]
        found = [v for v in res.hypotheses({**res.defaults, "d_out": 1}, form) if "d_out" in v.names]
        assert found and found[0].bypassable, form
    with pytest.raises(HypothesisViolation, match="d_out ≥ 2"):
        theorems.check(F4, d_out=1)


def test_figure_4_d_out_1_trains_nothing(run):
    """The reason of the hypothesis, measured: at d_out = 1 the mean loss hardly moves in the ci miniature (11.17 →
    10.98) while at the default it falls to about a third (3.75 → 1.38)."""
    one = run(F4, d_out=1, allow_violation=True)
    default = run(F4)
    fall = lambda ev: 1 - ev.details["loss_end_mean"] / ev.details["loss_start_mean"]  # noqa: E731
    assert fall(one) < 0.05 < 0.5 < fall(default)
