"""``theorems.deep_fusion._witness``, shared by several results: its checks."""

from __future__ import annotations

import pytest
import torch

from theorems.deep_fusion._witness import allocation_lower_bound, unit_column_upper_bound


def test_witness_bounds_bracket_on_hand_case():
    """Two orthogonal lines, ν = (1, 1), n = 2 unit columns: the best witness puts one column on each line, A =
    diag(1, 1); the allocation bound gives 1 and the dual upper bound is ≥ 1 (and ≈ 1)."""
    X = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]], dtype=torch.float64)
    lab = torch.tensor([0, 1])
    low = allocation_lower_bound(torch.tensor([[1.0, 1.0]], dtype=torch.float64),
                                 torch.tensor([[1.0, 1.0]], dtype=torch.float64), 2)
    up = unit_column_upper_bound(X, lab, torch.ones(1, 2, 2, dtype=torch.float64), 2)
    assert float(low) == pytest.approx(1.0) and 1.0 - 1e-12 <= float(up) <= 1.05


# ------------------------------------------------------------------------------------------------------
# _witness: a one-dimensional admissible space is solved, not taken for {0}
# ------------------------------------------------------------------------------------------------------
def test_witness_lp_solves_a_one_dimensional_admissible_space():
    """Two equal samples of one cluster (rank 1, no cross pairs): the admissible Z is the 1×1 coefficient c with
    every same-cluster entry c·‖x‖² = c, so t* = BOX = 1 by hand (only an empty space would give 0)."""
    from theorems.deep_fusion._witness import block_diagonal_lp_bounds

    X = torch.tensor([[[1.0, 0.0], [1.0, 0.0]]], dtype=torch.float64)
    lower, upper = block_diagonal_lp_bounds(X, torch.tensor([0, 0]))
    assert abs(float(lower[0]) - 1.0) < 1e-7 and abs(float(upper[0]) - 1.0) < 1e-7, (lower, upper)


def test_witness_lp_bounds_meet_at_the_optimum():
    """Theorem 1's witness LP on hand cases: M = I on two orthogonal lines gives t* = 1, lines at cos 0.6 beside
    an orthogonal one give t* = 0.8 (min of 1, 0.6·…); the dual bound equals the primal there (strong duality: a
    finite certificate, not inf), and x₂ = −x₁ is certified to have no witness (upper ≤ LP_ZERO)."""
    from theorems.deep_fusion._witness import block_diagonal_lp_bounds

    X = torch.tensor([[[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                      [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                      [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]]], dtype=torch.float64)
    lower, upper = block_diagonal_lp_bounds(X, torch.tensor([0, 0, 1]))
    for b, t in ((0, 1.0), (2, 0.8)):
        assert float(lower[b]) == pytest.approx(t, abs=1e-7) and float(upper[b]) == pytest.approx(t, abs=1e-7), b
    assert abs(float(lower[1])) <= 1e-12 and 0.0 <= float(upper[1]) <= 1e-12
