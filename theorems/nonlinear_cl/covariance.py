"""The contrastive covariance A(w) = C_α[x̃ʷ] of the gated input x̃ʷ = x·h'(wᵀx) (paper 001 §1.4).

Setting of the closed forms (§1.4 and Corollary 1 of the paper): uniform α, no augmentation, N → ∞, so
C_α = 𝕍 (the covariance) and A(w) = 𝔼[x̃x̃ᵀ] − 𝔼x̃ 𝔼x̃ᵀ. Activations are homogeneous (h = h'·x):
``relu`` (h'(0) = 0, the paper's convention, B.1), ``linear``, and ``leaky`` with slope ``a`` for x < 0,
i.e. h'(s) = a + (1 − a)·1[s > 0]; linear is a = 1 and ReLU a = 0.

Everything is batched over filters: W has shape (B, d) and A(W) shape (B, d, d).

* :func:`A_discrete`: exact enumeration over atoms (categorical, summation, finite samples).
* :func:`A_mixture`: the Gaussian-mixture closed form (half-space moments of each Gaussian component).
* :func:`roughness_D_mixture`: the derivative D = ∂_u[A(v)w_*] for ReLU/leaky on a mixture,
  D = −(1 − a)·𝔼[h(w_*ᵀx)]·M with M the plane measure ∫_{wᵀx=0} xxᵀ p dS (derived for fixed α, no augmentation;
  checked against finite differences in tests/).
* :func:`contrastive_covariance`: eq. (3) on a finite batch with two views and any fixed α, the Monte
  Carlo estimator from which the closed forms are cross-checked (tests/).
* :func:`roughness_fd`: D by central finite differences on the sphere, for any A(·).
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from ..core.errors import HypothesisViolation
from ..data.latents import Discrete, GaussianMixture

ACTIVATIONS = ("relu", "linear", "leaky")

AFn = Callable[[torch.Tensor], torch.Tensor]

# ‖w‖ = 1 up to rounding of a normalisation (a few ulps), with room for accumulated Euler/PI round-off.
UNIT_TOL = 1e-9


def check_filters(W: torch.Tensor, d: int) -> None:
    """Refuse filters that are not a (B, d) batch of unit vectors: A(w) is defined on the unit sphere."""
    if W.dim() != 2 or W.shape[1] != d:
        raise HypothesisViolation("w ∈ ℝ^d matches the data dimension", f"filters must have shape (B, {d}), got "
                                  f"{tuple(W.shape)}", values={"shape": tuple(W.shape), "d": d}, bypassable=False)
    dev = float((W.norm(dim=1) - 1).abs().max()) if W.shape[0] else 0.0
    if not dev <= UNIT_TOL:
        raise HypothesisViolation("‖w‖₂ = 1 (filters on the unit sphere)", f"max |‖w‖ − 1| = {dev:.3g}",
                                  values={"max_norm_deviation": dev}, bypassable=False)


def slope_of(activation: str, leak: float = 0.0) -> float:
    """The negative-side slope a of the homogeneous activation (ReLU 0, linear 1, leaky ``leak``)."""
    if activation == "relu":
        return 0.0
    if activation == "linear":
        return 1.0
    if activation == "leaky":
        return float(leak)
    raise ValueError(f"unknown activation {activation!r}: one of {ACTIVATIONS}")


def gate(s: torch.Tensor, a: float, h_prime_at_zero: float = 0.0) -> torch.Tensor:
    """h'(s) = a + (1 − a)·1[s > 0], with h'(0) = ``h_prime_at_zero`` for the kinked activations (a < 1)."""
    g = a + (1 - a) * (s > 0).to(s.dtype)
    if a != 1.0 and h_prime_at_zero != 0.0:
        g = torch.where(s == 0, torch.full_like(s, h_prime_at_zero), g)
    return g


def h(s: torch.Tensor, a: float) -> torch.Tensor:
    """The activation itself, h(s) = h'(s)·s."""
    return torch.where(s > 0, s, a * s)


