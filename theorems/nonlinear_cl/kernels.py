"""Pairwise importance α with kernel structure (paper 001, Def. 1, Def. 2, Lemma 1) and the InfoNCE α of §2.

* :func:`gaussian_alpha`: α_ij = exp(−‖g_i − g_j‖²/2τ) (Lemma 1), or exp(+‖g_i − g_j‖²/2τ) with ``sign=+1`` (not a
  kernel: the negative control of Lemma 1).
* :func:`gaussian_features`: the feature map of the proof of Lemma 1 (App. A.1, eqs. 20–22), truncated at total degree
  ``order``: ϕ(x) = exp(−‖y‖²/2τ)·[y^e/(τ^{|e|/2}·√(e!))]_{|e| ≤ order}, y = g(x) − v with v a lower bound of g.
  The paper's AllChoose(τ^{−1/2}y, k)/√k! lists all d^k ordered products; grouping equal products (multinomial
  coefficients) gives these C(k + d − 1, k) entries with the same inner products, (yᵢᵀyⱼ/τ)^k/k! per degree k.
* :func:`truncation_tail`: the relative error of that truncation, 1 − e^{−s}Σ_{k≤L} s^k/k! = P(L + 1, s) (regularised
  lower incomplete gamma), s = yᵢᵀyⱼ/τ ≥ 0.
* :func:`infonce_alpha`: the α of InfoNCE (§2, ε = 0 as printed; ``eps`` > 0 adds ε·e^{−d_i²/τ} to the denominator).
"""

from __future__ import annotations

import itertools
import math

import torch


def sq_dists(G: torch.Tensor) -> torch.Tensor:
    """‖g_i − g_j‖² for the rows of G (..., n, k), from the differences themselves (no ‖a‖² + ‖b‖² − 2aᵀb
    cancellation: near-duplicate points keep their tiny distances), exact zeros on the diagonal."""
    if G.shape[-1] == 1:
        return (G - G.transpose(-1, -2)).pow(2)
    return sum((G[..., :, None, c] - G[..., None, :, c]).pow(2) for c in range(G.shape[-1]))


def gaussian_alpha(G: torch.Tensor, tau: float, sign: float = -1.0) -> torch.Tensor:
    """α_ij = exp(sign·‖g_i − g_j‖²/2τ) (Lemma 1 for sign = −1)."""
    return torch.exp(sign * sq_dists(G) / (2 * tau))


def monomial_exponents(k: int, order: int, device=None) -> torch.Tensor:
    """All exponent vectors e ∈ ℕ^k with |e| ≤ order, graded by total degree: (F, k) with F = C(order + k, k)."""
    rows = [e for deg in range(order + 1) for e in _compositions(deg, k)]
    return torch.tensor(rows, dtype=torch.long, device=device).reshape(-1, k)


def _compositions(total: int, parts: int):
    """Exponent tuples of ``parts`` non-negative integers summing to ``total``."""
    for cut in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *cut, total + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def n_features(k: int, order: int) -> int:
    return math.comb(order + k, k)


def gaussian_features(Y: torch.Tensor, tau: float, order: int) -> torch.Tensor:
    """ϕ(y) for the rows of Y (n, k) (already shifted: y = g − v), truncated at total degree ``order`` (n, F)."""
    E = monomial_exponents(Y.shape[1], order, Y.device)  # (F, k)
    Ef = E.to(Y.dtype)
    # y^e/√(e!) with 0⁰ = 1 (torch.pow), scaled by τ^{−|e|/2}
    mono = torch.pow((Y / math.sqrt(tau))[:, None, :], Ef[None, :, :]).prod(-1)  # (n, F)
    norm = torch.exp(0.5 * torch.lgamma(Ef + 1).sum(-1))  # √(e!) = √(Π_d e_d!)
    return torch.exp(-(Y * Y).sum(1, keepdim=True) / (2 * tau)) * mono / norm


def truncation_tail(S: torch.Tensor, order: int) -> torch.Tensor:
    """P(order + 1, s): the share of e^s = Σ_k s^k/k! beyond degree ``order``, for s ≥ 0."""
    return torch.special.gammainc(torch.full_like(S, order + 1.0), S.clamp_min(0))


def truncation_kept(S: torch.Tensor, order: int) -> torch.Tensor:
    """Q(order + 1, s) = e^{−s}Σ_{k≤order} s^k/k!, the share kept, summed term by term in log space (positive terms:
    exact to rounding; torch's gammaincc is off by ~5e-10 relative near s ≈ order)."""
    k = torch.arange(order + 1, dtype=S.dtype, device=S.device)
    s = S.clamp_min(0)[..., None]
    return torch.exp(-s + torch.xlogy(k, s) - torch.lgamma(k + 1)).sum(-1)


def infonce_alpha(F1: torch.Tensor, F2: torch.Tensor, tau: float, eps: float = 0.0,
                  include_eps: bool = True) -> torch.Tensor:
    """α_ij = exp(−d_ij²/τ)/(ε·exp(−d_i²/τ) + Σ_{j'≠i} exp(−d_ij'²/τ)), α_ii = 0, for first views F1 (N, p) and second
    views F2 (N, p), d_ij² = ‖f_i − f_j‖²/2 and d_i² = ‖f_i − f_i'‖²/2. ``include_eps=False`` drops the ε term from the
    denominator (the α printed in §2, derived there for ε = 0)."""
    N = F1.shape[0]
    d2 = sq_dists(F1) / 2
    di2 = (F1 - F2).pow(2).sum(1) / 2
    off = ~torch.eye(N, dtype=torch.bool, device=F1.device)
    logits = torch.where(off, -d2 / tau, torch.full_like(d2, -math.inf))
    if eps > 0 and include_eps:
        extra = (math.log(eps) - di2 / tau)[:, None]
        lse = torch.logsumexp(torch.cat([logits, extra], 1), 1, keepdim=True)
    else:
        lse = torch.logsumexp(logits, 1, keepdim=True)
    return torch.exp(logits - lse)


def infonce_loss(F1: torch.Tensor, F2: torch.Tensor, tau: float, eps: float = 0.0) -> torch.Tensor:
    """Eq. (1): −τ Σ_i log[exp(−d_i²/τ)/(ε·exp(−d_i²/τ) + Σ_{j≠i} exp(−d_ij²/τ))], negatives from the first views."""
    N = F1.shape[0]
    d2 = sq_dists(F1) / 2
    di2 = (F1 - F2).pow(2).sum(1) / 2
    off = ~torch.eye(N, dtype=torch.bool, device=F1.device)
    logits = torch.where(off, -d2 / tau, torch.full_like(d2, -math.inf))
    if eps > 0:
        logits = torch.cat([logits, (math.log(eps) - di2 / tau)[:, None]], 1)
    return -tau * (-di2 / tau - torch.logsumexp(logits, 1)).sum()
