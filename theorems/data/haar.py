"""Haar-random semi-orthonormal matrices Q ∈ St(h, d): the tail of their largest entry (paper 002, Lemma 2).

``entry_tail_bound`` is the proof's ε_h with explicit constants; ``bites`` says whether a number of draws can
contradict such a bound at the significance level ``PVALUE_MIN``. The hypothesis strategies use them to choose widths
the check judges, without importing the paper module.
"""

from __future__ import annotations

import math

from scipy.special import ndtr

# A width's exceedance count is inconsistent with ε_h when its binomial tail probability is below this (Lemma 2's
# claim is checked on every width of a sweep: a family-wise level of about widths × 1e-6).
PVALUE_MIN = 1e-6


def bites(eps: float, draws: int) -> bool:
    """Whether ``draws`` exceedance counts can contradict the probability bound ``eps``: even K = draws is
    significant only if P(Bin(draws, eps) ≥ draws) = eps^draws is below PVALUE_MIN (never where eps ≥ 1)."""
    return min(eps, 1.0) ** draws < PVALUE_MIN


def entry_tail_bound(h: int, d: int, L: float, s: float) -> float:
    """The proof's ε_h with explicit constants: d·h·2Φ̄(t log h) + d·e^{−hs²/4}, t = L√(1 − s)."""
    t = L * math.sqrt(1 - s)
    return d * h * 2 * float(ndtr(-t * math.log(h))) + d * math.exp(-h * s * s / 4)
