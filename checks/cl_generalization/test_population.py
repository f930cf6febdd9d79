"""The module `theorems.cl_generalization.population` that several results of paper 003 share: its unit checks. (Exact
quantities of paper 003 on a finite population (the slides' definitions, as finite sums).)"""

from __future__ import annotations

import math

import pytest
import torch


def test_infonce_temperature_limit_against_a_hand_computed_population():
    """Two points, one view each, at angle θ: s⁺ = 1, s⁻ ∈ {1, cos θ}; the remainder τ(L_τ − log 2) − ½L' equals
    ½τ log cosh((1 − cos θ)/(2τ)) exactly (the pair with s⁻ = s⁺ contributes nothing)."""
    import torch

    from theorems.cl_generalization.population import infonce_terms

    theta = 1.1
    F = torch.tensor([[[1.0, 0.0]], [[math.cos(theta), math.sin(theta)]]], dtype=torch.float64)
    w = torch.ones(2, 1, dtype=torch.float64)
    t1 = infonce_terms(F, w, 1.0)
    half_lin = 0.5 * float(-t1["pos"] + t1["neg"])
    for tau in (10.0, 1e3):
        gap = tau * (float(infonce_terms(F, w, tau)["loss"]) - math.log(2)) - half_lin
        assert gap == pytest.approx(0.5 * tau * math.log(math.cosh((1 - math.cos(theta)) / (2 * tau))), rel=1e-6)


def test_linear_loss_prefers_collapse_where_infonce_does_not():
    # K = 3, p = (¼, ¼, ½) on a circle, views = point, by an independent closed form
    import torch

    from theorems.cl_generalization.population import infonce_terms

    def embed(angles):
        pts = torch.tensor([[math.cos(a), math.sin(a)] for a in angles], dtype=torch.float64)
        return pts[[0, 1, 2, 2]][:, None, :]  # four points: classes 0, 1, 2, 2

    w = torch.ones(4, 1, dtype=torch.float64)
    merged, spread = embed([0, 0, math.pi]), embed([0, 2 * math.pi / 3, 4 * math.pi / 3])
    lin = {k: float(-t["pos"] + t["neg"]) for k, t in (("m", infonce_terms(merged, w)), ("s", infonce_terms(spread, w)))}
    nce = {k: float(infonce_terms(F, w)["loss"]) for k, F in (("m", merged), ("s", spread))}
    assert lin["m"] == pytest.approx(-1.0) and lin["s"] == pytest.approx(-0.9375)
    assert nce["s"] == pytest.approx(0.3858, abs=1e-4) and nce["m"] == pytest.approx(0.4100, abs=1e-4)


def test_lipschitz_on_support_is_the_largest_ratio_and_inf_off_a_function():
    """Two points, the clean point repeated as view 0 and a second view: f = 2·x gives L = 2 exactly (repeated inputs
    skipped, not divided by 0); an f that maps one input to two outputs 0.5 apart is no function: L = inf."""
    from theorems.cl_generalization.population import lipschitz_on_support
    from theorems.data.finite_population import Population

    clean = torch.tensor([[0.0, 0.0], [1.0, 0.0]], dtype=torch.float64)
    views = torch.stack([clean, clean + torch.tensor([0.0, 0.5], dtype=torch.float64)], 1)  # (2, 2, 2)
    pop = Population(clean, views, torch.full((2, 2), 0.5, dtype=torch.float64), torch.tensor([0, 1]), 2, True)
    assert lipschitz_on_support(pop, 2 * views, 2 * clean) == 2.0
    F = 2 * views.clone()
    F[0, 0] += torch.tensor([0.0, 0.5], dtype=torch.float64)  # view 0 is the clean point, mapped elsewhere
    assert lipschitz_on_support(pop, F, 2 * clean) == math.inf


# -- population: Definition 1's cliques and G_f's ties, against brute force -------------------------------------
def _random_graphs():
    import random

    rng = random.Random(5)
    for n, q in ((7, 0.5), (9, 0.6), (9, 0.3), (1, 0.5)):
        adj = [set() for _ in range(n)]
        for u in range(n):
            for v in range(u + 1, n):
                if rng.random() < q:
                    adj[u].add(v)
                    adj[v].add(u)
        yield adj


def test_cliques_are_cliques_and_the_exact_one_is_maximum():
    """On small random graphs: max_clique has the size of the largest clique found by brute force over every
    vertex subset; both it and greedy_clique are cliques, and the greedy one cannot be extended."""
    from itertools import combinations

    from theorems.cl_generalization.population import greedy_clique, max_clique

    def is_clique(c, adj):
        return all(v in adj[u] for u, v in combinations(c, 2))

    for adj in _random_graphs():
        n = len(adj)
        best = max(k for k in range(1, n + 1) if any(is_clique(c, adj) for c in combinations(range(n), k)))
        exact, greedy = max_clique(adj), greedy_clique(adj)
        assert is_clique(exact, adj) and len(exact) == best, (adj, exact, best)
        assert is_clique(greedy, adj) and 1 <= len(greedy) <= best, (adj, greedy)
        assert not any(all(v in adj[u] for u in greedy) for v in set(range(n)) - set(greedy)), (adj, greedy)


def test_nearest_centre_counts_a_tie_as_an_error():
    """Points at margins +0.5, 0 (equidistant from both centres) and −0.5: only the first is classified right."""
    import torch

    from theorems.cl_generalization.population import nearest_centre

    mu = torch.tensor([[0.0, 0.0], [2.0, 0.0]], dtype=torch.float64)
    F0 = torch.tensor([[0.875, 0.0], [1.0, 0.0], [1.125, 0.0]], dtype=torch.float64)  # ‖f−μ_1‖² − ‖f−μ_0‖² = 4 − 4x
    ok, margin = nearest_centre(F0, mu, torch.tensor([0, 0, 0]))
    assert ok.tolist() == [True, False, False] and margin.tolist() == [0.5, 0.0, -0.5], (ok, margin)
