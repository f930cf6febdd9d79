"""Strategies for paper 004 (neural collapse): every range comes from the results' Param declarations
(``declared_params``); the hypotheses that tie parameters together (d ≥ K+1 for MSE, d ≥ 2V+2 for
transformers, enough distinct contexts) filter the draws. Effort knobs are fixed small so that one example of
the worst-case search stays cheap."""

from __future__ import annotations

from ._common import declared_params

__all__ = ["ufm_params", "deep_net_params", "near_optimal_params", "phase1_mover_params"]


def ufm_params():
    """``neural_collapse.lemma_4_2`` (corrected form): K, n, d, λ, loss, seed as declared."""
    return declared_params("neural_collapse.lemma_4_2")


def deep_net_params():
    """``neural_collapse.theorem_4_3``: any architecture, depth, sizes and λ as declared; the bound is exact for
    every θ, so the declared train_iter range (0–20) suffices: the property is about arbitrary networks."""
    return declared_params("neural_collapse.theorem_4_3", seeds=2)


def near_optimal_params():
    """``neural_collapse.lemma_4_1``: K, n, d, λ, loss as declared; fewer draws than the default."""
    return declared_params("neural_collapse.lemma_4_1", draws=8, seeds=3, train_iter=20)


def phase1_mover_params():
    """``neural_collapse.errata_a9``: d, m, α as declared, other samples at random or on the cap boundary."""
    return declared_params("neural_collapse.errata_a9", instances=8, others=32, L1=20)
