"""Encoders for paper 003: the identity, fixed random feature maps, and small MLPs trained with InfoNCE or
Barlow Twins on the exact population loss, batched over seeds (one tensor problem, one optimiser).

Every encoder returns ``F = f(views)`` (N, m, d) and ``F0 = f(clean)`` (N, d); the trained ones return a batch
over seeds ``(S, N, m, d)``, ``(S, N, d)`` and their training record (final loss, gradient norm, loss drop).
Training is not what the theorems speak about (they hold for every f), so its record is reported, not gated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..data.finite_population import Population
from .population import barlow_twins_loss, bt_normalize, correlation, infonce_terms, second_moment

ENCODERS = ("identity", "random", "infonce", "barlow_twins")


def _normalize(x: torch.Tensor, r: float) -> torch.Tensor:
    return r * x / x.norm(dim=-1, keepdim=True).clamp_min(1e-300)


def on_support(pop: Population, g):
    """(g(views), g(clean)) with g evaluated once per distinct support point.

    The clean point is view 0, and the hub views of a class are one point: evaluating g on the views and on
    the clean points in two calls of different shapes can round the same input differently (another BLAS
    kernel), and then f is not a function on the support (its Lipschitz constant there is +inf). ``g`` maps
    (P, D) to (..., P, d) (a leading batch of seeds is kept)."""
    D = pop.views.shape[-1]
    X = torch.cat([pop.views.reshape(-1, D), pop.clean])
    uniq, inverse = torch.unique(X, dim=0, return_inverse=True)
    Y = g(uniq)[..., inverse, :]
    n_views = pop.N * pop.m
    return Y[..., :n_views, :].reshape(*Y.shape[:-2], pop.N, pop.m, -1), Y[..., n_views:, :]


def identity_encoder(pop: Population, r: float = 1.0, normalize: bool = True):
    F, F0 = pop.views.clone(), pop.clean.clone()
    if normalize:
        F, F0 = _normalize(F, r), _normalize(F0, r)
    return F, F0


def random_features(pop: Population, ctx, d: int = 16, r: float = 1.0, gamma: float = 0.3,
                    style_scale: float = 0.02, Dc: int | None = None, normalize: bool = True):
    """f(x) = r·normalize(tanh(γ W x)), W Gaussian, the style columns (after the first Dc) scaled by α: a small α
    makes f nearly blind to style and so well aligned under style augmentation (digest §6.1 encoder (i))."""
    D = pop.views.shape[-1]
    W = ctx.randn(d, D) / math.sqrt(D)
    if Dc is not None:
        W[:, Dc:] *= style_scale
    F, F0 = on_support(pop, lambda X: torch.tanh(gamma * X @ W.T))
    if normalize:
        F, F0 = _normalize(F, r), _normalize(F0, r)
    return F, F0


@dataclass
class Training:
    losses: torch.Tensor  # (S,) final loss per seed
    initial: torch.Tensor  # (S,) initial loss per seed
    grad_norm: torch.Tensor  # (S,) final gradient norm per seed
    steps: int

    def to_details(self, prefix: str) -> dict:
        return {f"{prefix}_final_loss": self.losses.tolist(), f"{prefix}_initial_loss": self.initial.tolist(),
                f"{prefix}_final_grad_norm": self.grad_norm.tolist(), f"{prefix}_steps": self.steps}


class BatchedMLP:
    """S independent 2-layer tanh MLPs D → h → d evaluated as one batched tensor program."""

    def __init__(self, ctx, S: int, D: int, h: int, d: int):
        self.params = [
            (ctx.randn(S, D, h) / math.sqrt(D)).requires_grad_(),
            torch.zeros(S, 1, h, dtype=ctx.dtype, device=ctx.device).requires_grad_(),
            (ctx.randn(S, h, d) / math.sqrt(h)).requires_grad_(),
        ]

    def __call__(self, X: torch.Tensor) -> torch.Tensor:
        W1, b1, W2 = self.params
        shape = X.shape[:-1]
        flat = X.reshape(1, -1, X.shape[-1])
        out = torch.tanh(flat @ W1 + b1) @ W2
        return out.reshape(out.shape[0], *shape, out.shape[-1])


def _train(loss_fn, model: BatchedMLP, steps: int, lr: float) -> Training:
    opt = torch.optim.Adam(model.params, lr=lr)
    initial = None
    for _ in range(steps):
        opt.zero_grad()
        per_seed = loss_fn()
        if initial is None:
            initial = per_seed.detach().clone()
        per_seed.sum().backward()  # seeds are independent: the sum's gradient is each seed's own
        opt.step()
    opt.zero_grad()
    final = loss_fn()
    final.sum().backward()
    gn = torch.sqrt(sum((p.grad ** 2).flatten(1).sum(1) for p in model.params))
    return Training(final.detach(), initial if initial is not None else final.detach(), gn.detach(), steps)


def train_infonce(pop: Population, ctx, seeds: int = 2, d: int = 8, hidden: int = 32, tau: float = 0.5,
                  steps: int = 150, lr: float = 1e-2, r: float = 1.0):
    """MLPs followed by ‖f‖ = r, trained on the exact population InfoNCE (one negative, temperature τ)."""
    model = BatchedMLP(ctx, seeds, pop.views.shape[-1], hidden, d)
    loss_fn = lambda: infonce_terms(_normalize(model(pop.views), 1.0), pop.view_w, tau)["loss"]  # noqa: E731
    rec = _train(loss_fn, model, steps, lr)
    with torch.no_grad():
        F, F0 = on_support(pop, lambda X: _normalize(model(X), r))
        return F, F0, rec


def train_barlow_twins(pop: Population, ctx, seeds: int = 2, d: int = 8, hidden: int = 32, lam: float = 5e-3,
                       steps: int = 150, lr: float = 1e-2):
    """MLPs whose output is normalised per coordinate by the exact uncentred second moment (the slides' BT, A12),
    trained on L_CC."""
    model = BatchedMLP(ctx, seeds, pop.views.shape[-1], hidden, d)
    loss_fn = lambda: barlow_twins_loss(correlation(bt_normalize(model(pop.views), pop.view_w),  # noqa: E731
                                                    pop.view_w), lam)
    rec = _train(loss_fn, model, steps, lr)
    with torch.no_grad():
        G, G0 = on_support(pop, model)
        scale = second_moment(G, pop.view_w).sqrt()
        return G / scale[:, None, None, :], G0 / scale[:, None, :], rec
