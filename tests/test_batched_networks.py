"""The shared training engine (``optim.batched_sgd.train_program``) beyond SGD: a learning-rate schedule with the
Adam of ``optim.adam``, written-out gradients with a retraction (:class:`ClosedFormStep`), and the two trainers on
it, paper 000's Transformer heads (``deep_fusion.head``) and paper 002's two-layer encoders
(``ssl_dynamics.networks``): one tensor program over many networks gives each network the numbers of its own
per-network loop (float tolerance)."""

from __future__ import annotations

import math

import pytest
import torch

from theorems.core.context import Context
from theorems.data.ssl_pairs import make_moons, ssl_triplets
from theorems.data.subspaces import random_subspaces
from theorems.deep_fusion.head import (CHUNK, HeadShape, SubspaceSource, cosine_rate, train_head, train_head_each,
                                     view_chunks)
from theorems.optim.adam import Adam
from theorems.optim.batched_sgd import ClosedFormStep, train_program
from theorems.optim.stiefel import haar_stiefel
from theorems.ssl_dynamics.networks import (activation_and_slope, activations_and_slopes, riemannian_step,
                                            train_and_compare, train_and_compare_each)

# float64 trajectories of tens of steps: per step only the summation order inside the shared tensor ops differs,
# ~1e-16 relative, and these well-conditioned runs amplify it by far less than 1e4
F64_TRAJ = dict(rtol=1e-10, atol=1e-12)


def test_scheduled_adam_on_the_engine_is_torch_adam_with_the_cosine_schedule():
    """``train_program`` with ``optim.adam.Adam`` and ``rate`` = the heads' cosine schedule against
    torch.optim.Adam whose learning rate is set by hand before every step (an independent loop)."""
    ctx = Context.make(seed=6)
    target, start = ctx.randn(3, 5), ctx.randn(3, 5)
    mine = start.clone().requires_grad_(True)
    logged, finite = train_program([mine], lambda t: ((mine - target) ** 2).sum(-1), 5, optimizer=Adam([mine], 0.1),
                                   rate=lambda t: cosine_rate(0.1, t, 5), log_every=1)
    ref = start.clone().requires_grad_(True)
    opt = torch.optim.Adam([ref], lr=0.1)
    for t in range(5):
        for group in opt.param_groups:
            group["lr"] = 0.1 * 0.5 * (1 + math.cos(math.pi * t / 5))
        opt.zero_grad()
        ((ref - target) ** 2).sum().backward()
        opt.step()
    assert finite and logged.shape == (5, 3)
    assert torch.allclose(mine.detach(), ref.detach(), rtol=1e-12, atol=1e-14)
    assert not torch.allclose(mine.detach(), start, atol=0.1)  # it moved
    assert cosine_rate(0.1, 0, 5) == 0.1 and cosine_rate(0.1, 5, 5) == pytest.approx(0.0, abs=1e-15)


def test_written_out_gradients_and_a_retraction_on_the_engine_are_the_hand_loop():
    """(losses, gradients) from the loss function and :class:`ClosedFormStep` = the loop W ← R(W, ∇, η) by hand;
    the logged losses are the ones returned at steps 0, 2 and the last."""
    ctx = Context.make(seed=7)
    M = ctx.randn(4, 6, 6)
    M = M + M.transpose(-1, -2)
    W0 = haar_stiefel(ctx, 4, h=6, k=2)

    def loss_grad(W):  # Tr(WᵀMW) per network and its gradient 2MW
        return (W * (M @ W)).sum((-1, -2)), 2 * M @ W

    W = W0.clone()
    logged, finite = train_program([W], lambda t: (loss_grad(W)[0], [loss_grad(W)[1]]), 5,
                                   optimizer=ClosedFormStep([W], riemannian_step, 0.05), log_every=2)
    ref, hand = W0.clone(), []
    for _ in range(5):
        f, g = loss_grad(ref)
        hand.append(f)
        ref = riemannian_step(ref, g, 0.05)
    assert finite and torch.equal(logged, torch.stack([hand[0], hand[2], hand[4]]))
    assert torch.equal(W, ref) and not torch.allclose(W, W0, atol=1e-3)
    assert torch.allclose(W.transpose(-1, -2) @ W, torch.eye(2, dtype=W.dtype).expand(4, 2, 2), atol=1e-12)


def test_the_engine_rejects_bad_arguments_and_runs_a_single_step():
    W = torch.zeros(2, 3)
    step = ClosedFormStep([W], lambda p, g, lr: p - lr * g, 0.5)
    with pytest.raises(ValueError):  # a gradient list that does not match the parameters
        train_program([W], lambda t: (W.sum(-1), []), 1, optimizer=step)
    for steps, log_every in ((0, 1), (1, 0), (-1, 1)):
        with pytest.raises(ValueError, match="steps"):
            train_program([W], lambda t: (W.sum(-1), [torch.ones_like(W)]), steps, optimizer=step, log_every=log_every)
    logged, finite = train_program([W], lambda t: (W.sum(-1), [torch.ones_like(W)]), 1, optimizer=step)
    assert finite and torch.equal(logged, torch.zeros(1, 2)) and torch.equal(W, torch.full((2, 3), -0.5))


