"""Batched contrastive training of the 2-layer network of paper 001, §5 (App. E.2): many networks, one tensor problem.

The network (§4, §5): K disjoint RFs of dimension d, M = βP filters per RF, f₁ = h(w_kmᵀx_k) (no bias), optional
BatchNorm on f₁ (App. D, eq. 164–165, with the four backpropagation variants of App. E.2), top layer V ∈ ℝ^{d_out×KM}
(no bias), trained with SGD + momentum + weight decay on InfoNCE or the quadratic loss.

Batching: every network of a run (seeds × grid points × activations × losses × BN variants) lives in one tensor
problem without padding. The first layer of all networks is one matrix W (U, d) of U = Σ_b K·M_b hidden units, each
unit knowing its network and RF; it reads the tokens by index (u_a = ζ_a e_a, so w_kmᵀx_k = ζ_a w_km[a]: a gather, not
a product with one-hot inputs), and activation and BatchNorm act on all units at once. The top layers are one tensor
per group of networks with the same M (one batched matmul per group). The per-network losses are summed, so each
network receives its own gradient, and one ``torch.optim.SGD`` step updates all of them exactly as separate runs
would. For the authors' protocol the gradients are written out (:func:`losses_and_grads`: each piece's transpose,
no autograd graph; ``tests/test_token_grads.py`` checks them against autograd), ≈ 1.5× fewer CPU seconds per step
than autograd's at Fig. 4's counterexample size (``benchmarks/bench_batched_training.py``, ``test_written_gradients``).

Two protocols (:class:`Protocol`):

* ``authors`` (Figure 4/9/10, Table 1): BatchNorm on f₁ with statistics of each view's forward pass (the authors'
  code calls the network once per view; eq. 164 prints statistics over all 2N rows, ``bn_stats="joint"``), ε = 1e-5,
  no affine; outputs ℓ2-normalised; InfoNCE as cross-entropy over M/τ with M = z₁z₁ᵀ whose diagonal is replaced by
  the positive pairs z₁·z₂ (negatives from the same view, as in eq. (1) where d_ij is taken between samples of one
  view), τ = 0.1; the quadratic loss −(1 + 1/N)·mean_i(M_ii/τ) + mean_ij(M_ij/τ) (constant α); d_out = 50.
  Settings the paper prints: SGD lr 2e-3, momentum 0.9, weight decay 5e-3, 5000 minibatches of 128 (§5). The
  others (BN, ℓ2 normalisation, similarity, τ, d_out, the Def. 5 variant) are not printed; they are those of the
  authors' released code and its README command for this paper (which also uses lr 0.02).
* ``suite`` (the suite's earlier reading of §5, folded into ``nonlinear_cl.figure_4``): no BatchNorm, no normalisation,
  InfoNCE with ε = 1 on the distances ½‖f_i − f_j'‖² between the two views (cross-view negatives), τ·CE, d_out = 20.

Training runs in float32 (the authors' precision; torch.FloatTensor in their code): the scores are O(1) cosines,
and float32 halves the CPU cost.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

from ..optim.batched_sgd import one_hot_linear, sgd_each, sgd_program
from .token_task import D, K, TokenTasks, sample_tokens

TRAIN_DTYPE = torch.float32
ACTIVATIONS = ("relu", "linear", "leaky", "quadratic")
LOSSES = ("infonce", "quadratic")
LEAK = 0.05  # Fig. 4 caption: LeakyReLU "with negative slope 0.05"
BN_EPS = 1e-5  # the authors' BatchNorm (and torch's default)
CHUNK = 250  # minibatches of tokens drawn at once (memory: CHUNK·S·2·N·K int64)
# Activations whose network is unchanged by w_km → −w_km (with v_km → −v_km for linear): the score takes |cos|.
SIGN_SYMMETRIC = ("linear", "quadratic")


@dataclass(frozen=True)
class Protocol:
    bn: bool = True
    mu_backprop: bool = True  # Def. 5 backprops μ ...
    var_backprop: bool = False  # ... and not σ²
    bn_stats: str = "per_view"  # "per_view" (authors' code) | "joint" (eq. 164: all 2N rows)
    similarity: str = "l2_dot"  # "l2_dot" (authors) | "neg_dist_cross" (suite)
    tau: float = 0.1
    d_out: int = 50
    lr: float = 2e-3
    momentum: float = 0.9
    weight_decay: float = 5e-3
    batch: int = 128
    steps: int = 5000
    independent_pairs: bool = False


@dataclass(frozen=True)
class Model:
    stream: int  # which task (seed, P) it trains on
    M: int  # filters per RF (β·P)
    activation: str
    loss: str
    init: int = 0  # networks with the same (stream, M, init) start from the same weights
    bn_variant: tuple[bool, bool] | None = None  # (μ backprop, σ² backprop); None: the protocol's


@dataclass
class Trained:
    W: torch.Tensor  # (B, K, M_max, D) first-layer filters (float32), zero-padded for the scores
    W0: torch.Tensor  # the same at initialisation (the chance level of the scores)
    filt_mask: torch.Tensor  # (B, M_max) which filters exist
    losses: torch.Tensor  # (checkpoints, B) loss at every ``log_every``-th step and the last
    finite: bool


# h(s) = c_relu·relu(s) + c_lin·s + c_sq·s² per unit: LeakyReLU(a) = (1 − a)·relu(s) + a·s.
COEFFS = {"relu": (1.0, 0.0, 0.0), "linear": (0.0, 1.0, 0.0), "leaky": (1 - LEAK, LEAK, 0.0),
          "quadratic": (0.0, 0.0, 1.0)}


def activate(pre: torch.Tensor, kinds: list[str], coeff: torch.Tensor) -> torch.Tensor:
    """h per unit: ``pre`` (U, ...); ``kinds`` the activations present; ``coeff`` (3, U) the COEFFS of each unit's
    network. One activation: its own op; several: the coefficient form (a few ops on all units, no slicing)."""
    if len(kinds) == 1:
        return {"relu": torch.relu, "linear": lambda x: x, "quadratic": lambda x: x * x,
                "leaky": lambda x: torch.nn.functional.leaky_relu(x, LEAK)}[kinds[0]](pre)
    shape = (-1,) + (1,) * (pre.dim() - 1)
    out = 0
    if any(COEFFS[k][0] for k in kinds):
        out = out + coeff[0].view(shape) * torch.relu(pre)
    if any(COEFFS[k][1] for k in kinds):
        out = out + coeff[1].view(shape) * pre
    if any(COEFFS[k][2] for k in kinds):
        out = out + coeff[2].view(shape) * pre * pre
    return out


def batch_norm(f: torch.Tensor, proto: Protocol, variant: tuple[torch.Tensor, torch.Tensor] | None = None
               ) -> torch.Tensor:
    """f (U, 2, N) → (f − μ)/√(σ² + ε) with the statistics of each view (dim N) or of both (dims 2, N); μ and/or σ²
    detached as the variant asks (the forward pass is the same for all four). ``variant``: per-unit masks (U,) of
    (μ backprop, σ² backprop) when the networks of the run differ in it; else the protocol's."""
    dims = (2,) if proto.bn_stats == "per_view" else (1, 2)
    mu = f.mean(dim=dims, keepdim=True)
    if variant is None:
        c = f - (mu if proto.mu_backprop else mu.detach())
    else:
        c = f - torch.where(variant[0].view(-1, 1, 1), mu, mu.detach())
    # σ² = mean(c²): its gradient is that of the batch variance (the μ-path adds Σc = 0), and one pass is cheaper
    # than torch.var's reduction over a middle dimension.
    var = (c * c).mean(dim=dims, keepdim=True)
    if variant is None:
        var = var if proto.var_backprop else var.detach()
    else:
        var = torch.where(variant[1].view(-1, 1, 1), var, var.detach())
    return c * torch.rsqrt(var + BN_EPS)


