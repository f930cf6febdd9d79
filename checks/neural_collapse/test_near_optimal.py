"""The module `theorems.neural_collapse.near_optimal` that several results of paper 004 share: its unit checks. (Lemma
4.1 of paper 004 made quantitative for the UFM (the GUFM of Lemma 4.2): every feasible (W, X) whose objective is
within ε of the optimum L* has NC metrics NC ≤ C(ε)·ε^p, with p = 1 for NC1 and NC3 (squared deviations) and p = 1/2
for NC2 (linear in the deviation of W), and explicit C(ε) that tend to a finite C(0) as ε → 0. The printed lemma
(Section 4.1) says only limsup_{ε→0} distmax(M_ε \ M_0, M_0) = 0, by compactness.)"""

from __future__ import annotations

import pytest

from theorems.neural_collapse.near_optimal import nc_bounds


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_the_bounds_at_zero_excess_are_zero(loss):
    assert nc_bounds(loss, 3, 2, 6, 0.05, 0.0) == {"nc1": 0.0, "nc2": 0.0, "nc3": 0.0}
    assert nc_bounds(loss, 3, 2, 6, 0.05, -1e-300) is None  # below the optimum: not an excess


@pytest.mark.parametrize("loss, d", [("ce", 6), ("mse", 5)])
def test_near_optimal_exponents_are_the_rates_of_the_bounds(loss, d):
    """EXPONENTS are the rates of the derived bounds: bound(ε)/ε^p settles to the limit constant C(0+) as ε → 0
    (ε = 1e-16 and 1e-13 agree to 1 %); a wrong exponent makes the two differ by orders of magnitude."""
    from theorems.neural_collapse.near_optimal import limit_constants

    near, far = limit_constants(loss, 3, 2, d, 0.05, 1e-16), limit_constants(loss, 3, 2, d, 0.05, 1e-13)
    assert near.keys() == far.keys() == {"nc1", "nc2", "nc3"}
    assert all(near[k] == pytest.approx(far[k], rel=1e-2) for k in near), (near, far)


def test_near_optimal_mse_bounds_stop_at_the_curvature_window():
    """The MSE bounds hold while the row-norm deviation δ = √(2ε/μ) stays within half the curvature window
    min(t*, 1 − t*)/2 (t* = d/(d + Kλ), μ = 1/K + λ/d). At K = 3, d = 4, λ = 0.05 the window is 1 − t* = 0.0361, so
    the edge is ε = 5.65e-5: a bound at 5e-5, none at 6e-5 (the window taken as max(t*, 1 − t*) would reach 0.04)."""
    from theorems.neural_collapse.near_optimal import nc_bounds

    assert nc_bounds("mse", 3, 2, 4, 0.05, 5e-5) is not None
    assert nc_bounds("mse", 3, 2, 4, 0.05, 6e-5) is None
