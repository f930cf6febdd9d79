"""A Transformer projection head trained with NT-Xent, batched over seeds (paper 000, §"Transformer projection
head" and §"Deep Fusion: Grouping Inputs by Attention without Supervision").

The paper treats a batch of backbone embeddings as one sequence and passes it through Transformer blocks
(multi-head attention with Q = K = V = the sequence, a GeLU feed-forward layer, LayerNorm), trained with the
SimCLR loss (eq. 1, temperature τ). What it leaves open is fixed here and named:

* pre-LayerNorm blocks with residual connections (h = LN(x); x += Attn(h); x += FFN(LN(x))), no mask, no
  positional encoding (the sequence is a set of samples), feed-forward width 2d, GeLU;
* the backbone is the identity: the samples of a union of subspaces are the "embeddings";
* ``sequence='views'``: each view's batch of N samples is its own sequence (n = N); ``'joint'``: both views in one
  sequence (n = 2N). The paper does not say which;
* Adam with a cosine-annealed learning rate (the paper: SGD, learning rate 0.1, cosine annealing, on MNIST);
* attention logits QKᵀ/√d_h per head; the paper's Table 1 shows the first head.

Second order (issue 26, item 2): :func:`head_curvature` gives the extreme eigenvalues of each seed's NT-Xent
Hessian on a fixed batch of fresh views at the trained parameters (Lanczos on Hessian-vector products,
``optim.curvature``). What the paper reports is a trained head, not a minimiser, so nothing here gates a verdict on
it; the number says whether the trained head sits at a saddle of the loss it was trained on (a negative λ_min is
certain, Ritz values being upper estimates of it).

All S seeds train as one tensor problem on the shared engine (``optim.batched_sgd.train_program``, Adam of
``optim.adam``): the parameters of seed s are row s of one (S, P) tensor, every operation carries the seed axis,
and Adam is elementwise, so the seeds never interact (the loss is the sum of the seeds' losses);
:func:`train_head_each` is the per-seed loop it replaces (``tests/test_batched_networks.py``: the same numbers).
Everything is created on the context's device and dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F

from ..data.subspaces import add_noise, random_subspaces, sample_union
from ..optim.adam import Adam
from ..optim.batched_sgd import train_program
from ..optim.curvature import Curvature, tangent_curvature
from ..optim.threads import single_threaded

ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
LN_EPS = 1e-5
CHUNK = 64  # training steps whose data is drawn at once (memory stays ~CHUNK·S·N·m, not steps·S·N·m)


@dataclass(frozen=True)
class HeadShape:
    S: int  # seeds
    L: int  # blocks
    d: int  # model width (= the data's ambient dimension m)
    H: int  # attention heads

    @property
    def layout(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        d, L = self.d, self.L
        f = 2 * d
        return (("Wqkv", (L, d, 3 * d)), ("Wo", (L, d, d)), ("g1", (L, d)), ("b1", (L, d)), ("g2", (L, d)),
                ("b2", (L, d)), ("F1", (L, d, f)), ("c1", (L, f)), ("F2", (L, f, d)), ("c2", (L, d)),
                ("Wout", (d, d)))

    @property
    def size(self) -> int:
        return sum(math.prod(s) for _, s in self.layout)


def unpack(theta: torch.Tensor, shape: HeadShape) -> dict[str, torch.Tensor]:
    """Named (S, *shape) views of the flat (S, P) parameters (differentiable)."""
    out, at = {}, 0
    for name, s in shape.layout:
        k = math.prod(s)
        out[name] = theta[:, at:at + k].reshape(theta.shape[0], *s)
        at += k
    return out


def init_params(ctx, shape: HeadShape) -> torch.Tensor:
    """(S, P): weights ~ N(0, 1/fan_in), LayerNorm gains 1, biases 0."""
    parts = []
    S = shape.S
    for name, s in shape.layout:
        if name in ("g1", "g2"):
            parts.append(torch.ones(S, math.prod(s), dtype=ctx.dtype, device=ctx.device))
        elif name in ("b1", "b2", "c1", "c2"):
            parts.append(torch.zeros(S, math.prod(s), dtype=ctx.dtype, device=ctx.device))
        else:
            parts.append(ctx.randn(S, math.prod(s)) / math.sqrt(s[-2]))
    return torch.cat(parts, 1)


def forward(theta: torch.Tensor, shape: HeadShape, X: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """X (S, V, n, d): V sequences per seed -> outputs (S, V, n, d) and per block the attention logits
    (S, V, H, n, n)."""
    P = unpack(theta, shape)
    S, V, n, d = X.shape
    H, dh = shape.H, d // shape.H

    def per_block(name, l):  # (S, 1, ...) broadcasts over the V sequences
        return P[name][:, l].unsqueeze(1)

    logits = []
    for l in range(shape.L):
        h = F.layer_norm(X, (d,), eps=LN_EPS) * per_block("g1", l).unsqueeze(-2) + per_block("b1", l).unsqueeze(-2)
        qkv = (h @ per_block("Wqkv", l)).reshape(S, V, n, 3, H, dh).permute(3, 0, 1, 4, 2, 5)
        A = qkv[0] @ qkv[1].transpose(-1, -2) / math.sqrt(dh)
        logits.append(A)
        o = (torch.softmax(A, -1) @ qkv[2]).transpose(2, 3).reshape(S, V, n, d)
        X = X + o @ per_block("Wo", l)
        h = F.layer_norm(X, (d,), eps=LN_EPS) * per_block("g2", l).unsqueeze(-2) + per_block("b2", l).unsqueeze(-2)
        X = X + F.gelu(h @ per_block("F1", l) + per_block("c1", l).unsqueeze(-2)) @ per_block("F2", l) \
            + per_block("c2", l).unsqueeze(-2)
    return X @ P["Wout"].unsqueeze(1), logits


def nt_xent(z1: torch.Tensor, z2: torch.Tensor, tau: float) -> torch.Tensor:
    """SimCLR's loss (eq. 1), cosine similarity at temperature τ, averaged over the 2N anchors: (S,) per seed.
    z1, z2 (S, N, e): the two views of the same N samples."""
    z = F.normalize(torch.cat([z1, z2], -2), dim=-1)
    S, n2, _ = z.shape
    N = n2 // 2
    sim = (z @ z.transpose(-1, -2) / tau).masked_fill(torch.eye(n2, dtype=torch.bool, device=z.device), -math.inf)
    target = torch.cat([torch.arange(N, n2, device=z.device), torch.arange(0, N, device=z.device)])
    logp = torch.log_softmax(sim, -1)
    return -logp.gather(-1, target.expand(S, n2).unsqueeze(-1)).squeeze(-1).mean(-1)


@dataclass
class Training:
    theta: torch.Tensor  # (S, P) trained parameters
    source: object  # where the sequences come from (SubspaceSource or PoolSource)
    loss_first: torch.Tensor  # (S,) mean loss over the first training chunk
    loss_last: torch.Tensor  # (S,) mean loss over the last training chunk
    steps: int  # gradient steps taken
    history: torch.Tensor | None = None  # (steps, S) the training loss at every step


def cosine_rate(lr: float, t: int, steps: int) -> float:
    """The learning rate at step t of a cosine annealing to 0 over ``steps`` (the paper's schedule)."""
    return lr * 0.5 * (1 + math.cos(math.pi * t / steps))


class SubspaceSource:
    """Clean samples of each seed's own union of subspaces (``bases`` (S, K, m, r), unit rows, cluster by cluster)."""

    def __init__(self, bases: torch.Tensor, sizes):
        self.bases, self.sizes = bases, tuple(sizes)

    def train(self, ctx, steps: int) -> torch.Tensor:
        """(steps, S, N, m) fresh samples per step and seed."""
        S = self.bases.shape[0]
        X = sample_union(ctx, self.bases.repeat(steps, 1, 1, 1), self.sizes)  # (steps·S, N, m)
        return X.reshape(steps, S, *X.shape[1:])

    def test(self, ctx, batches: int) -> torch.Tensor:
        """(S, batches, N, m) fresh test sequences per seed."""
        S = self.bases.shape[0]
        X = sample_union(ctx, self.bases.repeat_interleave(batches, 0), self.sizes)
        return X.reshape(S, batches, *X.shape[1:])


class PoolSource:
    """Sequences drawn from fixed per-class pools of unit feature vectors (real data: ``train``/``test`` pools
    (K, P, m), class k's images in row k). Each sequence takes ν distinct images of every class, cluster by
    cluster, independently per step (or test batch) and seed."""

    def __init__(self, train_pool: torch.Tensor, test_pool: torch.Tensor, S: int, nu: int):
        self.pools, self.S, self.nu = {"train": train_pool, "test": test_pool}, S, nu

    def _draw(self, ctx, which: str, reps: int) -> torch.Tensor:
        pool = self.pools[which]
        K, P, m = pool.shape
        pick = ctx.rand(reps, K, P).argsort(-1)[..., :self.nu]  # (reps, K, ν) distinct images per class
        X = pool[torch.arange(K, device=pool.device)[None, :, None], pick]  # (reps, K, ν, m)
        return X.reshape(reps, K * self.nu, m)

    def train(self, ctx, steps: int) -> torch.Tensor:
        return self._draw(ctx, "train", steps * self.S).reshape(steps, self.S, -1, self.pools["train"].shape[-1])

    def test(self, ctx, batches: int) -> torch.Tensor:
        return self._draw(ctx, "test", self.S * batches).reshape(self.S, batches, -1, self.pools["test"].shape[-1])


def views_of(ctx, source, steps: int, eps: float) -> torch.Tensor:
    """(steps, S, 2, N, m): fresh clean samples per step and seed, each seen through two noisy views (eq. 6
    noise as the augmentation)."""
    X = source.train(ctx, steps)  # (steps, S, N, m)
    flat = X.reshape(-1, *X.shape[2:])
    two = torch.stack([add_noise(ctx, flat, eps), add_noise(ctx, flat, eps)], 1)
    return two.reshape(*X.shape[:2], 2, *X.shape[2:])


def view_chunks(ctx, source, steps: int, eps: float):
    """The training views of ``steps`` steps, drawn CHUNK steps at a time (:func:`views_of`, (≤ CHUNK, S, 2, N, m)
    each): the order in which the generator is consumed, whoever trains on them."""
    for start in range(0, steps, CHUNK):
        yield views_of(ctx, source, min(CHUNK, steps - start), eps)


def step_loss(theta: torch.Tensor, shape: HeadShape, X: torch.Tensor, tau: float, sequence: str) -> torch.Tensor:
    """(S,) NT-Xent of each seed's head on one batch of views X (S, 2, N, m)."""
    S, _, N, m = X.shape
    if sequence == "joint":
        Z, _ = forward(theta, shape, X.reshape(S, 1, 2 * N, m))
        Z = Z.reshape(S, 2, N, m)
    else:
        Z, _ = forward(theta, shape, X)
    return nt_xent(Z[:, 0], Z[:, 1], tau)


def fit_heads(theta0: torch.Tensor, shape: HeadShape, views, steps: int, lr: float, tau: float,
              sequence: str) -> tuple[torch.Tensor, torch.Tensor]:
    """``steps`` Adam steps (cosine-annealed rate) from ``theta0`` (S, P) on the batch ``views(t)`` (S, 2, N, m) of
    step t: one tensor program over the S seeds on ``optim.batched_sgd.train_program``. Returns the trained
    parameters and the training loss at every step (steps, S)."""
    theta = theta0.detach().clone().requires_grad_(True)
    if steps == 0:
        return theta.detach(), theta0.new_empty(0, theta0.shape[0])
    opt = Adam([theta], lr, ADAM_BETAS, ADAM_EPS)
    history, _ = train_program([theta], lambda t: step_loss(theta, shape, views(t), tau, sequence), steps,
                               optimizer=opt, rate=lambda t: cosine_rate(lr, t, steps), log_every=1)
    return theta.detach(), history


def _training(theta: torch.Tensor, source, history: torch.Tensor) -> Training:
    """The record of a run: the mean loss over its first and last chunk of steps (nan for a run of no steps)."""
    steps = history.shape[0]
    last = max(steps - 1, 0) // CHUNK * CHUNK  # (the mean over no steps is nan)
    return Training(theta, source, history[:CHUNK].mean(0), history[last:].mean(0), steps, history)


def _setup(ctx, shape: HeadShape, sizes, r: int, source):
    if source is None:
        source = SubspaceSource(random_subspaces(ctx, shape.S, shape.d, len(sizes), r), sizes)
    return source, init_params(ctx, shape)


def train_head(ctx, shape: HeadShape, sizes, r: int, eps: float, steps: int, lr: float, tau: float,
               sequence: str, source=None) -> Training:
    """Train S heads for ``steps`` Adam steps as one tensor program, with one intra-op thread (the tensors are
    tiny: threads only add synchronisation, see `theorems.optim.threads`). The data: ``source`` (see
    :class:`PoolSource`), or by default each seed's own union of len(sizes) random r-dimensional subspaces; the
    views are drawn CHUNK steps at a time as the training reaches them (memory ~CHUNK·S·N·m)."""
    with single_threaded():
        source, theta0 = _setup(ctx, shape, sizes, r, source)
        chunks = view_chunks(ctx, source, steps, eps)
        current: list[torch.Tensor] = []

        def views(t: int) -> torch.Tensor:
            if t % CHUNK == 0:
                current[:] = [next(chunks)]
            return current[0][t % CHUNK]

        theta, history = fit_heads(theta0, shape, views, steps, lr, tau, sequence)
        return _training(theta, source, history)


def train_head_each(ctx, shape: HeadShape, sizes, r: int, eps: float, steps: int, lr: float, tau: float,
                    sequence: str, source=None) -> Training:
    """The per-network loop of :func:`train_head`: the same draws (data source, initialisations, every chunk of
    views, drawn up front), then each seed's head trained alone by :func:`fit_heads` with its own optimiser (the
    reference of the batched run and the baseline of ``benchmarks/bench_batched_training.py``)."""
    with single_threaded():
        source, theta0 = _setup(ctx, shape, sizes, r, source)
        data = list(view_chunks(ctx, source, steps, eps))
        one = replace(shape, S=1)
        runs = [fit_heads(theta0[s:s + 1], one, lambda t, s=s: data[t // CHUNK][t % CHUNK][s:s + 1], steps, lr, tau,
                          sequence) for s in range(shape.S)]
        return _training(torch.cat([th for th, _ in runs]), source, torch.cat([h for _, h in runs], 1))


def attention_logits(ctx, training: Training, shape: HeadShape, sizes, batches: int) -> list[torch.Tensor]:
    """Per block the logits (S, batches, H, N, N) on fresh clean test sequences of N samples (one view, as the
    paper's inference-time Table 1)."""
    X = training.source.test(ctx, batches)
    with torch.no_grad():
        _, logits = forward(training.theta, shape, X)
    return logits


# Lanczos steps of the head's curvature estimate (the head has hundreds to thousands of parameters: Ritz values).
CURVATURE_ITERS = 20


def batch_loss(theta: torch.Tensor, shape: HeadShape, data: torch.Tensor, tau: float, sequence: str) -> torch.Tensor:
    """(S,) NT-Xent of each seed's head on ``data`` (T, S, 2, N, m): the mean over the T batches."""
    total = theta.new_zeros(data.shape[1])
    for k in range(data.shape[0]):
        total = total + step_loss(theta, shape, data[k], tau, sequence)
    return total / data.shape[0]


def head_curvature(ctx, training: Training, shape: HeadShape, eps: float, tau: float, sequence: str,
                   batches: int = 4, iters: int = CURVATURE_ITERS, theta: torch.Tensor | None = None) -> Curvature:
    """Extreme eigenvalues of each seed's NT-Xent Hessian at ``theta`` (default: the trained parameters) on
    ``batches`` fresh batches of views drawn once from the training source (a fixed objective)."""
    data = views_of(ctx, training.source, batches, eps)
    at = training.theta if theta is None else theta
    gen = torch.Generator().manual_seed(0)
    return tangent_curvature(lambda th: batch_loss(th, shape, data, tau, sequence), at.detach(), iters=iters,
                             generator=gen)