_EYES: dict = {}


def _eye(n: int, device) -> torch.Tensor:
    key = (n, str(device))
    if key not in _EYES:
        _EYES[key] = torch.eye(n, dtype=torch.bool, device=device)
    return _EYES[key]


def _any(flags) -> bool:
    return flags if isinstance(flags, bool) else bool(flags.any())


def _all(flags) -> bool:
    return flags if isinstance(flags, bool) else bool(flags.all())


def contrastive_losses(z: torch.Tensor, proto: Protocol, quadratic: torch.Tensor | bool) -> torch.Tensor:
    """Per-network loss (B,) from outputs z (B, 2, N, d_out); ``quadratic`` (B,) bool picks the quadratic loss (a
    Python bool: the same loss for every network)."""
    z1, z2 = z[:, 0], z[:, 1]
    N = z.shape[2]
    if proto.similarity == "l2_dot":
        z1 = torch.nn.functional.normalize(z1, dim=-1)
        z2 = torch.nn.functional.normalize(z2, dim=-1)
        pos = (z1 * z2).sum(-1) / proto.tau  # (B, N): the diagonal of M/τ
        # the off-diagonal of M/τ (negatives z1_i·z1_j); M itself is never built: its row sums are the
        # off-diagonal's plus the positive (fewer passes over the B·N² entries, forward and backward)
        off = ((z1 / proto.tau) @ z1.transpose(1, 2)).masked_fill(_eye(N, z.device), -torch.inf)
        nce = lambda: (torch.logaddexp(torch.logsumexp(off, dim=-1), pos) - pos).mean(-1)  # noqa: E731
        quad = lambda: (-(1 + 1 / N) * pos.mean(-1)  # noqa: E731
                        + (off.masked_fill(_eye(N, z.device), 0.0).sum((-1, -2)) + pos.sum(-1)) / (N * N))
        if not _any(quadratic):
            return nce()
        if _all(quadratic):
            return quad()
        return torch.where(quadratic, quad(), nce())
    else:  # −½‖f_i − f_j'‖² over the cross-view pairs (the positive on the diagonal)
        logits = -0.5 * torch.cdist(z1, z2) ** 2 / proto.tau
        pos = torch.diagonal(logits, dim1=1, dim2=2)
        scale = proto.tau
    if not _any(quadratic):
        return scale * (torch.logsumexp(logits, dim=-1) - pos).mean(-1)
    quad = -(1 + 1 / N) * pos.mean(-1) + logits.mean((-1, -2))
    if _all(quadratic):
        return scale * quad
    return scale * torch.where(quadratic, quad, (torch.logsumexp(logits, dim=-1) - pos).mean(-1))


