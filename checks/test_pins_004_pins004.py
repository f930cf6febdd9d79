"""The paper-004 verdict constants that no test pinned (the last session's mutation sweep): each is pinned here
through the small function that decides with it, with literal inputs a few allowances outside (must fail: the
constant loosened ×10 … ×1000 would pass it) and about 3× inside (must pass: tightened ÷10 it would fail).

* ``sandwich``: EXPONENT_MAX, SLOPE_MIN (``certified_claims``), RATE_ATOL (``rate_claims``), LOWER_RTOL
  (``sandwich_claims``), LANDING_PER_BLOCK (``landing_claim``);
* ``theorem_4_3_pre_ln``: COPY_ATOL and FORWARD_RTOL (``construction_claims``);
* ``figure_1``: FALL_EXPONENT and the registered ``drop_scale`` control, through ``evaluate`` itself on literal
  sweeps (``sweep`` replaced by literal rows: no training).

The literals are read off the tolerance comments, never built from the constants. Every test is a few float
operations (the whole file well under a second of CPU).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from theorems.core import registry
from theorems.core.result import AS_PRINTED
from theorems.neural_collapse import figure_1, sandwich, theorem_4_3_pre_ln as pre_ln

DEPTHS = (5, 6, 8, 10, 12)


def _power(exponent: float, scale: float = 1.0, depths=DEPTHS) -> list[float]:
    return [scale * L ** exponent for L in depths]


# -- sandwich.certified_claims: EXPONENT_MAX −0.3, SLOPE_MIN 0.02 ---------------------------------------------------
def _certified(excess: list[float], **p) -> dict:
    rows = [sandwich.Row(L, 1.0, None, 1.0 + e, info={"upper": 1.0 + e, "trained_here": True, "upper_source": ""})
            for L, e in zip(DEPTHS, excess)]
    params = {**dict(loss="ce", lam=0.005, rate_shift=0.0, target=1.0), **p}
    return {c.name: c for c in sandwich.certified_claims(rows, 1.0, params, 3, 2, 8)[0]}


def test_certified_exponent_bar_is_pinned_by_literal_power_laws():
    """A pure power law ε(L) = 0.1·L^e: the fitted exponent is e. The bar −0.3: e = −0.2 fails (a bar ÷10 or ÷1000,
    −0.03 … −0.0003, would pass it), e = −0.45 passes (a bar ×10, −3, would fail it)."""
    assert not _certified(_power(-0.2, 0.1))["certified_excess_rate"].passed
    assert _certified(_power(-0.45, 0.1))["certified_excess_rate"].passed
    # the shift of the wrong-rate control moves the bar, not the fit
    assert not _certified(_power(-0.45, 0.1), rate_shift=-0.3)["certified_excess_rate"].passed


def test_certified_local_slope_bar_is_pinned_by_literal_slopes():
    """Every local slope must be ≤ −0.02: a power law of exponent −0.006 (slopes −0.006, a third of the bar:
    a bar ÷10 would pass it) fails; one of exponent −0.06 (3× the bar: a bar ×10 would fail it) passes."""
    assert not _certified(_power(-0.006, 0.1))["certified_excess_local_slopes"].passed
    assert _certified(_power(-0.06, 0.1))["certified_excess_local_slopes"].passed


# -- sandwich.rate_claims: RATE_ATOL 0.02 ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["construction_excess_rate", "construction_local_slopes"])
def test_rate_tolerance_is_pinned_by_literal_exponent_gaps(name):
    """The construction's excess against the reference rate on the same depths, both pure power laws: an exponent
    0.06 above the reference's (3 allowances of 0.02) fails both proof steps, 0.007 above (a third) passes."""
    ref = _power(-1.0, 3.0)
    assert not {c.name: c for c in sandwich.rate_claims(DEPTHS, _power(-0.94, 2.0), ref, "ref")[0]}[name].passed
    assert {c.name: c for c in sandwich.rate_claims(DEPTHS, _power(-0.993, 2.0), ref, "ref")[0]}[name].passed


# -- sandwich.sandwich_claims: LOWER_RTOL 1e-10 ----------------------------------------------------------------------
def test_sandwich_lower_side_is_pinned_by_literal_ratios():
    lower = 2.0

    def passed(value):
        rows = [sandwich.Row(5, lower, 3.0, 2.5), sandwich.Row(6, lower, None, value)]  # the worst row decides
        return sandwich.sandwich_claims(rows, lower, 1.0)[0][0].passed

    assert not passed(lower * (1 - 3e-10))  # 3 allowances below L*_GUFM (loosened ×10 it would pass)
    assert passed(lower * (1 - 3e-11))  # a third of one (tightened ÷10 it would fail)