# ------------------------------------------------------------------------------------------------------
# Discrete distributions: exact enumeration
# ------------------------------------------------------------------------------------------------------
def A_discrete(data: Discrete, W: torch.Tensor, a: float = 0.0, h_prime_at_zero: float = 0.0) -> torch.Tensor:
    """A(w) for each row of W (B, d): the covariance of x·h'(wᵀx) under the atoms' probabilities."""
    X, p = data.atoms, data.probs
    check_filters(W, X.shape[1])
    G = gate(W @ X.T, a, h_prime_at_zero)  # (B, n)
    Gp = G * p
    e = Gp @ X  # (B, d)
    E2 = torch.einsum("bn,ni,nj->bij", G * Gp, X, X)
    return E2 - e[:, :, None] * e[:, None, :]


def kink_margin(data: Discrete, W: torch.Tensor) -> torch.Tensor:
    """min over atoms of |wᵀx|/‖x‖ (atoms at 0 are ignored): 0 means an atom lies on the gating plane."""
    X = data.atoms
    norms = X.norm(dim=1)
    keep = (norms > 0) & (data.probs > 0)
    S = (W @ X[keep].T).abs() / norms[keep]
    return S.min(dim=1).values


# ------------------------------------------------------------------------------------------------------
# Gaussian mixtures: closed form
# ------------------------------------------------------------------------------------------------------
_SQRT2PI = math.sqrt(2 * math.pi)


def _gauss_projection(gm: GaussianMixture, W: torch.Tensor):
    """Per filter and component, s = wᵀx ~ N(μ, σ²): μ, σ, a = μ/σ, Φ(a), φ(a) and k = Σw/σ (B, C, d)."""
    m, S = gm.means, gm.covs  # (C, d), (C, d, d)
    check_filters(W, m.shape[1])
    mu = W @ m.T  # (B, C)
    Sw = (S @ W.T).permute(2, 0, 1)  # (B, C, d): Σ_c w
    sig = torch.sqrt((Sw * W[:, None, :]).sum(-1))
    al = mu / sig
    return mu, sig, al, torch.special.ndtr(al), torch.exp(-0.5 * al * al) / _SQRT2PI, Sw / sig[..., None]


def _half_space_first_second(gm: GaussianMixture, W: torch.Tensor):
    """𝔼[x 1{s>0}] (B, d) and 𝔼[xxᵀ 1{s>0}] (B, d, d), summed over components (s = wᵀx). Broadcasting and matmul
    rather than einsum: these run once per step of every flow and power iteration, on small batches."""
    m, S, pi = gm.means, gm.covs, gm.weights
    _, _, al, Phi, phi, k = _gauss_projection(gm, W)
    Pw, pw, apw = Phi * pi, phi * pi, al * phi * pi  # (B, C): the mixture weights folded in
    e1 = Pw @ m + (pw[..., None] * k).sum(1)
    mmS = m[:, :, None] * m[:, None, :] + S  # (C, d, d)
    E2 = (Pw @ mmS.reshape(len(pi), -1)).reshape(-1, m.shape[1], m.shape[1])
    pk = pw[..., None] * k  # (B, C, d)
    cross = pk.transpose(1, 2) @ m[None].expand(len(W), -1, -1)  # Σ_c φπ k mᵀ (B, d, d)
    E2 = E2 + cross + cross.transpose(1, 2) - (apw[..., None] * k).transpose(1, 2) @ k
    return e1, E2


