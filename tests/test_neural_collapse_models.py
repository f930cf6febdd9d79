"""Unit tests of the deep models of paper 004 (theorems/neural_collapse/models.py, depth_sweep.py) and of the
synthetic classification data (theorems/data/classification.py)."""

from __future__ import annotations

import math

import pytest
import torch

from theorems.core.context import Context
from theorems.data.classification import (context_sequences, gaussian_mixture, min_pairwise_distance,
                                          sequences_per_class)
from theorems.neural_collapse.depth_sweep import depth_sweep, train
from theorems.neural_collapse.models import (ARCHS, TRANSFORMERS, ModelSpec, features, init_params, objective,
                                             pad_with_identity_blocks, trainable_mask, unpack)
from theorems.neural_collapse.ufm import closed_form
from theorems.optim.lbfgs import autograd_objective

K, N_PER, D0, D = 3, 2, 4, 6


def setup(arch: str, L: int = 3, seed: int = 0, **kw):
    ctx = Context.make(seed=seed)
    if arch in TRANSFORMERS:
        inputs, labels = context_sequences(ctx, K, N_PER, 2, 4)
        spec = ModelSpec(arch, L, D, K, V=2, C=4, **kw)
    else:
        inputs, labels = gaussian_mixture(ctx, K, N_PER, D0)
        spec = ModelSpec(arch, L, D, K, d0=D0, **kw)
    return ctx, spec, inputs, labels


@pytest.mark.parametrize("arch", ARCHS)
def test_features_lie_on_the_layernorm_sphere(arch):
    ctx, spec, inputs, labels = setup(arch)
    X = features(spec, init_params(spec, ctx, 3, inner_scale=1.0), inputs)
    assert X.shape == (3, D, K * N_PER)
    assert torch.allclose(X.sum(dim=-2), torch.zeros((), dtype=torch.float64), atol=1e-12)
    assert torch.allclose(X.norm(dim=-2), torch.full((), math.sqrt(D), dtype=torch.float64), rtol=1e-12)


def test_layernorm_is_the_population_std_layernorm_without_affine():
    # Independent reference: torch's layer_norm without weight/bias and (almost) no eps.
    v = Context.make(seed=1).randn(7, 5)
    ours = features(ModelSpec("rn1", 1, 7, 2, d0=7), torch.cat([torch.eye(7).reshape(1, -1), torch.zeros(1, 7 + 14)], 1)
                    .double(), v)[0]
    ref = torch.nn.functional.layer_norm(v.T, (7,), eps=0.0).T
    assert torch.allclose(ours, ref, atol=1e-12)


def test_post_ln_rn1_matches_the_definition_by_hand():
    ctx, spec, X0, _ = setup("rn1", L=3)
    theta = init_params(spec, ctx, 1, inner_scale=1.0)
    p = {k: v[0] for k, v in unpack(spec, theta).items()}

    def ln(v):
        c = v - v.mean(0)
        return math.sqrt(D) * c / c.norm(dim=0)

    X = ln(p["W0"] @ X0 + p["b0"])
    for l in range(2):
        X = ln(X + torch.relu(p["W1"][l] @ X + p["b1"][l]))
    assert torch.allclose(features(spec, theta, X0)[0], X, atol=1e-13)


@pytest.mark.parametrize("arch", ARCHS)
def test_identity_padding_is_exact(arch):
    ctx, spec, inputs, labels = setup(arch, L=2)
    theta = init_params(spec, ctx, 2, inner_scale=1.0)
    padded = pad_with_identity_blocks(spec, theta, 5)
    spec5 = spec.with_depth(5)
    assert torch.allclose(features(spec5, padded, inputs), features(spec, theta, inputs), atol=1e-12)
    f2 = objective(spec, theta, inputs, labels, "ce", 0.1, 0.1)
    f5 = objective(spec5, padded, inputs, labels, "ce", 0.1, 0.1)
    assert torch.allclose(f2, f5, rtol=1e-12)
    # The padded blocks are not a stationary point: training can use them (the positive ReLU bias).
    _, g = autograd_objective(lambda t: objective(spec5, t, inputs, labels, "ce", 0.1, 0.1))(padded)
    # (Two-layer blocks: W_{l,2} = 0 shields W_{l,1}, but W_{l,2} itself gets a gradient.)
    grads = unpack(spec5, g)
    name = "W2" if "W2" in grads else "W1"
    assert float(grads[name][:, spec.blocks:].abs().max()) > 0


