"""Many small networks trained by SGD as one tensor program, and the per-network loop it replaces.

A run of B networks that share no parameter is one optimisation of the *sum* of their losses over the stacked
parameter tensors: ∂(Σ_b L_b)/∂θ_b = ∂L_b/∂θ_b because L_c does not depend on θ_b for c ≠ b, and SGD with momentum
and weight decay updates every coordinate from its own gradient and buffer alone, so one optimiser step on the
stacked tensors is B separate steps. What the batching changes is only the order of floating-point sums inside
the shared tensor ops (``tests/test_batched_sgd.py`` checks both facts against :func:`sgd_each`).

* :func:`sgd_program`: the training loop over stacked parameters (``losses(step) → (B,)``), logging every
  network's loss; :func:`sgd_each` runs the same loop once per network (the reference and the baseline of
  ``benchmarks/bench_batched_training.py``).
* :func:`one_hot_linear`: a linear layer applied to one-hot (token) inputs, for many networks at once. With
  inputs x = Σ_k e_{t_k} (one token per slot k, each slot its own block of rows), Wx is the sum of K rows of a
  table: ``torch.nn.functional.embedding_bag`` in mode ``sum``, whose backward scatters into the table without
  materialising the one-hot matrix (B·2N·K·d_out work instead of B·2N·K·D·d_out).
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch


def sgd_program(params: Sequence[torch.Tensor], losses: Callable[[int], torch.Tensor], steps: int, *, lr: float,
                momentum: float, weight_decay: float, log_every: int = 50) -> tuple[torch.Tensor, bool]:
    """Run ``steps`` SGD steps (``torch.optim.SGD``: momentum, weight decay, no dampening or Nesterov) on the
    leaf tensors ``params``, minimising Σ ``losses(step)``. Returns the per-network losses at every
    ``log_every``-th step and at the last, (checkpoints, B), and whether every parameter and logged loss is finite."""
    if steps < 1 or log_every < 1:
        raise ValueError(f"sgd_program: steps={steps}, log_every={log_every} (both ≥ 1)")
    opt = torch.optim.SGD(list(params), lr=lr, momentum=momentum, weight_decay=weight_decay)
    logged = []
    for step in range(steps):
        loss = losses(step)
        opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        opt.step()
        if step % log_every == 0 or step == steps - 1:
            logged.append(loss.detach())
    out = torch.stack(logged)
    finite = bool(torch.isfinite(out).all()) and all(bool(torch.isfinite(p).all()) for p in params)
    return out, finite


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