def _half_space_moments(gm: GaussianMixture, W: torch.Tensor):
    """Per filter: P[s>0], 𝔼[x 1{s>0}], 𝔼[xxᵀ 1{s>0}], 𝔼[s⁺], and the plane measure M, summed over components
    with the mixture weights (s = wᵀx)."""
    m, S, pi = gm.means, gm.covs, gm.weights  # (C,d), (C,d,d), (C,)
    mu, sig, al, Phi, phi, k = _gauss_projection(gm, W)
    e1, E2 = _half_space_first_second(gm, W)
    relu_c = mu * Phi + sig * phi
    r = m - al[..., None] * k  # (B, C, d)
    M_c = (phi / sig)[..., None, None] * (r[..., :, None] * r[..., None, :] + S - k[..., :, None] * k[..., None, :])
    return Phi @ pi, e1, E2, relu_c @ pi, torch.einsum("bcij,c->bij", M_c, pi)


def mixture_moments(gm: GaussianMixture) -> tuple[torch.Tensor, torch.Tensor]:
    """𝔼x and 𝔼[xxᵀ] of the mixture."""
    m, S, pi = gm.means, gm.covs, gm.weights
    return pi @ m, torch.einsum("c,cij->ij", pi, m[:, :, None] * m[:, None, :] + S)


def A_mixture(gm: GaussianMixture, W: torch.Tensor, a: float = 0.0) -> torch.Tensor:
    """Closed-form A(w) (B, d, d) for x̃ = x·(a + (1 − a)1[wᵀx > 0]) under a Gaussian mixture."""
    Ex, Exx = mixture_moments(gm)
    if a == 1.0:  # linear: the gate is 1 everywhere and A = Cov[x] for every w
        check_filters(W, gm.d)
        return (Exx - torch.outer(Ex, Ex)).expand(len(W), -1, -1)
    e1, E2 = _half_space_first_second(gm, W)
    e = a * Ex + (1 - a) * e1
    E = a**2 * Exx + (1 - a**2) * E2  # gate² = a² below the plane, 1 above
    return E - e[:, :, None] * e[:, None, :]


def mean_activation_mixture(gm: GaussianMixture, W: torch.Tensor, a: float = 0.0) -> torch.Tensor:
    """𝔼[h(wᵀx)] per filter: 𝔼[s⁺] + a·𝔼[s⁻-part] = a𝔼s + (1 − a)𝔼[s⁺]."""
    _, _, _, relu, _ = _half_space_moments(gm, W)
    Ex, _ = mixture_moments(gm)
    return a * (W @ Ex) + (1 - a) * relu


def roughness_D_mixture(gm: GaussianMixture, W: torch.Tensor, a: float = 0.0) -> torch.Tensor:
    """D(w) = −(1 − a)·𝔼[h(wᵀx)]·M(w) (B, d, d), the derivative of u ↦ A(v(u))w at v = w
    (derived for fixed α and no augmentation; checked against finite differences in tests/). Its restriction to w⊥ is the linear map whose norm is ρ."""
    _, _, _, _, M = _half_space_moments(gm, W)
    return -(1 - a) * mean_activation_mixture(gm, W, a)[:, None, None] * M


