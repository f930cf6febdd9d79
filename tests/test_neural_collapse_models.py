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
from theorems.neural_collapse.models import (ARCHS, ModelSpec, features, init_params, objective,
                                             pad_with_identity_blocks, trainable_mask, unpack)
from theorems.neural_collapse.ufm import closed_form
from theorems.optim.lbfgs import autograd_objective

K, N_PER, D0, D = 3, 2, 4, 6


def setup(arch: str, L: int = 3, seed: int = 0, **kw):
    ctx = Context.make(seed=seed)
    if arch == "tx1":
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
    for a, b in zip(points, points[1:]):
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
