"""The batched training engine (``theorems.optim.batched_sgd``) and paper 001's token networks trained on it
(``nonlinear_cl.token_training``): one tensor program over many networks gives each network the numbers of its own
per-network loop (float tolerance), and the table form of the first layer, BatchNorm and the top layer computes the
row form's function and gradient."""

from __future__ import annotations

import pytest
import torch

from theorems.nonlinear_cl.token_task import D, K, make_tasks
from theorems.nonlinear_cl.token_training import (COEFFS, Model, Protocol, activate, batch_norm, batch_norm_tables,
                                                  token_counts, train, train_each)
from theorems.optim.batched_sgd import one_hot_linear, sgd_each, sgd_program, transpose_index

# float32 training: a trajectory of a few dozen SGD steps agrees to a few float32 ulps of its O(1) weights per step
F32_TRAJ = dict(rtol=1e-4, atol=1e-5)
F64 = dict(rtol=1e-10, atol=1e-12)  # one float64 evaluation, only the summation order differs


def _gen(seed=0):
    return torch.Generator(device="cpu").manual_seed(seed)


def _toy(B=4, d=5, seed=0):
    g = _gen(seed)
    X = torch.randn(B, 16, d, generator=g, dtype=torch.float64)
    y = torch.randn(B, 16, generator=g, dtype=torch.float64)
    w0 = torch.randn(B, d, generator=g, dtype=torch.float64)
    return X, y, w0


def test_stacked_sgd_is_the_per_network_loop():
    """B least-squares problems with a nonlinearity, stacked: the same parameters and logged losses as B loops."""
    X, y, w0 = _toy()
    sgd = dict(lr=0.05, momentum=0.9, weight_decay=5e-3, log_every=3)
    loss = lambda w, b: ((torch.tanh(X[b] @ w) - y[b]) ** 2).mean(-1)  # noqa: E731
    W = w0.clone().requires_grad_(True)
    stacked, finite = sgd_program([W], lambda s: ((torch.tanh(torch.einsum("bnd,bd->bn", X, W)) - y) ** 2).mean(-1),
                                  20, **sgd)
    ws = [w0[b].clone().requires_grad_(True) for b in range(4)]
    each, finite_each = sgd_each([([w], lambda s, w=w, b=b: loss(w, b)) for b, w in enumerate(ws)], 20, **sgd)
    assert finite and finite_each and stacked.shape == each.shape == (8, 4)  # steps 0, 3, ..., 18 and 19
    assert torch.allclose(stacked, each, **F64)
    assert torch.allclose(W.detach(), torch.stack([w.detach() for w in ws]), **F64)
    assert not torch.allclose(W.detach(), w0, atol=1e-3)  # it trained


def test_sgd_program_rejects_a_run_of_no_steps():
    with pytest.raises(ValueError, match="steps"):
        sgd_program([torch.zeros(1, requires_grad=True)], lambda s: torch.zeros(1), 0, lr=0.1, momentum=0.0,
                    weight_decay=0.0)


def test_one_hot_linear_is_the_one_hot_matmul_forward_and_backward():
    g = _gen(1)
    R, d_out, n, Kk = 12, 3, 7, 4
    table = torch.randn(R, d_out, generator=g, dtype=torch.float64, requires_grad=True)
    index = torch.randint(R, (2, n, Kk), generator=g)
    out = one_hot_linear(table, index)
    onehot = torch.nn.functional.one_hot(index, R).to(torch.float64).sum(-2)  # (2, n, R): counts of each row
    ref = onehot @ table
    assert torch.allclose(out, ref, **F64)
    up = torch.randn(out.shape, generator=g, dtype=torch.float64)
    (ga,) = torch.autograd.grad((out * up).sum(), table)
    (gb,) = torch.autograd.grad((ref * up).sum(), table)
    assert torch.allclose(ga, gb, **F64)
    # the transpose: each table row's readers, grouped
    reads, starts = transpose_index(index.reshape(-1, Kk), R)
    assert reads.numel() == index.numel() and starts[0] == 0
    for r in range(R):
        end = starts[r + 1] if r + 1 < R else reads.numel()
        readers = sorted(reads[starts[r]:end].tolist())
        assert readers == sorted(i for i, row in enumerate(index.reshape(-1, Kk).tolist()) for v in row if v == r)


@pytest.mark.parametrize("stats", ["per_view", "joint"])
@pytest.mark.parametrize("variant", [(True, False), (True, True), (False, False), (False, True)])
def test_batch_norm_tables_are_batch_norm_on_the_rows(stats, variant):
    """The count-weighted statistics over the D token values give the row form's values and gradients, for every
    detaching variant and both statistics."""
    g = _gen(2)
    S, N = 2, 9
    tokens = torch.randint(D, (S, 2, N, K), generator=g)
    counts = token_counts(tokens).double()  # (S, K, 2, D)
    H = torch.randn(S, K, D, generator=g, dtype=torch.float64, requires_grad=True)
    proto = Protocol(bn_stats=stats, mu_backprop=variant[0], var_backprop=variant[1])
    T = batch_norm_tables(H.reshape(S * K, D), counts.reshape(S * K, 2, D), N, proto)  # (S·K, 2, D)
    rows = H.gather(2, tokens.permute(0, 3, 1, 2).reshape(S, K, 2 * N)).reshape(S * K, 2, N)
    ref = batch_norm(rows, proto)
    got = T.gather(2, tokens.permute(0, 3, 1, 2).reshape(S * K, 2, N))
    assert torch.allclose(got, ref, **F64)
    up = torch.randn(ref.shape, generator=g, dtype=torch.float64)
    (ga,) = torch.autograd.grad((got * up).sum(), H)
    (gb,) = torch.autograd.grad((ref * up).sum(), H)
    assert torch.allclose(ga, gb, **F64)


