"""The 1-D example: a fixed gain e^a costs Σx² = L(e^{a/L}−1)² ~ a²/L over L one-layer blocks, but → 2a over two-layer
blocks (paper 004, `neural_collapse.toy_1d`): the checks particular to this result, its hand cases against
independent references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

import theorems
from checks.pinning import assert_hypothesis_edge, row_ids
from theorems.core import recording
from theorems.core.verdict import run_spec
from theorems.neural_collapse import toy_1d as T1


# -- toy_1d: the hypothesis L ≫ a where it bites ---------------------------------------------------------------
def test_toy_1d_small_depth_control_breaks_only_the_rate(run):
    """The registered control with depths from 2a: the closed forms still hold (the optimiser is fine), the rate
    claim fails; the reference exponent is numpy's fit of L(e^{a/L} − 1)², computed here."""
    from theorems.neural_collapse import toy_1d as T1

    res = theorems.get(T1.ID)
    (spec,) = [c for c in res.controls if "depths" in c]
    ev = run_spec(run, res, spec)
    assert ev.converged and [c.name for c in ev.failed_bounds] == ["cost_vanishes_at_rate_1_over_L"]
    L = np.array(spec["depths"], float)
    ref = np.polyfit(np.log(L), np.log(L * np.expm1(1.0 / L) ** 2), 1)[0]
    assert ev.claim("cost_vanishes_at_rate_1_over_L").observed == pytest.approx(ref, abs=1e-6)
    assert abs(ref + 1) > 0.1  # outside the tolerance by more than half of it (not on its edge)


# -- toy_1d -------------------------------------------------------------------------------------------------
def test_toy_1d_registered_as_trend():
    assert str(theorems.get(T1.ID).status) == "trend"


@pytest.mark.parametrize("a, L", [(1.0, 3), (0.4, 2)])
def test_toy_1d_closed_form_is_the_minimum_over_all_real_weights(a, L):
    """Independent of the module: a dense search over L−1 free real weights (negatives and x < −1 included),
    the last fixed by the constraint, then a local polish; its minimum equals L(e^{a/L} − 1)²."""
    grid = np.linspace(-3.0, 3.0, 241)
    mesh = np.stack(np.meshgrid(*([grid] * (L - 1)), indexing="ij"), -1).reshape(-1, L - 1)
    prod = np.prod(1 + mesh, axis=1)
    ok = np.abs(prod) > 1e-3
    last = math.exp(a) / prod[ok] - 1
    cost = (mesh[ok] ** 2).sum(1) + last**2
    start = mesh[ok][np.argmin(cost)]

    def f(x):
        return float((x**2).sum() + (math.exp(a) / np.prod(1 + x) - 1) ** 2)

    best = minimize(f, start, method="Nelder-Mead", options=dict(xatol=1e-12, fatol=1e-15, maxiter=20000)).fun
    assert best == pytest.approx(L * math.expm1(a / L) ** 2, rel=1e-8)
    assert T1.closed_form(a, L, 1)[0] == pytest.approx(best, rel=1e-8)


def test_toy_1d_two_layer_closed_form_by_direct_search():
    """(1 + x1 y1)(1 + x2 y2) = e^a: a direct search over (x1, y1, x2) with y2 from the constraint."""
    a, L = 0.7, 2

    def f(v):
        x1, y1, x2 = v
        p = 1 + x1 * y1
        if abs(p) < 1e-6 or abs(x2) < 1e-6:
            return 1e6
        y2 = (math.exp(a) / p - 1) / x2
        return x1 * x1 + y1 * y1 + x2 * x2 + y2 * y2

    best = min(minimize(f, s, method="Nelder-Mead", options=dict(xatol=1e-12, fatol=1e-15, maxiter=40000)).fun
               for s in ([0.5, 0.5, 0.5], [-0.5, -0.4, 0.6], [1.5, 0.2, -1.0]))
    assert best == pytest.approx(2 * L * math.expm1(a / L), rel=1e-7)
    assert T1.closed_form(a, L, 2)[0] == pytest.approx(best, rel=1e-7)


def test_toy_1d_default_holds_at_the_rate(run):
    ev = run(T1.ID)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("cost_vanishes_at_rate_1_over_L").observed == pytest.approx(-1.0, abs=0.05)
    # The paper's x = a/L at the largest depth (measurement): within a/L of it.
    assert abs(ev.claim("weight_over_paper_formula").observed - 1) < 1.0 / 1024


def test_toy_1d_controls_break_what_they_should(run):
    res = theorems.get(T1.ID)
    below, above = res.controls[:2]
    assert below["bound_scale"] > 1 > above["bound_scale"]
    assert [c.name for c in run_spec(run, res, below).failed_bounds] == ["optimiser_not_below_closed_form"]
    assert [c.name for c in run_spec(run, res, above).failed_bounds] == ["optimiser_reaches_closed_form"]
    (two,) = res.trend_controls
    ev = run_spec(run, res, two)
    assert ev.converged and [c.name for c in ev.failed_bounds] == ["cost_vanishes_at_rate_1_over_L"]
    # For the paper's reason: the two-layer cost tends to the constant 2a (exponent ≈ 0).
    assert abs(ev.claim("cost_vanishes_at_rate_1_over_L").observed) < 0.05
    assert ev.claim("cost_over_limit").observed == pytest.approx(1.0, abs=1e-2)


def test_toy_1d_asymptotic_regime_is_a_named_hypothesis():
    with pytest.raises(theorems.HypothesisViolation, match="L ≫ a"):
        theorems.check(T1.ID, a=2.0, depths=(8, 32, 128))


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # the 1-D toy: L ≫ a read as L ≥ 16a; one layer per block; the exact closed form
    ("toy_1d", None, dict(depths=(15, 64, 256)), "L ≫ a"),
    ("toy_1d", None, dict(depths=(16, 64, 256)), None),
    ("toy_1d", None, dict(layers=2), "one linear layer per block"),
    ("toy_1d", None, dict(bound_scale=1.001), "exact closed form"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


# monkeypatch, not a Pin: it replaces T1.closed_form: code, which a Pin cannot move
@pytest.mark.parametrize("claim, scale", [("optimiser_reaches_closed_form", 1 - 3e-10),
                                          ("optimiser_not_below_closed_form", 1 + 3e-10)])
def test_toy_1d_closed_form_claims_judge_every_depth(monkeypatch, claim, scale):
    """The closed-form claims take the worst depth: a closed form off by 3 allowances at ONE depth (the deepest) fails
    them, whatever the other depths do (a claim that took the best depth would pass)."""
    import theorems
    from theorems.neural_collapse import toy_1d as T1

    exact = T1.closed_form
    deepest = 64

    def one_depth_off(a, L, layers):
        value, w = exact(a, L, layers)
        return (value * scale if L == deepest else value), w

    monkeypatch.setattr(T1, "closed_form", one_depth_off)
    ev = recording.expect(theorems.check(T1.ID, depths=(16, 32, deepest)), recording.FAILS)  # a patched closed form
    assert [c.name for c in ev.failed_bounds] == [claim], ev.explain()
