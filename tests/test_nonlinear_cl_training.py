"""Unit tests of the token task and the batched trainer of paper 001, §5 (``theorems.nonlinear_cl.token_task``,
``token_training``): the data obey the generator construction, the scores are the cosines of eq. (16)/(181), the
losses are the authors' (an independent re-implementation with the in-place diagonal of their code), and batching
networks into one tensor problem changes no network's trajectory."""

from __future__ import annotations

import pytest
import torch

from theorems.nonlinear_cl.token_task import D, G, K, RF_PER_GEN, chi_scores, make_tasks, sample_tokens, token_magnitudes
from theorems.nonlinear_cl.token_training import (COEFFS, Model, Protocol, activate, batch_norm, contrastive_losses,
                                                  train)


def _gen(seed=0):
    return torch.Generator(device="cpu").manual_seed(seed)


def test_tasks_follow_the_generator_construction():
    tasks = make_tasks(_gen(), [1, 3, 5], 1.0, torch.float32, "cpu")
    assert tasks.used.sum(-1).eq(RF_PER_GEN).all()  # each generator fixes 5 RFs
    for s, P in enumerate([1, 3, 5]):
        # R^g_k: at most P candidates per RF, and every fixed token is one of them
        assert (tasks.cand[s].sum(-1) <= P).all() and tasks.cand[s].sum() > 0
        k = torch.arange(K)[None, :].expand(G, K)[tasks.used[s]]
        assert tasks.cand[s, k, tasks.tok[s][tasks.used[s]]].all()


def test_positive_pairs_share_the_generator_tokens_and_redraw_wildcards():
    tasks = make_tasks(_gen(1), [3], 1.0, torch.float32, "cpu")
    tok = sample_tokens(_gen(2), tasks, steps=4, batch=256)  # (steps, S, 2, N, K)
    fixed_in_both = (tok[:, :, 0] == tok[:, :, 1]).float().mean()
    # fixed positions (half of them) agree, wildcards agree with probability 1/d
    assert fixed_in_both == pytest.approx(0.5 + 0.5 / D, abs=0.03)
    shuffled = sample_tokens(_gen(2), tasks, steps=4, batch=256, independent_pairs=True)
    assert (shuffled[:, :, 0] == shuffled[:, :, 1]).float().mean() < 0.5


