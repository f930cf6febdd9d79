"""Encoders for paper 003: the identity, fixed random feature maps, and small MLPs trained on the exact population
loss (InfoNCE with one negative, SimCLR with n negatives, the slides' revised InfoNCE, Barlow Twins), batched over
seeds and losses (one tensor problem, one optimiser).

Every encoder returns ``F = f(views)`` (N, m, d) and ``F0 = f(clean)`` (N, d); the trained ones return a batch
over seeds ``(S, N, m, d)``, ``(S, N, d)`` and their training record (final loss, gradient norm, loss drop).
Training is not what the theorems speak about (they hold for every f), so its record is reported, not gated.
The record carries a second-order certificate beside the gradient norm (issue 26, item 2): the smallest eigenvalue
of each model's loss Hessian relative to its largest (Lanczos, ``adversarial.curvature_at``). A small gradient with
negative curvature is a saddle, not a minimiser; the results that train encoders (measurements and trends of what a
trained f does) record it in their details (``*_curvature_min_rel``, ``*_saddle``) and never call it a minimiser.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..data.finite_population import Population
from ..optim.adam import Adam
from .population import (barlow_twins_loss, bt_normalize, correlation, infonce_terms, revised_loss,
                         second_moment, simclr_loss)


# A trained model is flagged a saddle (``*_saddle`` in the details) when its loss Hessian has an eigenvalue below
# −SADDLE_RTOL of its largest: rounding of the central-difference products is ~1e-9 relative. The estimate is a
# Ritz value (an upper estimate of λ_min): a flagged saddle is certain, an unflagged model is not certified a
# minimiser, which no result here needs (the theorems hold for every f).
SADDLE_RTOL = 1e-6


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
    makes f nearly blind to style and so well aligned under style augmentation."""
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
    losses: torch.Tensor  # (S,) final loss per model
    initial: torch.Tensor  # (S,) initial loss per model
    grad_norm: torch.Tensor  # (S,) final gradient norm per model
    steps: int
    # (S,) λ_min/max|λ| of each model's loss Hessian at the end (Ritz values: negative = certainly a saddle)
    curvature_min_rel: torch.Tensor | None = None

    def to_details(self, prefix: str) -> dict:
        out = {f"{prefix}_final_loss": self.losses.tolist(), f"{prefix}_initial_loss": self.initial.tolist(),
               f"{prefix}_final_grad_norm": self.grad_norm.tolist(), f"{prefix}_steps": self.steps}
        if self.curvature_min_rel is not None:
            out[f"{prefix}_curvature_min_rel"] = self.curvature_min_rel.tolist()
            out[f"{prefix}_saddle"] = [bool(v < -SADDLE_RTOL) for v in self.curvature_min_rel.tolist()]
        return out


class BatchedMLP:
    """S independent 2-layer tanh MLPs D → h → d evaluated as one batched tensor program."""

    def __init__(self, ctx, S: int, D: int, h: int, d: int):
        self.params = [
            (ctx.randn(S, D, h) / math.sqrt(D)).requires_grad_(),
            torch.zeros(S, 1, h, dtype=ctx.dtype, device=ctx.device).requires_grad_(),
            (ctx.randn(S, h, d) / math.sqrt(h)).requires_grad_(),
        ]

    def __call__(self, X: torch.Tensor) -> torch.Tensor:
        """Every model on the same inputs X (..., D) -> (S, ..., d)."""
        W1, b1, W2 = self.params
        shape = X.shape[:-1]
        flat = X.reshape(1, -1, X.shape[-1])
        out = torch.tanh(flat @ W1 + b1) @ W2
        return out.reshape(out.shape[0], *shape, out.shape[-1])

    def each(self, X: torch.Tensor) -> torch.Tensor:
        """Model s on its own inputs X[s]: (S, n, D) -> (S, n, d)."""
        W1, b1, W2 = self.params
        return torch.tanh(torch.baddbmm(b1, X, W1)) @ W2


