"""Many small networks trained as one tensor program, and the per-network loop it replaces.

A run of B networks that share no parameter is one optimisation of the *sum* of their losses over the stacked
parameter tensors: ∂(Σ_b L_b)/∂θ_b = ∂L_b/∂θ_b because L_c does not depend on θ_b for c ≠ b, and an optimiser
that updates every coordinate from its own gradient and state alone (SGD with momentum and weight decay, Adam, a
retraction applied network by network) makes one step on the stacked tensors B separate steps. What the batching
changes is only the order of floating-point sums inside the shared tensor ops (``tests/test_batched_sgd.py`` and
``tests/test_batched_networks.py`` check both facts against the per-network loops).

* :func:`train_program`: the training loop over stacked parameters (``losses(step) → (B,)``, or the losses and
  gradients written out), any optimiser of the ``torch.optim`` interface, an optional learning-rate schedule,
  logging every network's loss. It trains paper 001's §5 token networks (:func:`sgd_program`, SGD), paper 000's
  Transformer heads (``deep_fusion.head``, Adam with cosine annealing) and paper 002's two-layer encoders
  (``ssl_dynamics.networks``, Riemannian GD by :class:`ClosedFormStep`); :class:`SGD` is ``torch.optim.SGD``'s
  update without its import cost;
* :func:`sgd_each` runs :func:`sgd_program` once per network (the reference and the baseline of
  ``benchmarks/bench_batched_training.py``; the heads and encoders have their own per-network loops beside their
  batched trainers, as they slice their draws);
* :func:`one_hot_linear`: a linear layer applied to one-hot (token) inputs, for many networks at once. With
  inputs x = Σ_k e_{t_k} (one token per slot k, each slot its own block of rows), Wx is the sum of K rows of a
  table: ``torch.nn.functional.embedding_bag`` in mode ``sum``, whose backward scatters into the table without
  materialising the one-hot matrix (B·2N·K·d_out work instead of B·2N·K·D·d_out).
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

import torch

# what a batched loss function returns: the (B,) losses (autograd differentiates them) or (losses, gradients)
Loss = Union[torch.Tensor, tuple[torch.Tensor, Sequence[torch.Tensor]]]


class ClosedFormStep:
    """The optimiser of a problem whose gradients are written out and whose step is its own (a retraction onto a
    manifold, say): ``step`` replaces every parameter p by ``update(p, p.grad, lr)``, each from its own gradient
    alone, so stacked networks stay independent as long as ``update`` acts on each network's slice alone."""

    def __init__(self, params: Sequence[torch.Tensor], update: Callable[[torch.Tensor, torch.Tensor, float],
                 torch.Tensor], lr: float) -> None:
        self.params, self.update, self.lr = list(params), update, float(lr)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for p in self.params:
            if p.grad is not None:
                p.copy_(self.update(p, p.grad, self.lr))


def _set_rate(opt, rate: float) -> None:
    if hasattr(opt, "param_groups"):  # a torch.optim optimiser
        for group in opt.param_groups:
            group["lr"] = rate
    else:  # optim.adam.Adam, ClosedFormStep
        opt.lr = rate


def train_program(params: Sequence[torch.Tensor], losses: Callable[[int], Loss], steps: int, *, optimizer,
                  rate: Callable[[int], float] | None = None, log_every: int = 50) -> tuple[torch.Tensor, bool]:
    """The training loop over stacked parameters, for any optimiser of the ``torch.optim`` interface
    (``zero_grad``, ``step``; ``torch.optim.SGD``, ``optim.adam.Adam``, :class:`ClosedFormStep`): ``steps`` steps
    minimising Σ ``losses(step)`` over the tensors ``params`` (those ``optimizer`` updates). ``losses(step)``
    returns the (B,) losses of the B networks at the current parameters, differentiable (autograd gives the
    gradients), or (losses, gradients), one gradient per parameter (written out by the caller; the losses are
    then only logged). ``rate(step)``: the learning rate of the step (a schedule), else the optimiser's own.
    Returns the per-network losses at every ``log_every``-th step and at the last, (checkpoints, B), and whether
    every parameter and logged loss is finite."""
    if steps < 1 or log_every < 1:
        raise ValueError(f"train_program: steps={steps}, log_every={log_every} (both ≥ 1)")
    params = list(params)
    logged = []
    for step in range(steps):
        out = losses(step)
        optimizer.zero_grad()  # torch.optim: set_to_none by default
        if isinstance(out, tuple):
            loss, grads = out
            for p, g in zip(params, grads, strict=True):
                p.grad = g
        else:
            loss = out
            loss.sum().backward()
        if rate is not None:
            _set_rate(optimizer, rate(step))
        optimizer.step()
        if step % log_every == 0 or step == steps - 1:
            logged.append(loss.detach())
    out = torch.stack(logged)
    finite = bool(torch.isfinite(out).all()) and all(bool(torch.isfinite(p).all()) for p in params)
    return out, finite


