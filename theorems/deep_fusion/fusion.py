"""Appendix B of paper 000 made computable: its formulas, the block map it analyses, the instances, and the
witnesses tried for Theorem 2's "there exist W^Q, W^K". Shared by the results built on Theorem 2
(``theorem_2``, ``theorem_2_depth``, ``fusion_trend``).

* The formulas, in log space (γ_B spans hundreds of decades): (B9) γ_B, (B10) γ_O, the base that (B6) squares,
  and the unsimplified balanced-cluster factor γ_ν (B5 over B7 before the simplification 1 ≤ ν_i ≤ n);
  the noise lemma's δ = sin φ, Δ = cos(ψ + φ) (φ = arccos(1 − ε), ψ = arccos ρ).
* The block: A = X̃MX̃ᵀ (M = W^QW^Kᵀ), X̃′ = softmax(A)X̃ with W^V = I and no residual, then either the rows are
  ℓ2-normalised (``aggregation='normalised'``: keeps eq. 6's unit norm; exp(A)X̃ and softmax(A)X̃ then give the
  same next input, the only sense in which "the normalization from softmax layer can be easily eliminated by the
  subsequent feed-forward layer") or not (``'unnormalised'``: App. B's literal x̃′_i = Σ_j e^{A_ij}x̃_j).
* exp-sharpness: log 𝒮(exp A) = min_same A − max_diff A (App. B's α/β), defined for every real A.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..data.subspaces import SubspaceBatch, add_noise, labels_from_sizes
from ..metrics.cluster_integrity import construct_w
from ..metrics.sharpness import sharpness
from ._common import build, random_rotations

AGGREGATIONS = ("normalised", "unnormalised")
# The witness search: scales s of W (W^QW^Kᵀ scales by s²) tried when no normalisation is imposed
WITNESS_SCALES = (1.0, 2.0, 4.0, 8.0)


# ------------------------------------------------------------------------------------------------------
# Appendix B's formulas (all in log space: γ_B spans hundreds of decades)
# ------------------------------------------------------------------------------------------------------
def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _logaddexp(a: float, b: float) -> float:
    return float(np.logaddexp(a, b))


def log_B6_same(n: float, d: float, D: float) -> float:
    """log of (B6)'s same-cluster bound (Δe^{Δ²} − n e^{n(δ+δ²)})² (the base squared as printed, any sign)."""
    a = _log(abs(D)) + D * D  # log |Δ e^{Δ²}|
    b = math.log(n) + n * (d + d * d)  # log (n e^{n(δ+δ²)})
    if D <= 0:
        log_base = _logaddexp(a, b)
    else:
        hi, lo = max(a, b), min(a, b)
        log_base = hi + math.log1p(-math.exp(lo - hi)) if hi > lo else -math.inf
    return 2 * log_base


def log_B6_cross(n: float, d: float, D: float) -> float:
    """log of (B6)'s cross-cluster bound n(nX) + n(nX)² = n²X + n³X², X = δe^{nΔ²} + e^{n(δ+δ²)}."""
    log_X = _logaddexp(_log(d) + n * D * D, n * (d + d * d))
    return _logaddexp(2 * math.log(n) + log_X, 3 * math.log(n) + 2 * log_X)


def log_B7(n: float, d: float, D: float) -> float:
    """log of (B7)'s upper bound on the previous sharpness, e^{nΔ² − δ − nδ²}."""
    return n * D * D - d - n * d * d


def log_B8(n: float, d: float, D: float) -> float:
    """log of (B8)'s lower bound on the next sharpness 𝒟(S′): (B6 same) / (B6 cross)."""
    return log_B6_same(n, d, D) - log_B6_cross(n, d, D)


def log_gamma_B(n: float, d: float, D: float) -> float:
    """log γ_B (B9) = log (B8) − log (B7) for sequence length n, δ = d, Δ = D."""
    return log_B8(n, d, D) - log_B7(n, d, D)


def gamma_B(n: float, d: float, D: float) -> float:
    """γ_B itself (0 or inf outside float range)."""
    return math.exp(min(log_gamma_B(n, d, D), 700.0))


def log_gamma_O(n: float, d: float, D: float) -> float:
    """log γ_O = n(δ²−Δ²) + δ − log n (B10's O-form)."""
    return n * (d * d - D * D) + d - math.log(n)


def base_B6(n: float, d: float, D: float) -> float:
    """Δe^{Δ²} − n e^{n(δ+δ²)}: the 'lower bound' B6 squares; negative for every n ≥ 3 (T2-4)."""
    return D * math.exp(D * D) - n * math.exp(n * (d + d * d))


