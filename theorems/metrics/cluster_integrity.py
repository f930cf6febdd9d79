"""Cluster integrity (paper 000, Definition 1) and the margin ρ̃ that Theorem 1 really uses.

Both rest on one primitive, the min-norm point of a convex hull (minimax duality): for points a_1..a_k,

    max_{‖v‖ ≤ 1} min_i a_iᵀv = dist(0, conv{a_i}) = ‖p*‖,   maximiser v = p*/‖p*‖.

:func:`min_norm_point` solves it for a batch of point sets and returns a *certified bracket*: any unit v
gives the lower bound min_i a_iᵀv, any point of the hull the upper bound ‖p‖; the gap between them is the
convergence certificate (it is 0 exactly at the optimum). The solver is batched projected gradient (FISTA
with restarts) on the simplex weights, followed by exact KKT solves on the supports 'the j largest weights'.

* Definition 1: ρ_k = max_{u ⟂ 𝒰_k, ‖u‖=1} min_{x_i ∉ 𝒰_k} |x_iᵀu| = max over sign patterns s (s_1 = +1) of
  dist(0, conv{s_i P_k x_i}), P_k the projector onto 𝒰_k^⊥; ρ = min_k ρ_k. Exact by enumeration of the
  2^{N−1} patterns (N out-of-cluster samples), so only for N ≤ ``MAX_ENUMERATED``.
* Theorem 1's margin: ρ̃_c = dist(0, conv{P_c x_i : i ∈ c}) with P_c the projector onto (Σ_{l≠c} 𝒰_l)^⊥,
  v_c = p*_c/‖p*_c‖, W = [v_{c_1}, …, v_{c_n}] (unit columns, d_k = n), ρ_W = min_{i, l: c_i=c_l} x_iᵀw_l.

Second order (issue 26, item 2): none is needed here. The min-norm point is a convex problem (½λᵀGλ on the simplex,
G ⪰ 0), and its certificate is the bracket itself, a duality gap, which bounds the distance to the global optimum
from both sides; it is not a stationarity test that a saddle could pass. Definition 1's maximum over u is not
convex, but it is decided exactly by enumerating the sign patterns, each a convex problem with its own bracket. A
run cut short leaves the bracket open and reports ``converged`` False (``tests/test_second_order_audit.py``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import torch

from ..optim.threads import single_threaded

# Rounds of a screening run: patterns whose upper bound cannot beat the best lower bound are settled early.
SCREEN_ROUNDS = (100, 400)
MAX_ENUMERATED = 12  # 2^11 sign patterns of ≤ 12 points per instance: about a second for a batch of 8
# Singular values below this fraction of the largest are rank deficiency (float64 rounding of orthonormal
# bases is ~1e-15; genuinely independent random subspaces sit far above it).
RANK_RTOL = 1e-10
# Certificate: the bracket [lower, upper] on ‖p*‖ is accepted when its width is below this (absolute on
# unit-norm data, where ‖p*‖ ≤ 1); the exact KKT polish usually closes it to ~1e-16.
GAP_TOL = 1e-10
MARGIN_ATOL = 1e-12  # margins below this (on unit rows) are rounding of an exactly-zero distance


def perp_projector(B: torch.Tensor) -> torch.Tensor:
    """Projector onto span(B)^⊥ for B (..., m, k) (rank read off the SVD, so dependent columns are fine)."""
    m = B.shape[-2]
    eye = torch.eye(m, dtype=B.dtype, device=B.device)
    if B.shape[-1] == 0:
        return eye.expand(*B.shape[:-2], m, m).clone()
    U, S, _ = torch.linalg.svd(B, full_matrices=False)
    keep = (S > RANK_RTOL * S[..., :1].clamp_min(1e-300)).to(B.dtype)
    Uk = U * keep.unsqueeze(-2)
    return eye - Uk @ Uk.transpose(-1, -2)


def project_simplex(v: torch.Tensor) -> torch.Tensor:
    """Euclidean projection of each row of v (..., k) onto the probability simplex (sort-based)."""
    k = v.shape[-1]
    u, _ = torch.sort(v, dim=-1, descending=True)
    css = u.cumsum(-1) - 1.0
    idx = torch.arange(1, k + 1, dtype=v.dtype, device=v.device)
    cond = (u - css / idx) > 0
    rho = cond.to(v.dtype).cumsum(-1).argmax(-1, keepdim=True)  # last index where cond holds
    tau = css.gather(-1, rho) / (rho + 1).to(v.dtype)
    return (v - tau).clamp_min(0.0)


@dataclass
class MinNormPoint:
    point: torch.Tensor  # (..., m) best hull point found (its norm is `upper`)
    weights: torch.Tensor  # (..., k) its simplex weights
    direction: torch.Tensor  # (..., m) unit v whose margin min_i a_iᵀv is `lower` (0 where the hull holds 0)
    lower: torch.Tensor  # (...) certified lower bound on dist(0, hull), clamped at 0
    upper: torch.Tensor  # (...) certified upper bound
    iterations: int

    @property
    def gap(self) -> torch.Tensor:
        return self.upper - self.lower

    @property
    def converged(self) -> torch.Tensor:
        return self.gap <= GAP_TOL

    @property
    def value(self) -> torch.Tensor:
        return 0.5 * (self.lower + self.upper)


def _margin(A: torch.Tensor, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Unit direction p/‖p‖ and its margin min_i a_iᵀv (a valid lower bound on the distance)."""
    nrm = p.norm(dim=-1, keepdim=True)
    v = p / nrm.clamp_min(1e-300)
    marg = (A @ v.unsqueeze(-1)).squeeze(-1).min(-1).values
    marg = torch.where(nrm.squeeze(-1) > 0, marg, torch.zeros_like(marg))
    return v, marg


