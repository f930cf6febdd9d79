"""Unions of subspaces: the data model of paper 000 (Deep Fusion), batched over instances.

* ``random_subspaces(ctx, B, m, K, r, arrangement, angle)``: (B, K, m, r) orthonormal bases of K subspaces
  of dimension r in R^m.
  - ``"random"``: independent Gaussian bases (generically independent when K·r ≤ m);
  - ``"angle"``: every pair of subspaces has all principal angles equal to ``angle`` (radians). K = 2 needs
    m ≥ 2r (U₂ = cos θ U₁ + sin θ U₁^⊥); K ≥ 3 needs m ≥ (K+1)r (U_c = cos α B₀ + sin α B_c with a shared
    block B₀ and cos²α = cos θ);
  - ``"dependent"``: the last subspace lies in the sum of the first two (column j is
    (U₁e_j + U₂e_j)/√2 orthonormalised), so independence fails however large m is (needs K ≥ 3).
  A Haar-random rotation of R^m hides the coordinates.
* ``sample_union(ctx, bases, sizes, signs)``: unit rows x = U_c a/‖U_c a‖ with a = |g| + 0.2 (``"cone"``,
  sign-consistent: x_iᵀ(U_c 1) > 0 inside a cluster) or a = g (``"arbitrary"`` signs).
* ``add_noise(ctx, X, eps, mode)``: the paper's noise model (eq. 6): unit x̃ = cos θ x + sin θ e with e ⟂ x
  unit, so x̃ᵀx = cos θ ≥ 1 − ε when θ ≤ φ = arccos(1 − ε). Modes: θ ~ U[0, φ] with random e (``"random"``),
  θ = φ with random e (``"exact"``), θ = φ with e toward ± a given direction (``"toward"``).
* ``effective_eps(X, X̃)`` = 1 − min_i x_iᵀx̃_i: what the noise really used, to be measured, not assumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .frames import random_orthogonal

ARRANGEMENTS = ("random", "angle", "dependent")
SIGNS = ("cone", "arbitrary")
NOISE_MODES = ("random", "exact", "toward")
CONE_OFFSET = 0.2  # a = |g| + 0.2 keeps every cone sample a safe distance inside the positive orthant


def cluster_sizes(K: int, nu: int, imbalance: int = 0) -> tuple[int, ...]:
    """ν_c = nu + c·imbalance for c = 0..K−1."""
    return tuple(nu + c * imbalance for c in range(K))


def labels_from_sizes(sizes, *, device=None) -> torch.Tensor:
    return torch.repeat_interleave(torch.arange(len(sizes), device=device), torch.tensor(sizes, device=device))


def orthonormalise(U: torch.Tensor) -> torch.Tensor:
    """Orthonormal basis of the columns' span (batched QR with the sign fix, so it is deterministic)."""
    q, r = torch.linalg.qr(U)
    s = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))
    s = torch.where(s == 0, torch.ones_like(s), s)
    return q * s.unsqueeze(-2)


def angle_arrangement_dim(K: int, r: int) -> int:
    """Smallest m for which ``arrangement='angle'`` can be built."""
    return 2 * r if K == 2 else (K + 1) * r


