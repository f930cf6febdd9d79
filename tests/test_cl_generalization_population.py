"""Machinery of paper 003 against brute force: augmented distance, cliques, σ(δ), view-set monotonicity (the Remark after
Definition 1), the nearest-centre rule as a linear classifier, and the exact population losses against explicit enumeration."""

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
    # the Remark after Definition 1, and its other side: A ⊆ A' ⇒ d_A' ≤ d_A, σ_A'(δ) ≥ σ_A(δ), and S_ε(A') ⊆ S_ε(A) for a fixed f
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


def test_local_adam_is_torch_adam():
    from theorems.optim.adam import Adam

    g = torch.Generator().manual_seed(0)
    A, x0 = torch.randn(5, 5, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64)
    mine, ref = x0.clone().requires_grad_(), x0.clone().requires_grad_()
    opts = [(mine, Adam([mine], lr=0.05)), (ref, torch.optim.Adam([ref], lr=0.05))]
    for _ in range(30):
        for x, opt in opts:
            opt.zero_grad()
            (((A @ x) ** 2).sum() + torch.sin(x).sum()).backward()
            opt.step()
    assert torch.allclose(mine, ref, rtol=1e-14, atol=1e-15)


def test_many_negative_losses_match_explicit_sums_and_take_one_parameter_per_model():
    pop = pop_sphere(sizes=(2, 2), m=2, d=3)
    F, w, N, m = pop.views, pop.view_w, pop.N, pop.m
    tau, n, lam = 0.3, 7, 0.4
    simclr = revised = 0.0
    for i, a, b in itertools.product(range(N), range(m), range(m)):
        prob = float(w[i, a] * w[i, b]) / N
        neg = n * sum(float(w[j, c]) / N * math.exp(float(F[i, a] @ F[j, c]) / tau)
                      for j in range(N) for c in range(m))
        sp = float(F[i, a] @ F[i, b]) / tau
        simclr += prob * (-sp + math.log(math.exp(sp) + neg))
        revised += prob * (float(((F[i, a] - F[i, b]) ** 2).sum()) + lam * math.log(neg))
    assert float(P.simclr_loss(F, w, tau, n)) == pytest.approx(simclr, rel=1e-12)
    assert float(P.revised_loss(F, w, tau, lam, n)) == pytest.approx(revised, rel=1e-12)
    # a batch of models, each with its own τ, λ and n, computes what each computes alone
    G = torch.stack([F, F.flip(0)])
    taus, lams, ns = (torch.tensor(v, dtype=torch.float64) for v in ((0.3, 0.7), (0.4, 1.5), (7.0, 3.0)))
    both = P.revised_loss(G, w, taus, lams, ns)
    alone = [float(P.revised_loss(G[k], w, float(taus[k]), float(lams[k]), int(ns[k]))) for k in range(2)]
    assert both.tolist() == pytest.approx(alone, rel=1e-13)


def test_models_of_one_batch_see_only_their_own_population_and_loss():
    from theorems.cl_generalization.encoders import LossSpec, train_encoders

    pops = [style_content_population(Context.make(seed=0), [4, 4], 3, s) for s in (0.0, 1.0)]
    specs = [LossSpec("simclr", 0.5, negatives=8), LossSpec("revised", 0.2, lam=0.5, negatives=8)]
    both = train_encoders(pops, Context.make(seed=1), specs, seeds=2, d=4, hidden=8, steps=5, checkpoints=(2,))
    assert both.F.shape == (8, 8, 3, 4) and set(both.snapshots) == {2, 5}
    # the first model (population 0, SimCLR, seed 0) trained in a batch of one: the same numbers
    alone = train_encoders(pops[0], Context.make(seed=1), specs[:1], seeds=1, d=4, hidden=8, steps=5)
    assert not torch.allclose(both.F[0], both.F[2])
    assert float(alone.record.initial[0]) != pytest.approx(float(both.record.initial[1]))
    assert bool((both.record.losses[:2] < both.record.initial[:2]).all())