def log_gamma_nu(nu: int, n: int, d: float, D: float) -> float:
    """log of the unsimplified balanced-cluster factor γ_ν (App. B before B6, ν_i = ν), nan where Δ′ ≤ 0 (undefined)."""
    la, lb = nu * D * D, 2 * nu * d + (n - 2 * nu) * d * d
    m = max(la, lb)  # δ′, Δ′ are taken divided by e^m, so that large δ, Δ do not overflow (m ≥ 0 for n ≥ 2ν)
    a, b = math.exp(la - m), math.exp(lb - m)
    dp, Dp = a * nu * d + b * (n - nu), a * nu * D - b * (n - nu)
    # log of the denominator 2νδ′e^{−m} + (n−2ν)δ′² (in logs: for n = 2ν it is the e^{−m} term alone, which
    # underflows once m ≳ 745 although γ_ν is finite there); for n < 2ν the second term is negative
    la_, lb_ = _log(2 * nu * dp) - m, _log(abs(n - 2 * nu) * dp * dp)
    if n >= 2 * nu:
        log_den = _logaddexp(la_, lb_)
    else:
        log_den = la_ + math.log1p(-math.exp(lb_ - la_)) if la_ > lb_ else -math.inf
    if Dp <= 0 or not log_den > -math.inf:
        return math.nan
    return math.log(nu) + 2 * math.log(Dp) - log_den + lb - la


