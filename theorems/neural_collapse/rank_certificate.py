"""Why no feasible pair of the MSE-UFM can be collapsed when d ≤ K: a bound over *all* feasible (W, X).

Used by ``lemma_4_2`` (the certificate of its MSE counterexample at d = K) and ``dimension_conditions``
(Corollary 4.5 at d = K fails for every network of every depth, not only for the optimiser's points).

The argument (paper 004, Definitions 3.4 and 3.5; written out here because the paper does not make it).
Features lie in 1^⊥ (‖x‖ = √d, 1ᵀx = 0). Split each row of W as w_k = P w_k + b_k 1/√d, P = I − 11ᵀ/d,
and let β_k = b_k²/‖w_k‖² be the fraction of w_k along 1. Then

* cos(x, w_k) ≤ ‖P w_k‖/‖w_k‖ = √(1 − β_k) for x ∈ 1^⊥, so NC3 ≥ 1 − (1/K)Σ_k √(1 − β_k) ≥ (1/2K) Σ_k β_k
  (balanced classes), i.e. ‖b‖² = Σ_k β_k ‖w_k‖² ≤ 2K·NC3·λ_max(WWᵀ);
* WWᵀ = (WP)(WP)ᵀ + bbᵀ and rank(WP) ≤ d − 1 ≤ K − 1, so by Weyl λ_min(WWᵀ) ≤ ‖b‖²;
* with c = tr(WWᵀ)/K (the minimiser in NC2B) and r = NC2B: ‖WWᵀ − cI‖_F = r‖WWᵀ‖_F and
  ‖WWᵀ‖_F = c√K/√(1 − r²), so every eigenvalue lies within c·ρ of c, ρ = r√K/√(1 − r²).

Together: **1 − ρ ≤ 2K·NC3·(1 + ρ)** for every feasible pair with W ≠ 0 and d ≤ K. Hence NC2B and NC3
cannot both be small: max(NC2B, NC3) ≥ δ_K, the root of 2Kδ(1 + ρ(δ)) = 1 − ρ(δ) (δ_4 ≈ 0.085).
At d ≥ K+1 the rank step fails and orthogonal frames in 1^⊥ reach NC2B = NC3 = 0 (Lemma 4.2's optima).
"""

from __future__ import annotations

import math

import torch


def rho(nc2b: torch.Tensor | float, K: int):
    """Relative eigenvalue spread of WWᵀ allowed by NC2B = r: ρ = r√K/√(1 − r²) (∞ at r ≥ 1)."""
    if isinstance(nc2b, torch.Tensor):
        r = nc2b.clamp(max=1 - 1e-15)
        return r * math.sqrt(K) / torch.sqrt(1 - r * r)
    r = min(float(nc2b), 1 - 1e-15)
    return r * math.sqrt(K) / math.sqrt(1 - r * r)


def rank_inequality_slack(nc2b: torch.Tensor, nc3: torch.Tensor, K: int) -> torch.Tensor:
    """2K·NC3·(1 + ρ) − (1 − ρ): ≥ 0 for every feasible pair with d ≤ K (the inequality above)."""
    r = rho(nc2b, K)
    return 2 * K * nc3 * (1 + r) - (1 - r)


def collapse_floor(K: int) -> float:
    """δ_K: no feasible pair with d ≤ K has both NC2B < δ_K and NC3 < δ_K (bisection to 1e-12)."""
    def h(delta: float) -> float:
        r = rho(delta, K)
        return 2 * K * delta * (1 + r) - (1 - r)

    lo, hi = 0.0, 1.0  # h(0) = −1 < 0, h(1) = +∞ > 0, h increasing
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if h(mid) < 0 else (lo, mid)
    return lo


def certificate_text(K: int, d: int) -> str:
    return (f"rank argument (module theorems.neural_collapse.rank_certificate): with d = {d} ≤ K = {K}, every "
            f"feasible (W, X) of the MSE-UFM satisfies 1 − ρ ≤ 2K·NC3·(1 + ρ), ρ = NC2B·√K/√(1 − NC2B²), because "
            f"the rows of W restricted to 1^⊥ have rank ≤ d − 1 ≤ K − 1; so max(NC2B, NC3) ≥ δ_K = "
            f"{collapse_floor(K):.4f} at every feasible point, a fortiori at every global optimum and at the last "
            f"layer of every network of every depth (its features are feasible). No choice of W, X, or depth "
            f"reaches NC1 = NC2B = NC3 = 0.")
