"""Paper 003's remaining items: the comparison with alignment and uniformity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import theorems
from theorems.cl_generalization import alignment_uniformity as au

AU = au.ID


def test_alignment_uniformity_status_default_and_controls(run):
    assert str(theorems.get(AU).status) == "verified"
    ev = run(AU)
    assert ev.holds
    assert ev.details["infonce_simplex"] == pytest.approx(ev.details["infonce_bound"], rel=1e-12)
    no_simplex, square = (run(AU, **spec) for spec in au.CONTROLS)
    assert [c.name for c in no_simplex.failed_bounds] == ["infonce_lower_bound_attained"]
    assert [c.name for c in square.failed_bounds] == ["bt_minimiser_not_uniform"]
    assert abs(square.details["uniformity_gap"]) < 1e-6  # the square is the uniform 4-point configuration


def test_alignment_uniformity_closed_forms_against_numpy():
    """The simplex bound, the cube's uniformity and its Barlow Twins loss written out with numpy."""
    K, tau = 4, 0.5
    G = np.full((K, K), -1 / (K - 1)) + np.eye(K) * (1 + 1 / (K - 1))
    want = np.mean([-np.log(np.exp(1 / tau) / np.sum(np.exp(G[i] / tau))) for i in range(K)])
    assert au.simplex_bound(K, tau) == pytest.approx(want, rel=1e-13)
    V = np.array(list(itertools.product([-1, 1], repeat=3))) / math.sqrt(3)
    D2 = ((V[:, None] - V[None]) ** 2).sum(-1)
    off = ~np.eye(8, dtype=bool)
    from theorems.core.context import Context

    ctx = Context.make(seed=0)
    C = au.cube(ctx, 3)
    assert float(au.uniformity(C)[0]) == pytest.approx(np.log(np.mean(np.exp(-2 * D2[off]))), rel=1e-13)
    assert float(au.barlow_twins(C)[0]) == pytest.approx(0.0, abs=1e-20)
    # a rotated cube is just as uniform but no longer decorrelated: Barlow Twins sees the rotation
    th = 0.3
    Rz = np.array([[np.cos(th), -np.sin(th), 0], [np.sin(th), np.cos(th), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    rot = C @ C.new_tensor(Rz @ Rx).T
    assert float(au.uniformity(rot)[0]) == pytest.approx(float(au.uniformity(C)[0]), rel=1e-12)


def test_alignment_uniformity_gap_threshold_is_pinned(run):
    """GAP_MIN sits between the square's 0 and the cube's measured gap (0.077)."""
    assert 1e-6 < au.GAP_MIN < 0.07
    assert run(AU).claim("bt_minimiser_not_uniform").observed > 0.07