def test_held_out_error_is_the_nearest_centre_rule():
    pop = pop_sphere(sizes=(6, 5), m=3, mode="clustered")
    F = pop.views[None]
    g = torch.Generator().manual_seed(3)
    # held-out points near the class centres (mostly right), one in six with a wrong label: an error rate far
    # from ½, so that counting the right ones instead would show
    X = torch.nn.functional.normalize(pop.clean[torch.arange(40) % pop.N] + 0.3 * torch.randn(
        40, 3, generator=g, dtype=torch.float64), dim=-1)
    y = pop.labels[torch.arange(40) % pop.N].clone()
    y[::6] = 1 - y[::6]
    mu = P.class_centres(pop.views, pop.view_w, pop.labels, pop.K)
    correct, _ = P.nearest_centre(X, mu, y)
    err = P.held_out_error(F, pop.view_w, pop.labels, pop.K, X[None], y)
    assert float(err[0]) == pytest.approx(float((~correct).double().mean()), abs=1e-15)


def test_delta_at_sigma_is_the_smallest_admissible_delta_by_brute_force():
    pop = pop_sphere(sizes=(5, 4), m=2, mode="clustered", noise=0.4)
    DA = P.augmented_distance(pop.views)
    for sigma0 in (0.5, 0.8, 1.0):
        best = 0.0
        for k in range(pop.K):
            idx = torch.nonzero(pop.labels == k).flatten().tolist()
            need = math.ceil(sigma0 * len(idx) - 1e-12)
            best = max(best, min(max([float(DA[a, b]) for a, b in itertools.combinations(c, 2)] or [0.0])
                                 for c in itertools.combinations(idx, need)))
        assert P.delta_at_sigma(pop, sigma0) == pytest.approx(best, abs=1e-15)


def test_encoders_are_functions_on_the_support():
    # hub views are one input shared by a class; view 0 is the clean point: one output each
    from theorems.cl_generalization.encoders import BatchedMLP, on_support

    pop = pop_sphere(mode="hub", sizes=(4, 4), m=3)
    model = BatchedMLP(Context.make(seed=2), 2, 3, 5, 4)
    with torch.no_grad():
        F, F0 = on_support(pop, model)
    assert torch.equal(F[:, :, 0], F0)
    same = pop.labels[:, None] == pop.labels[None, :]
    hub = F[:, :, -1]
    assert bool(((hub[:, :, None] == hub[:, None, :]).all(-1) | ~same).all())
    assert P.lipschitz_on_support(pop, F[0], F0[0]) < math.inf


def test_partial_hub_and_nuisance_blocks():
    from theorems.data.finite_population import nuisance_block_population

    pop = pop_sphere(mode="partial_hub", sizes=(10, 10), m=3, bad_frac=0.2, weights="uniform")
    conc = P.concentration(pop, deltas=torch.zeros(1, dtype=torch.float64))
    assert float(conc.sigma[0]) == pytest.approx(0.8)  # the two points per class without the shared view
    blocks = nuisance_block_population(Context.make(seed=0), [3, 3], 3, [1.0, 2.0], [1], Db=2)
    V = blocks.views
    assert torch.equal(V[0, 1:, 6:8], V[4, 1:, 6:8])  # block 1 (transformed): shared templates
    assert not torch.equal(V[0, 1:, 4:6], V[4, 1:, 4:6])  # block 0 (kept): each point's own


def test_candidate_eps_keeps_the_ends_and_thins_only_past_the_count():
    diam = torch.tensor([0.3, 0.1, 0.3, 0.7, 0.2, 0.9], dtype=torch.float64)
    assert P.candidate_eps(diam, 10).tolist() == [0.0, 0.1, 0.2, 0.3, 0.7, 0.9]
    thin = P.candidate_eps(diam, 3).tolist()
    assert len(thin) == 3 and thin[0] == 0.0 and thin[-1] == 0.9


def test_random_features_lie_on_the_sphere_of_radius_r():
    from theorems.cl_generalization.encoders import random_features

    pop = style_content_population(Context.make(seed=0), [4, 4], 3, 0.5)
    F, F0 = random_features(pop, Context.make(seed=1), d=5, r=2.5, Dc=4)
    assert torch.allclose(F.norm(dim=-1), torch.full((8, 3), 2.5, dtype=torch.float64))
    assert torch.allclose(F0.norm(dim=-1), torch.full((8,), 2.5, dtype=torch.float64))