def test_token_counts_count():
    tokens = torch.randint(D, (3, 2, 11, K), generator=_gen(3))
    c = token_counts(tokens)
    assert c.shape == (3, K, 2, D) and bool((c.sum(-1) == 11).all())
    assert c[1, 4, 0, tokens[1, 0, 5, 4]] >= 1


MIXED = [Model(1, 6, "relu", "infonce"), Model(0, 2, "linear", "quadratic"),
         Model(1, 6, "leaky", "infonce", bn_variant=(False, True)), Model(0, 3, "quadratic", "infonce",
                                                                         bn_variant=(False, False)),
         Model(1, 3, "relu", "quadratic", bn_variant=(True, True))]


@pytest.mark.parametrize("zeta, proto", [
    (1.0, Protocol(steps=25, batch=32, lr=0.02)),
    (10.0, Protocol(steps=25, batch=32, lr=0.02, bn_stats="joint")),
    (1.0, Protocol(steps=25, batch=32, lr=0.02, bn=False, similarity="neg_dist_cross", tau=0.5, d_out=20)),
], ids=["authors", "zeta10-joint", "suite"])
def test_batched_token_training_equals_the_per_network_loop(zeta, proto, monkeypatch):
    """Networks of every activation, loss and BatchNorm variant, trained as one tensor problem (tables, one-hot
    top layer) and each alone in the authors' row form with its own optimiser: the same weights and losses (with
    token chunks of 10 minibatches, so that the stream crosses chunk boundaries)."""
    from theorems.nonlinear_cl import token_training

    monkeypatch.setattr(token_training, "CHUNK", 10)
    tasks = make_tasks(_gen(0), [1, 3], zeta, torch.float32, "cpu")
    batched = train(_gen(7), tasks, MIXED, proto, "cpu", log_every=5)
    each = train_each(_gen(7), tasks, MIXED, proto, "cpu", log_every=5)
    assert batched.finite and each.finite
    assert torch.equal(batched.W0, each.W0) and torch.equal(batched.filt_mask, each.filt_mask)
    assert torch.allclose(batched.W, each.W, **F32_TRAJ)
    assert torch.allclose(batched.losses, each.losses, **F32_TRAJ)
    assert not torch.allclose(batched.W, batched.W0, atol=1e-3)  # they trained


def test_mixed_activation_tables_use_the_coefficients():
    x = torch.linspace(-2, 2, 5).repeat(2, 1)
    coeff = torch.tensor([COEFFS["relu"], COEFFS["quadratic"]]).T.contiguous()
    out = activate(x, ["relu", "quadratic"], coeff)
    assert torch.allclose(out[0], torch.relu(x[0])) and torch.allclose(out[1], x[1] ** 2)


@pytest.mark.parametrize("momentum, weight_decay", [(0.9, 5e-3), (0.0, 0.0), (0.5, 0.0), (0.0, 1e-2)])
def test_sgd_is_torch_optim_sgd_bit_for_bit(momentum, weight_decay):
    """optim.batched_sgd.SGD against torch.optim.SGD (its default and foreach forms) on tensors of several shapes and
    both precisions, 6 steps with new gradients each step and a changed learning rate: equal bits."""
    from theorems.optim.batched_sgd import SGD

    g = _gen(5)
    start = [torch.randn(7, 3, generator=g), torch.randn(2, 4, 5, generator=g, dtype=torch.float64)]
    grads = [[torch.randn(p.shape, generator=g, dtype=p.dtype) for p in start] for _ in range(6)]
    runs = []
    for make in (lambda ps: SGD(ps, lr=0.05, momentum=momentum, weight_decay=weight_decay),
                 lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=momentum, weight_decay=weight_decay),
                 lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=momentum, weight_decay=weight_decay, foreach=True)):
        ps = [p.clone() for p in start]
        opt = make(ps)
        for step, gs in enumerate(grads):
            opt.zero_grad()
            for p, gr in zip(ps, gs, strict=True):
                p.grad = gr.clone()
            if step == 3:
                from theorems.optim.batched_sgd import _set_rate
                _set_rate(opt, 0.02)
            opt.step()
        runs.append(ps)
    for ours, theirs in zip(runs[0], runs[1], strict=True):
        assert torch.equal(ours, theirs)
    for ours, theirs in zip(runs[0], runs[2], strict=True):
        assert torch.equal(ours, theirs)
    assert not torch.equal(runs[0][0], start[0])


def test_sgd_refuses_a_parameter_without_gradient_and_bad_rates():
    from theorems.optim.batched_sgd import SGD

    p = torch.zeros(3)
    with pytest.raises(ValueError, match="gradient"):
        SGD([p], lr=0.1).step()
    for kw in (dict(lr=0.0), dict(lr=0.1, momentum=-0.1), dict(lr=0.1, weight_decay=-1.0)):
        with pytest.raises(ValueError, match="SGD"):
            SGD([p], **kw)
