"""Lemma 4.1 of paper 004 made quantitative for the UFM (the GUFM of Lemma 4.2): every feasible (W, X) whose
objective is within ε of the optimum L* has NC metrics NC ≤ C(ε)·ε^p, with p = 1 for NC1 and NC3 (squared
deviations) and p = 1/2 for NC2 (linear in the deviation of W), and explicit C(ε) that tend to a finite C(0)
as ε → 0. The printed lemma (Section 4.1) says only limsup_{ε→0} distmax(M_ε \\ M_0, M_0) = 0, by compactness.

Notation: N = Kn samples, a feasible x has 1ᵀx = 0 and ‖x‖ = √d; ε = f(W, X) − L* ≥ 0; cos_ki = cos(x_ki, w_k).
Every inequality below loses only what is written; the functions return None where a positivity condition
fails (ε too large for the bound to say anything).

MSE (d ≥ K+1), f = (1/2N)Σ‖Wx_ki − e_k‖² + (λ/2)‖W‖²
--------------------------------------------------------
With t_k = √d‖w_k‖ and c = cos_ki, (t c − 1)² = (1 − t)² + 2t(1 − t)(1 − c) + t²(1 − c)², so

    f = Σ_k φ(t_k) + (1/2N)Σ_ki t_k(1 − c_ki)[2(1 − t_k) + t_k(1 − c_ki)] + (1/2N)Σ_ki Σ_{l≠k}(w_lᵀx_ki)²,

φ(t) = (1/2K)(1 − t)² + (λ/2d)t² = φ(t*) + (μ/2)(t − t*)², t* = d/(d + Kλ), μ = 1/K + λ/d, L* = Kφ(t*).
(Where t > 1, (tc − 1)² ≥ 0 gives φ̃(t) − φ(t*) ≥ (μ/2)(1 − t*)² instead.) Hence, with δ = √(2ε/μ):
* |t_k − t*| ≤ δ for every k; if δ ≤ min(t*, 1 − t*)/2 then t_k ∈ [t*/2, (1 + t*)/2] and the middle term is
  ≥ (t*(1 − t*)/2)(1 − c) per sample: **NC3 = (1/N)Σ(1 − c_ki) ≤ C3 ε, C3 = 4/(t*(1 − t*))**;
* NC1: tr Σ_W ≤ (1/N)Σ‖x_ki − √d ŵ_k‖² = 2d·NC3; with y_k = √d ŵ_k, √tr Σ_B ≥ √S_y − √(2d·NC3) (centring is
  a contraction in the (1/K)-weighted norm, and (1/K)Σ‖μ_k − y_k‖² ≤ 2d·NC3 by Jensen), and
  S_y = d(1 − 1/K) − (d/K²)Σ_{k≠l}Ĝ_kl, Ĝ the cosines of W's rows. Off-diagonal: t_lĜ_lk = w_lᵀx_ki −
  w_lᵀ(x_ki − y_k), so (1/K)Σ_{k≠l}t_l²Ĝ_lk² ≤ 4ε + 4(K−1)t_max²·NC3, i.e. Σ_{k≠l}Ĝ_kl² ≤ C_G ε,
  C_G = 16K(1 + (K−1)C3)/t*² (t_l ≥ t*/2, t_max ≤ 1); Σ|Ĝ_kl| ≤ √(K(K−1)C_G ε).
  **NC1 ≤ 2d·C3 ε/(√S_y − √(2dC3 ε))²**;
* NC2B ≤ ‖G − z*²I‖/‖G‖, G = WWᵀ: Σ_k(z_k² − z*²)² ≤ (z_hi + z*)²·2ε/(μd), Σ_{k≠l}z_k²z_l²Ĝ² ≤ z_hi⁴C_Gε,
  ‖G‖² ≥ K z_lo⁴ (z_lo = t*/(2√d), z_hi = (1+t*)/(2√d)): **NC2B ≤ √(((z_hi+z*)²·2/(μd) + z_hi⁴C_G)/(K z_lo⁴))·√ε**.

CE (d ≥ K), f = (1/N)Σ CE_ki + (λ/2)‖W‖²
------------------------------------------
The closed-form lower bound (``ufm.closed_form``) is a chain; each link's slack is ≤ ε. With w̄ the mean row,
m_k = w_k − w̄, ρ = ‖W‖/√K, ρ̃ = ‖W − 1w̄ᵀ‖/√K, A = (1/K)Σ‖m_k‖, a = √dK/(K−1), h(s) = log(1 + (K−1)e^s):
(J1) CE_ki ≥ h(s_ki), s_ki = mean_{j≠k} u_j, u_j = (w_j − w_k)ᵀx_ki = −… (Jensen over the wrong classes);
(J2) (1/N)Σh(s_ki) ≥ h(s̄) (Jensen over samples); (CS) s̄ = −aA + aD, D = (1/K)Σ‖m_k‖(1 − c̄_k) ≥ 0, c̄_k the
class mean of cos(x_ki, m_k); (QM) A ≤ ρ̃ ≤ ρ; h increasing with h'(s) ≥ η := h'(−aρ_hi) on s ≥ −aρ; and
g(ρ) = h(−aρ) + (λK/2)ρ² is λK-strongly convex, g(ρ*) = L*. So, with β = aη:
* (λK/2)(ρ − ρ*)² ≤ ε: ρ ∈ [ρ_lo, ρ_hi] = ρ* ∓ √(2ε/(λK)); ρ − ρ̃, ρ̃ − A, D ≤ ε/β;
* Var‖m_k‖ = ρ̃² − A² ≤ 2ρ_hi ε/β, so ‖m_k‖ ∈ [m_lo, m_hi], m_lo = ρ_lo − 2ε/β − √(2Kρ_hiε/β); ‖w̄‖² = ρ² − ρ̃² ≤
  2ρ_hiε/β;
* NC3: (1/N)Σ(1 − cos(x_ki, m_k)) ≤ ε/(βm_lo); 1 − cos(m_k, w_k) ≤ ‖w̄‖²/m_lo²; √(1 − cos) is subadditive in the
  angle, so **NC3 ≤ 2ε/(βm_lo) + 4ρ_hiε/(βm_lo²)**;
* NC1 as for MSE with y_k = √d m̂_k: S_y = d(1 − ‖mean m̂_k‖²) and (Σm_k = 0) ‖mean m̂_k‖ ≤ √Var/A:
  **NC1 ≤ (2dε/(βm_lo))/(√(d(1 − 2ρ_hiε/(βA_lo²))) − √(2dε/(βm_lo)))²**, A_lo = ρ_lo − 2ε/β;
* NC2A: per sample (J1)'s slack is ≥ (c_H/2)Σ_{j≠k}(u_j − s_ki)², c_H = p₀p_min the smallest curvature of
  u ↦ log(1 + Σe^{u_j}) across {u : mean u fixed} on the segment, bounded with every sample within r_max =
  √(2dNε/(βm_lo)) of √d m̂_k: u_j ∈ [u_dn, u_up] = [−2√d m_hi − 2m_hi r_max, √d(m_hi − m_lo) + 2m_hi r_max],
  p₀ ≥ 1/(1 + (K−1)e^{u_up}), p_min ≥ e^{u_dn}p₀. With u_j − s_ki = (m_j + m_k/(K−1))ᵀx_ki and x_ki ≈ √d m̂_k,
  R_kj = m_jᵀm_k + ‖m_k‖²/(K−1) obeys Σ_{k≠j}R_kj² ≤ C_R ε, C_R = (K m_hi²/d)(4/c_H + 4K²m_hi²d/((K−1)βm_lo)).
  Then ‖MMᵀ − ρ̃²(K/(K−1))E_K‖² ≤ (1 + 2/(K−1))(m_hi + ρ_hi)²K(2ρ_hiε/β + ε²/β²) + 2C_Rε and
  ‖WWᵀ − MMᵀ‖ ≤ 2Kρ_hi‖w̄‖ + K‖w̄‖², ‖WWᵀ‖ ≥ tr(WWᵀ)/√K = √Kρ²: **NC2A ≤ (those)/(√Kρ_lo²) = O(√ε)**.

The constants are evaluated at ε itself (every intermediate bound is monotone in ε), so ``nc_bounds`` returns the
bound C(ε)ε^p for the ε at hand and the limit constants C(0+) are ``limit_constants``.
"""