# -- sandwich.landing_claim: LANDING_PER_BLOCK 1e-13 per block and per unit of (1 + α_max) ---------------------------
def _built(error: float, alpha: float, blocks: int):
    return SimpleNamespace(landing_error=error, extra={"alpha_max": alpha}, spec=SimpleNamespace(blocks=blocks))


def test_landing_tolerance_is_pinned_by_literal_errors():
    ok = _built(1e-20, 0.0, 1)
    assert not sandwich.landing_claim({2: ok, 3: _built(4e-13, 0.0, 1)}).passed  # 4 allowances, one block
    assert sandwich.landing_claim({2: ok, 3: _built(3e-14, 0.0, 1)}).passed  # a third of one
    # normalised by (1 + α_max)·blocks = 10·5 = 50: 2e-11 is 4 allowances, 1.5e-12 a third of one
    assert not sandwich.landing_claim({2: ok, 3: _built(2e-11, 9.0, 5)}).passed
    assert sandwich.landing_claim({2: ok, 3: _built(1.5e-12, 9.0, 5)}).passed


# -- theorem_4_3_pre_ln.construction_claims: COPY_ATOL 1e-9, FORWARD_RTOL 1e-12 ---------------------------------------
def _pre_ln(phase1=0.0, phase2=0.0, forward=0.0) -> dict:
    claims = pre_ln.construction_claims([2.0, 1.5], 1.0, [0.0, phase1], [0.0, phase2], [0.0, forward])
    return {c.name: c.passed for c in claims}


@pytest.mark.parametrize("name, key", [("phase1_projections_identical", "phase1"),
                                       ("phase2_projections_identical", "phase2")])
def test_pre_ln_copy_tolerance_is_pinned_by_literal_gaps(name, key):
    assert not _pre_ln(**{key: 4e-9})[name]  # 4 allowances (the worst seen is 4e-15; loosened ×10 it would pass)
    assert _pre_ln(**{key: 3e-10})[name]  # a third of one


def test_pre_ln_forward_tolerance_is_pinned_by_literal_relative_errors():
    assert not _pre_ln(forward=4e-12)["forward_matches_models"]  # 4 allowances of summation-order rounding
    assert _pre_ln(forward=3e-13)["forward_matches_models"]


# -- figure_1: FALL_EXPONENT −0.5 and the registered drop_scale control, through evaluate ---------------------------
FIG_DEPTHS = (2, 4, 8)


def _figure_1(monkeypatch, exponent: float, **params) -> dict:
    """figure_1.evaluate on a literal sweep whose seed-mean NC1 and NC3 follow c·L^exponent exactly (``sweep``
    replaced: no training), every network certified and above L*_GUFM."""
    rows = [dict(L=L, gufm_value=1.0, objective=[1.5, 1.2], status=["plateau", "gtol"],
                 nc1=0.3 * L ** exponent, nc2a=0.01 * L ** -1.0, nc3=0.1 * L ** exponent) for L in FIG_DEPTHS]
    monkeypatch.setattr(figure_1, "sweep", lambda ctx, p: [dict(r) for r in rows])
    p = registry.validate_structure(registry.get(figure_1.ID), dict(params), AS_PRINTED)
    out = figure_1.evaluate(p, AS_PRINTED, None)
    return {c.name: c for c in out.claims}


def test_figure_1_fall_bar_is_pinned_by_literal_curves(monkeypatch):
    """The bar −0.5 (between the λ ∝ 1/L curves, ≈ −1.1, and the constant-λ ones, ≈ −0.2): curves at −0.4 fail
    both fall claims (a bar ÷10, −0.05, would pass them), curves at −0.6 pass (a bar ×10, −5, would fail them)."""
    for name in ("nc1_falls_with_depth", "nc3_falls_with_depth"):
        assert not _figure_1(monkeypatch, -0.4)[name].passed
        assert _figure_1(monkeypatch, -0.6)[name].passed


def test_figure_1_registered_control_is_a_near_miss(monkeypatch):
    """The registered negative control (drop_scale = 3: a required exponent −1.5) fails curves that fall at
    −1.3, i.e. faster than the default sweep's ≈ −1.1 (a drop_scale ÷10 would let them pass), and no more than
    that: curves at −1.7 pass it (a drop_scale ×10, −15, would fail anything a trained sweep gives: the control
    would then test nothing about the bar)."""
    (control,) = [dict(c) for c in registry.get(figure_1.ID).controls]
    params = {k: v for k, v in control.items() if k != "allow_violation"}
    assert not _figure_1(monkeypatch, -1.3, **params)["nc1_falls_with_depth"].passed
    assert _figure_1(monkeypatch, -1.7, **params)["nc1_falls_with_depth"].passed
