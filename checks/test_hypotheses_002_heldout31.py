"""A survivor pair of the held-out seed-31 mutation sample (issue 26, item 9): Example 1's half-moon width
condition (d = 2, ℓ = 2, so h ≥ max(d, z)) was never named by a test. Its edge, on both sides, for z below and above
d = 2 (max → min or a changed constant moves one of them)."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

WIDTH = "h ≥ max(d, z) and h ≥ d + z − min(z, ℓ)"


@pytest.mark.parametrize("z,h,name", [(1, 1, WIDTH), (1, 2, None), (3, 2, WIDTH), (3, 3, None),
                                      (5, 4, WIDTH), (5, 5, None)])
def test_half_moon_width_edge(z, h, name):
    assert_hypothesis_edge("ssl_dynamics.example_1", None, dict(z=z, h=h), name)