from __future__ import annotations

import math

from .ufm import closed_form

EXPONENTS = {"nc1": 1.0, "nc2": 0.5, "nc3": 1.0}
NC2_OF = {"mse": "nc2b", "ce": "nc2a"}


def _mse(K: int, d: int, lam: float, eps: float) -> dict | None:
    t = d / (d + K * lam)
    mu = 1 / K + lam / d
    delta = math.sqrt(2 * eps / mu)
    if delta > min(t, 1 - t) / 2:
        return None
    C3 = 4 / (t * (1 - t))
    nc3 = C3 * eps
    CG = 16 * K * (1 + (K - 1) * C3) / t**2
    Sy = d * (1 - 1 / K) - (d / K**2) * math.sqrt(K * (K - 1) * CG * eps)
    den = math.sqrt(max(Sy, 0.0)) - math.sqrt(2 * d * nc3)
    if Sy <= 0 or den <= 0:
        return None
    nc1 = 2 * d * nc3 / den**2
    zs, zlo, zhi = t / math.sqrt(d), t / (2 * math.sqrt(d)), (1 + t) / (2 * math.sqrt(d))
    nc2 = math.sqrt(((zhi + zs) ** 2 * 2 / (mu * d) + zhi**4 * CG) / (K * zlo**4)) * math.sqrt(eps)
    return {"nc1": nc1, "nc2": nc2, "nc3": nc3}


