"""Theorem 2's quantities on one encoder over every (δ, ε) setting: shared by the Theorem 2 check and the
augmentation trend.

ρ_max(σ, δ, ε) = 2(1−σ) + coef·R_ε/min_ℓ p_ℓ + σ(Lδ + 2ε)/r, the divergence threshold
r²(1 − ρ_max − √(2ρ_max) − Δ_μ/2), the settings where max_{ℓ≠k} μ_ℓᵀμ_k is below it, the bound (1−σ)+R_ε there,
and the proof's per-point steps on the good points (x ∈ C_k⁰ ∩ S_ε). Three variants: ``printed`` (coefficient 1
on R_ε/min p, as on the slide, with ρ_ℓ read as the class mass p_ℓ), ``repaired`` (coefficient 2, what the
proof's step 3 supports) and ``repaired_delta_f`` (Lδ replaced by δ_f, the augmented distance of the embedded
views inside the main parts, which is ≤ Lδ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from . import population as P
from .instances import Grid, grid

PRINTED_COEF = 1.0  # the coefficient of R_ε/min p in ρ_max as printed
REPAIRED_COEF = 2.0  # what the proof's step 3 supports
MUTATIONS = ("none", "drop_a", "drop_R", "drop_sigma", "lipschitz_tenth")


def rho(sigma, R, a, pmin, coef: float, mutation: str = "none"):
    """ρ_max(σ, δ, ε) on the grid: 2(1−σ) + coef·R_ε/min p + σa (a = (Lδ+2ε)/r or (δ_f+2ε)/r); ``mutation`` drops
    a term (a negative control)."""
    t_sigma = 0 * sigma if mutation == "drop_sigma" else 2 * (1 - sigma)
    t_R = 0 * R if mutation == "drop_R" else coef * R / pmin
    t_a = 0 * a if mutation == "drop_a" else sigma * a
    return t_sigma + t_R + t_a


def threshold(rh, delta_mu, r: float, slack: float = 0.0):
    """r²(1 − ρ − √(2ρ) − Δ_μ/2) (+ slack·r², a negative control)."""
    return r ** 2 * (1 - rh - torch.sqrt(2 * rh) - delta_mu / 2) + slack * r ** 2


@dataclass
class Encoded:
    """One encoder on one population: the centres, the classifier G_f and the inner products the proof uses."""

    err: float
    correct: torch.Tensor  # (N,) G_f right
    margin: torch.Tensor  # (N,) min_{ℓ≠k} ‖f−μ_ℓ‖² − ‖f−μ_k‖²
    maxdot: float  # max_{ℓ≠k} μ_ℓᵀμ_k
    delta_mu: float
    own: torch.Tensor  # (N,) f(x)ᵀμ_k
    dist_own: torch.Tensor  # (N,) ‖f(x) − μ_k‖²
    cross: torch.Tensor  # (N,) max_{ℓ≠k} f(x)ᵀμ_ℓ − μ_kᵀμ_ℓ


def encoded(pop, F, F0, r: float) -> Encoded:
    y, K = pop.labels, pop.K
    mu = P.class_centres(F, pop.view_w, y, K)
    correct, margin = P.nearest_centre(F0, mu, y)
    gram = mu @ mu.T
    maxdot = float(gram.masked_fill(torch.eye(K, dtype=torch.bool, device=gram.device), -torch.inf).max())
    fmu = F0 @ mu.T
    return Encoded(err=float((~correct).to(F.dtype).mean()), correct=correct, margin=margin, maxdot=maxdot,
                   delta_mu=1 - float((mu ** 2).sum(1).min()) / r ** 2,
                   own=fmu.gather(1, y[:, None]).squeeze(1),
                   dist_own=P.centre_distances(F0, mu).gather(1, y[:, None]).squeeze(1),
                   cross=(fmu - gram[y]).scatter(1, y[:, None], -torch.inf).amax(1))


def delta_f(pop, F, g: Grid) -> torch.Tensor:
    """(Dn,) δ_f(δ): the largest embedded augmented distance between two points of one main part."""
    DAf = P.embedded_augmented_distance(F)
    same = pop.labels[:, None] == pop.labels[None, :]
    pair_in_main = g.main[:, :, None] & g.main[:, None, :] & same[None]
    return torch.where(pair_in_main, DAf[None], torch.zeros_like(DAf)[None]).amax((1, 2))


def variant(e: Encoded, g: Grid, dist, coef: float, pmin: float, r: float, p: dict) -> dict:
    """One ρ_max variant on the grid: the condition, the bound where it holds, and the proof's steps on the good
    points (``dist`` (Dn,) is Lδ or δ_f)."""
    sigma, R = g.sigma[:, None], g.R[None, :]
    good = g.main[:, None, :] & g.S[None, :, :]  # (Dn, En, N)
    bound = p["bound_scale"] * ((1 - sigma) + R)
    a = (dist[:, None] + 2 * g.eps[None, :]) / r
    rh = rho(sigma, R, a, pmin, coef, p["rho_mutation"])
    thr = threshold(rh, e.delta_mu, r, p["thr_slack"])
    cond = e.maxdot < thr  # (Dn, En)
    inf = torch.tensor(torch.inf, dtype=bound.dtype, device=bound.device)
    rhN = rh[..., None]
    cgood = good & cond[..., None]
    return dict(
        step3=float(torch.where(good, e.own - r ** 2 * (1 - rhN), inf).amin()),
        step4=float(torch.where(good, e.dist_own - 2 * r ** 2 * rhN, -inf).amax()),
        step5=float(torch.where(good, e.cross - r ** 2 * torch.sqrt(2 * rhN), -inf).amax()),
        margin=float(torch.where(cgood, e.margin, inf).amin()),
        best=float(torch.where(cond, bound, inf).min()), n_cond=int(cond.sum()), rho_min=float(rh.min()),
        condition_margin=float(torch.where(cond, thr - e.maxdot, inf).min()) / r ** 2)


def analyse(pop, F, F0, r: float, conc, p: dict) -> dict:
    """Everything Theorem 2 says about one encoder on every (δ, ε) setting, for the three variants; ``p`` needs
    eps_min, rho_mutation, thr_slack and bound_scale."""
    g = grid(pop, F, eps_min=p["eps_min"], conc=conc)
    L = P.lipschitz_on_support(pop, F, F0)
    if p["rho_mutation"] == "lipschitz_tenth":
        L *= 0.1
    e = encoded(pop, F, F0, r)
    pmin = float(pop.p().min())
    df = delta_f(pop, F, g)
    out = {"err": e.err, "L": L, "maxdot": e.maxdot, "delta_mu": e.delta_mu, "pmin": pmin, "g": g,
           "delta_f_minus_L_delta": float((df - L * g.deltas).max()) if math.isfinite(L) else -math.inf,
           "variants": {name: variant(e, g, dist, coef, pmin, r, p) for name, (coef, dist) in (
               ("printed", (PRINTED_COEF, g.deltas * L)), ("repaired", (REPAIRED_COEF, g.deltas * L)),
               ("repaired_delta_f", (REPAIRED_COEF, df)))}}
    # Lemma-1 oracle: the best (δ, ε) where G_f is right on the whole good set, no divergence condition
    good = g.main[:, None, :] & g.S[None, :, :]
    ok = ~((~e.correct) & good).any(-1)
    bound = (1 - g.sigma[:, None]) + g.R[None, :]
    out["oracle_B_L1"] = float(torch.where(ok, bound, torch.full_like(bound, torch.inf)).min())
    return out
