"""Survivors of the held-out mutation sample (seed 41) of paper 002, killed here (issue 26, item 9).

Lemma 2's consistency claim reads one exceedance as evidence: a single draw at or above L at a width where ε_h·R is
far below the p-value threshold already contradicts the printed probability bound (P(Bin(R, ε_h) ≥ 1) ≈ R·ε_h). A
count of one must therefore be tested, not waved through as a p-value of 1 (the mutant `k > 0` → `k > 1`).

Figure 3's default horizon is the one its parameter documents, log(h_max)/(8|λ₁|) + 20/r with r the slowest rate at
±e₁ (the escape of the widest network from q ≈ 0, then 20 e-folds): written out here from the printed eigenvalues, not
from the module's `horizon` (the mutant `max(widths)` → `min(widths)` shortened it and nothing noticed).
"""

from __future__ import annotations

import math

from checks.pinning import probe
from theorems.ssl_dynamics import lemma_2

RID = "ssl_dynamics.lemma_2"
WIDTH = 100  # a judged width of the default sweep (30, 100, 300, 1000)


def _one_exceedance(monkeypatch, eps_at_width: float):
    """The default sweep with exactly one of the 64 draws at width WIDTH blown up (max|Q_ij|·√h/log h ≫ L) and
    ε_WIDTH replaced by ``eps_at_width``; the other widths keep their draws (no exceedance there at judged widths)."""
    draws, epsilon = lemma_2._draws, lemma_2.epsilon

    def one_big(ctx, p, h):
        q = draws(ctx, p, h)
        if h == WIDTH:
            q = q.clone()
            q[0] = q[0] * 100.0  # one draw only: K_h = 1
        return q

    monkeypatch.setattr(lemma_2, "_draws", one_big)
    monkeypatch.setattr(lemma_2, "epsilon", lambda h, d, L, s: eps_at_width if h == WIDTH else epsilon(h, d, L, s))
    return probe(RID).claim("exceedance_consistent_with_epsilon")


def test_a_single_exceedance_where_epsilon_is_tiny_contradicts_the_bound(monkeypatch):
    # P(Bin(64, 1e-9) ≥ 1) ≈ 6.4e-8, 16× below PVALUE_MIN = 1e-6: the bound is contradicted by one draw.
    claim = _one_exceedance(monkeypatch, 1e-9)
    assert claim.kind == "bound" and not claim.passed and 6.3e-8 < claim.observed < 6.5e-8, claim


def test_a_single_exceedance_where_epsilon_allows_it_is_consistent(monkeypatch):
    # P(Bin(64, 1e-6) ≥ 1) ≈ 6.4e-5 ≥ 1e-6: one exceedance is what ε_h allows.
    claim = _one_exceedance(monkeypatch, 1e-6)
    assert claim.passed and 6.3e-5 < claim.observed < 6.5e-5, claim


def test_figure_3_default_horizon_is_the_documented_one(run):
    ev = run("ssl_dynamics.figure_3")
    lam0, lam1 = ev.details["eigenvalues"][:2]
    eta, h_max = ev.params["eta"], max(ev.params["widths"])
    T = math.log(h_max) / (8 * abs(lam0)) + 20.0 / min(8 * abs(lam0), 2 * (lam1 - lam0))
    assert ev.details["steps"] == round(T / eta), (ev.details["steps"], T / eta)
