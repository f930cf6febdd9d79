"""Finite populations for paper 003: classes with finite clean point sets and finite weighted view sets.

A :class:`Population` is N clean points (uniform weight 1/N) with labels, and for every point a finite set
of m views with weights summing to one. Every expectation in paper 003 (σ, δ, R_ε, alignment, class centres,
the nearest-centre error) is then a finite sum, computed exactly.

Generators (all draws from ``ctx`` so a seed fixes the instance on every device):

* :func:`sphere_population`: points on S^{d−1}, meant for the identity encoder (r = 1,
  L = 1). Modes ``clustered``, ``bad_aligned``, ``hub`` (same-class points share a view, d_A = 0) are the
  random ones; ``antipodal_bad`` is the adversarial construction for Theorem 2's proof step 3 (each bad point shares one hub
  view with its class and has every other view at −u: it sits exactly on the edge of the corrected ρ_max and
  breaks the printed proof step); ``merged`` puts two classes on one centre (negative control).
* :func:`style_content_population` (the style–content harness): x = [content, style]; views replace the style by a shared
  bank of templates with strength s ∈ [0, 1] (the analogue of colour-distortion strength).
The rare-far-view counterexample to Theorem 1 as printed is built on top of these by
``theorems.cl_generalization.theorem_1.with_far_view``.

``identity_view=False`` drops the clean point from its own view set (the hidden hypothesis x ∈ A(x) of Theorem 2);
a class size 0 makes an empty class. Results refuse both unless asked for a negative control.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

SPHERE_MODES = ("clustered", "bad_aligned", "hub", "partial_hub", "antipodal_bad", "merged")
RANDOM_SPHERE_MODES = ("clustered", "bad_aligned", "hub")
VIEW_WEIGHTS = ("uniform", "dirichlet")
# partial_hub: how far (before normalising) the points without the shared view sit from their class centre.
ATYPICAL_SHIFT = 1.0


@dataclass
class Population:
    clean: torch.Tensor  # (N, D) the clean points x
    views: torch.Tensor  # (N, m, D) the view sets A(x)
    view_w: torch.Tensor  # (N, m) view weights, each row sums to 1
    labels: torch.Tensor  # (N,) class of each point, 0..K−1
    K: int
    identity_view: bool  # views[:, 0] == clean

    @property
    def N(self) -> int:
        return int(self.clean.shape[0])

    @property
    def m(self) -> int:
        return int(self.views.shape[1])

    def class_sizes(self) -> torch.Tensor:
        return torch.bincount(self.labels, minlength=self.K)

    def p(self) -> torch.Tensor:
        """Class masses p_k = n_k / N."""
        return self.class_sizes().to(self.clean.dtype) / self.N


def parse_sizes(text: str) -> list[int]:
    """'6,6,4' -> [6, 6, 4]; raises ValueError on anything else."""
    parts = [t.strip() for t in str(text).split(",")]
    if not parts or any(not t.lstrip("-").isdigit() for t in parts):
        raise ValueError(f"sizes must be comma-separated integers, got {text!r}")
    return [int(t) for t in parts]


def _labels(sizes: list[int], device) -> torch.Tensor:
    return torch.cat([torch.full((n,), k, dtype=torch.long, device=device) for k, n in enumerate(sizes)])


def _first_of_class(y: torch.Tensor, sizes: list[int], frac: float) -> torch.Tensor:
    """(N,) bool: the first round(frac·n_k) points of every class k (at least one when frac > 0)."""
    out = torch.zeros(len(y), dtype=torch.bool, device=y.device)
    start = 0
    for n in sizes:
        count = min(n, max(1, int(round(frac * n)))) if frac > 0 else 0
        out[start:start + count] = True
        start += n
    return out


def _normalize(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True).clamp_min(1e-300)


def _view_weights(ctx, N: int, m: int, weights: str) -> torch.Tensor:
    if weights == "uniform":
        return torch.full((N, m), 1.0 / m, dtype=ctx.dtype, device=ctx.device)
    # Dirichlet(1) by normalised exponentials, floored so that w_min stays away from 0 (Theorem 1 divides by it).
    e = -torch.log(ctx.rand(N, m).clamp_min(1e-12)) + 0.2
    return e / e.sum(dim=1, keepdim=True)


def centres(ctx, K: int, d: int, layout: str) -> torch.Tensor:
    """(K, d) unit class centres: 'structured' = antipodal (K=2) or 120° (K=3) in the first two coordinates,
    orthonormal for K > 3 when d ≥ K; 'orthogonal' = e_1..e_K; 'random' = uniform on the sphere."""
    # built on the CPU (device named, so that a caller's default device does not capture it), then moved
    c = torch.zeros(K, d, dtype=ctx.dtype, device="cpu")
    diag = torch.arange(K, device="cpu")
    if layout == "orthogonal" and d >= K:
        c[diag, diag] = 1.0
    elif layout == "structured" and K <= 3 and d >= 2:
        for k in range(K):
            ang = 2 * math.pi * k / K
            c[k, 0], c[k, 1] = math.cos(ang), math.sin(ang)
    elif layout == "structured" and d >= K:
        c[diag, diag] = 1.0
    else:
        c = _normalize(ctx.randn(K, d).cpu())
    return c.to(ctx.device)


def sphere_population(ctx, sizes: list[int], d: int, m: int, mode: str = "clustered", *, noise: float = 0.1,
                      view_noise: float = 0.05, bad_frac: float = 0.2, weights: str = "uniform",
                      layout: str = "structured", identity_view: bool = True,
                      centre_cos: float = 0.0) -> Population:
    """The sphere harness: unit-norm points and views (identity encoder, r = 1, L = 1).

    ``centre_cos`` (``antipodal_bad`` only): the cosine between the first two class centres, which moves
    μ_0ᵀμ_1 towards the divergence threshold of Theorem 2 (0 = orthogonal, the construction as published)."""
    K, N = len(sizes), sum(sizes)
    if mode == "antipodal_bad":
        layout = "orthogonal" if d >= K else layout
    C = centres(ctx, K, d, layout)
    if mode == "antipodal_bad" and K >= 2 and d >= K and centre_cos != 0.0:
        C[1] = centre_cos * C[0] + math.sqrt(max(0.0, 1 - centre_cos ** 2)) * C[1]
    if mode == "merged" and K >= 2:
        C[1] = C[0]
    y = _labels(sizes, ctx.device)
    clean = _normalize(C[y] + noise * ctx.randn(N, d))
    views = _normalize(clean[:, None, :] + view_noise * ctx.randn(N, m, d))
    views[:, 0] = clean
    u = ctx.rand(N)  # which points are 'bad'
    if mode == "bad_aligned":
        bad = u < bad_frac
        kind = (ctx.rand(N) * 3).floor().long()
        other = C[(y + 1) % K]
        rnd = _normalize(ctx.randn(N, d))
        target = torch.where((kind == 0)[:, None], -clean, torch.where((kind == 1)[:, None], other, rnd))
        # the bad point keeps its identity view; its other views sit at the target (misaligned positives)
        views[bad, 1:] = _normalize(target[bad, None, :] + view_noise * ctx.randn(int(bad.sum()), m - 1, d)) \
            if m > 1 else views[bad, 1:]
    elif mode in ("hub", "partial_hub") and m > 1:
        hub = _normalize(C + noise * ctx.randn(K, d))
        # partial_hub: the first round(bad_frac·n_k) points of each class keep their own last view instead of
        # the hub, so σ(0) = 1 − that fraction (the main part at δ = 0 is the points that share the hub)
        shares = torch.ones(N, dtype=torch.bool, device=ctx.device) if mode == "hub" else ~_first_of_class(
            y, sizes, bad_frac)
        if mode == "partial_hub":  # the points without the shared view are atypical members of their class
            off = ~shares
            n_off = int(off.sum())
            clean[off] = _normalize(C[y[off]] + ATYPICAL_SHIFT * ctx.randn(n_off, d))
            views[off] = _normalize(clean[off][:, None, :] + view_noise * ctx.randn(n_off, m, d))
        views[shares, m - 1] = hub[y[shares]]
    elif mode == "antipodal_bad":
        # the adversarial population of Theorem 2's proof erratum: good points have every view at the centre u_k; a bad point of class 0 has its identity
        # and m−2 views at −u_0 and one hub view at u_0, so d_A(bad, good) = 0 and σ = 1 at δ = 0.
        clean = C[y].clone()
        views = clean[:, None, :].repeat(1, m, 1)
        first = torch.nonzero(y == 0).flatten()
        n_bad = max(1, int(round(bad_frac * len(first)))) if len(first) > 1 else 0
        for i in first[len(first) - n_bad:].tolist():
            clean[i] = -C[0]
            views[i, :] = -C[0]
            views[i, m - 1] = C[0]
    vw = _view_weights(ctx, N, m, weights)
    views[:, 0] = clean
    if not identity_view and m > 1:
        views, vw = views[:, 1:], vw[:, 1:] / vw[:, 1:].sum(dim=1, keepdim=True)
        # the identity view dropped: without x ∈ A(x) nothing ties the clean point to its views; a bad_frac fraction of
        # clean points sits at the next class's centre while their views stay home
        moved = ctx.rand(N) < bad_frac
        clean = torch.where(moved[:, None], _normalize(C[(y + 1) % K] + noise * ctx.randn(N, d)), clean)
    return Population(clean, views.contiguous(), vw, y, K, identity_view or m == 1)


def style_content_population(ctx, sizes: list[int], m: int, strength: float, *, Dc: int = 4, Ds: int = 6,
                             separation: float = 3.0, noise: float = 0.3, style_scale: float = 1.0,
                             jitter: float = 0.1, outlier_frac: float = 0.1, outlier_noise: float = 2.0,
                             weights: str = "uniform", identity_view: bool = True) -> Population:
    """The style–content harness: x = [c_k + ξ, z]; view j ≥ 1 is [c_k + ξ + jitter·Ξ_j, (1−s)z + s·T_j] with a template bank
    (T_j, Ξ_j) shared by all points, so stronger augmentation s pulls same-class views together (d_A falls in s)."""
    K, N = len(sizes), sum(sizes)
    y = _labels(sizes, ctx.device)
    C = separation * centres(ctx, K, Dc, "structured")
    scale = torch.where(ctx.rand(N) < outlier_frac, outlier_noise, noise)[:, None]
    content = C[y] + scale * ctx.randn(N, Dc)
    style = style_scale * ctx.randn(N, Ds)
    T = style_scale * ctx.randn(m, Ds)
    Xi = ctx.randn(m, Dc)
    views = torch.empty(N, m, Dc + Ds, dtype=ctx.dtype, device=ctx.device)
    views[:, :, :Dc] = content[:, None, :] + jitter * Xi[None]
    views[:, :, Dc:] = (1 - strength) * style[:, None, :] + strength * T[None]
    clean = torch.cat([content, style], dim=1)
    views[:, 0] = clean
    vw = _view_weights(ctx, N, m, weights)
    if not identity_view and m > 1:
        views, vw = views[:, 1:], vw[:, 1:] / vw[:, 1:].sum(dim=1, keepdim=True)
    return Population(clean, views.contiguous(), vw, y, K, identity_view or m == 1)



def nuisance_block_population(ctx, sizes: list[int], m: int, scales: list[float], transforms: list[int], *,
                              Dc: int = 4, Db: int = 3, separation: float = 3.0, noise: float = 0.3,
                              jitter: float = 0.1, strength: float = 1.0, content_transform: bool = False,
                              weights: str = "uniform") -> Population:
    """Compositions of augmentations (the analogue of the slides' pairwise compositions of transformations):
    x = [c_k + ξ, z_1, …, z_B] with B nuisance blocks of Db coordinates, z_b ~ scales[b]·N(0, I) per point (the
    within-class variation a transformation can remove). View j ≥ 1 replaces every block b in ``transforms`` by
    (1 − s)z_b + s·T_{j,b}, a template bank shared by all points (so the transformed blocks of two points' j-th
    views coincide at s = 1), and jitters the content by ``jitter``·Ξ_j; view 0 is x. The draws do not depend on
    ``transforms``: every composition of one seed acts on the same points and template bank.

    ``content_transform=True`` makes the composition also replace the content by templates (a transformation
    that does not preserve the class: a negative control)."""
    K, N, B = len(sizes), sum(sizes), len(scales)
    y = _labels(sizes, ctx.device)
    C = separation * centres(ctx, K, Dc, "structured")
    content = C[y] + noise * ctx.randn(N, Dc)
    scale = torch.tensor([float(v) for v in scales], dtype=ctx.dtype, device=ctx.device)
    blocks = ctx.randn(N, B, Db) * scale[None, :, None]
    T = ctx.randn(m, B, Db) * scale[None, :, None]
    Xi = ctx.randn(m, Dc)
    T_content = separation * ctx.randn(m, Dc)
    chosen = torch.zeros(B, dtype=torch.bool, device=ctx.device)
    chosen[list(transforms)] = True
    view_blocks = torch.where(chosen[None, None, :, None], (1 - strength) * blocks[:, None] + strength * T[None],
                              blocks[:, None].expand(N, m, B, Db))
    view_content = content[:, None, :] + jitter * Xi[None]
    if content_transform:
        view_content = (1 - strength) * content[:, None, :] + strength * T_content[None]
    views = torch.cat([view_content, view_blocks.reshape(N, m, B * Db)], dim=-1)
    clean = torch.cat([content, blocks.reshape(N, B * Db)], dim=1)
    views[:, 0] = clean
    return Population(clean, views.contiguous(), _view_weights(ctx, N, m, weights), y, K, True)


def held_out(pop: Population, n_train: int) -> tuple[Population, torch.Tensor, torch.Tensor]:
    """(training population, held-out clean points, their labels): the first ``n_train`` points of every class
    train, the rest are a test set (the slides evaluate on held-out data; its clean points need no views)."""
    train = torch.cat([torch.nonzero(pop.labels == k).flatten()[:n_train] for k in range(pop.K)])
    test = torch.cat([torch.nonzero(pop.labels == k).flatten()[n_train:] for k in range(pop.K)])
    kept = Population(pop.clean[train], pop.views[train], pop.view_w[train], pop.labels[train], pop.K,
                      pop.identity_view)
    return kept, pop.clean[test], pop.labels[test]


def binding_cosine(n: int, m: int) -> float:
    """c* of the adversarial family: the cosine of the first two class centres at which the printed condition of
    paper 003's Theorem 2 stops holding (σ = 1, δ = ε = 0, R_ε = 1/(Kn), ρ_max = 1/n, μ_0 = a₀u_0, μ_1 = u_1)."""
    a0 = 1 - (2 - 2 / m) / n
    return (1 - 1 / n - math.sqrt(2 / n) - (1 - a0 ** 2) / 2) / a0