def _ce(K: int, n: int, d: int, lam: float, eps: float) -> dict | None:
    opt = closed_form("ce", K, d, lam)
    rho, a = opt.row_norm, math.sqrt(d) * K / (K - 1)
    dr = math.sqrt(2 * eps / (lam * K))
    lo, hi = rho - dr, rho + dr
    if lo <= 0:
        return None
    eta = (K - 1) * math.exp(-a * hi) / (1 + (K - 1) * math.exp(-a * hi))
    beta = a * eta
    m_lo = lo - 2 * eps / beta - math.sqrt(2 * K * hi * eps / beta)
    m_hi = hi + math.sqrt(2 * K * hi * eps / beta)
    A_lo = lo - 2 * eps / beta
    wbar2 = 2 * hi * eps / beta
    if m_lo <= 0 or A_lo <= 0 or wbar2 >= m_lo**2:
        return None
    nc3 = 2 * eps / (beta * m_lo) + 2 * wbar2 / m_lo**2
    spread = 2 * d * eps / (beta * m_lo)  # (1/N)Σ‖x_ki − √d m̂_k‖² bound
    mean_hat2 = wbar2 / A_lo**2  # ‖mean m̂_k‖² ≤ Var/A² ≤ 2ρ_hiε/(βA²)
    if mean_hat2 >= 1:
        return None
    den = math.sqrt(d * (1 - mean_hat2)) - math.sqrt(spread)
    if den <= 0:
        return None
    nc1 = spread / den**2
    return {"nc1": nc1, "nc3": nc3, "nc2": _ce_nc2(K, n, d, eps, beta, lo, hi, m_lo, m_hi, wbar2)}


def _ce_nc2(K, n, d, eps, beta, lo, hi, m_lo, m_hi, wbar2) -> float:
    """The NC2A bound of the module docstring. The curvature window needs every sample close to √d m̂_k: each
    1 − cos(x_ki, m_k) ≥ 0 is at most N = Kn times their mean, ≤ Nε/(βm_lo)."""
    u_up = math.sqrt(d) * (m_hi - m_lo + K * n * eps / beta)
    u_dn = -2 * math.sqrt(d) * m_hi
    if u_up > 700:
        return math.inf
    p0 = 1 / (1 + (K - 1) * math.exp(u_up))
    c_h = p0 * p0 * math.exp(u_dn)
    c_r = (K * m_hi**2 / d) * (4 / c_h + 4 * K**2 * m_hi**2 * d / ((K - 1) * beta * m_lo))
    var_part = (1 + 2 / (K - 1)) * (m_hi + hi) ** 2 * K * (2 * hi * eps / beta + eps**2 / beta**2)
    gram = math.sqrt(var_part + 2 * c_r * eps)
    wb = math.sqrt(wbar2)
    return (gram + 2 * K * hi * wb + K * wbar2) / (math.sqrt(K) * lo**2)


def nc_bounds(loss: str, K: int, n: int, d: int, lam: float, eps: float) -> dict | None:
    """{nc1, nc2, nc3} upper bounds for every feasible (W, X) with f − L* ≤ ε (nc2 is NC2B for MSE, NC2A for
    CE), or None where ε is too large for the derivation's positivity conditions."""
    if not (math.isfinite(eps) and eps >= 0) or lam <= 0:
        return None
    return _mse(K, d, lam, eps) if loss == "mse" else _ce(K, n, d, lam, eps)


def limit_constants(loss: str, K: int, n: int, d: int, lam: float, eps: float = 1e-16) -> dict | None:
    """C(0+) = lim_{ε→0} bound/ε^p, evaluated at a tiny ε."""
    b = nc_bounds(loss, K, n, d, lam, eps)
    return None if b is None else {k: v / eps ** EXPONENTS[k] for k, v in b.items()}


def validity_limit(loss: str, K: int, n: int, d: int, lam: float, top: float = 10.0) -> float:
    """The largest ε (to a factor 2^{1/8}) at which the bounds say something (0 if none)."""
    eps = top
    while eps > 1e-300:
        b = nc_bounds(loss, K, n, d, lam, eps)
        if b is not None and all(math.isfinite(v) for v in b.values()):
            return eps
        eps /= 2 ** 0.125
    return 0.0
