"""Adam on a list of tensors: the update rule of ``torch.optim.Adam`` (default options), written out.

Why not ``torch.optim.Adam``: constructing a ``torch.optim`` optimiser imports the compiler stack
(``torch._dynamo``), several seconds of CPU per process, paid by whichever check first trains or searches.
The batched trainers and worst-case searches here need only the plain update, so they use this one; the
tests compare it with ``torch.optim.Adam`` step by step.
"""

from __future__ import annotations

from typing import Sequence

import torch


class Adam:
    """``torch.optim.Adam(params, lr, betas, eps)`` without weight decay, amsgrad or foreach options: same
    arithmetic, same order of operations."""

    def __init__(self, params: Sequence[torch.Tensor], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        if not lr > 0:
            raise ValueError(f"Adam: lr must be positive, got {lr}")
        self.params = list(params)
        self.lr, self.betas, self.eps = float(lr), betas, float(eps)
        self.steps = 0
        self._m = [torch.zeros_like(p) for p in self.params]
        self._v = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.steps += 1
        b1, b2 = self.betas
        bias1 = 1 - b1 ** self.steps
        bias2_sqrt = (1 - b2 ** self.steps) ** 0.5
        for p, m, v in zip(self.params, self._m, self._v, strict=True):
            if p.grad is None:
                continue
            g = p.grad
            m.lerp_(g, 1 - b1)
            v.mul_(b2).addcmul_(g, g.conj(), value=1 - b2)
            denom = (v.sqrt() / bias2_sqrt).add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / bias1)