def _kkt_polish(G: torch.Tensor, sup: torch.Tensor) -> torch.Tensor:
    """Exact minimiser of λᵀGλ over the affine hull of a support (0/1 mask ``sup``; λ_j = 0 off it), sum λ = 1."""
    k = G.shape[-1]
    off = 1.0 - sup
    M = G * sup.unsqueeze(-1) * sup.unsqueeze(-2) + torch.diag_embed(off)
    top = torch.cat([M, sup.unsqueeze(-1)], -1)
    bottom = torch.cat([sup, torch.zeros_like(sup[..., :1])], -1).unsqueeze(-2)
    KKT = torch.cat([top, bottom], -2)
    rhs = torch.zeros(*G.shape[:-2], k + 1, dtype=G.dtype, device=G.device)
    rhs[..., -1] = 1.0
    sol = (torch.linalg.pinv(KKT) @ rhs.unsqueeze(-1)).squeeze(-1)[..., :k] * sup
    sol = sol.clamp_min(0.0)
    return sol / sol.sum(-1, keepdim=True).clamp_min(1e-300)


def _prefix_supports(lam: torch.Tensor) -> list[torch.Tensor]:
    """The k supports 'the j largest weights' (j = 1..k): before FISTA has converged, small spurious weights
    hide the true support, but the ordering of the weights usually already reveals it."""
    k = lam.shape[-1]
    rank = torch.argsort(torch.argsort(lam, dim=-1, descending=True), dim=-1)  # 0 = largest
    return [(rank < j).to(lam.dtype) for j in range(1, k + 1)]


def _certify(A: torch.Tensor, G: torch.Tensor, lam: torch.Tensor, iterations: int) -> MinNormPoint:
    """The bracket from the current weights and from their exact KKT polish, whichever is better."""
    best = None
    for w in (lam, *(_kkt_polish(G, sup) for sup in _prefix_supports(lam))):
        p = (w.unsqueeze(-2) @ A).squeeze(-2)
        v, marg = _margin(A, p)
        nrm = p.norm(dim=-1)
        if best is None:
            best = [p, w, v, marg, nrm]
            continue
        up, low = (nrm < best[4]).unsqueeze(-1), (marg > best[3]).unsqueeze(-1)
        best = [torch.where(up, p, best[0]), torch.where(up, w, best[1]), torch.where(low, v, best[2]),
                torch.maximum(best[3], marg), torch.minimum(best[4], nrm)]
    p, w, v, lower, upper = best
    lower = lower.clamp_min(0.0)
    return MinNormPoint(p, w, v, lower, torch.maximum(upper, lower), iterations)


def min_norm_point(A: torch.Tensor, iterations: int = 3000, check_every: int = 25) -> MinNormPoint:
    """Min-norm point of conv(rows of A) for A (..., k, m); see the module docstring for the certificate.

    Stops early once every instance's bracket is closed (checked every ``check_every`` iterations). Runs with one
    intra-op thread: thousands of operations on small batches, where threads only add synchronisation.
    """
    with single_threaded():
        return _min_norm_point(A, iterations, check_every)