def test_causal_attention_ignores_future_tokens():
    ctx, spec, tokens, labels = setup("tx1", L=2)
    theta = init_params(spec, ctx, 1, inner_scale=1.0)
    # Change only the last token: the representation of an earlier position must not move. Read position c
    # by truncating the context (the model reads the last position).
    short = ModelSpec("tx1", 2, D, K, V=2, C=3)
    p = unpack(spec, theta)
    theta_short = torch.cat([p["We"].flatten(1), p["Wp"][..., :3].flatten(1),
                             theta[:, p["We"][0].numel() + p["Wp"][0].numel():]], dim=1)
    full_prefix = features(short, theta_short, tokens[:, :3])
    other = tokens.clone()
    other[:, 3] = 1 - other[:, 3]
    assert torch.allclose(features(short, theta_short, other[:, :3]), full_prefix)
    assert not torch.allclose(features(spec, theta, other), features(spec, theta, tokens))


def test_gradient_matches_finite_differences():
    ctx, spec, X0, labels = setup("rn2", L=3)
    theta = init_params(spec, ctx, 1, inner_scale=1.0)
    fun = autograd_objective(lambda t: objective(spec, t, X0, labels, "mse", 0.05, 0.01))
    f, g = fun(theta)
    direction = ctx.randn(1, spec.size)
    h = 1e-6
    fd = (fun(theta + h * direction)[0] - fun(theta - h * direction)[0]) / (2 * h)
    assert float(fd) == pytest.approx(float((g * direction).sum()), rel=1e-6)


def test_objective_regularises_exactly_the_paper_weights():
    ctx, spec, X0, labels = setup("rn1", L=3)
    theta = init_params(spec, ctx, 1)
    p = unpack(spec, theta)
    base = objective(spec, theta, X0, labels, "ce", 0.0, 0.0)
    inner = objective(spec, theta, X0, labels, "ce", 0.0, 0.3) - base
    last = objective(spec, theta, X0, labels, "ce", 0.3, 0.0) - base
    assert torch.allclose(inner, 0.15 * p["W1"].pow(2).sum(), rtol=1e-12)
    assert torch.allclose(last, 0.15 * p["WL"].pow(2).sum(), rtol=1e-12)
    mask = trainable_mask(spec)
    assert not bool(mask[: p["W0"][0].numel() + p["b0"][0].numel()].any()) and bool(mask[-1])


def test_warm_started_sweep_never_goes_up_and_stays_above_the_gufm_optimum():
    ctx, spec, X0, labels = setup("rn1", L=2)
    lam = 0.05
    ref = closed_form("ce", K, D, lam).value
    points = depth_sweep(spec, ctx, X0, labels, "ce", [2, 3, 4], 2, lambda L: (lam, lam), lambda _: ref,
                         max_iter=30, gtol=1e-9, probe_iter=5, plateau_rtol=0.05)
    for a, b in zip(points, points[1:], strict=False):
        assert bool((b.run.objective <= a.run.objective * (1 + 1e-12)).all())
    assert all(bool((pt.gap >= 0).all()) for pt in points)
    assert all(pt.row()["plateau_drop"] is not None for pt in points)


def test_train_certificate_is_the_gradient_norm_or_nothing():
    ctx, spec, X0, labels = setup("rn1", L=2)
    run = train(spec, init_params(spec, ctx, 2), X0, labels, "ce", 0.05, 0.05, max_iter=3, gtol=1e-9)
    assert run.status == ["max_iter", "max_iter"] and not bool(run.converged.any())


