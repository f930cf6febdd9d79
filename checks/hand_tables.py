"""Hand-made tables that tests in both ``checks/`` and ``tests/`` feed to a result's claim builders."""

from __future__ import annotations


def figure_4_chi() -> tuple[dict, dict]:
    """χ̄₊ and χ̄₋ per (P, β, activation) for Figure 4's grid claims, chosen so that every min/max over points is
    decided by a different point (values worked out by hand)."""
    chi = {(1, 1, "relu"): 0.3, (1, 1, "linear"): 0.95, (1, 1, "leaky"): 0.4,
           (1, 4, "relu"): 0.9, (1, 4, "linear"): 0.85, (1, 4, "leaky"): 0.8,
           (3, 1, "relu"): 0.5, (3, 1, "linear"): 0.7, (3, 1, "leaky"): 0.5,
           (3, 4, "relu"): 0.95, (3, 4, "linear"): 0.6, (3, 4, "leaky"): 0.9,
           (5, 1, "relu"): 0.4, (5, 1, "linear"): 0.6, (5, 1, "leaky"): 0.4,
           (5, 4, "relu"): 0.8, (5, 4, "linear"): 0.7, (5, 4, "leaky"): 0.75}
    chim = {k: 0.1 for k in chi}
    chim[(3, 4, "relu")], chim[(3, 4, "linear")], chim[(3, 4, "leaky")] = 0.05, 0.3, 0.2
    chim[(5, 4, "relu")], chim[(5, 4, "linear")], chim[(5, 4, "leaky")] = 0.25, 0.3, 0.2
    return chi, chim
