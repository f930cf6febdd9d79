"""Checks of papers 001/003 written to kill surviving mutants (issue 26, item 9), each against an independent fact."""

from __future__ import annotations

import pytest
import torch

from theorems.nonlinear_cl.theorem_3 import estimate_kappa


@pytest.mark.parametrize("size", [1e-2, 1e-3])
def test_theorem_3_kappa_is_a_second_order_constant(size):
    """Lemma 9's κ: ‖φ₁(A') − φ₁(A) − Dφ₁[δA]‖ ≤ κ‖δA‖². With the whole first-order term Dφ₁ (every eigen-gap,
    0.5 and 1.3 here) the estimate is O(1/gap²) and does not grow as δA shrinks; a first-order term left out
    (a gap dropped) leaves a residual of order ‖δA‖, i.e. an estimate of order 1/‖δA‖."""
    g = torch.Generator().manual_seed(0)
    A0 = torch.diag(torch.tensor([1.5, 1.0, 0.2], dtype=torch.float64))
    E = torch.randn(3, 3, generator=g, dtype=torch.float64)
    E = (E + E.T) / 2
    E = E / torch.linalg.matrix_norm(E, ord=2)
    kappa = estimate_kappa(torch.stack([A0, A0 + size * E]), torch.tensor([0]), torch.tensor([1]))
    assert 0.0 < kappa < 1 / 0.5**2