def _min_norm_point(A: torch.Tensor, iterations: int, check_every: int) -> MinNormPoint:
    k = A.shape[-2]
    G = A @ A.transpose(-1, -2)
    L = torch.linalg.eigvalsh(G)[..., -1:].clamp_min(1e-300)  # Lipschitz constant of ∇(½λᵀGλ)
    lam = torch.full(A.shape[:-1], 1.0 / k, dtype=A.dtype, device=A.device)
    y = lam.clone()
    t = torch.ones(A.shape[:-2] + (1,), dtype=A.dtype, device=A.device)
    f_prev = torch.full(A.shape[:-2], float("inf"), dtype=A.dtype, device=A.device)
    for it in range(1, iterations + 1):
        new = project_simplex(y - (G @ y.unsqueeze(-1)).squeeze(-1) / L)
        f = 0.5 * (new.unsqueeze(-2) @ G @ new.unsqueeze(-1)).squeeze(-1).squeeze(-1)
        t_new = 0.5 * (1 + torch.sqrt(1 + 4 * t * t))
        y = new + ((t - 1) / t_new) * (new - lam)
        restart = (f > f_prev).unsqueeze(-1)  # adaptive restart keeps the momentum monotone
        y = torch.where(restart, new, y)
        lam, t, f_prev = new, torch.where(restart, torch.ones_like(t), t_new), f
        if it % check_every == 0:
            cert = _certify(A, G, lam, it)
            if bool(cert.converged.all()):
                return cert
    return _certify(A, G, lam, iterations)


# ------------------------------------------------------------------------------------------------------
# Theorem 1's construction and its margin ρ̃
# ------------------------------------------------------------------------------------------------------
@dataclass
class Construction:
    v: torch.Tensor  # (B, K, m) unit v_c (zero where ρ̃_c = 0)
    rho_tilde_c: torch.Tensor  # (B, K) certified-lower-bound value of ρ̃_c (the margin v_c achieves)
    rho_tilde_upper_c: torch.Tensor  # (B, K) certified upper bound on ρ̃_c
    W: torch.Tensor  # (B, m, n) = [v_{c_1}, …, v_{c_n}]
    converged: torch.Tensor  # (B,) every cluster's bracket closed
    max_gap: torch.Tensor  # (B,)
    leak: torch.Tensor  # (B,) max_{i, l: c_i ≠ c_l} |x_iᵀ w_l| (0 up to rounding when independent)

    @property
    def rho_tilde(self) -> torch.Tensor:
        return self.rho_tilde_c.min(-1).values


def complement_projectors(bases: torch.Tensor) -> torch.Tensor:
    """(B, K, m, m): P_c, the projector onto (Σ_{l≠c} 𝒰_l)^⊥."""
    B, K, m, r = bases.shape
    out = []
    for c in range(K):
        others = torch.cat([bases[:, l] for l in range(K) if l != c], dim=-1)
        out.append(perp_projector(others))
    return torch.stack(out, 1)


def construct_w(X: torch.Tensor, labels: torch.Tensor, bases: torch.Tensor, iterations: int = 3000) -> Construction:
    """The canonical Theorem-1 construction (proof of Theorem 1, unit columns) for a batch of instances X (B, n, m)."""
    B, n, m = X.shape
    K = bases.shape[1]
    P = complement_projectors(bases)
    vs, lows, ups, gaps = [], [], [], []
    for c in range(K):
        Xc = X[:, labels == c]  # (B, ν_c, m)
        mnp = min_norm_point(Xc @ P[:, c], iterations)  # P symmetric: rows P_c x_i
        # a margin at rounding level is no margin: its direction is numerical noise, so the column is 0
        v = torch.where((mnp.lower > MARGIN_ATOL).unsqueeze(-1), mnp.direction, torch.zeros_like(mnp.direction))
        vs.append(v)
        lows.append(mnp.lower)
        ups.append(mnp.upper)
        gaps.append(mnp.gap)
    V = torch.stack(vs, 1)
    W = V[:, labels].transpose(-1, -2)
    XW = X @ W
    cross = labels[:, None] != labels[None, :]
    leak = (XW.abs() * cross).amax(dim=(-1, -2))
    gap = torch.stack(gaps, 1).max(-1).values
    return Construction(V, torch.stack(lows, 1), torch.stack(ups, 1), W, gap <= GAP_TOL, gap, leak)


