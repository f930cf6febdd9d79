"""Survivors of the held-out mutation sample (seed 41) of paper 004, killed here (issue 26, item 9).

`near_optimal.nc_bounds` at ε = 0 bounds the exact optima: the feasible set {f − L* ≤ 0} is the set of minimisers,
which are collapsed, so every bound is 0 (sandwich.py asks at ε = max(gap, 0), i.e. exactly 0 whenever a trained
network lands on the lower bound). The mutant `eps >= 0` → `eps > 0` returned "no bound" there.
"""

from __future__ import annotations

import pytest

from theorems.neural_collapse.near_optimal import nc_bounds


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_the_bounds_at_zero_excess_are_zero(loss):
    assert nc_bounds(loss, 3, 2, 6, 0.05, 0.0) == {"nc1": 0.0, "nc2": 0.0, "nc3": 0.0}
    assert nc_bounds(loss, 3, 2, 6, 0.05, -1e-300) is None  # below the optimum: not an excess
