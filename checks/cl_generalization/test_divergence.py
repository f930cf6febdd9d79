"""The module `theorems.cl_generalization.divergence` that several results of paper 003 share: its unit checks.
(Theorem 2's quantities on one encoder over every (δ, ε) setting: shared by the Theorem 2 check and the augmentation
trend.)"""

from __future__ import annotations

import math


# -- divergence: ρ_max, the threshold and the largest centre product on literal numbers -----------------------------
def test_rho_max_and_its_mutations_on_literal_numbers():
    """ρ_max = 2(1−σ) + c·R_ε/min p + σa: σ = 0.8, R_ε = 0.1, min p = 0.5, a = 0.05 give 0.4 + 0.2 + 0.04 with the
    printed c = 1 and 0.4 + 0.4 + 0.04 with the repaired c = 2; each control mutation drops its own term."""
    import torch

    from theorems.cl_generalization import divergence as D

    s, R, a = (torch.tensor([v], dtype=torch.float64) for v in (0.8, 0.1, 0.05))
    got = {m: float(D.rho(s, R, a, 0.5, D.PRINTED_COEF, m)) for m in ("none", "drop_a", "drop_R", "drop_sigma")}
    want = {"none": 0.64, "drop_a": 0.6, "drop_R": 0.44, "drop_sigma": 0.24}
    assert all(abs(got[m] - want[m]) < 1e-12 for m in want), got
    assert abs(float(D.rho(s, R, a, 0.5, D.REPAIRED_COEF)) - 0.84) < 1e-12
    # r²(1 − ρ − √(2ρ) − Δ_μ/2) (+ slack·r²): ρ = 0.02, Δ_μ = 0.1, r = 2 give 4·0.73; slack 0.5 adds 2
    rh = torch.tensor([0.02], dtype=torch.float64)
    assert abs(float(D.threshold(rh, 0.1, 2.0)) - 2.92) < 1e-12
    assert abs(float(D.threshold(rh, 0.1, 2.0, 0.5)) - 4.92) < 1e-12


def test_largest_centre_product_is_over_distinct_classes():
    """Three one-point classes at e₁, e₂ and (e₁ + e₂)/√2: the products of distinct centres are 0, 1/√2, 1/√2,
    so max_{ℓ≠k} μ_ℓᵀμ_k = 1/√2 (the diagonal, 1, is left out); unit centres: Δ_μ = 0."""
    import torch

    from theorems.cl_generalization import divergence as D
    from theorems.data.finite_population import Population

    s = 1 / math.sqrt(2)
    X = torch.tensor([[1.0, 0.0], [0.0, 1.0], [s, s]], dtype=torch.float64)
    pop = Population(X, X[:, None], torch.ones(3, 1, dtype=torch.float64), torch.tensor([0, 1, 2]), 3, True)
    e = D.encoded(pop, X[:, None], X, 1.0)
    assert abs(e.maxdot - s) < 1e-12 and abs(e.delta_mu) < 1e-12, e