def test_data_distinct_inputs_and_duplicates():
    ctx = Context.make(seed=0)
    X0, labels = gaussian_mixture(ctx, 3, 4, 5)
    assert min_pairwise_distance(X0) > 0 and labels.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    X1, _ = gaussian_mixture(Context.make(seed=0), 3, 4, 5, duplicates=2)
    assert min_pairwise_distance(X1) == 0.0


def test_context_sequences_are_distinct_balanced_and_labelled_by_context():
    tokens, labels = context_sequences(Context.make(seed=0), 3, 4, 2, 5)
    assert len({tuple(t) for t in tokens.tolist()}) == 12
    assert labels.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert (tokens.sum(1) % 3).tolist() == labels.tolist()
    # Independent count of sequences per class by enumeration.
    import itertools
    counts = [0, 0, 0]
    for seq in itertools.product(range(2), repeat=5):
        counts[sum(seq) % 3] += 1
    assert sequences_per_class(3, 2, 5) == counts
    with pytest.raises(ValueError):
        context_sequences(Context.make(seed=0), 3, 5, 2, 2)


# ----------------------------------------------------------------------------------------------------
# Transformers: the pre-LN block of Def. B.2 by hand, every position a sample, causality
# ----------------------------------------------------------------------------------------------------
def _ln(v):
    c = v - v.mean(0)
    return math.sqrt(D) * c / c.norm(dim=0)


def test_pre_ln_transformer_matches_definition_b2_by_hand():
    """f = lin∘LN∘B_1∘LN_0∘Embed, B = (id + MLP∘LN)∘(id + ATTN∘LN), ATTN(Z) = W_VO Z softmax(M + ZᵀW_QK Z/√d),
    MLP(Z) = W_2σ(W_1Z + b_1) + b_2, written out for one sequence, column by column."""
    ctx, spec, tokens, _ = setup("pre_tx2", L=1)
    theta = init_params(spec, ctx, 1, inner_scale=1.0)
    p = {k: v[0] for k, v in unpack(spec, theta).items()}
    seq = tokens[0]
    Z = _ln(p["We"][:, seq] + p["Wp"])
    H = _ln(Z)
    cols = []
    for c in range(spec.C):
        scores = torch.stack([H[:, j] @ p["Wqk"][0] @ H[:, c] / math.sqrt(D) for j in range(c + 1)])
        w = torch.softmax(scores, 0)
        cols.append(p["Wvo"][0] @ (H[:, :c + 1] @ w))
    Z = Z + torch.stack(cols, 1)
    Z = Z + p["W2"][0] @ torch.relu(p["W1"][0] @ _ln(Z) + p["b1"][0]) + p["b2"][0]
    assert torch.allclose(features(spec, theta, tokens)[0, :, 0], _ln(Z)[:, -1], atol=1e-12)


@pytest.mark.parametrize("arch", ["tx1", "tx2"])
def test_every_position_a_sample_and_causal(arch):
    """readout='all': column s·C + c is position c of sequence s; changing a later token leaves it unchanged."""
    from theorems.data.sequences import prefix_sum_sequences

    tokens, labels = prefix_sum_sequences(2, 2, 3)
    spec = ModelSpec(arch, 2, D, 2, V=2, C=3, readout="all")
    theta = init_params(spec, Context.make(seed=2), 1, inner_scale=1.0)
    X = features(spec, theta, tokens)[0]
    assert X.shape == (D, tokens.shape[0] * 3) and labels.shape == (tokens.shape[0] * 3,)
    last = features(ModelSpec(arch, 2, D, 2, V=2, C=3), theta, tokens)[0]
    assert torch.allclose(X[:, 2::3], last, atol=1e-13)
    # sequences 0 = (0,0,0) and 1 = (0,0,1) share the context of positions 0 and 1
    assert torch.allclose(X[:, 0:2], X[:, 3:5], atol=1e-13) and not torch.allclose(X[:, 2], X[:, 5])


