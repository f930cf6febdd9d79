"""Population quantities of a 2-D Gaussian mixture under a kernel-structured α held fixed (paper 001, Lemma 2 with
N → ∞ and no augmentation, the setting of Theorem 2 and Corollary 2), by polar Gauss–Legendre quadrature.

For α_ij = 𝒦(x₀[i], x₀[j]) = Σ_l ϕ_l(x₀[i])ϕ_l(x₀[j]) the limit of C_α[x̃ᵛ] is (Lemma 2, Corollary 1)
A(v) = Σ_l z_l²𝕍_{p̃_l}[x̃ᵛ] = 𝔼_p[k(x)x̃x̃ᵀ] − Σ_l e_le_lᵀ, with z_l = 𝔼_p ϕ_l, k(x) = Σ_l z_lϕ_l(x) and
e_l = 𝔼_p[ϕ_l x̃], x̃ = x·1{vᵀx > 0} (ReLU). The 1-D Gaussian α of Corollary 2 is 𝒦(a, b) =
exp(−(h(uᵀa) − h(uᵀb))²/2τ), h = ReLU, whose feature map (Lemma 1 with g = h(uᵀx) ≥ 0, v = 0) is
ϕ_l(x) = exp(−h²/2τ)·(h/√τ)^l/√(l!).

The half-plane {vᵀx > 0} is integrated in polar coordinates over φ ∈ (θ_v − π/2, θ_v + π/2) and r ∈ [0, R_max]; the
angular range is split where the integrand has a kink (the rays uᵀx = 0, where h is not smooth), so that Gauss–Legendre
converges exponentially on every piece. R_max = max_c ‖m_c‖ + 12σ_max leaves a Gaussian tail below 1e-30.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from ..data.latents import GaussianMixture

N_R = 96  # radial nodes on [0, R_max]
N_PHI = 64  # angular nodes per piece (σ ≥ 0.4, radius ≤ 3: against the closed form ≤ 1e-13)


@functools.lru_cache(maxsize=16)
def legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


def density_fn(gm: GaussianMixture):
    """x ↦ p(x) of the mixture at the rows of X (n, d), with the precisions and normalisers computed once."""
    prec = torch.linalg.inv(gm.covs)
    norm = gm.weights / torch.sqrt((2 * math.pi) ** gm.d * torch.linalg.det(gm.covs))

    def p(X: torch.Tensor) -> torch.Tensor:
        diff = X[:, None, :] - gm.means[None]
        return (norm * torch.exp(-0.5 * torch.einsum("nci,cij,ncj->nc", diff, prec, diff))).sum(1)

    return p


def density(gm: GaussianMixture, X: torch.Tensor) -> torch.Tensor:
    """p(x) of the mixture at the rows of X (n, d)."""
    return density_fn(gm)(X)


def r_max(gm: GaussianMixture) -> float:
    sig = torch.linalg.eigvalsh(gm.covs)[:, -1].sqrt().max()
    return float(gm.means.norm(dim=1).max() + 12 * sig)


def polar_nodes(gm: GaussianMixture, lo: float, hi: float, cuts: list[float]):
    """Nodes X (n, 2) and weights·density (n,) for ∫_{lo < φ < hi, r < R_max} f(x)p(x)dx, split at the angles ``cuts``."""
    dt = gm.means.dtype
    dev = gm.means.device
    R = r_max(gm)
    tr, wr = legendre(N_R)
    tp, wp = legendre(N_PHI)
    r = torch.as_tensor(0.5 * R * (tr + 1), dtype=dt, device=dev)
    wr = torch.as_tensor(0.5 * R * wr, dtype=dt, device=dev) * r  # Jacobian r
    edges = [lo, *sorted(c for c in cuts if lo < c < hi), hi]
    phis, wphis = [], []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        phis.append(torch.as_tensor(0.5 * (b - a) * tp + 0.5 * (a + b), dtype=dt, device=dev))
        wphis.append(torch.as_tensor(0.5 * (b - a) * wp, dtype=dt, device=dev))
    phi, wphi = torch.cat(phis), torch.cat(wphis)
    X = torch.stack([r[:, None] * torch.cos(phi)[None], r[:, None] * torch.sin(phi)[None]], -1).reshape(-1, 2)
    W = (wr[:, None] * wphi[None]).reshape(-1)
    return X, W * density(gm, X)


def kink_angles(u: torch.Tensor) -> list[float]:
    """Angles (mod 2π, both branches) of the rays uᵀx = 0."""
    t = math.atan2(float(u[1]), float(u[0]))
    return [t + s * math.pi / 2 + k * 2 * math.pi for s in (-1, 1) for k in (-1, 0, 1)]


def features(X: torch.Tensor, u: torch.Tensor, tau: float, order: int) -> torch.Tensor:
    """ϕ_l(x), l = 0..order, of the 1-D Gaussian α on h(uᵀx), h = ReLU: (n, order + 1)."""
    hval = torch.relu(X @ u)
    ell = torch.arange(1, order + 1, dtype=X.dtype, device=X.device)
    # ϕ_l = ϕ_{l−1}·(h/√τ)/√l: a running product (its largest entry ≈ e^{h²/2τ} ≤ e^{250} on the quadrature's disc)
    steps = (hval[:, None] / math.sqrt(tau)) / ell.sqrt()
    ones = torch.ones(len(X), 1, dtype=X.dtype, device=X.device)
    return torch.exp(-hval[:, None] ** 2 / (2 * tau)) * torch.cat([ones, torch.cumprod(steps, 1)], 1)


def order_for(gm: GaussianMixture, tau: float) -> int:
    """A truncation degree whose relative tail P(L + 1, h²/τ) is below 1e-20 wherever ‖x‖ ≤ max‖m_c‖ + 8σ_max (beyond,
    the density is below e^{−32} of its peak)."""
    sig = float(torch.linalg.eigvalsh(gm.covs)[:, -1].sqrt().max())
    s = (float(gm.means.norm(dim=1).max()) + 8 * sig) ** 2 / tau
    return int(math.ceil(s + 10 * math.sqrt(s) + 25))


def z_coefficients(gm: GaussianMixture, u: torch.Tensor, tau: float, order: int) -> torch.Tensor:
    """z_l = 𝔼_p ϕ_l over the whole plane (Def. 2)."""
    X, W = polar_nodes(gm, -math.pi, math.pi, kink_angles(u))
    return W @ features(X, u, tau, order)


def A_fixed_alpha(gm: GaussianMixture, V: torch.Tensor, u: torch.Tensor | None, tau: float, z: torch.Tensor | None,
                  order: int) -> torch.Tensor:
    """A(v) = 𝔼_p[k(x)x̃x̃ᵀ] − Σ_l e_le_lᵀ for the rows v of V (B, 2), α frozen as the 1-D Gaussian α on h(uᵀx)
    (u = None: uniform α, ϕ₀ ≡ 1, so A = 𝕍[x̃], the check against the closed form)."""
    out = []
    for v in V:
        tv = math.atan2(float(v[1]), float(v[0]))
        cuts = kink_angles(u) if u is not None else []
        X, W = polar_nodes(gm, tv - math.pi / 2, tv + math.pi / 2, cuts)
        Phi = features(X, u, tau, order) if u is not None else torch.ones(len(X), 1, dtype=X.dtype, device=X.device)
        zz = z if u is not None else torch.ones(1, dtype=X.dtype, device=X.device)
        k = Phi @ zz
        first = torch.einsum("n,ni,nj->ij", W * k, X, X)
        e = (Phi * W[:, None]).T @ X  # (L, 2)
        out.append(first - e.T @ e)
    return torch.stack(out)


# ------------------------------------------------------------------------------------------------------------------
# The same population A(v) through the α-projection s = uᵀx: the kernel depends on x only through s, and for fixed s
# the gating vᵀx > 0 is a half-line in r = qᵀx (q ⊥ u), over which the conditional Gaussian integrates in closed form.
# A(v) = ∫k(s)M₂(s)ds − ∫∫K(s, t)M₁(s)M₁(t)ᵀds dt, k(s) = ∫K(s, t)p_s(t)dt (the same identity as above with
# Σ_l ϕ_l(x)ϕ_l(y) = 𝒦(x, y)), with M₁(s) = 𝔼[x̃ δ(uᵀx − s)], M₂(s) = 𝔼[x̃x̃ᵀ δ(uᵀx − s)]. Only 1-D Gauss–Legendre in s.
# ------------------------------------------------------------------------------------------------------------------
N_S = 64  # Gauss–Legendre nodes per piece of the s-axis


def s_frame(gm: GaussianMixture, u: torch.Tensor):
    """Per component: the law of s = uᵀx (mean, variance) and of r = qᵀx given s (a(s) = μ_r + β_c(s − μ_s), b²)."""
    q = torch.stack([-u[1], u[0]])
    mu_s, mu_r = gm.means @ u, gm.means @ q
    ss = torch.einsum("i,cij,j->c", u, gm.covs, u)
    sr = torch.einsum("i,cij,j->c", u, gm.covs, q)
    rr = torch.einsum("i,cij,j->c", q, gm.covs, q)
    return q, mu_s, ss, mu_r, sr / ss, torch.sqrt(rr - sr**2 / ss)


def s_nodes(breaks: list[float], dtype, device):
    tp, wp = legendre(N_S)
    xs, ws = [], []
    for a, b in zip(breaks[:-1], breaks[1:], strict=True):
        if b > a:
            xs.append(torch.as_tensor(0.5 * (b - a) * tp + 0.5 * (a + b), dtype=dtype, device=device))
            ws.append(torch.as_tensor(0.5 * (b - a) * wp, dtype=dtype, device=device))
    return torch.cat(xs), torch.cat(ws)


def kernel_1d(s: torch.Tensor, t: torch.Tensor, tau: float | None) -> torch.Tensor:
    """𝒦 = exp(−(h(s) − h(t))²/2τ), h = ReLU (τ = None: uniform α, 𝒦 ≡ 1)."""
    if tau is None:
        return torch.ones(len(s), len(t), dtype=s.dtype, device=s.device)
    return torch.exp(-(torch.relu(s)[:, None] - torch.relu(t)[None, :]) ** 2 / (2 * tau))


def half_line_moments(s, a, b, v_s: float, v_r: float):
    """For r | s ~ N(a, b²) (nodes × components): P, 𝔼[r·1], 𝔼[r²·1] over {v_s·s + v_r·r > 0}."""
    if v_r == 0:
        P = (v_s * s > 0).to(s.dtype)[:, None].expand_as(a)
        return P, a * P, (a * a + b * b) * P
    r0 = (-v_s * s / v_r)[:, None]
    z = (r0 - a) / b
    phi = torch.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    sgn = 1.0 if v_r > 0 else -1.0  # upper tail r > r0, or lower tail r < r0
    P = torch.special.ndtr(-sgn * z)
    return P, a * P + sgn * b * phi, (a * a + b * b) * P + sgn * b * (a + r0) * phi


def A_kernel_alpha(gm: GaussianMixture, V: torch.Tensor, u: torch.Tensor, tau: float | None) -> torch.Tensor:
    """A(v) for the rows of V (B, 2) under the 1-D Gaussian α on h(uᵀx) held fixed (τ = None: uniform α)."""
    q, mu_s, ss, mu_r, beta, b = s_frame(gm, u)
    sd = ss.sqrt()
    S = float((mu_s.abs() + 12 * sd).max())
    reach = float((mu_r.abs() + 12 * b).max())  # where the half-line's edge matters, in units of r
    out = []
    for v in V:
        v_s, v_r = float(v @ u), float(v @ q)
        delta = min(S, reach * abs(v_r) / max(abs(v_s), 1e-300))  # boundary layer of the gating around s = 0
        s, w = s_nodes([-S, -delta, 0.0, delta, S], V.dtype, V.device)
        dens = gm.weights * torch.exp(-(s[:, None] - mu_s) ** 2 / (2 * ss)) / torch.sqrt(2 * math.pi * ss)  # (n, C)
        a = mu_r + beta * (s[:, None] - mu_s)
        P, R1, R2 = half_line_moments(s, a, b.expand_as(a), v_s, v_r)
        P, R1, R2 = ((dens * X).sum(1) for X in (P, R1, R2))
        M1 = s[:, None] * P[:, None] * u + R1[:, None] * q
        uu, uq, qq = torch.outer(u, u), torch.outer(u, q) + torch.outer(q, u), torch.outer(q, q)
        M2 = (s * s * P)[:, None, None] * uu + (s * R1)[:, None, None] * uq + R2[:, None, None] * qq
        K = kernel_1d(s, s, tau)
        k = K @ (w * dens.sum(1))
        e = (w[:, None] * M1)
        out.append(torch.einsum("n,nij->ij", w * k, M2) - e.T @ K @ e)
    return torch.stack(out)


def z_coefficients_1d(gm: GaussianMixture, u: torch.Tensor, tau: float, order: int) -> torch.Tensor:
    """z_l = 𝔼_p ϕ_l = ∫ϕ_l(h(s))p_s(s)ds, by Gauss–Legendre on [−S, 0] and [0, S]."""
    _, mu_s, ss, _, _, _ = s_frame(gm, u)
    S = float((mu_s.abs() + 12 * ss.sqrt()).max())
    s, w = s_nodes([-S, 0.0, S], u.dtype, u.device)
    dens = (gm.weights * torch.exp(-(s[:, None] - mu_s) ** 2 / (2 * ss)) / torch.sqrt(2 * math.pi * ss)).sum(1)
    return (w * dens) @ features(s[:, None] * u[None, :], u, tau, order)