# ------------------------------------------------------------------------------------------------------
# Finite batch: eq. (3) with two views and a fixed α (the Monte Carlo estimator)
# ------------------------------------------------------------------------------------------------------
def contrastive_covariance(a1: torch.Tensor, b1: torch.Tensor, a2: torch.Tensor, b2: torch.Tensor,
                           alpha: torch.Tensor | None = None) -> torch.Tensor:
    """C_α[a, b] of eq. (3), batched: a1, b1 are the first views (..., N, p), (..., N, q); a2, b2 the second
    views (rows i' = i + N); alpha (..., N, N) (its leading dimensions broadcast against the views') or None for
    α ≡ 1. Returns (..., p, q). α must be a fixed non-negative N×N matrix (kernel structure, Def. 1, needs α ≥ 0).

    (1/2N²) Σ_ij α_ij [(a_i − a_j)(b_i − b_j)ᵀ − (a_i − a_i')(b_i − b_i')ᵀ], expanded into row/column sums so
    that it costs O(N²) only through αb, not through N² outer products.
    """
    N = a1.shape[-2]
    if a2.shape != a1.shape or b2.shape != b1.shape or b1.shape[-2] != N:
        raise HypothesisViolation("two views of the same batch", f"view shapes differ: {tuple(a1.shape)}, "
                                  f"{tuple(a2.shape)}, {tuple(b1.shape)}, {tuple(b2.shape)}", bypassable=False)
    if alpha is not None and (alpha.shape[-2:] != (N, N) or bool((alpha < 0).any())):
        raise HypothesisViolation("α ∈ ℝ^{N×N}, α ≥ 0", f"got shape {tuple(alpha.shape)} (N = {N}), "
                                  f"min {float(alpha.min()):.3g}", bypassable=False)
    aT = a1.transpose(-1, -2)
    da, db = a1 - a2, b1 - b2
    if alpha is None:  # α ≡ 1 without forming the N×N matrix: αb = 1·(Σ_j b_j)
        sb = b1.sum(-2, keepdim=True)
        inter = 2 * N * (aT @ b1) - 2 * aT @ sb.expand_as(b1)
        intra = N * (da.transpose(-1, -2) @ db)
    else:
        r, c = alpha.sum(-1), alpha.sum(-2)
        inter = (aT @ ((r + c)[..., :, None] * b1) - aT @ (alpha @ b1) - aT @ (alpha.transpose(-1, -2) @ b1))
        intra = da.transpose(-1, -2) @ (r[..., :, None] * db)
    return (inter - intra) / (2 * N**2)


def A_batch(x1: torch.Tensor, x2: torch.Tensor, W: torch.Tensor, a: float = 0.0,
            alpha: torch.Tensor | None = None) -> torch.Tensor:
    """A(w) = C_α[x̃ʷ] on a finite batch of two views (N, d) each, for every filter in W (B, d).
    Note: x̃ on each view is gated by that view's own wᵀx (eq. 6)."""
    check_filters(W, x1.shape[1])
    t1 = gate(W @ x1.T, a)[..., None] * x1  # (B, N, d)
    t2 = gate(W @ x2.T, a)[..., None] * x2
    return contrastive_covariance(t1, t1, t2, t2, alpha)


# ------------------------------------------------------------------------------------------------------
# Sphere helpers and finite differences
# ------------------------------------------------------------------------------------------------------
def tangent_basis(w: torch.Tensor) -> torch.Tensor:
    """(B, d, d−1) orthonormal bases of w⊥ for each unit row of w (B, d)."""
    B, d = w.shape
    Q, _ = torch.linalg.qr(torch.cat([w[:, :, None], torch.eye(d, dtype=w.dtype, device=w.device)
                                      .expand(B, d, d)], dim=2))
    return Q[:, :, 1:d]


def roughness_fd(A_fn: AFn, w: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """D restricted to w⊥, by central differences along great circles: column j is
    [A(v₊)w − A(v₋)w]/(2ε), v± = cos ε·w ± sin ε·q_j. Returns (B, d, d−1) (coordinates in the tangent basis)."""
    B, d = w.shape
    Q = tangent_basis(w)
    c, s = math.cos(eps), math.sin(eps)
    vp = (c * w[:, :, None] + s * Q).transpose(1, 2).reshape(-1, d)  # (B(d−1), d)
    vm = (c * w[:, :, None] - s * Q).transpose(1, 2).reshape(-1, d)
    wr = w.repeat_interleave(d - 1, dim=0)
    diff = (A_fn(vp) - A_fn(vm)) @ wr[:, :, None]
    return (diff[:, :, 0] / (2 * eps)).reshape(B, d - 1, d).transpose(1, 2)


def field(A_fn: AFn, W: torch.Tensor) -> torch.Tensor:
    """The projected dynamics' vector field P⊥_w A(w) w, batched."""
    g = (A_fn(W) @ W[:, :, None])[:, :, 0]
    return g - (g * W).sum(1, keepdim=True) * W