def margin_of_w(X: torch.Tensor, labels: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """ρ_W = min_{i, l: c_i = c_l} x_iᵀw_l (B,): the margin the W actually used certifies."""
    XW = X @ W
    same = labels[:, None] == labels[None, :]
    return torch.where(same, XW, torch.full_like(XW, float("inf"))).amin(dim=(-1, -2))


# ------------------------------------------------------------------------------------------------------
# Definition 1, exact
# ------------------------------------------------------------------------------------------------------
@dataclass
class Integrity:
    rho_k: torch.Tensor  # (B, K) certified lower bound of ρ_k (attained by `u`)
    rho_k_upper: torch.Tensor  # (B, K) certified upper bound
    u: torch.Tensor  # (B, K, m) the maximiser u_k^⊥ (unit, ⟂ 𝒰_k)
    converged: torch.Tensor  # (B,)

    @property
    def rho(self) -> torch.Tensor:
        return self.rho_k.min(-1).values

    @property
    def rho_upper(self) -> torch.Tensor:
        return self.rho_k_upper.min(-1).values


def sign_patterns(N: int, *, dtype=torch.float64, device=None) -> torch.Tensor:
    """(2^{N−1}, N) sign vectors with s_1 = +1 (s and −s give the same |·| margin)."""
    rows = [(1.0, *s) for s in itertools.product((1.0, -1.0), repeat=N - 1)]
    return torch.tensor(rows, dtype=dtype, device=device)


def cluster_integrity(X: torch.Tensor, labels: torch.Tensor, bases: torch.Tensor,
                      iterations: int = 3000) -> Integrity:
    """Exact ρ_k of Definition 1 by sign enumeration (N out-of-cluster samples ≤ MAX_ENUMERATED)."""
    B, n, m = X.shape
    K = bases.shape[1]
    rho, rho_up, us, conv = [], [], [], []
    for k in range(K):
        Xo = X[:, labels != k]  # (B, N, m)
        N = Xo.shape[1]
        if N > MAX_ENUMERATED:
            raise ValueError(f"exact Definition-1 ρ enumerates 2^{N - 1} sign patterns; N = {N} out-of-cluster "
                             f"samples exceeds {MAX_ENUMERATED}")
        Pk = perp_projector(bases[:, k])  # (B, m, m)
        Ao = Xo @ Pk  # rows P_k x_i
        S = sign_patterns(N, dtype=X.dtype, device=X.device)  # (S, N)
        pts = S[None, :, :, None] * Ao[:, None]  # (B, S, N, m)
        # Short runs bracket every pattern; patterns whose upper bound cannot beat the best lower bound (hulls
        # holding the origin, mostly) are settled; the rest run on, finally to their certificate.
        flat = pts.reshape(-1, N, m)  # (B·S, N, m): each (instance, pattern) pair settled on its own
        lower = torch.zeros(flat.shape[0], dtype=X.dtype, device=X.device)
        upper = torch.full_like(lower, math.inf)
        direction = torch.zeros(flat.shape[0], m, dtype=X.dtype, device=X.device)
        open_ = torch.ones(pts.shape[:2], dtype=torch.bool, device=X.device)
        for its in (*SCREEN_ROUNDS, iterations):
            idx = torch.nonzero(open_.reshape(-1)).squeeze(-1)
            if idx.numel() == 0:
                break
            run = min_norm_point(flat[idx], its)
            lower[idx], upper[idx], direction[idx] = run.lower, run.upper, run.direction
            lo, up = lower.view(B, -1), upper.view(B, -1)
            thr = lo.max(-1, keepdim=True).values
            # a pattern stays open while it could still beat the best certified margin, or is that margin
            open_ = ((up > thr + GAP_TOL) | (lo == thr)) & (up - lo > GAP_TOL)
        lower, upper, direction = lower.view(B, -1), upper.view(B, -1), direction.view(B, -1, m)
        best = lower.argmax(-1)  # (B,)
        rho.append(lower.max(-1).values)
        rho_up.append(upper.max(-1).values)
        us.append(direction[torch.arange(B, device=X.device), best])
        conv.append(rho_up[-1] - rho[-1] <= GAP_TOL)
    return Integrity(torch.stack(rho, 1), torch.stack(rho_up, 1), torch.stack(us, 1),
                     torch.stack(conv, 1).all(-1))


def abs_margin(X: torch.Tensor, labels: torch.Tensor, k: int, u: torch.Tensor) -> torch.Tensor:
    """min_{x_i ∉ 𝒰_k} |x_iᵀu| for u (B, m): the Definition-1 objective at a given direction."""
    return (X[:, labels != k] @ u.unsqueeze(-1)).squeeze(-1).abs().min(-1).values
