"""``theorems.nonlinear_cl.covariance``, shared by several results: its checks."""

from __future__ import annotations

import pytest
import torch

from theorems import HypothesisViolation
from theorems.nonlinear_cl import covariance
from theorems.nonlinear_cl.covariance import check_filters


@pytest.mark.parametrize("deviation, refused", [(5e-9, True), (5e-10, False)])
def test_filters_off_the_unit_sphere_are_refused_at_the_edge(deviation, refused):
    """A(w) is defined on the unit sphere: a filter whose norm is off 1 by more than UNIT_TOL = 1e-9 is refused
    (literal deviations ×5 either side of it)."""
    W = torch.tensor([[1.0 + deviation, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
    if refused:
        with pytest.raises(HypothesisViolation, match="unit sphere"):
            covariance.check_filters(W, 3)
    else:
        covariance.check_filters(W, 3)
    with pytest.raises(HypothesisViolation, match="matches the data dimension"):
        covariance.check_filters(W, 4)


# ---------------------------------------------------------------------------------------------------------------
# Machinery the verdicts read: A(w) of a Gaussian mixture across the linear branch, Figure 8's kink maxima
# ---------------------------------------------------------------------------------------------------------------
def test_A_mixture_is_continuous_in_the_leak_across_its_linear_branch():
    """A(w) for x̃ = x·(a + (1 − a)1[wᵀx > 0]) is continuous in a: the closed-form linear branch (a = 1: Cov[x] for
    every w) agrees with the general formula at a = 1 − 1e-9, and at a = 0, 1e-3, 0.1 (leaky and ReLU settings) the
    general formula is used (Cov[x] there would be off by O(1)): a branch moved to another a fails here."""
    from theorems.core.context import Context
    from theorems.data.latents import simplex_mixture
    from theorems.nonlinear_cl.covariance import A_mixture
    from theorems.optim.sphere_flow import random_unit

    ctx = Context.make(seed=0)
    gm = simplex_mixture(ctx, 3, 3.0, 0.5)
    W = random_unit(ctx, 4, 3)
    cov = A_mixture(gm, W, 1.0)
    for a in (0.0, 1e-3, 0.1, 1.0):
        A, near = A_mixture(gm, W, a), A_mixture(gm, W, a + 1e-9 if a < 1 else a - 1e-9)
        assert float((A - near).abs().max()) <= 1e-6 * float(A.abs().max()), a
        if a < 1:
            assert float((A - cov).abs().max()) > 1e-2 * float(cov.abs().max()), a


@pytest.mark.parametrize("dev, refused", [(5e-9, True), (2e-10, False)])
def test_unit_filter_tolerance(dev, refused):
    """UNIT_TOL = 1e-9 (A(w) is defined on the unit sphere): a filter of norm 1 + 5e-9 is refused, 1 + 2e-10 is not."""
    W = torch.tensor([[1.0 + dev, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
    if refused:
        with pytest.raises(HypothesisViolation, match="unit sphere"):
            check_filters(W, 3)
    else:
        check_filters(W, 3)


# ---------------------------------------------------------------------------------------------------------------
# covariance.py: the gate h'(s), the slope of each activation, the kink margin, and the refusals of bad input
# ---------------------------------------------------------------------------------------------------------------
def test_gate_slope_and_kink_margin_on_hand_cases():
    from theorems.data.latents import Discrete
    from theorems.nonlinear_cl.covariance import gate, kink_margin, slope_of

    s = torch.tensor([-1.0, 0.0, 0.5], dtype=torch.float64)
    assert gate(s, 0.0).tolist() == [0.0, 0.0, 1.0]  # ReLU, h'(0) = 0 (B.1)
    assert gate(s, 0.0, 0.5).tolist() == [0.0, 0.5, 1.0]  # another h'(0) at the kink only
    assert gate(s, 0.25).tolist() == [0.25, 0.25, 1.0]
    assert gate(s, 1.0, 0.5).tolist() == [1.0, 1.0, 1.0]  # linear: no kink, h'(0) = 1
    assert (slope_of("relu"), slope_of("linear"), slope_of("leaky", 0.2)) == (0.0, 1.0, 0.2)
    X = torch.tensor([[0.5, 0.0], [0.0, 2.0], [0.0, 0.0]], dtype=torch.float64)  # the atom at 0 is ignored
    data = Discrete(X, torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64))
    W = torch.tensor([[0.0, 1.0], [0.6, 0.8]], dtype=torch.float64)
    assert kink_margin(data, W).tolist() == pytest.approx([0.0, 0.6])  # |wᵀx|/‖x‖ of the short atom decides


def test_covariance_refuses_mismatched_input():
    from theorems.nonlinear_cl.covariance import contrastive_covariance

    with pytest.raises(HypothesisViolation, match="matches the data dimension"):
        check_filters(torch.ones(2, 4, dtype=torch.float64) / 2, 3)
    a = torch.ones(4, 2, dtype=torch.float64)
    with pytest.raises(HypothesisViolation, match="two views"):
        contrastive_covariance(a, a, a[:3], a[:3])
    with pytest.raises(HypothesisViolation, match="α ≥ 0"):
        contrastive_covariance(a, a, a, a, -torch.ones(4, 4, dtype=torch.float64))
    with pytest.raises(HypothesisViolation, match="α ≥ 0"):
        contrastive_covariance(a, a, a, a, torch.ones(3, 3, dtype=torch.float64))