def random_subspaces(ctx, B: int, m: int, K: int, r: int, arrangement: str = "random",
                     angle: float | None = None) -> torch.Tensor:
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"arrangement must be one of {ARRANGEMENTS}, got {arrangement!r}")
    if arrangement == "random":
        return orthonormalise(ctx.randn(B, K, m, r))
    if arrangement == "dependent":
        if K < 3:
            raise ValueError("a dependent arrangement needs K ≥ 3 (the last subspace inside the sum of two others)")
        U = orthonormalise(ctx.randn(B, K - 1, m, r))
        last = orthonormalise((U[:, 0] + U[:, 1]) / math.sqrt(2)).unsqueeze(1)
        return torch.cat([U, last], dim=1)
    if angle is None:
        raise ValueError("arrangement='angle' needs the principal angle")
    need = angle_arrangement_dim(K, r)
    if m < need:
        raise ValueError(f"arrangement='angle' with K={K}, r={r} needs m ≥ {need}, got m={m}")
    eye = torch.eye(m, dtype=ctx.dtype, device=ctx.device)
    blocks = [eye[:, i * r:(i + 1) * r] for i in range(need // r)]
    if K == 2:
        U = torch.stack([blocks[0], math.cos(angle) * blocks[0] + math.sin(angle) * blocks[1]])
    else:
        alpha = math.acos(math.sqrt(max(math.cos(angle), 0.0)))
        U = torch.stack([math.cos(alpha) * blocks[0] + math.sin(alpha) * blocks[c + 1] for c in range(K)])
    Q = torch.stack([random_orthogonal(ctx, m) for _ in range(B)])  # (B, m, m)
    return torch.einsum("bij,kjr->bkir", Q, U)


def sample_union(ctx, bases: torch.Tensor, sizes, signs: str = "cone") -> torch.Tensor:
    """(B, n, m) unit rows, cluster c's rows spanning (a cone in) subspace c, ordered cluster by cluster."""
    if signs not in SIGNS:
        raise ValueError(f"signs must be one of {SIGNS}, got {signs!r}")
    B, K, m, r = bases.shape
    labels = labels_from_sizes(sizes, device=bases.device)
    a = ctx.randn(B, int(sum(sizes)), r)
    if signs == "cone":
        a = a.abs() + CONE_OFFSET
    X = torch.einsum("bnmr,bnr->bnm", bases[:, labels], a)
    return X / X.norm(dim=-1, keepdim=True)


@dataclass
class SubspaceBatch:
    """B instances sharing one shape: unit rows X (B, n, m), labels (n,), bases (B, K, m, r)."""

    X: torch.Tensor
    labels: torch.Tensor
    bases: torch.Tensor
    sizes: tuple[int, ...]

    @property
    def B(self) -> int:
        return self.X.shape[0]

    @property
    def K(self) -> int:
        return len(self.sizes)

    @property
    def n(self) -> int:
        return self.X.shape[1]

    @property
    def m(self) -> int:
        return self.X.shape[2]

    @property
    def nu(self) -> torch.Tensor:
        """ν_i: the size of x_i's cluster, itself included (n,)."""
        return torch.tensor(self.sizes, dtype=self.X.dtype, device=self.X.device)[self.labels]

    @property
    def same(self) -> torch.Tensor:
        """(n, n) bool: x_i, x_j in the same cluster."""
        return self.labels[:, None] == self.labels[None, :]


def subspace_instances(ctx, B: int, m: int, K: int, r: int, sizes, arrangement: str = "random",
                       angle: float | None = None, signs: str = "cone") -> SubspaceBatch:
    bases = random_subspaces(ctx, B, m, K, r, arrangement, angle)
    X = sample_union(ctx, bases, sizes, signs)
    return SubspaceBatch(X, labels_from_sizes(sizes, device=X.device), bases, tuple(int(s) for s in sizes))


def from_rows(rows, labels, bases, *, ctx) -> SubspaceBatch:
    """A single hand-made instance (B = 1): rows are normalised; bases is a list of (m, r_c) arrays (r_c equal)."""
    X = ctx.tensor(rows)
    X = (X / X.norm(dim=-1, keepdim=True)).unsqueeze(0)
    lab = torch.as_tensor(labels, device=ctx.device)
    K = int(lab.max()) + 1
    sizes = tuple(int((lab == c).sum()) for c in range(K))
    U = torch.stack([orthonormalise(ctx.tensor(b).reshape(X.shape[-1], -1)) for b in bases]).unsqueeze(0)
    return SubspaceBatch(X, lab, U, sizes)


def principal_angles(U1: torch.Tensor, U2: torch.Tensor) -> torch.Tensor:
    """Principal angles (radians, ascending) between the spans of orthonormal U1, U2 (batched)."""
    s = torch.linalg.svdvals(U1.transpose(-1, -2) @ U2).clamp(-1.0, 1.0)
    return torch.arccos(s)


def _unit_perp(ctx, X: torch.Tensor, direction: torch.Tensor | None) -> torch.Tensor:
    """A unit e ⟂ x for each row: the given direction's (or a Gaussian's) component orthogonal to x."""
    g = ctx.randn(*X.shape) if direction is None else direction.expand_as(X).clone()
    e = g - (g * X).sum(-1, keepdim=True) * X
    return e / e.norm(dim=-1, keepdim=True).clamp_min(1e-300)


def add_noise(ctx, X: torch.Tensor, eps: float, mode: str = "random",
              direction: torch.Tensor | None = None) -> torch.Tensor:
    """Unit noisy rows x̃ with x̃ᵀx = cos θ ≥ 1 − ε (eq. 6); see the module docstring for the modes.

    ``direction`` (broadcastable to X) is required for ``mode='toward'``; its sign per row is random.
    """
    if mode not in NOISE_MODES:
        raise ValueError(f"noise mode must be one of {NOISE_MODES}, got {mode!r}")
    phi = math.acos(1.0 - eps)
    if mode == "random":
        theta = phi * ctx.rand(*X.shape[:-1], 1)
        e = _unit_perp(ctx, X, None)
    else:
        theta = torch.full((*X.shape[:-1], 1), phi, dtype=X.dtype, device=X.device)
        if mode == "toward":
            if direction is None:
                raise ValueError("mode='toward' needs a direction")
            sign = torch.where(ctx.rand(*X.shape[:-1], 1) < 0.5, -1.0, 1.0).to(X.dtype)
            e = _unit_perp(ctx, X, direction * sign)
        else:
            e = _unit_perp(ctx, X, None)
    Xt = torch.cos(theta) * X + torch.sin(theta) * e
    return Xt / Xt.norm(dim=-1, keepdim=True)


def effective_eps(X: torch.Tensor, Xt: torch.Tensor) -> torch.Tensor:
    """1 − min_i x_iᵀx̃_i per instance (the ε the noisy sample really satisfies)."""
    return 1.0 - (X * Xt).sum(-1).min(dim=-1).values
