"""Trend (E1/E2): downstream error and the Theorem-2 bound against augmentation strength (measured) (paper 003,
`cl_generalization.augmentation_trend`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import dataclasses

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_identity_fails,
    assert_identity_pin,
    assert_refused_naming,
    probe,
    row_ids,
)
from theorems import ParameterError

TREND = "cl_generalization.augmentation_trend"


# -- augmentation trend (open) ------------------------------------------------------------------------------
def test_trend_is_measured_not_judged(run):
    ev = run(TREND)
    spearman = ev.claim("spearman_err_vs_strength")
    assert spearman.kind == "measurement" and -1.0 <= spearman.observed <= 1.0
    assert len(ev.details["err_mean"]) == len(ev.details["strengths"])
    # the recorded numbers, recomputed from the recorded curves
    from scipy.stats import spearmanr

    err = ev.details["err_mean"]
    rho = spearmanr(ev.details["strengths"], err).statistic if max(err) > min(err) else 0.0
    assert spearman.observed == pytest.approx(rho, abs=1e-12)
    curves = ev.details["sigma_curves"]
    worst = max(max(a - b for a, b in zip(lo, hi, strict=True)) for lo, hi in zip(curves, curves[1:], strict=False))
    assert ev.claim("concentration_monotone").observed == worst


@pytest.mark.parametrize(
    "rid, params, name",
    [(TREND, dict(strengths="1,0.5,0"), "strengths")],
)
def test_structural_input_is_refused_by_the_declarations(rid, params, name):
    assert_refused_naming(rid, params, name, ParameterError)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # augmentation_trend: the divergence threshold exact, nested templates
    (P + "augmentation_trend", None, dict(thr_slack=1e-9), "exact divergence threshold"),
    (P + "augmentation_trend", None, dict(thr_slack=0.0, templates="nested"), None),
    ("cl_generalization.augmentation_trend", None, dict(templates="replace"), "nested augmentations"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# -- augmentation_trend: BOUND_ATOL and the worst (strength, seed) -------------------------------------------------
def _trend_row_moved(monkeypatch, change, which: int = 4):
    """The ``which``-th encoder analysis of the sweep (3 strengths × 2 seeds on the default) changed by
    ``change(row)``."""
    from theorems.cl_generalization import divergence as D

    analyse, calls = D.analyse, []

    def moved(*a, **k):
        row = analyse(*a, **k)
        calls.append(1)
        if len(calls) == which:
            row = {**row, "variants": {n: dict(v) for n, v in row["variants"].items()}}
            change(row)
        return row

    monkeypatch.setattr(D, "analyse", moved)


_TREND = dict(sizes=[4, 4])


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_augmentation_trend_bound_atol_is_pinned_at_the_worst_cell(monkeypatch, bump, passes):
    """BOUND_ATOL (1e-12): one (strength, seed) cell's Err set a literal bump above its min(B*_corr, 1) (the others
    have Err − B* = −1): the bound claim takes the worst cell."""
    from theorems.cl_generalization import augmentation_trend as AT

    def change(row):
        row["err"] = min(row["variants"]["repaired"]["best"], 1.0) + bump

    _trend_row_moved(monkeypatch, change)
    c = probe(AT.ID, **_TREND).claim("bound_dominates_error")
    assert c.kind == "bound" and c.passed is passes, c


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_augmentation_trend_oracle_identity_is_pinned_at_the_worst_cell(monkeypatch, bump, passes):
    """BOUND_ATOL on ``oracle_below_bound`` (identity): one cell given B*_corr = ½ (both sides are capped at 1, and
    this small instance has B* ≥ 1 everywhere) and an oracle B_L1* a literal bump above it."""
    from theorems.cl_generalization import augmentation_trend as AT

    def change(row):
        row["variants"]["repaired"] = {**row["variants"]["repaired"], "best": 0.5}
        row["oracle_B_L1"] = 0.5 + bump

    _trend_row_moved(monkeypatch, change)
    assert_identity_pin(AT.ID, "oracle_below_bound", passes, **_TREND)


# monkeypatch, not a Pin: it replaces P.concentration: code, which a Pin cannot move
def test_augmentation_trend_concentration_identity_takes_the_worst_strength_and_delta(monkeypatch):
    """``concentration_monotone`` (an identity of the harness: nested view sets): σ of the strongest augmentation
    lowered a literal 1e-3 below the previous strength's at one δ only must fail it, whatever the other δ and the
    other pair of strengths do."""
    from theorems.cl_generalization import augmentation_trend as AT
    from theorems.cl_generalization import population as P

    conc, seen = P.concentration, []

    def moved(pop, deltas=None, **k):
        c = conc(pop, deltas=deltas, **k)
        if deltas is None:
            return c
        if len(seen) == 2:  # the third strength
            sigma = c.sigma.clone()
            sigma[0] = seen[-1][0] - 1e-3
            c = dataclasses.replace(c, sigma=sigma)
        seen.append(c.sigma)
        return c

    monkeypatch.setattr(P, "concentration", moved)
    assert_identity_fails(AT.ID, "concentration_monotone", **_TREND)
    assert len(seen) == 3