def init_weights(gen: torch.Generator, models: list[Model], d_out: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """torch.nn.Linear's default initialisation U(±1/√fan_in) (fan_in d for W, K·M for V): W (K, M, d),
    V (d_out, K, M), drawn on the CPU generator in order of first appearance of (stream, M, init). Networks that
    differ only in activation, loss or BatchNorm variant share it, as in the authors' runs (one seed fixes the
    initialisation whatever the activation), so their comparison is paired."""
    drawn: dict[tuple[int, int, int], tuple[torch.Tensor, torch.Tensor]] = {}
    for m in models:
        key = (m.stream, m.M, m.init)
        if key not in drawn:
            W = (2 * torch.rand(K, m.M, D, generator=gen, dtype=TRAIN_DTYPE, device="cpu") - 1) / D**0.5
            V = (2 * torch.rand(d_out, K, m.M, generator=gen, dtype=TRAIN_DTYPE, device="cpu") - 1) / (K * m.M) ** 0.5
            drawn[key] = (W, V)
    return [drawn[(m.stream, m.M, m.init)] for m in models]


@dataclass
class Layout:
    """Where every hidden unit lives: models sorted by M (``order``), units in that order, RF-major within a model."""

    order: list[int]  # model indices sorted by (M, index)
    groups: list[tuple[int, int, int]]  # (M, first, last + 1) over the sorted models
    unit_model: torch.Tensor  # (U,) sorted-model index of each unit
    unit_rf: torch.Tensor  # (U,)
    unit_slot: torch.Tensor  # (U,) stream · K + RF: the row of the token counts each unit reads
    coeff: torch.Tensor  # (3, U) activation coefficients
    kinds: list[str]
    variant: tuple[torch.Tensor, torch.Tensor] | None  # per-unit (μ, σ²) backprop masks, when networks differ
    streams: torch.Tensor  # (B,) stream of each sorted model
    table_base: torch.Tensor  # (B, 1) first row of each sorted model's top-layer table: b·K·2D
    row_base: torch.Tensor  # (B, 1) b·2, times N: the first output row of model b

    @property
    def group_units(self) -> list[int]:
        return [(last - first) * K * M for M, first, last in self.groups]


def layout(models: list[Model], proto: Protocol, device) -> Layout:
    order = sorted(range(len(models)), key=lambda i: (models[i].M, i))
    groups: list[tuple[int, int, int]] = []
    unit_model, unit_rf, coeff = [], [], []
    for j, i in enumerate(order):
        M = models[i].M
        if groups and groups[-1][0] == M:
            groups[-1] = (M, groups[-1][1], j + 1)
        else:
            groups.append((M, j, j + 1))
        unit_model += [j] * (K * M)
        unit_rf += [k for k in range(K) for _ in range(M)]
        coeff += [COEFFS[models[i].activation]] * (K * M)
    kinds = [a for a in ACTIVATIONS if any(m.activation == a for m in models)]
    variants = [m.bn_variant or (proto.mu_backprop, proto.var_backprop) for m in (models[i] for i in order)]
    variant = None
    if len(set(variants)) > 1:
        per_unit = [v for v, i in zip(variants, order, strict=True) for _ in range(K * models[i].M)]
        variant = (torch.tensor([v[0] for v in per_unit], device=device),
                   torch.tensor([v[1] for v in per_unit], device=device))
    elif variants[0] != (proto.mu_backprop, proto.var_backprop):
        n = sum(K * m.M for m in models)
        variant = (torch.full((n,), variants[0][0], device=device), torch.full((n,), variants[0][1], device=device))
    streams = torch.tensor([models[i].stream for i in order], device=device)
    unit_model_t = torch.tensor(unit_model, device=device)
    unit_rf_t = torch.tensor(unit_rf, device=device)
    b = torch.arange(len(models), device=device).view(-1, 1)
    return Layout(order, groups, unit_model_t, unit_rf_t, streams[unit_model_t] * K + unit_rf_t,
                  torch.tensor(coeff, dtype=TRAIN_DTYPE, device=device).T.contiguous(), kinds, variant, streams,
                  b * (K * 2 * D), b * 2)


def token_counts(tokens: torch.Tensor) -> torch.Tensor:
    """How often each token sits at each RF of each view: tokens (..., 2, N, K) → counts (..., K, 2, D)."""
    t = tokens.movedim(-1, -3)  # (..., K, 2, N)
    out = torch.zeros(*t.shape[:-1], D, dtype=TRAIN_DTYPE, device=tokens.device)
    return out.scatter_add_(-1, t, torch.ones(t.shape, dtype=TRAIN_DTYPE, device=tokens.device))


def batch_norm_tables(H: torch.Tensor, counts: torch.Tensor, n: int, proto: Protocol,
                      variant: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
    """:func:`batch_norm` of the rows f[u, v, i] = H[u, t_i] computed on the D token values instead of the N rows:
    H (U, D) the unit's output for each token, ``counts`` (U, 2, D) how often each token is in each view of the
    minibatch (n rows per view). μ and σ² are the count-weighted means, so values and gradients (with the same
    detaching) are those of the row form; the output (U, 2, D) is the normalised value of each token in each view."""
    dims = (2,) if proto.bn_stats == "per_view" else (1, 2)
    rows = n * (1 if proto.bn_stats == "per_view" else 2)
    Hv = H[:, None, :].expand(-1, 2, -1)
    mu = (counts * Hv).sum(dim=dims, keepdim=True) / rows
    if variant is None:
        c = Hv - (mu if proto.mu_backprop else mu.detach())
    else:
        c = Hv - torch.where(variant[0].view(-1, 1, 1), mu, mu.detach())
    var = (counts * c * c).sum(dim=dims, keepdim=True) / rows
    if variant is None:
        var = var if proto.var_backprop else var.detach()
    else:
        var = torch.where(variant[1].view(-1, 1, 1), var, var.detach())
    return c * torch.rsqrt(var + BN_EPS)


@dataclass
class Batch:
    """One minibatch of every stream, in the forms the engine reads: token counts (S, K, 2, D) and, per stream, the
    keys (S, 2N·K) of the top layer's table rows each output row sums and the order (S, 2N·K) in which output rows
    read the table rows (see :func:`_bag_index`). Built for a chunk of steps at once (few ops per step)."""

    counts: torch.Tensor
    keys: torch.Tensor
    reads: torch.Tensor
    n: int  # rows per view


def make_batches(tokens: torch.Tensor) -> Batch:
    """Batch of a chunk: tokens (steps, S, 2, N, K) → counts, keys and reads with the leading (steps, S)."""
    N = tokens.shape[-2]
    dev = tokens.device
    key = tokens + (torch.arange(K, device=dev) * 2 * D).view(1, 1, K) + (torch.arange(2, device=dev) * D).view(2, 1, 1)
    key = key.flatten(-3)  # (..., 2N·K) in (v, i, k) order
    # output rows (v·N + i) in the order of their table rows (stable sort of the stream's keys)
    reads = torch.argsort(key, dim=-1, stable=True) // K
    return Batch(token_counts(tokens), key, reads, N)


def forward(W: torch.Tensor, Vs: list[torch.Tensor], batch: Batch, mags: torch.Tensor | None, lay: Layout,
            proto: Protocol) -> torch.Tensor:
    """Outputs z (B, 2, N, d_out) of every (sorted) network on its stream's minibatch ``batch`` (one step of
    :func:`make_batches`); ``mags`` the token norms ζ_a, None when all are 1.

    A unit of RF k sees token a as the input ζ_a e_a, so its output (after BatchNorm) takes one of D values per view:
    the tables T (U, 2, D). The top layer maps them to Y[b, k, v, a] = Σ_m V_b[:, k, m] T[b, k, m, v, a] (one bmm per
    group of equal M: 2D columns instead of 2N), and z_b[v, i] = Σ_k Y[b, k, v, t_ik] (a one-hot linear layer)."""
    S, N = batch.counts.shape[0], batch.n
    d_out = Vs[0].shape[2]
    pre = W if mags is None else W * mags  # w_u[a]·ζ_a = w_uᵀu_a
    H = activate(pre, lay.kinds, lay.coeff)
    if proto.bn:
        T = batch_norm_tables(H, batch.counts.reshape(S * K, 2, D)[lay.unit_slot], N, proto, lay.variant)
    else:
        T = H[:, None, :].expand(-1, 2, D)
    ys = [torch.bmm(V.view(-1, d_out, M), t.reshape(-1, M, 2 * D)).transpose(1, 2).reshape(-1, d_out)
          for V, t, (M, _, _) in zip(Vs, torch.split(T, lay.group_units), lay.groups, strict=True)]
    table = ys[0] if len(ys) == 1 else torch.cat(ys)  # rows ((b·K + k)·2 + v)·D + a
    z = one_hot_linear(table, *_bag_index(batch, lay))
    return z.view(-1, 2, N, d_out)


def _bag_index(batch: Batch, lay: Layout):
    """The rows of the top layer's table that z_b[v, i] sums (network b's ((b·K + k)·2 + v)·D + t_ik), and their
    transpose (which z rows read each table row): the stream's, shifted per network (the networks of a stream read
    their tables at the same places)."""
    B = lay.streams.shape[0]
    index = (batch.keys[lay.streams] + lay.table_base).view(B * 2 * batch.n, K)
    reads = (batch.reads[lay.streams] + lay.row_base * batch.n).reshape(-1)
    c = batch.counts.reshape(batch.counts.shape[0], -1)[lay.streams].reshape(-1).long()
    return index, (reads, torch.cumsum(c, 0) - c)


def _activation_slope(pre: torch.Tensor, kinds: list[str], coeff: torch.Tensor) -> torch.Tensor:
    """h'(pre) per unit, as autograd differentiates :func:`activate` (ReLU's slope 0 at 0, as torch's)."""
    if len(kinds) == 1:
        kind = kinds[0]
        if kind == "relu":
            return (pre > 0).to(pre.dtype)
        if kind == "linear":
            return torch.ones_like(pre)
        if kind == "quadratic":
            return 2 * pre
        return torch.where(pre > 0, torch.ones_like(pre), torch.full_like(pre, LEAK))
    shape = (-1,) + (1,) * (pre.dim() - 1)
    c = coeff.to(pre.dtype)  # summed in pre's precision, as autograd sums the terms' slopes
    return c[0].view(shape) * (pre > 0) + c[1].view(shape) + 2 * c[2].view(shape) * pre


def _l2_losses_and_grad(z: torch.Tensor, proto: Protocol, quadratic) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`contrastive_losses` of the authors' protocol (ℓ2-normalised outputs, M = z₁z₁ᵀ with the positives
    z₁·z₂ on its diagonal) and the gradient of their sum with respect to z (B, 2, N, d_out), written out.

    With logits ℓ_ij = z₁ᵢ·z₁ⱼ/τ (i ≠ j), ℓ_ii = z₁ᵢ·z₂ᵢ/τ and the row softmax p, InfoNCE (1/N)Σᵢ(logsumexp_j ℓ_ij −
    ℓ_ii) has ∂/∂ℓ_ij = (p_ij − δ_ij)/N; the quadratic loss −(1 + 1/N)·mean ℓ_ii + mean ℓ has 1/N² off the diagonal
    and −1/N on it. The off-diagonal part G reaches z₁ through both factors: (G + Gᵀ)z₁/τ."""
    N = z.shape[2]
    norm = z.norm(dim=-1, keepdim=True)
    den = norm.clamp_min(1e-12)  # torch.nn.functional.normalize's ε
    zn = z / den
    z1, z2 = zn[:, 0], zn[:, 1]
    pos = (z1 * z2).sum(-1) / proto.tau  # (B, N)
    off = torch.bmm(z1 / proto.tau, z1.transpose(1, 2))
    off.diagonal(dim1=1, dim2=2).fill_(-torch.inf)
    quad = quadratic if isinstance(quadratic, bool) else None
    if quad is not True:  # InfoNCE: the row softmax over the off-diagonal and the positive
        top = torch.maximum(off.amax(-1), pos)
        e = torch.exp(off - top[..., None])  # exp(−∞) = 0 on the diagonal
        ep = torch.exp(pos - top)
        s = e.sum(-1) + ep
        nce = (top + torch.log(s) - pos).mean(-1)
        g_off = e.div_((s * N)[..., None])  # in place: e is not read again
        g_pos = (ep / s - 1) / N
    if quad is not False:
        q_off = 1.0 / (N * N)
        offsum = off.masked_fill(_eye(N, z.device), 0.0).sum((-1, -2))
        q_loss = -(1 + 1 / N) * pos.mean(-1) + (offsum + pos.sum(-1)) / (N * N)
    if quad is False:
        loss, G, gp = nce, g_off, g_pos
    elif quad is True:
        loss = q_loss
        G = torch.full_like(off, q_off)
        G.diagonal(dim1=1, dim2=2).zero_()
        gp = torch.full_like(pos, -1.0 / N)
    else:
        sel = quadratic.view(-1, 1, 1)
        loss = torch.where(quadratic, q_loss, nce)
        G = torch.where(sel, (1.0 - _eye(N, z.device).to(off.dtype)) * q_off, g_off)
        gp = torch.where(sel[..., 0], -1.0 / N, g_pos)
    dz1 = torch.bmm(G + G.transpose(1, 2), z1) + gp[..., None] * z2
    dz2 = gp[..., None] * z1
    dzn = torch.stack((dz1, dz2), dim=1) / proto.tau
    # through the normalisation zn = z/max(‖z‖, ε): (dzn − zn(zn·dzn))/‖z‖, only dzn/ε where ‖z‖ < ε (at ‖z‖ = ε
    # the first, as torch's clamp_min passes the gradient at its bound)
    radial = torch.where(norm >= 1e-12, (zn * dzn).sum(-1, keepdim=True), 0.0)
    return loss, (dzn - zn * radial) / den


def losses_and_grads(W: torch.Tensor, Vs: list[torch.Tensor], batch: Batch, mags: torch.Tensor | None, lay: Layout,
                     proto: Protocol, quadratic) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The per-network losses of :func:`forward` and :func:`contrastive_losses` (authors' protocol, ``l2_dot``) and
    the gradients of their sum with respect to ``W`` and each of ``Vs``, written out instead of taken by autograd
    (no graph, fewer and fused ops per step; ``tests/test_token_grads.py`` checks them against autograd for every
    activation, loss, BatchNorm variant and statistic). Each piece is the transpose of its forward: the one-hot top
    layer's is a gather over the readers of each table row, the bmm's are bmm's, BatchNorm's backpropagates through
    μ and/or σ² as the variant asks."""
    S, N = batch.counts.shape[0], batch.n
    d_out = Vs[0].shape[2]
    pre = W if mags is None else W * mags
    H = activate(pre, lay.kinds, lay.coeff)
    if proto.bn:
        dims = (2,) if proto.bn_stats == "per_view" else (1, 2)
        rows = N * (1 if proto.bn_stats == "per_view" else 2)
        C = batch.counts.reshape(S * K, 2, D)[lay.unit_slot]
        Hv = H[:, None, :].expand(-1, 2, -1)
        mu = (C * Hv).sum(dim=dims, keepdim=True) / rows
        c = Hv - mu
        var = (C * c * c).sum(dim=dims, keepdim=True) / rows
        r = torch.rsqrt(var + BN_EPS)
        T = c * r
    else:
        T = H[:, None, :].expand(-1, 2, D)
    # the top layer's tables as in forward, each block (b, k) computed transposed, (2D, M)·(M, d_out): its rows
    # come out in table order (no copy), and the backward's products below read contiguous operands
    ts = [t.reshape(-1, M, 2 * D) for t, (M, _, _) in zip(torch.split(T, lay.group_units), lay.groups, strict=True)]
    ys = [torch.bmm(t.transpose(1, 2), V.view(-1, d_out, t.shape[1]).transpose(1, 2)).view(-1, d_out)
          for V, t in zip(Vs, ts, strict=True)]
    table = ys[0] if len(ys) == 1 else torch.cat(ys)  # rows ((b·K + k)·2 + v)·D + a
    index, (reads, starts) = _bag_index(batch, lay)
    z = torch.nn.functional.embedding_bag(index, table, mode="sum").view(-1, 2, N, d_out)
    loss, dz = _l2_losses_and_grad(z, proto, quadratic)
    # the transpose of the one-hot sum: table row r collects the output rows that read it
    dtable = torch.nn.functional.embedding_bag(reads, dz.reshape(-1, d_out), starts, mode="sum")
    dVs, dTs = [], []
    sizes = [u // M * 2 * D for u, (M, _, _) in zip(lay.group_units, lay.groups, strict=True)]  # B_g·K·2D table rows
    for V, t, (M, _, _), dy in zip(Vs, ts, lay.groups, torch.split(dtable, sizes), strict=True):
        dy = dy.view(-1, 2 * D, d_out)  # (B_g·K, 2D, d_out)
        dVs.append(torch.bmm(t, dy).transpose(1, 2).contiguous().view(V.shape))  # dVᵀ = T·dY per block (b, k)
        dTs.append(torch.bmm(V.view(-1, d_out, M).transpose(1, 2), dy.transpose(1, 2)).view(-1, 2, D))
    dT = dTs[0] if len(dTs) == 1 else torch.cat(dTs)
    if proto.bn:
        dc = dT * r
        var_bp = proto.var_backprop if lay.variant is None else lay.variant[1].view(-1, 1, 1)
        if var_bp is not False:
            dvar = (dT * c).sum(dim=dims, keepdim=True) * (-0.5 * r * r * r)
            dvar = dvar if var_bp is True else dvar * var_bp
            dc = dc + C * c * (2 * dvar / rows)
        mu_bp = proto.mu_backprop if lay.variant is None else lay.variant[0].view(-1, 1, 1)
        if mu_bp is not False:
            dmu = -dc.sum(dim=dims, keepdim=True)
            dmu = dmu if mu_bp is True else dmu * mu_bp
            dc = dc + C * (dmu / rows)
        dH = dc.sum(1)
    else:
        dH = dT.sum(1)
    dpre = dH * _activation_slope(pre, lay.kinds, lay.coeff)
    return loss, [dpre if mags is None else dpre * mags, *dVs]


def forward_one(W: torch.Tensor, V: torch.Tensor, tokens: torch.Tensor, mags: torch.Tensor, activation: str,
                proto: Protocol) -> torch.Tensor:
    """One network the way the authors' code computes it (the reference of the batched :func:`forward`): one-hot
    inputs x_k = ζ_a e_a per RF, f₁ = h(w_kmᵀx_k) on every row, BatchNorm on the rows (:func:`batch_norm`), z = Vf₁.
    W (K, M, D), V (d_out, K·M), tokens (2, N, K) → z (1, 2, N, d_out)."""
    x = torch.nn.functional.one_hot(tokens, D).to(W.dtype) * mags
    f = activate(torch.einsum("vnkd,kmd->vnkm", x, W).flatten(2), [activation], None)  # (2, N, K·M)
    if proto.bn:
        f = batch_norm(f.permute(2, 0, 1), proto).permute(1, 2, 0)
    return (f @ V.T)[None]


def training_cost(Ms: list[int], streams: int, proto: Protocol):
    """The :class:`~theorems.core.params.Cost` of training networks with these M on ``streams`` token streams with
    the table engine of :func:`forward`: U = K·ΣM units over D token values and 2 views (the tables autograd
    keeps), the top layers' tables (B·K·2D·d_out), outputs (B·2N·d_out), the per-network N×N similarities and a
    chunk of token ids; arithmetic ≈ 6 flop per multiply-add (forward and backward) of the top layers, the one-hot
    sums and the similarities, per step."""
    from ..core.params import Cost

    U, B, N = K * sum(Ms), len(Ms), proto.batch
    elements = (8 * U * 2 * D + 3 * B * K * 2 * D * proto.d_out + 4 * B * 2 * N * proto.d_out + 6 * B * N * N
                + 3 * CHUNK * streams * 2 * N * K + U * D)
    work = proto.steps * (6 * U * 2 * D * (proto.d_out + 4) + 6 * B * 2 * N * K * proto.d_out
                          + 6 * B * N * N * proto.d_out)
    return Cost(elements=float(elements), work=float(work))


@contextlib.contextmanager
def single_thread():
    """One intra-op thread for the duration: the tensors of these loops are small, and on a shared 2-core machine
    a second OpenMP thread only adds synchronisation (the earlier specialisation instance took 1.4 s with one thread,
    4–20 s with two). The caller's setting is restored."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train(gen: torch.Generator, tasks: TokenTasks, models: list[Model], proto: Protocol, device,
          log_every: int = 50, autograd: bool = False) -> Trained:
    """Train every network of ``models`` on its stream with ``proto``, as one tensor problem; all draws from the
    CPU generator ``gen`` (initialisations in model order, then the seed of the shared token stream). The result is
    in model order. The authors' protocol steps on the gradients :func:`losses_and_grads` writes out;
    ``autograd=True`` takes them from autograd instead (the reference and the benchmark's baseline; the suite's
    protocol has only this)."""
    with single_thread():
        return _train(gen, tasks, models, proto, device, log_every, autograd)


def _token_stream(data: torch.Generator, tasks: TokenTasks, proto: Protocol, device):
    """step → that step's :class:`Batch`, drawn CHUNK minibatches at a time (memory)."""
    cache: dict = {}

    def at(step: int) -> Batch:
        start = step - step % CHUNK
        if cache.get("start") != start:
            n = min(CHUNK, proto.steps - start)
            tok = sample_tokens(data, tasks, n, proto.batch, proto.independent_pairs).to(device)
            cache.update(start=start, batch=make_batches(tok))
        b, i = cache["batch"], step - start
        return Batch(b.counts[i], b.keys[i], b.reads[i], b.n)

    return at


def _train(gen, tasks, models, proto, device, log_every, autograd=False) -> Trained:
    inits = init_weights(gen, models, proto.d_out)
    data_seed = int(torch.randint(2**62, (1,), generator=gen, device="cpu"))
    lay = layout(models, proto, device)
    sorted_models = [models[i] for i in lay.order]
    # the authors' protocol has its gradients written out (losses_and_grads: no graph); the suite's, autograd's
    written = proto.similarity == "l2_dot" and not autograd
    W = torch.cat([inits[i][0].reshape(-1, D) for i in lay.order]).to(device).requires_grad_(not written)
    # V of a group (B_g, K, d_out, M): the layout of the bmm; SGD is elementwise, so layout changes nothing
    Vs = [torch.stack([inits[i][1].permute(1, 0, 2) for i in lay.order[first:last]]).contiguous().to(device)
          .requires_grad_(not written) for _, first, last in lay.groups]
    quad = [m.loss == "quadratic" for m in sorted_models]
    # one loss for all: a Python flag (no per-step test of a tensor)
    quadratic = quad[0] if len(set(quad)) == 1 else torch.tensor(quad, device=device)
    mags = None if bool((tasks.mags == 1).all()) else tasks.mags.to(TRAIN_DTYPE)
    batch = _token_stream(torch.Generator(device="cpu").manual_seed(data_seed), tasks, proto, device)

    def losses(step):
        if written:
            return losses_and_grads(W, Vs, batch(step), mags, lay, proto, quadratic)
        return contrastive_losses(forward(W, Vs, batch(step), mags, lay, proto), proto, quadratic)

    logged, _ = sgd_program([W, *Vs], losses, proto.steps, lr=proto.lr, momentum=proto.momentum,
                            weight_decay=proto.weight_decay, log_every=log_every)
    W0 = torch.cat([inits[i][0].reshape(-1, D) for i in lay.order]).to(device)
    return unsort(W.detach(), W0, logged, lay, models, device)


def train_each(gen: torch.Generator, tasks: TokenTasks, models: list[Model], proto: Protocol, device,
               log_every: int = 50) -> Trained:
    """The per-network loop: the same draws as :func:`train` (initialisations, then the token stream), each network
    trained alone by :func:`forward_one` with its own optimiser. The reference of the batched engine (same numbers
    up to float32 summation order) and the baseline of benchmarks/bench_batched_training.py."""
    from dataclasses import replace

    with single_thread():
        inits = init_weights(gen, models, proto.d_out)
        data_seed = int(torch.randint(2**62, (1,), generator=gen, device="cpu"))
        data = torch.Generator(device="cpu").manual_seed(data_seed)
        tokens = torch.cat([sample_tokens(data, tasks, min(CHUNK, proto.steps - s), proto.batch,
                                          proto.independent_pairs) for s in range(0, proto.steps, CHUNK)]).to(device)
        mags = tasks.mags.to(TRAIN_DTYPE)
        nets, Ws = [], []
        for m, (W0, V0) in zip(models, inits, strict=True):
            W, V = W0.clone().to(device).requires_grad_(True), V0.reshape(proto.d_out, -1).clone().to(device)
            V.requires_grad_(True)
            mu, var = m.bn_variant or (proto.mu_backprop, proto.var_backprop)
            own = replace(proto, mu_backprop=mu, var_backprop=var)
            quad = torch.tensor([m.loss == "quadratic"], device=device)
            nets.append(([W, V], lambda s, W=W, V=V, m=m, own=own, quad=quad: contrastive_losses(
                forward_one(W, V, tokens[s, m.stream], mags, m.activation, own), own, quad)))
            Ws.append(W)
        logged, _ = sgd_each(nets, proto.steps, lr=proto.lr, momentum=proto.momentum,
                             weight_decay=proto.weight_decay, log_every=log_every)
    # the layout of unsort: units in model order
    lay = layout(models, proto, device)
    W = torch.cat([Ws[i].detach().reshape(-1, D) for i in lay.order])
    W0 = torch.cat([inits[i][0].reshape(-1, D) for i in lay.order]).to(device)
    return unsort(W, W0, logged[:, lay.order], lay, models, device)


def unsort(W: torch.Tensor, W0: torch.Tensor, losses: torch.Tensor, lay: Layout, models: list[Model],
           device) -> Trained:
    """Back to model order, the filters padded to (B, K, M_max, d) for the scores."""
    B, Mmax = len(models), max(m.M for m in models)
    Wp = torch.zeros(2, B, K, Mmax, D, dtype=TRAIN_DTYPE, device=device)
    mask = torch.zeros(B, Mmax, dtype=torch.bool, device=device)
    L = torch.zeros(losses.shape[0], B, dtype=TRAIN_DTYPE, device=device)
    lo = 0
    for j, i in enumerate(lay.order):
        M = models[i].M
        Wp[0, i, :, :M] = W[lo:lo + K * M].view(K, M, D)
        Wp[1, i, :, :M] = W0[lo:lo + K * M].view(K, M, D)
        mask[i, :M] = True
        L[:, i] = losses[:, j]
        lo += K * M
    finite = bool(torch.isfinite(W).all() and torch.isfinite(losses).all())
    return Trained(Wp[0], Wp[1], mask, L, finite)
