"""``theorems.nonlinear_cl.lme``, shared by several results: its checks."""

from __future__ import annotations

import math

import pytest
import torch

from theorems.nonlinear_cl import lme

# -- the LME classifier (nonlinear_cl.lme) ---------------------------------------------------------------------------
DT = torch.float64


def _const(A: torch.Tensor):
    return lambda W: A.expand(W.shape[0], -1, -1)


@pytest.mark.parametrize("gap, is_lme", [(5e-8, True), (5e-9, False)])  # GAP_RTOL = 1e-8: ×5 and ÷2
def test_lme_needs_a_distinct_top_eigenvalue(gap, is_lme):
    A = torch.diag(torch.tensor([1.0, 1.0 - gap, 0.5], dtype=DT))
    cl = lme.classify(_const(A), torch.tensor([[1.0, 0.0, 0.0]], dtype=DT))
    assert bool(cl.is_lme[0]) is is_lme, (float(cl.gap[0]), lme.GAP_RTOL)


@pytest.mark.parametrize("tilt, is_lme", [(5e-10, True), (5e-9, False)])  # RESIDUAL_TOL = 1e-9: ÷2 and ×5
def test_lme_needs_the_top_eigenvector_to_the_residual_tolerance(tilt, is_lme):
    A = torch.diag(torch.tensor([1.0, 0.5, 0.0], dtype=DT))
    w = torch.tensor([[math.sqrt(1 - tilt**2), 0.0, tilt]], dtype=DT)  # top residual ‖Aw − λ₁w‖/‖A‖ = tilt
    cl = lme.classify(_const(A), w)
    assert bool(cl.is_lme[0]) is is_lme, (float(cl.top_residual[0]), lme.RESIDUAL_TOL)


@pytest.mark.parametrize("margin, is_kink", [(5e-10, True), (5e-9, False)])  # KINK_TOL = 1e-9: ÷2 and ×5
def test_an_atom_within_the_kink_tolerance_is_a_kink(margin, is_kink):
    A = torch.diag(torch.tensor([1.0, 0.5], dtype=DT))
    cl = lme.classify(_const(A), torch.tensor([[1.0, 0.0]], dtype=DT),
                      kink_fn=lambda W: torch.full((W.shape[0],), margin, dtype=DT))
    assert bool(cl.is_kink[0]) is is_kink and bool(cl.is_lme[0]) is not is_kink


@pytest.mark.parametrize("one_minus_cos, kept", [(5e-7, 1), (5e-6, 2)])  # SAME_COS_TOL = 1e-6: ÷2 and ×5
def test_directions_closer_than_the_cosine_tolerance_are_one_lme(one_minus_cos, kept):
    t = math.acos(1 - one_minus_cos)
    W = torch.tensor([[1.0, 0.0], [math.cos(t), math.sin(t)]], dtype=DT)
    assert len(lme.distinct(W)) == kept


def test_find_lmes_runs_power_iteration_to_a_hundredth_of_the_residual_tolerance():
    """The search stops at residual ≤ RESIDUAL_TOL·1e-2 = 1e-11 (checked every 5 steps of contraction 0.9: the last
    start ends within (0.6, 1]·1e-11); a stop 10× earlier leaves it above the literal 5e-11."""
    A = torch.diag(torch.tensor([1.0, 0.9, 0.5, 0.1], dtype=DT))
    W0 = torch.randn(8, 4, dtype=DT, generator=torch.Generator().manual_seed(0))
    search = lme.find_lmes(_const(A), W0)
    assert search.n_unconverged == 0 and len(search.lmes) == 2  # ±e₁ (not merged: up_to_sign=False)
    assert float(search.classified.residual.max()) <= 5e-11
