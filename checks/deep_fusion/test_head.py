"""``theorems.deep_fusion.head``, shared by several results: its checks."""

from __future__ import annotations

import math

import pytest
import torch

from theorems.core.context import Context


# ======================================================================================================
# Trained heads (Table 1 / Figure 1 at small scale)
# ======================================================================================================
def test_head_forward_matches_torch_transformer_layer():
    """One block of `head.forward` equals torch's pre-LN TransformerEncoderLayer (GeLU, no dropout) with the
    same weights: an independent implementation of the same block."""
    from theorems.deep_fusion import head

    ctx = Context.make(seed=3)
    shape = head.HeadShape(S=1, L=1, d=8, H=2)
    theta = head.init_params(ctx, shape) + 0.1 * ctx.randn(1, shape.size)  # gains, biases away from 1, 0
    X = ctx.randn(1, 1, 5, 8)
    out, logits = head.forward(theta, shape, X)
    P = {k: v[0] for k, v in head.unpack(theta, shape).items()}
    layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation="gelu",
                                             batch_first=True, norm_first=True, dtype=torch.float64)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(P["Wqkv"][0].T)
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(P["Wo"][0].T)
        layer.self_attn.out_proj.bias.zero_()
        for norm, g, b in ((layer.norm1, "g1", "b1"), (layer.norm2, "g2", "b2")):
            norm.weight.copy_(P[g][0])
            norm.bias.copy_(P[b][0])
        layer.linear1.weight.copy_(P["F1"][0].T)
        layer.linear1.bias.copy_(P["c1"][0])
        layer.linear2.weight.copy_(P["F2"][0].T)
        layer.linear2.bias.copy_(P["c2"][0])
        ref = layer(X[0])  # torch's LayerNorm eps stays at its default, 1e-5: the paper's Transformer
    assert torch.allclose(out[0] @ torch.linalg.pinv(P["Wout"]), ref, atol=1e-10)
    assert logits[0].shape == (1, 1, 2, 5, 5)


def test_nt_xent_matches_cross_entropy_reference():
    from theorems.deep_fusion.head import nt_xent

    ctx = Context.make(seed=4)
    z1, z2 = ctx.randn(2, 6, 3), ctx.randn(2, 6, 3)
    got = nt_xent(z1, z2, 0.2)
    for s in range(2):
        z = torch.nn.functional.normalize(torch.cat([z1[s], z2[s]]), dim=-1)
        sim = z @ z.T / 0.2
        sim.fill_diagonal_(-math.inf)
        target = torch.cat([torch.arange(6, 12), torch.arange(0, 6)])
        assert float(got[s]) == pytest.approx(float(torch.nn.functional.cross_entropy(sim, target)), rel=1e-12)


def test_batched_seeds_do_not_interact():
    """The loss of seed 0 has zero gradient with respect to seed 1's parameters (one tensor problem, S
    independent problems)."""
    from theorems.deep_fusion import head

    ctx = Context.make(seed=5)
    shape = head.HeadShape(S=2, L=2, d=6, H=2)
    theta = head.init_params(ctx, shape).requires_grad_(True)
    Z, _ = head.forward(theta, shape, ctx.randn(2, 2, 4, 6))
    (g,) = torch.autograd.grad(head.nt_xent(Z[:, 0], Z[:, 1], 0.2)[0], theta)
    assert float(g[1].abs().max()) == 0.0 and float(g[0].abs().max()) > 0


# ------------------------------------------------------------------------------------------------------
# head: the trained heads use Adam as PyTorch defines it (betas 0.9, 0.999, eps 1e-8), with the cosine rate
# ------------------------------------------------------------------------------------------------------
def test_head_training_is_torch_adam_with_its_default_constants():
    """fit_heads against torch.optim.Adam with the literal (0.9, 0.999) and 1e-8 and the rate set by hand before
    every step, on one head for 4 steps: equal to 1e-12 (an eps ×10 moves the parameters by ~1e-6 here)."""
    import math

    from theorems.core.context import Context
    from theorems.deep_fusion import head as H

    ctx = Context.make(seed=3)
    shape = H.HeadShape(S=1, L=1, d=4, H=2)
    theta0 = H.init_params(ctx, shape)
    data = ctx.randn(1, 2, 6, 4)
    data = data / data.norm(dim=-1, keepdim=True)
    steps, lr, tau = 4, 0.01, 0.2
    mine, _ = H.fit_heads(theta0.clone(), shape, lambda t: data, steps, lr, tau, "views")
    ref = theta0.clone().requires_grad_(True)
    opt = torch.optim.Adam([ref], lr=lr, betas=(0.9, 0.999), eps=1e-8)
    for t in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * t / steps))
        opt.zero_grad()
        H.step_loss(ref, shape, data, tau, "views").sum().backward()
        opt.step()
    assert torch.allclose(mine, ref.detach(), rtol=1e-12, atol=1e-14)
    assert not torch.allclose(mine, theta0, atol=1e-3)  # it moved