class SGD:
    """``torch.optim.SGD(params, lr, momentum, weight_decay)`` (no dampening, Nesterov or maximize) written out:
    the arithmetic of its ``foreach`` form in the same order (g + wd·p; the buffer g at the first step, then
    momentum·buf + g; p − lr·buf), each operation once over all tensors. Why not ``torch.optim.SGD``: constructing a
    ``torch.optim`` optimiser imports the compiler stack (``torch._dynamo``, ≈ 1.4 s of CPU per process, see
    ``optim.adam``). ``tests/test_batched_sgd.py`` checks it against ``torch.optim.SGD`` step by step (equal bits)."""

    def __init__(self, params: Sequence[torch.Tensor], lr: float, momentum: float = 0.0,
                 weight_decay: float = 0.0) -> None:
        if not lr > 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: lr = {lr} (> 0), momentum = {momentum}, weight_decay = {weight_decay} (≥ 0)")
        self.params = list(params)
        self.lr, self.momentum, self.weight_decay = float(lr), float(momentum), float(weight_decay)
        self._bufs: list[torch.Tensor] | None = None

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        if any(p.grad is None for p in self.params):
            raise ValueError("SGD.step: every parameter needs a gradient (the stacked networks all train)")
        grads = [p.grad for p in self.params]
        if self.weight_decay != 0:
            grads = torch._foreach_add(grads, self.params, alpha=self.weight_decay)
        if self.momentum != 0:
            if self._bufs is None:
                self._bufs = [g.detach().clone() for g in grads]
            else:
                torch._foreach_mul_(self._bufs, self.momentum)
                torch._foreach_add_(self._bufs, grads, alpha=1.0)
            grads = self._bufs
        torch._foreach_add_(self.params, grads, alpha=-self.lr)


def sgd_program(params: Sequence[torch.Tensor], losses: Callable[[int], torch.Tensor], steps: int, *, lr: float,
                momentum: float, weight_decay: float, log_every: int = 50) -> tuple[torch.Tensor, bool]:
    """:func:`train_program` with :class:`SGD` (``torch.optim.SGD``'s update: momentum, weight decay, no dampening
    or Nesterov) on the leaf tensors ``params``."""
    opt = SGD(list(params), lr=lr, momentum=momentum, weight_decay=weight_decay)
    return train_program(params, losses, steps, optimizer=opt, log_every=log_every)


def sgd_each(networks: Sequence[tuple[Sequence[torch.Tensor], Callable[[int], torch.Tensor]]], steps: int,
             **sgd) -> tuple[torch.Tensor, bool]:
    """The per-network loop: :func:`sgd_program` once per ``(params, losses)`` network (each ``losses`` returns
    one network's loss, shape () or (1,)), its own optimiser each. Returns the losses (checkpoints, B) and
    finiteness, as :func:`sgd_program` on the stacked problem would."""
    runs = [sgd_program(p, lambda s, f=f: f(s).reshape(1), steps, **sgd) for p, f in networks]
    return torch.cat([r[0] for r in runs], dim=1), all(r[1] for r in runs)


class _OneHotLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, table, index, t_index, t_offsets):
        ctx.save_for_backward(t_index, t_offsets)
        ctx.rows = table.shape[0]
        return torch.nn.functional.embedding_bag(index, table, mode="sum")

    @staticmethod
    def backward(ctx, grad):
        t_index, t_offsets = ctx.saved_tensors
        # the transpose of a gather-sum is again a gather-sum: table row r collects the output rows that read it
        g = torch.nn.functional.embedding_bag(t_index, grad.contiguous(), t_offsets, mode="sum")
        return g, None, None, None


def transpose_index(index: torch.Tensor, rows: int) -> tuple[torch.Tensor, torch.Tensor]:
    """For ``index`` (n, K) into a table of ``rows`` rows: the output rows that read each table row, grouped by
    table row (flat), and where each group starts (rows,): the backward of :func:`one_hot_linear` as a gather."""
    flat = index.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=rows)
    return order // index.shape[-1], torch.cumsum(counts, 0) - counts


def one_hot_linear(table: torch.Tensor, index: torch.Tensor,
                   transpose: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
    """Σ_k table[index[..., k]]: ``table`` (R, d_out), ``index`` (..., K) row ids → (..., d_out). The rows of every
    network (and slot, and anything else the caller folds in) live in one table, so one call serves all networks.
    ``transpose``: :func:`transpose_index` of ``index`` (the caller may build it cheaper from shared structure);
    the backward is then a gather too (torch's own backward of ``embedding_bag`` sorts the indices every call)."""
    K = index.shape[-1]
    flat = index.reshape(-1, K)
    if transpose is None:
        transpose = transpose_index(flat, table.shape[0])
    out = _OneHotLinear.apply(table, flat, *transpose)
    return out.view(*index.shape[:-1], table.shape[-1])