def delta_Delta(eps: torch.Tensor, rho: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """δ = sin φ, Δ = cos(ψ + φ) (the noise lemma's constants in angular form), batched."""
    phi = torch.arccos((1 - eps).clamp(-1, 1))
    return torch.sin(phi), torch.cos(torch.arccos(rho.clamp(-1, 1)) + phi)


# ------------------------------------------------------------------------------------------------------
# Instances
# ------------------------------------------------------------------------------------------------------
def lines_batch(ctx, B: int, m: int, angle: float, sizes) -> SubspaceBatch:
    """Two lines at ``angle`` in R^m (randomly rotated); every cluster-c sample equals u_c."""
    U = torch.zeros(m, 2, dtype=ctx.dtype, device=ctx.device)
    U[0, 0] = 1.0
    U[0, 1], U[1, 1] = math.cos(angle), math.sin(angle)
    U = random_rotations(ctx, B, m) @ U
    labels = labels_from_sizes(sizes, device=ctx.device)
    return SubspaceBatch(U[:, :, labels].transpose(-1, -2).contiguous(), labels,
                         U.transpose(-1, -2).unsqueeze(-1), tuple(sizes))


FIXED = {
    # ε, ρ (= sin of the angle between the lines), m, sizes: App. B eq. (7) instance and two non-separable ones.
    # Delta_nonpositive: Δ = cos(ψ + φ) = 0.5·0.8 − (√3/2)·0.6 = −0.1196 at ε = 0.2, ρ = 0.5; the measured Δ uses
    # ε_eff = 1 − min_i x_iᵀx̃_i ≤ ε (random noise draws θ ≤ φ), so it is negative as long as some θ_i > 30°
    # (ρ = 0.6 gave Δ = 0 in closed form, a 3-4-5 right angle, and so a positive measured Δ: not what the name says)
    "eq7_counterexample": dict(eps=0.05, rho=math.sin(math.radians(60)), m=2, sizes=(2, 6)),
    "nonseparable": dict(eps=0.12, rho=0.75, m=3, sizes=(16, 16)),
    "Delta_nonpositive": dict(eps=0.2, rho=0.5, m=3, sizes=(32, 32)),
}


def instance(ctx, p: dict):
    """(clean batch, noisy rows, W) for the parameters."""
    B = p["instances"]
    if p["instance"] == "random":
        clean = build(ctx, p)
        eps = p["eps"]
    else:
        f = FIXED[p["instance"]]
        clean = lines_batch(ctx, B, f["m"], math.asin(f["rho"]), f["sizes"])
        eps = f["eps"]
    con = construct_w(clean.X, clean.labels, clean.bases)
    W = con.W
    if p["instance"] == "eq7_counterexample":
        # x̃₁, x̃₂ = u₁ rotated by ±φ in the plane (cosine exactly 1 − ε); cluster 2 noiseless
        phi = math.acos(1 - eps)
        R = clean.bases[:, 0, :, 0]  # u₁ (B, m)
        v = torch.stack([-R[:, 1], R[:, 0]], -1)  # u₁ rotated by 90°
        Xt = clean.X.clone()
        Xt[:, 0] = math.cos(phi) * R + math.sin(phi) * v
        Xt[:, 1] = math.cos(phi) * R - math.sin(phi) * v
    else:
        direction = None
        if p["noise"] == "toward":  # toward ± another cluster's construction vector
            direction = con.v[:, (clean.labels + 1) % clean.K]
        Xt = add_noise(ctx, clean.X, eps, p["noise"], direction)
    return clean, Xt, p["w_scale"] * W, con


def fusion_block(Xt: torch.Tensor, W: torch.Tensor, residual: bool, normalise: bool):
    """One block: A = X̃WWᵀX̃ᵀ, P = softmax(A), X̃′ = PX̃ (+X̃), optional row normalisation; returns (A, X̃′)."""
    A = Xt @ W @ W.transpose(-1, -2) @ Xt.transpose(-1, -2)
    Xn = torch.softmax(A, dim=-1) @ Xt
    if residual:
        Xn = Xn + Xt
    if normalise:
        Xn = Xn / Xn.norm(dim=-1, keepdim=True)
    return A, Xn


def exp_log_sharpness(A: torch.Tensor, same: torch.Tensor) -> torch.Tensor:
    """log 𝒮 of exp(A) (App. B's α/β): min_same A − max_diff A, batched over leading dims."""
    return A.masked_fill(~same, math.inf).amin((-1, -2)) - A.masked_fill(same, -math.inf).amax((-1, -2))


def aggregate(A: torch.Tensor, Xt: torch.Tensor, aggregation: str = "normalised") -> torch.Tensor:
    """The next layer's input: softmax(A)X̃ with unit rows, or App. B's literal exp(A)X̃ (no normalisation)."""
    if aggregation == "unnormalised":
        return torch.exp(A) @ Xt
    Xn = torch.softmax(A, -1) @ Xt
    return Xn / Xn.norm(dim=-1, keepdim=True)


def block_log_ratio(Xt: torch.Tensor, M: torch.Tensor, labels: torch.Tensor, kind: str,
                    aggregation: str = "normalised") -> torch.Tensor:
    """log 𝒮(A′)/𝒮(A) of one block for bilinear forms M (..., m, m) on X̃ (B, 1.., n, m): A = X̃MX̃ᵀ,
    X̃′ = ``aggregate(A, X̃)``, A′ = X̃′MX̃′ᵀ. −inf where a logit sharpness is undefined (or exp(A) overflows)."""
    A = Xt @ M @ Xt.transpose(-1, -2)
    Xn = aggregate(A, Xt, aggregation)
    An = Xn @ M @ Xn.transpose(-1, -2)
    if kind == "exp":
        same = labels[:, None] == labels[None, :]
        out = exp_log_sharpness(An, same) - exp_log_sharpness(A, same)
        return torch.nan_to_num(out, nan=-math.inf)
    flat = (-1, *A.shape[-2:])
    s0, s1 = sharpness(A.reshape(flat), labels, kind), sharpness(An.reshape(flat), labels, kind)
    out = torch.where(s0.defined & s1.defined, s1.log_value - s0.log_value, torch.full_like(s0.log_value, -math.inf))
    return torch.nan_to_num(out, nan=-math.inf).reshape(A.shape[:-2])


def witness_candidates(ctx, W: torch.Tensor, restarts: int, normalisation: str):
    """Yield batches of bilinear forms M = W^QW^Kᵀ (B, R, m, m) to try: the proof's W, random rank-one W
    (every column the same random unit vector, so the columns are unit), random W with i.i.d. unit columns;
    each at the scales the reading allows (unit columns: none; no normalisation: s² ∈ SCALES²)."""
    B, m, n = W.shape
    scales = (1.0,) if normalisation == "unit_columns" else WITNESS_SCALES

    def unit(v):
        return v / v.norm(dim=-2, keepdim=True)

    v, w = unit(ctx.randn(B, restarts, m, 1)), unit(ctx.randn(B, restarts, m, 1))
    WQ, WK = unit(ctx.randn(B, restarts, m, n)), unit(ctx.randn(B, restarts, m, n))
    for s in scales:
        yield "proof_W", s, (s * s) * (W @ W.transpose(-1, -2)).unsqueeze(1)
        yield "rank_one", s, (s * s * n) * (v @ w.transpose(-1, -2))
        yield "random", s, (s * s) * (WQ @ WK.transpose(-1, -2))


# ------------------------------------------------------------------------------------------------------
# Appendix B's next-layer steps (B4–B8 and the unsimplified γ_ν) on its literal aggregation
# ------------------------------------------------------------------------------------------------------
def _pairs_min(t: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return t.masked_fill(~mask, math.inf).amin((-1, -2))


def _pairs_max(t: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return t.masked_fill(~mask, -math.inf).amax((-1, -2))


def appendix_b_steps(Xt: torch.Tensor, W: torch.Tensor, labels: torch.Tensor, d: torch.Tensor, D: torch.Tensor,
                     sizes) -> dict[str, torch.Tensor]:
    """Per instance (B,), the slack of every next-layer step of App. B for the proof's W on its literal
    aggregation x̃′_i = Σ_j e^{A_ij} x̃_j (B3 with the actual weights; "the normalization from softmax … eliminated").

    α_i = e^{ν_iΔ²}, β_i = max_{c_j≠c_i} e^{(ν_i+ν_j)δ+(n−ν_i−ν_j)δ²} (eqs. 7, 8), δ′_i = α_iν_iδ + β_i(n−ν_i),
    Δ′_i = α_iν_iΔ − β_i(n−ν_i) (B4). Everything is computed with row i scaled by e^{−a_i}, a_i = max_j A_ij, so
    that nothing overflows: X̃′_i = e^{a_i}Y_i. Slacks: relative (B4, B5: (observed − bound)/|bound|, signed so
    that < 0 fails) or in nats (B6–B8, γ_ν); NaN where the step's quantity is undefined on that instance.
    """
    n = labels.numel()
    same = labels[:, None] == labels[None, :]
    nu = torch.tensor(sizes, dtype=Xt.dtype, device=Xt.device)[labels]  # (n,)
    A = Xt @ W @ W.transpose(-1, -2) @ Xt.transpose(-1, -2)
    a = A.amax(-1)  # (B, n)
    YW = (torch.exp(A - a.unsqueeze(-1)) @ Xt) @ W  # [X̃′W]_il = e^{a_i}·YW_il
    dd, DD = d[:, None], D[:, None]
    ln_alpha = nu * DD ** 2  # (B, n)
    ln_beta_ij = (nu[:, None] + nu[None, :]) * dd[..., None] + (n - nu[:, None] - nu[None, :]) * dd[..., None] ** 2
    ln_beta = ln_beta_ij.masked_fill(same, -math.inf).amax(-1)  # (B, n)
    ea, eb = torch.exp(ln_alpha - a), torch.exp(ln_beta - a)
    dp = ea * nu * dd + eb * (n - nu)  # δ′_i e^{−a_i}
    Dp = ea * nu * DD - eb * (n - nu)  # Δ′_i e^{−a_i}
    out = {
        "B4_offblock_upper": _pairs_min((dp[..., None] - YW) / dp[..., None].abs(), ~same),
        "B4_inblock_lower": _pairs_min((YW - Dp[..., None]) / Dp[..., None].abs(), same),
    }
    G = YW @ YW.transpose(-1, -2)  # A′_ij = e^{a_i + a_j} G_ij
    ai, aj = a[..., :, None], a[..., None, :]
    lb5 = nu[:, None] * Dp[..., :, None] ** 2 * torch.exp(ai - aj)
    ub5 = ((nu[:, None] + nu[None, :]) * dp[..., :, None] * torch.exp(-aj)
           + (n - nu[:, None] - nu[None, :]) * dp[..., :, None] ** 2 * torch.exp(ai - aj))
    out["B5_same_lower"] = _pairs_min((G - lb5) / lb5.abs(), same)
    out["B5_cross_upper"] = _pairs_min((ub5 - G) / ub5.abs(), ~same)
    logA = torch.where(G > 0, ai + aj + torch.log(G.clamp_min(torch.finfo(G.dtype).tiny)),
                       torch.full_like(G, -math.inf))  # log A′ (−inf where A′ ≤ 0)
    args = list(zip(d.tolist(), D.tolist(), strict=True))
    const = lambda f: torch.tensor([f(n, x, y) for x, y in args], dtype=Xt.dtype, device=Xt.device)  # noqa: E731
    out["B6_same_lower"] = _pairs_min(logA, same) - const(log_B6_same)
    out["B6_cross_upper"] = const(log_B6_cross) - _pairs_max(logA, ~same)
    prev = exp_log_sharpness(A, same)  # log 𝒟(S), S = exp(A)
    out["B7_previous_sharpness_upper"] = const(log_B7) - prev
    same_pos = (G.masked_fill(~same, math.inf).amin((-1, -2)) > 0)
    nxt = _pairs_min(logA, same) - _pairs_max(logA, ~same)  # log 𝒟(S′), S′ = A′ (logits), where defined
    nxt = torch.where(same_pos, nxt, torch.full_like(nxt, math.nan))
    out["B8_next_sharpness_lower"] = nxt - const(log_B8)
    if len(set(sizes)) == 1:
        gnu = const(lambda n_, x, y: log_gamma_nu(sizes[0], n_, x, y))
        out["gamma_nu_ratio"] = nxt - prev - gnu  # NaN where γ_ν (Δ′ ≤ 0) or 𝒟(S′) is undefined
    return out