@pytest.mark.parametrize("sequence", ["views", "joint"])
def test_batched_heads_are_the_per_seed_loop(sequence):
    """S = 3 heads as one tensor program against each head alone from the same initialisation and views, over
    CHUNK + 2 steps (two chunks of drawn views): the same losses at every step and the same parameters."""
    steps = CHUNK + 2
    shape = HeadShape(S=3, L=2, d=4, H=2)
    args = (shape, (2, 2), 1, 0.05, steps, 1e-2, 0.5, sequence)
    batched = train_head(Context.make(seed=3), *args)
    each = train_head_each(Context.make(seed=3), *args)
    assert batched.steps == each.steps == steps and batched.history.shape == each.history.shape == (steps, 3)
    assert torch.allclose(batched.history, each.history, **F64_TRAJ)
    assert torch.allclose(batched.theta, each.theta, **F64_TRAJ)
    assert torch.allclose(batched.loss_last, each.loss_last, **F64_TRAJ)
    assert bool((batched.loss_last < batched.loss_first).all())  # it trained
    # the seeds are different networks: their trajectories differ far beyond the tolerance
    assert float((batched.theta[0] - batched.theta[1]).abs().max()) > 0.1


def test_views_are_drawn_chunk_by_chunk_and_no_further():
    ctx = Context.make(seed=3)
    source = SubspaceSource(random_subspaces(ctx, 2, 4, 2, 1), (2, 2))
    assert [c.shape for c in view_chunks(ctx, source, CHUNK + 2, 0.05)] == [(CHUNK, 2, 2, 4, 4), (2, 2, 2, 4, 4)]
    assert list(view_chunks(ctx, source, 0, 0.05)) == []


def test_untrained_heads_take_no_step_and_report_no_loss():
    shape = HeadShape(S=2, L=1, d=4, H=2)
    for train in (train_head, train_head_each):
        out = train(Context.make(seed=3), shape, (2, 2), 1, 0.05, 0, 1e-2, 0.5, "views")
        assert out.steps == 0 and out.history.shape == (0, 2) and bool(out.loss_last.isnan().all())


def test_stacked_activations_write_each_slice_as_the_single_activation_does():
    Z = Context.make(seed=1).randn(5, 3, 4)
    names = ("tanh", "relu", "sigmoid", "softplus2", "identity")
    A, S = activations_and_slopes(names, Z)
    for i, name in enumerate(names):
        a, s = activation_and_slope(name, Z[i])
        assert torch.equal(A[i], a) and torch.equal(S[i], s)
    assert torch.allclose(A[0], torch.tanh(Z[0]), atol=1e-15) and torch.equal(A[1], torch.relu(Z[1]))
    assert torch.allclose(S[2], torch.sigmoid(Z[2]) * (1 - torch.sigmoid(Z[2])), rtol=1e-15)
    with pytest.raises(ValueError, match="activations"):
        activations_and_slopes(names[:2], Z)


def test_batched_encoders_are_the_per_network_loop():
    """Every activation and start of ``train_and_compare`` stacked into one program against each trained alone
    (each with its own linear reference): the same gaps at every recorded step."""
    ctx = Context.make(seed=2)
    t = ssl_triplets(ctx, make_moons(ctx, 20, 0.05), 0.1)
    W1, W2 = haar_stiefel(ctx, 2, h=8, k=2), haar_stiefel(ctx, 2, h=8, k=2)
    acts = ("tanh", "relu", "sigmoid")
    gaps, at = train_and_compare(t, W1, W2, acts, 0.05, 12, checkpoints=2)
    ref, at_ref = train_and_compare_each(t, W1, W2, acts, 0.05, 12, checkpoints=2)
    assert at == at_ref == [0, 4, 8, 12] and gaps.shape == ref.shape == (4, 3, 2)
    assert torch.allclose(gaps, ref, **F64_TRAJ)
    assert bool((gaps[0] > 0).all()) and not torch.allclose(gaps[0], gaps[-1], rtol=1e-3)  # it trained
    # programs of at most 1 or 2 activations (what the size rule picks for larger tensors; 0 counts as 1): the
    # same gaps
    for stack in (0, 1, 2):
        split, at_split = train_and_compare(t, W1, W2, acts, 0.05, 12, checkpoints=2, stack=stack)
        assert at_split == at and torch.allclose(split, gaps, **F64_TRAJ)
    # a single activation: the stacked axis of one network
    one, _ = train_and_compare(t, W1, W2, ("tanh",), 0.05, 12, checkpoints=2)
    assert torch.allclose(one[:, 0], gaps[:, 0], **F64_TRAJ)
    # no steps: the gaps at initialisation only
    zero, at0 = train_and_compare(t, W1, W2, acts, 0.05, 0)
    assert at0 == [0] and torch.equal(zero[0], gaps[0])