def test_prefix_sum_data_balanced_and_labelled_by_context():
    from theorems.data.sequences import balanced, context_count, distinct_contexts, prefix_sum_sequences

    tokens, labels = prefix_sum_sequences(2, 4, 3)
    assert tokens.shape == (64, 3) and balanced(labels, 2)
    assert labels.reshape(64, 3).tolist() == [[t[0] % 2, (t[0] + t[1]) % 2, sum(t) % 2] for t in tokens.tolist()]
    assert distinct_contexts(tokens) == context_count(4, 3) == 4 + 16 + 64
    assert not balanced(prefix_sum_sequences(3, 2, 3)[1], 3)  # K ∤ V: unbalanced


# ----------------------------------------------------------------------------------------------------
# The proofs' explicit networks (construction.py)
# ----------------------------------------------------------------------------------------------------
def _resnet_instance(arch, L, seed=0):
    from theorems.neural_collapse.construction import build_resnet

    ctx = Context.make(seed=seed)
    X0, labels = gaussian_mixture(ctx, 3, 2, 8)
    spec = ModelSpec(arch, L, 8, 3, d0=8)
    theta0 = init_params(spec.with_depth(2), ctx, 1)
    lam_inner = 0.05 if arch == "rn1" else 0.05 / L
    return build_resnet(spec, theta0, X0, labels, "ce", 0.05, lam_inner), X0, labels


@pytest.mark.parametrize("arch", ["rn1", "rn2"])
def test_construction_lands_where_it_predicts_and_costs_what_it_says(arch):
    """A real forward pass of the built weights ends on the predicted points (no other sample touched), the
    inner regularisation equals the phase costs (one layer: Σα²; two layers: Σ2α), and U(L) ≥ L*_GUFM."""
    b, _, _ = _resnet_instance(arch, 9 * 4 + 1)
    assert b.L1 == b.L2 == 4 and b.landing_error < 1e-12
    lam_inner = 0.05 if arch == "rn1" else 0.05 / b.spec.L
    assert b.inner_reg == pytest.approx(0.5 * lam_inner * (b.costs["phase1"] + b.costs["phase2"]), rel=1e-12)
    assert b.objective >= closed_form("ce", 3, 8, 0.05).value
    assert b.margin == pytest.approx(0.9 * b.data_margin) and 0 < b.margin < 1


def test_construction_two_layer_blocks_compute_the_one_layer_map():
    """The √α·√α split with the rank-one projection: RN2's features equal RN1's, block by block."""
    one, _, _ = _resnet_instance("rn1", 19)
    two, _, _ = _resnet_instance("rn2", 19)
    assert torch.allclose(one.features, two.features, atol=1e-12)


def test_phase1_step_is_constant_and_lands_on_the_ring():
    """Erratum A9's constant step: equal angles β⁰/L₁, chord 2√d sin(β⁰/2L₁) = αm√d/(2√(d+m²/4)) per block, and
    the last block ends exactly on the ring x̄ᵀh̄ = d(1 − cm)."""
    from theorems.neural_collapse.construction import angle, phase1_blocks, plan_phase1
    from theorems.optim.manifolds import random_point

    ctx = Context.make(seed=4)
    d = 8
    pts, goals = random_point(ctx, d=d, n=4), random_point(ctx, d=d, n=4)
    plan = plan_phase1(pts, goals, 0.05)
    W, b, alpha, _ = phase1_blocks(plan, 5)
    m = plan.margin
    chord = 2 * math.sqrt(d) * torch.sin(plan.travel / 10)
    assert torch.allclose(alpha * m * math.sqrt(d) / (2 * math.sqrt(d + m * m / 4)), chord, rtol=1e-12)
    assert torch.allclose(W.norm(dim=(-2, -1)), alpha[:, None].expand(4, 5), rtol=1e-12)
    moving = plan.travel > 0
    assert torch.allclose((plan.stop * goals).sum(0)[moving] / d, torch.full_like(plan.travel[moving], 0.95),
                          atol=1e-12)
    assert torch.allclose(angle(pts, plan.stop), plan.travel, atol=1e-10)