# -- the contrastive losses the paper discusses, as one spec each ------------------------------------------
LOSS_KINDS = ("infonce", "simclr", "revised")


@dataclass(frozen=True)
class LossSpec:
    """One training objective on unit-norm features: ``infonce`` (the slides' InfoNCE, one negative),
    ``simclr`` (n negatives) or ``revised`` (the slides' revised InfoNCE, weight λ, n negatives); τ the
    temperature."""

    kind: str
    tau: float
    lam: float = 1.0
    negatives: int = 1

    def __call__(self, F: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return batched_loss(self.kind, F, w, self.tau, self.lam, self.negatives)

    def label(self) -> str:
        extra = f", λ = {self.lam:g}" if self.kind == "revised" else ""
        neg = f", n = {self.negatives}" if self.kind != "infonce" else ""
        return f"{self.kind} (τ = {self.tau:g}{extra}{neg})"


def batched_loss(kind: str, F: torch.Tensor, w: torch.Tensor, tau, lam, negatives) -> torch.Tensor:
    """(S,) the loss ``kind`` of S models at once: F (S, N, m, d), w (N, m) or (S, N, m); tau, lam, negatives
    numbers or one per model (the one-negative InfoNCE takes numbers and one w)."""
    if kind == "infonce":
        return infonce_terms(F, w, tau)["loss"]
    if kind == "simclr":
        return simclr_loss(F, w, tau, negatives)
    return revised_loss(F, w, tau, lam, negatives)


@dataclass
class Trained:
    """Embeddings of the trained models at the end and at every checkpoint step (``snapshots[t] = (F, F0)``).
    Model (p·len(specs) + i)·seeds + s is population p, loss spec i, seed s."""

    F: torch.Tensor  # (S, N, m, d)
    F0: torch.Tensor  # (S, N, d)
    record: Training
    snapshots: dict[int, tuple[torch.Tensor, torch.Tensor]]
    # f of the held-out inputs (``probes``) at the same steps: (S, n_probe, d)
    probe_snapshots: dict[int, torch.Tensor]


def train_encoders(pops, ctx, specs, seeds: int = 2, d: int = 8, hidden: int = 32, steps: int = 150,
                   lr: float = 1e-2, r: float = 1.0, checkpoints=(), probes=None) -> Trained:
    """MLPs followed by ‖f‖ = r, ``seeds`` of them per (population, loss spec), all trained as one tensor problem:
    every model sees only its own population and loss (the losses are summed; the models share no parameter).
    ``pops``: one population, or several with the same N, m and input dimension (e.g. the same points under
    different augmentations). ``probes``: held-out inputs (n, D), one tensor per population, embedded by that
    population's models at every snapshot."""
    pops = [pops] if isinstance(pops, Population) else list(pops)
    specs = list(specs)
    group = len(specs) * seeds
    S = len(pops) * group
    N, m, D = pops[0].views.shape
    model = BatchedMLP(ctx, S, D, hidden, d)
    views = torch.stack([q.views.reshape(N * m, D) for q in pops]).repeat_interleave(group, dim=0)  # (S, Nm, D)

    # models grouped by loss kind, so that each kind is one batched evaluation (τ, λ, n and w per model)
    spec_of = [specs[(k // seeds) % len(specs)] for k in range(S)]
    W = torch.stack([q.view_w for q in pops]).repeat_interleave(group, dim=0)  # (S, N, m)
    groups = []
    for kind in LOSS_KINDS:
        idx = [k for k in range(S) if spec_of[k].kind == kind]
        if not idx:
            continue
        col = lambda name: torch.tensor([float(getattr(spec_of[k], name)) for k in idx],  # noqa: E731
                                        dtype=W.dtype, device=W.device)
        if kind == "infonce":  # one number per group: split by τ and population
            for k in idx:
                groups.append(([k], kind, W[k], spec_of[k].tau, 1.0, 1))
        else:
            groups.append((idx, kind, W[idx], col("tau"), col("lam"), col("negatives")))
    order = torch.tensor([k for g in groups for k in g[0]], device=W.device).argsort()

    def loss_fn() -> torch.Tensor:
        F = _normalize(model.each(views), 1.0).reshape(S, N, m, -1)
        parts = [batched_loss(kind, F[idx], w, tau, lam, neg).reshape(-1) for idx, kind, w, tau, lam, neg in groups]
        return torch.cat(parts)[order]

    snapshots: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    probe_snapshots: dict[int, torch.Tensor] = {}

    def snapshot(step: int) -> None:
        with torch.no_grad():
            parts = [on_support(q, lambda X, j=j: _normalize(model(X)[j * group:(j + 1) * group], r))
                     for j, q in enumerate(pops)]
            snapshots[step] = torch.cat([a for a, _ in parts]), torch.cat([b for _, b in parts])
            if probes is not None:
                probe_snapshots[step] = torch.cat([_normalize(model(X)[j * group:(j + 1) * group], r)
                                                   for j, X in enumerate(probes)])

    rec = _train(loss_fn, model, steps, lr, on_step=snapshot, checkpoints=set(checkpoints))
    snapshot(steps)
    F, F0 = snapshots[steps]
    return Trained(F, F0, rec, snapshots, probe_snapshots)


def _train(loss_fn, model: BatchedMLP, steps: int, lr: float, on_step=None, checkpoints=frozenset()) -> Training:
    opt = Adam(model.params, lr=lr)
    initial = None
    for t in range(steps):
        opt.zero_grad()
        per_model = loss_fn()
        if initial is None:
            initial = per_model.detach().clone()
        per_model.sum().backward()  # the models are independent: the sum's gradient is each model's own
        opt.step()
        if on_step is not None and t + 1 in checkpoints:
            on_step(t + 1)
    opt.zero_grad()
    final = loss_fn()
    final.sum().backward()
    gn = torch.sqrt(sum((p.grad ** 2).flatten(1).sum(1) for p in model.params))
    return Training(final.detach(), initial if initial is not None else final.detach(), gn.detach(), steps,
                    loss_curvature(loss_fn, model))


def loss_curvature(loss_fn, model: BatchedMLP) -> torch.Tensor:
    """(S,) λ_min/max|λ| of each model's loss Hessian at its current parameters (the models are independent, so
    the Hessian of the batch is block-diagonal and Lanczos runs on each block at once)."""
    from .adversarial import curvature_at

    trained = model.params

    def objective(*params):
        model.params = list(params)
        try:
            return loss_fn()
        finally:
            model.params = trained

    curv, _, _ = curvature_at([p.detach() for p in trained], objective)
    return curv.relative_min().detach()


def train_infonce(pop: Population, ctx, seeds: int = 2, d: int = 8, hidden: int = 32, tau: float = 0.5,
                  steps: int = 150, lr: float = 1e-2, r: float = 1.0):
    """MLPs followed by ‖f‖ = r, trained on the exact population InfoNCE (one negative, temperature τ)."""
    out = train_encoders(pop, ctx, [LossSpec("infonce", tau)], seeds=seeds, d=d, hidden=hidden, steps=steps,
                         lr=lr, r=r)
    return out.F, out.F0, out.record


def train_barlow_twins(pop: Population, ctx, seeds: int = 2, d: int = 8, hidden: int = 32, lam: float = 5e-3,
                       steps: int = 150, lr: float = 1e-2):
    """MLPs whose output is normalised per coordinate by the exact uncentred second moment (the slides' BT: uncentred),
    trained on L_CC."""
    model = BatchedMLP(ctx, seeds, pop.views.shape[-1], hidden, d)
    loss_fn = lambda: barlow_twins_loss(correlation(bt_normalize(model(pop.views), pop.view_w),  # noqa: E731
                                                    pop.view_w), lam)
    rec = _train(loss_fn, model, steps, lr)
    with torch.no_grad():
        G, G0 = on_support(pop, model)
        scale = second_moment(G, pop.view_w).sqrt()
        return G / scale[:, None, None, :], G0 / scale[:, None, :], rec