def test_token_magnitudes_split_half_and_half():
    m = token_magnitudes(10.0, torch.float64, "cpu")
    assert (m[: D // 2] == 0.1).all() and (m[D // 2:] == 10.0).all()


def test_chi_scores_hand_case():
    cand = torch.zeros(1, K, D, dtype=torch.bool)
    cand[0, :, :2] = True  # tokens 0, 1 are R^g_k at every RF
    W = torch.zeros(1, K, 3, D)
    W[0, :, 0, 0] = 2.0  # filter 0 is token 0
    W[0, :, 1, 1] = -1.0  # filter 1 is −token 1
    W[0, :, 2, 5] = 1.0  # a padded filter pointing at token 5 must not count
    mask = torch.tensor([[True, True, False]])
    plus, minus = chi_scores(W, mask, cand, torch.tensor([False]))
    assert plus.item() == pytest.approx(0.5)  # token 0: cos 1; token 1: best is 0 (filter 0 orthogonal to it)
    assert minus.item() == pytest.approx(0.0)
    plus_abs, _ = chi_scores(W, mask, cand, torch.tensor([True]))
    assert plus_abs.item() == pytest.approx(1.0)  # |cos| for sign-symmetric activations


def _authors_infonce(z1, z2, tau):
    """The authors' code: M = z1 z1ᵀ, M[i, i] = z1_i·z2_i in place, cross-entropy over M/τ."""
    z1, z2 = torch.nn.functional.normalize(z1, dim=1), torch.nn.functional.normalize(z2, dim=1)
    M = z1 @ z1.t()
    label = torch.arange(z1.shape[0])
    M[label, label] = (z1 * z2).sum(dim=1)
    return torch.nn.functional.cross_entropy(M / tau, label), M / tau


def test_losses_match_the_authors_formulas_and_gradients():
    g = _gen(3)
    z = torch.randn(2, 2, 16, 5, generator=g, dtype=torch.float64, requires_grad=True)
    proto = Protocol()
    loss = contrastive_losses(z, proto, torch.tensor([False, True]))
    ref_nce, M = _authors_infonce(z[0, 0], z[0, 1], proto.tau)
    _, Mq = _authors_infonce(z[1, 0], z[1, 1], proto.tau)
    N = 16
    ref_quad = -(1 + 1 / N) * torch.diagonal(Mq).mean() + Mq.mean()
    assert loss[0].item() == pytest.approx(ref_nce.item(), rel=1e-12)
    assert loss[1].item() == pytest.approx(ref_quad.item(), rel=1e-12)
    g1 = torch.autograd.grad(loss[0], z, retain_graph=True)[0]
    g2 = torch.autograd.grad(ref_nce, z)[0]
    assert torch.allclose(g1, g2, rtol=1e-10, atol=1e-12)  # the replaced diagonal carries no z1·z1 gradient


def test_activation_coefficient_form_equals_the_direct_ops():
    x = torch.linspace(-2, 2, 41).repeat(4, 1)
    kinds = ["relu", "linear", "leaky", "quadratic"]
    coeff = torch.tensor([COEFFS[k] for k in kinds]).T.contiguous()
    mixed = activate(x, kinds, coeff)
    for i, k in enumerate(kinds):
        assert torch.allclose(mixed[i], activate(x[i:i + 1], [k], coeff[:, i:i + 1])[0], atol=1e-6)


def test_batch_norm_variants_share_the_forward_pass_and_normalise():
    f = torch.randn(3, 2, 32, generator=_gen(4), dtype=torch.float64)
    outs = [batch_norm(f, Protocol(mu_backprop=mu, var_backprop=var)) for mu in (True, False) for var in (True, False)]
    assert all(torch.equal(outs[0], o) for o in outs[1:])
    assert outs[0].mean(2).abs().max() < 1e-12  # per view
    joint = batch_norm(f, Protocol(bn_stats="joint"))
    assert joint.mean((1, 2)).abs().max() < 1e-12 and joint.mean(2).abs().max() > 1e-3


def _small_run(models, proto, seed=0):
    tasks = make_tasks(_gen(seed), [1, 3], 1.0, torch.float32, "cpu")
    return train(_gen(seed + 100), tasks, models, proto, "cpu")


def test_batching_does_not_couple_networks():
    """A network's trajectory is the same whatever other networks share its tensor problem (same initialisation
    key and token stream), up to float32 summation order."""
    proto = Protocol(steps=40, batch=32, lr=0.02)
    alone = _small_run([Model(1, 6, "relu", "infonce"), Model(0, 2, "relu", "infonce")], proto)
    crowd = _small_run([Model(1, 6, "relu", "infonce"), Model(0, 2, "linear", "quadratic"),
                        Model(1, 6, "leaky", "infonce", bn_variant=(False, True))], proto)
    assert torch.allclose(alone.W[0], crowd.W[0], rtol=1e-4, atol=1e-6)
    assert not torch.allclose(crowd.W[0], crowd.W[2], atol=1e-3)  # the leaky/vanilla-BN network moved differently
    assert alone.finite and crowd.finite


def test_per_network_bn_variant_equals_the_protocol_flag():
    proto_def5 = Protocol(steps=30, batch=32, lr=0.02)
    proto_vanilla = Protocol(steps=30, batch=32, lr=0.02, var_backprop=True)
    mixed = _small_run([Model(1, 3, "relu", "infonce"), Model(1, 3, "relu", "infonce", bn_variant=(True, True))],
                       proto_def5)
    vanilla = _small_run([Model(1, 3, "relu", "infonce"), Model(1, 3, "relu", "infonce")], proto_vanilla)
    assert torch.allclose(mixed.W[1], vanilla.W[0], rtol=1e-4, atol=1e-6)
    assert not torch.allclose(mixed.W[0], mixed.W[1], atol=1e-4)


def test_training_restores_the_thread_setting():
    before = torch.get_num_threads()
    _small_run([Model(0, 1, "relu", "infonce")], Protocol(steps=2, batch=16))
    assert torch.get_num_threads() == before


def test_figure_4_claims_on_a_hand_made_table():
    """grid_claims reduces the per-point means as its messages say (min over points for the ≥ claims, max for the
    ≤ claim), checked on a table whose every reduction is decided by a different point."""
    from checks.hand_tables import figure_4_chi
    from theorems.nonlinear_cl.figure_4 import grid_claims

    chi, chim = figure_4_chi()
    table = {(P, b, a, "infonce"): ([chi[(P, b, a)]] * 2, [chim[(P, b, a)]] * 2, [0.2, 0.2]) for P, b, a in chi}
    claims = {c.name: c for c in grid_claims(table, ((1, 3, 5), (1, 4), ("relu", "linear", "leaky"), ("infonce",)),
                                             0.05)}
    assert claims["relu_beats_linear"].observed == pytest.approx(0.1)  # min(0.35, 0.1) at P = 5
    assert claims["homogeneous_beat_linear"].observed == pytest.approx(0.05)  # leaky at P = 5
    assert claims["relu_lowest_chi_minus"].observed == pytest.approx(0.05)  # P = 5: 0.25 − min(0.3, 0.2)
    assert claims["linear_beats_relu_at_P1"].observed == pytest.approx(0.65)  # 0.95 − 0.3 at β = 1
    assert claims["linear_chi_at_P1"].observed == pytest.approx(0.85)
    assert claims["linear_less_affected"].observed == pytest.approx(0.3)  # P = 5: 0.4 − |0.1|
    assert claims["linear_less_affected"].kind == "bound"
    short = {c.name: c for c in grid_claims(table, ((1, 3, 5), (1, 4), ("relu", "linear", "leaky"), ("infonce",)),
                                            0.05, full_length=False)}
    assert short["linear_less_affected"].kind == "measurement"  # a miniature records it
    assert claims["relu_gains_from_beta"].observed == pytest.approx(0.4)  # min(0.6, 0.45, 0.4)
    assert claims["linear_beta_effect"].observed == pytest.approx(0.1)  # max(|−0.1|, |−0.1|, |0.1|)
    assert claims["relu_beta_effect_at_init"].observed == pytest.approx(0.0)


def test_table_1_claims_on_a_hand_made_table():
    from theorems.nonlinear_cl.table_1 import table_claims

    vals = {(1, 2): (0.5, 0.3, 0.6, 0.2), (3, 2): (0.7, 0.8, 0.9, 0.4)}  # (μ no σ no, μ no σ bp, μ bp σ no, μ bp σ bp)
    table = {}
    for (P, b), (nn, nb, bn, bb) in vals.items():
        for (mu, var), v in (((False, False), nn), ((False, True), nb), ((True, False), bn), ((True, True), bb)):
            table[(P, b, mu, var)] = [v, v]
    claims = {c.name: c for c in table_claims(table, 0.05)}
    assert claims["sigma_detached_better"].observed == pytest.approx((0.2 + 0.4 - 0.1 + 0.5) / 4)
    assert claims["sigma_detached_ahead_share"].observed == pytest.approx(3 / 4)
    assert claims["mu_detach_effect"].observed == pytest.approx(0.4)  # |0.4 − 0.8| at P = 3, σ² backpropagated


def test_printed_and_released_constants():
    """LeakyReLU's negative slope is the Fig. 4 caption's 0.05; BatchNorm's ε is the authors' (and torch's) 1e-5."""
    x = torch.tensor([[-2.0, 3.0]])
    assert torch.allclose(activate(x, ["leaky"], None), torch.tensor([[-0.1, 3.0]]))
    f = torch.tensor([[[1e-3, -1e-3]] * 2])  # one unit, two views, batch variance 1e-6
    out = batch_norm(f, Protocol())
    assert out[0, 0, 0].item() == pytest.approx(1e-3 / (1e-6 + 1e-5) ** 0.5, rel=1e-5)
    ref = torch.nn.functional.batch_norm(f[0].T, None, None, training=True, eps=1e-5).T  # torch's BN, per view
    assert torch.allclose(out[0], ref, rtol=1e-5)
