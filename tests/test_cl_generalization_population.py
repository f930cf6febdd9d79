"""Machinery of paper 003 against brute force: augmented distance, cliques, σ(δ), view-set monotonicity (R1),
the nearest-centre rule (R0), and the exact population losses against explicit enumeration."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from theorems.cl_generalization import population as P
from theorems.cl_generalization.encoders import BatchedMLP, train_barlow_twins, train_infonce
from theorems.core.context import Context
from theorems.data.finite_population import (
    Population,
    parse_sizes,
    sphere_population,
    style_content_population,
)


def pop_sphere(seed=0, mode="bad_aligned", sizes=(5, 4), d=3, m=3, weights="dirichlet", **kw):
    return sphere_population(Context.make(seed=seed), list(sizes), d, m, mode, weights=weights, **kw)


def test_augmented_distance_matches_brute_force_and_keeps_exact_zeros():
    pop = pop_sphere(mode="hub")
    DA = P.augmented_distance(pop.views)
    N, m = pop.N, pop.m
    for i, j in itertools.product(range(N), repeat=2):
        brute = min(float((pop.views[i, a] - pop.views[j, b]).norm()) for a in range(m) for b in range(m))
        assert DA[i, j] == pytest.approx(brute, abs=1e-14)
    same = pop.labels[:, None] == pop.labels[None, :]
    assert bool((DA[same] == 0).all())  # the shared hub view: d_A = 0 exactly


@pytest.mark.parametrize("seed", range(6))
def test_max_clique_is_maximum_and_greedy_is_a_smaller_clique(seed):
    g = torch.Generator().manual_seed(seed)
    n = 9
    A = torch.rand(n, n, generator=g) < 0.5
    A = A | A.T
    adj = [set(j for j in range(n) if A[i, j] and j != i) for i in range(n)]
    exact, greedy = P.max_clique(adj), P.greedy_clique(adj)
    is_clique = lambda c: all(v in adj[u] for u, v in itertools.combinations(c, 2))  # noqa: E731
    best = max(len(c) for r in range(1, n + 1) for c in itertools.combinations(range(n), r) if is_clique(c))
    assert is_clique(exact) and len(exact) == best
    assert is_clique(greedy) and len(greedy) <= len(exact)


def test_sigma_is_nondecreasing_in_delta_and_main_parts_are_cliques():
    pop = pop_sphere(sizes=(7, 6), mode="clustered")
    conc = P.concentration(pop, max_deltas=20)
    assert bool((conc.sigma[1:] >= conc.sigma[:-1]).all())
    for t, delta in enumerate(conc.deltas.tolist()):
        for k in range(pop.K):
            idx = torch.nonzero(conc.main[t] & (pop.labels == k)).flatten()
            assert len(idx) >= 1
            assert float(conc.DA[idx][:, idx].max()) <= delta
        sizes = pop.class_sizes()
        ratio = min(int((conc.main[t] & (pop.labels == k)).sum()) / int(sizes[k]) for k in range(pop.K))
        assert conc.sigma[t] == pytest.approx(ratio)
    greedy = P.concentration(pop, deltas=conc.deltas, clique="greedy")
    assert bool((greedy.sigma <= conc.sigma + 1e-15).all())


def test_richer_augmentation_sharpens_concentration_but_worsens_alignment():
    # R1 and A7: A ⊆ A' ⇒ d_A' ≤ d_A, σ_A'(δ) ≥ σ_A(δ), and S_ε(A') ⊆ S_ε(A) for a fixed f
    big = pop_sphere(m=5, mode="clustered", weights="uniform", view_noise=0.2)
    small = Population(big.clean, big.views[:, :3], big.view_w[:, :3] / big.view_w[:, :3].sum(1, keepdim=True),
                       big.labels, big.K, True)
    assert bool((P.augmented_distance(big.views) <= P.augmented_distance(small.views) + 1e-15).all())
    c_small = P.concentration(small, max_deltas=10)
    c_big = P.concentration(big, deltas=c_small.deltas)
    assert bool((c_big.sigma >= c_small.sigma).all())
    d_small, d_big = P.diameters(small.views), P.diameters(big.views)
    for eps in torch.linspace(0, 2, 21).tolist():
        assert bool(((d_big <= eps) <= (d_small <= eps)).all())


def test_nearest_centre_rule_is_linear():
    g = torch.Generator().manual_seed(1)
    F0, mu = torch.randn(50, 4, generator=g, dtype=torch.float64), torch.randn(3, 4, generator=g, dtype=torch.float64)
    labels = torch.randint(0, 3, (50,), generator=g)
    correct, margin = P.nearest_centre(F0, mu, labels)
    linear = torch.argmax(F0 @ mu.T - 0.5 * (mu ** 2).sum(1), dim=1)
    assert bool((correct == (linear == labels)).all())
    assert bool((margin[correct] > 0).all())


def test_population_losses_match_explicit_enumeration():
    pop = pop_sphere(sizes=(2, 2), m=2, d=2)
    F, w, N, m = pop.views, pop.view_w, pop.N, pop.m
    tau = 0.7
    loss = pos = neg = align = 0.0
    C = torch.zeros(2, 2, dtype=torch.float64)
    for n, a, b, k, c in itertools.product(range(N), range(m), range(m), range(N), range(m)):
        prob = float(w[n, a] * w[n, b] * w[k, c]) / N ** 2
        sp, sn = float(F[n, a] @ F[n, b]), float(F[n, a] @ F[k, c])
        loss += prob * (-sp / tau + math.log(math.exp(sp / tau) + math.exp(sn / tau)))
        pos, neg = pos + prob * sp, neg + prob * sn
        align += prob * float(((F[n, a] - F[n, b]) ** 2).sum())
        C += prob * torch.outer(F[n, a], F[n, b])
    t = P.infonce_terms(F, w, tau)
    for key, ref in (("loss", loss), ("pos", pos), ("neg", neg), ("align", align)):
        assert float(t[key]) == pytest.approx(ref, rel=1e-12)
    assert torch.allclose(P.correlation(F, w), C, rtol=1e-12, atol=1e-15)
    assert float(P.alignment(F, w)) == pytest.approx(align, rel=1e-12)
    M = P.view_means(F, w)
    assert torch.allclose(P.correlation(F, w), M.T @ M / N, rtol=1e-12)  # C = E m mᵀ under i.i.d. views
    pair = P.infonce_point_pairs(F, w)
    assert float(pair.mean()) == pytest.approx(float(P.infonce_terms(F, w, 1.0)["lse"]), rel=1e-12)


def test_distinct_pairing_excludes_identical_views():
    w = torch.full((3, 4), 0.25, dtype=torch.float64)
    Pd = P.pair_weights(w, "distinct")
    assert bool((torch.diagonal(Pd, dim1=1, dim2=2) == 0).all())
    assert torch.allclose(Pd.sum((1, 2)), torch.ones(3, dtype=torch.float64))


def test_lipschitz_on_support_of_the_identity_is_one():
    pop = pop_sphere()
    assert P.lipschitz_on_support(pop, pop.views, pop.clean) == pytest.approx(1.0, rel=1e-12)
    # a map that is not a function of its input on the support has no finite Lipschitz constant
    F = pop.views.clone()
    F0 = pop.clean + 1.0
    assert P.lipschitz_on_support(pop, F, F0) == math.inf


def test_generators():
    assert parse_sizes("3, 4,5") == [3, 4, 5]
    with pytest.raises(ValueError):
        parse_sizes("3;4")
    adv = pop_sphere(mode="antipodal_bad", sizes=(10, 10), m=10, bad_frac=0.1, weights="uniform")
    bad = (adv.clean[:, 0] < 0) & (adv.labels == 0)
    assert int(bad.sum()) == 1  # exactly one bad point, identity at −u, one hub view at u
    i = int(torch.nonzero(bad)[0])
    assert torch.equal(adv.views[i, -1], -adv.clean[i]) and torch.equal(adv.views[i, 0], adv.clean[i])
    no_id = pop_sphere(identity_view=False, m=4)
    assert no_id.m == 3 and not no_id.identity_view
    sc = style_content_population(Context.make(seed=0), [4, 4], 3, 1.0)
    assert torch.allclose(sc.views[0, 1:, 4:], sc.views[5, 1:, 4:])  # s = 1: style replaced by shared templates


def test_batched_training_keeps_seeds_independent_and_lowers_the_losses():
    pop = style_content_population(Context.make(seed=0), [5, 5], 3, 0.5)
    F, F0, rec = train_infonce(pop, Context.make(seed=1), seeds=2, d=4, hidden=8, steps=30)
    assert F.shape == (2, 10, 3, 4) and torch.allclose(F.norm(dim=-1), torch.ones(2, 10, 3, dtype=torch.float64))
    assert bool((rec.losses < rec.initial).all())
    G, _, rec_bt = train_barlow_twins(pop, Context.make(seed=1), seeds=2, d=4, hidden=8, steps=30)
    assert bool((rec_bt.losses < rec_bt.initial).all())
    assert torch.allclose(P.second_moment(G, pop.view_w), torch.ones(2, 4, dtype=torch.float64))
    # one model of a batch computes what it computes alone
    model = BatchedMLP(Context.make(seed=3), 2, 10, 6, 4)
    X = torch.randn(7, 10, dtype=torch.float64)
    W1, b1, W2 = model.params
    alone = torch.tanh(X @ W1[1] + b1[1]) @ W2[1]
    assert torch.allclose(model(X)[1], alone, rtol=1e-13)