def test_group_mover_offset_keeps_every_preactivation_nonnegative():
    """Erratum A12's offset a_j: at the ring (cos β = 1 − cm) and closer, σ is the identity for class j."""
    from theorems.neural_collapse.construction import on_arc, phase2_blocks, tangent_towards
    from theorems.optim.manifolds import random_point

    ctx = Context.make(seed=5)
    d, ring = 8, 0.05
    H = random_point(ctx, d=d, n=3)
    W, b, _, _ = phase2_blocks(H, ring, 16)
    for j in range(3):
        e = tangent_towards(H[:, j:j + 1], random_point(ctx, d=d, n=64))
        for beta in (math.acos(1 - ring), 0.1, 0.01):
            x = on_arc(H[:, j:j + 1], e, torch.tensor(beta, dtype=torch.float64))
            assert float((W[j] @ x + b[j]).min()) >= -1e-12


def test_binary_history_encoding():
    """a + b = −1, a² + b² = 4^{i+1} − 1 with b < 0 < a (A11); after LN_{1,1} the token of position C − i carries
    √d 2^{-(i+1)}; distinct contexts get distinct features, and their margin shrinks like γ² (not γ)."""
    from theorems.data.sequences import context_count, prefix_sum_sequences
    from theorems.neural_collapse.construction import binary_position_offsets, build_transformer

    a, b = binary_position_offsets(4)
    i = torch.arange(3, -1, -1, dtype=torch.float64)
    assert torch.allclose(a + b, -torch.ones(4, dtype=torch.float64)) and torch.allclose(a * a + b * b, 4 ** (i + 1) - 1)
    assert bool((a > 0).all() and (b < 0).all())
    from theorems.neural_collapse.construction import encoding_block
    from theorems.optim.manifolds import ln

    enc = encoding_block(ModelSpec("tx1", 1, 8, 2, V=2, C=4, readout="all"), 0.1)
    Z = ln(enc["We"][:, [1]] + enc["Wp"])  # token 1 at every position
    assert torch.allclose(Z[1], math.sqrt(8) * 2.0 ** -(i + 1), rtol=1e-12)
    tokens, labels = prefix_sum_sequences(2, 2, 3)
    spec = ModelSpec("tx1", 16 * 2 + 1, 8, 2, V=2, C=3, readout="all")
    margins = []
    for gamma in (0.1, 0.05):
        built = build_transformer(spec, tokens, labels, "ce", 0.05, 0.05, gamma)
        assert built.extra["contexts"] == context_count(2, 3) and built.landing_error < 1e-6
        margins.append(built.data_margin)
    assert margins[0] / margins[1] == pytest.approx(4.0, rel=0.05)


# ----------------------------------------------------------------------------------------------------
# Lemma 4.1 made quantitative (near_optimal.py)
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss,K,d", [("mse", 3, 5), ("ce", 3, 6)])
def test_nc_bounds_monotone_with_a_validity_limit(loss, K, d):
    from theorems.neural_collapse.near_optimal import limit_constants, nc_bounds, validity_limit

    eps0 = validity_limit(loss, K, 2, d, 0.05)
    assert 0 < eps0 < closed_form(loss, K, d, 0.05).value
    assert nc_bounds(loss, K, 2, d, 0.05, 4 * eps0) is None
    small, big = nc_bounds(loss, K, 2, d, 0.05, eps0 / 100), nc_bounds(loss, K, 2, d, 0.05, eps0)
    assert all(small[k] < big[k] for k in small)
    C0 = limit_constants(loss, K, 2, d, 0.05)
    if loss == "mse":  # C3 = 4/(t*(1 − t*)), t* = d/(d + Kλ), by hand
        t = d / (d + K * 0.05)
        assert C0["nc3"] == pytest.approx(4 / (t * (1 - t)), rel=1e-6)
    assert nc_bounds(loss, K, 2, d, 0.0, 1e-6) is None  # λ = 0: no bound
