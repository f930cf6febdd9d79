"""The module `theorems.neural_collapse.rank_certificate` that several results of paper 004 share: its unit checks.
(Why no feasible pair of the MSE-UFM can be collapsed when d ≤ K: a bound over *all* feasible (W, X).)"""

from __future__ import annotations

import pytest

from theorems.neural_collapse.rank_certificate import collapse_floor, rank_inequality_slack


def test_rank_certificate_hand_cases():
    import torch

    def t(x):
        return torch.tensor(x, dtype=torch.float64)

    # An orthogonal frame (NC2B = 0) is collapsed only if NC3 ≥ 1/(2K): the inequality is tight enough to bite.
    K = 4
    assert float(rank_inequality_slack(t(0.0), t(1 / (2 * K)), K)) == pytest.approx(0.0)
    assert float(rank_inequality_slack(t(0.0), t(0.9 / (2 * K)), K)) < 0
    # The floor solves 2Kδ(1+ρ(δ)) = 1 − ρ(δ): check the root and its monotonicity in K.
    delta = collapse_floor(K)
    assert float(rank_inequality_slack(t(delta), t(delta), K)) == pytest.approx(0, abs=1e-9)
    assert collapse_floor(3) > collapse_floor(4) > collapse_floor(5) > 0
