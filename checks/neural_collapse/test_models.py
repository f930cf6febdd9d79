"""The module `theorems.neural_collapse.models` that several results of paper 004 share: its unit checks. (The deep
architectures of paper 004 in torch, batched over parameter vectors (Section 3, Appendix B).)"""

from __future__ import annotations

import math

import pytest
import torch

from theorems.core.context import Context
from theorems.data.sequences import prefix_sum_sequences
from theorems.neural_collapse.models import (
    FACTORED,
    ModelSpec,
    features,
    init_params,
    objective,
    pad_with_identity_blocks,
    unpack,
)
from theorems.optim.lbfgs import autograd_objective

D = 6


def _ln(v):
    c = v - v.mean(0)
    return math.sqrt(c.shape[0]) * c / c.norm(dim=0)


@pytest.mark.parametrize("arch", FACTORED)
def test_factored_attention_matches_definition_3_2_by_hand(arch):
    """Post-LN L-T2x, one block, one sequence, column by column: B = MLP∘LN∘ATTN∘LN, ATTN(Z) = Z + W_O W_V Z A,
    A[c', c] = softmax over c' ≤ c of z_{c'}ᵀ W_Kᵀ W_Q z_c/√d; f reads LN of every position."""
    tokens, _ = prefix_sum_sequences(2, 2, 3)
    spec = ModelSpec(arch, 1, D, 2, V=2, C=3, readout="all")
    theta = init_params(spec, Context.make(seed=3), 1, inner_scale=1.0)
    p = {k: v[0] for k, v in unpack(spec, theta).items()}
    assert {"Wv", "Wo", "Wq", "Wk"} <= set(p) and "Wvo" not in p
    seq = tokens[5]
    Z = _ln(p["We"][:, seq] + p["Wp"])
    cols = []
    for c in range(3):
        scores = torch.stack([(p["Wk"][0] @ Z[:, j]) @ (p["Wq"][0] @ Z[:, c]) / math.sqrt(D) for j in range(c + 1)])
        w = torch.softmax(scores, 0)
        cols.append(p["Wo"][0] @ p["Wv"][0] @ (Z[:, :c + 1] @ w))
    Z = _ln(Z + torch.stack(cols, 1))
    U = torch.relu(p["W1"][0] @ Z + p["b1"][0])
    if arch == "t22":
        U = p["W2"][0] @ U + p["b2"][0]
    expected = _ln(Z + U)
    got = features(spec, theta, tokens)[0][:, 5 * 3:6 * 3]
    assert torch.allclose(got, expected, atol=1e-12)


@pytest.mark.parametrize("arch", FACTORED)
def test_factored_identity_padding_is_exact_and_trainable(arch):
    """Padded blocks (W_O = W_Q = 0, small W_V, W_K) leave the function unchanged, and the gradient reaches W_O there
    (W_O = W_V = 0 would shield each other: a saddle); W_Q's follows once W_O ≠ 0, as W_QK's does for L-T11."""
    tokens, labels = prefix_sum_sequences(2, 2, 3)
    ctx = Context.make(seed=4)
    spec = ModelSpec(arch, 1, D, 2, V=2, C=3, readout="all")
    theta = init_params(spec, ctx, 2, inner_scale=1.0)
    padded = pad_with_identity_blocks(spec, theta, 3, ctx=ctx)
    deep = spec.with_depth(3)
    assert torch.allclose(features(deep, padded, tokens), features(spec, theta, tokens), atol=1e-12)
    _, g = autograd_objective(lambda t: objective(deep, t, tokens, labels, "ce", 0.05, 0.05))(padded)
    grads = unpack(deep, g)
    assert float(grads["Wo"][:, 1:].abs().max()) > 0
    assert float(padded[:, :0].numel()) == 0 and float(unpack(deep, padded)["Wv"][:, 1:].abs().max()) > 0


@pytest.mark.parametrize("gain", [0.5, 3.0, 10.0])
def test_layernorm_gain_multiplies_every_ln_output(gain):
    """ln_gain (a control's affine LN) multiplies the LN output by the gain, whatever the gain (10 included): the
    features of a depth-1 network are ln_gain·LN(W₀x + b₀)."""
    import torch

    from theorems.core.context import Context
    from theorems.neural_collapse.models import ModelSpec, features, init_params

    ctx = Context.make(seed=0)
    v = ctx.randn(4, 6)
    plain, scaled = ModelSpec("rn1", 1, 5, 3, d0=4), ModelSpec("rn1", 1, 5, 3, d0=4, ln_gain=gain)
    theta = init_params(plain, ctx, 1)
    out = features(scaled, theta, v)
    first = gain * features(plain, theta, v)
    assert torch.allclose(out, first, rtol=1e-12, atol=0), (out, first)
