"""Per-step quantities of power iteration (PI, App. B.4 eq. 101) along real trajectories, for Lemmas 7–10 of App. G.

PI runs from ``starts`` random unit vectors at once (batched) on one of three instance families (``model``):

* ``mixture``: A(w) = 𝕍[x·1{wᵀx > 0}] in closed form for a Gaussian mixture (uniform α, no augmentation, N → ∞,
  Corollary 1): positive definite, smooth in w.
* ``batch``: A(w) = C_α[x̃ʷ] of eq. (3) on a finite batch of N samples with two augmented views (uniform α). The
  augmentation is strong along one random direction (standard deviation ``aug``), so the intra-pair term makes A
  indefinite, with a large negative eigenvalue.
* ``shifted``: PI on Â(w) = A(w) − λ_min(A(w))I + ``shift``·I for the same batch: the paper's recipe for non-PD A
  (App. B.4, after eq. 103), positive definite with the same eigenvectors.

For every step t (flattened over starts) :func:`step_quantities` returns, with φ_i(t), λ_i(t) the eigenpairs of A(w(t))
in descending order, the sign of φ₁(t) chosen so that c_t = φ₁(t)ᵀw(t) ≥ 0 (B.4: "use −φ₁ if c₀ < 0"):

* 1 − c_t and 1 − d_t (d_t = φ₁(t)ᵀw(t+1)) without cancellation: with a_i = φ_i(t)ᵀw(t), 1 − c_t = Σ_{i>1}a_i²/(1 + a₁)
  and, since w(t+1) = A w(t)/‖A w(t)‖, 1 − d_t = Σ_{i>1}λ_i²a_i²/(√S(√S + λ₁a₁)), S = Σ_iλ_i²a_i²;
* μ_t (eq. 182), ‖δw(t)‖, δA(t) = A(w(t+1)) − A(w(t)), the step's own Lipschitz ratio L_t = ‖δA‖₂/‖δw‖ and Lemma 9's
  ratio κ_t = ‖φ₁(t+1) − φ₁(t) − Δφ₁(t)‖/‖δA‖₂² (φ₁(t+1) aligned with φ₁(t), Δφ₁ the first-order term of eq. 190);
* |d_t − c_{t+1}| = |(φ₁(t) − φ₁(t+1))ᵀw(t+1)| (eq. 192) and ν_t of eq. (193) with L = L_t, κ = κ_t.

Using the step's own L_t ≤ L and κ_t ≤ κ makes ν_t the smallest value the lemma allows (ν is increasing in L and κ):
the check is at least as strict as with the true global constants.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..core.result import Param, Violation
from ..data.latents import random_gaussian_mixture
from ..optim.sphere_flow import power_iteration, random_unit
from .covariance import A_batch, A_mixture

MODELS = ("mixture", "batch", "shifted")


def build(p: dict, ctx):
    """A(·) of the instance: (B, d) unit rows → (B, d, d)."""
    d = p["d"]
    gm = random_gaussian_mixture(ctx, d, p["clusters"], p["radius"], p["sigma"])
    if p["model"] == "mixture":
        return lambda W: A_mixture(gm, W)
    N = p["N"]
    x0 = gm.sample(ctx, N)
    u = ctx.randn(d)
    u = u / u.norm()
    noise = lambda: p["aug"] * ctx.randn(N, 1) * u + 0.05 * ctx.randn(N, d)  # noqa: E731
    x1, x2 = x0 + noise(), x0 + noise()
    if p["model"] == "batch":
        return lambda W: A_batch(x1, x2, W)
    eye = torch.eye(d, dtype=ctx.dtype, device=ctx.device)

    def shifted(W):
        A = A_batch(x1, x2, W)
        return A + (p["shift"] - torch.linalg.eigvalsh(A)[:, :1, None]) * eye

    return shifted


@dataclass
class Steps:
    one_minus_c: torch.Tensor  # (S,) at the step's start
    one_minus_d: torch.Tensor
    c: torch.Tensor
    mu: torch.Tensor
    lam: torch.Tensor  # (S, d) eigenvalues of A(w(t)), descending
    dw: torch.Tensor  # ‖w(t+1) − w(t)‖
    dA: torch.Tensor  # ‖A(t+1) − A(t)‖₂
    L: torch.Tensor
    kappa: torch.Tensor
    gap_dc: torch.Tensor  # |d_t − c_{t+1}|
    nu: torch.Tensor
    tail_energy: torch.Tensor  # Σ_{i>1} λ_i²a_i² (the proof's (184) bounds it by λ₂²(1 − c_t²))
    rest: torch.Tensor  # Σ_{i>1} a_i² = 1 − c_t²
    iterations: int
    residual: torch.Tensor  # (starts,) final critical residual of PI
    A: torch.Tensor | None = None  # (S, d, d) A(w(t)) of each step (a lemma's replay point: theorems.rigorous)
    w: torch.Tensor | None = None  # (S, d) w(t)

    @property
    def gap(self) -> torch.Tensor:
        return self.lam[:, 0] - self.lam[:, 1]


def eig_desc(A: torch.Tensor):
    evals, evecs = torch.linalg.eigh(A)
    return evals.flip(-1), evecs.flip(-1)


def run(p: dict, ctx) -> Steps:
    A_fn = build(p, ctx)
    run_ = power_iteration(A_fn, random_unit(ctx, p["starts"], p["d"]), max_iter=p["pi_iters"], tol=1e-13,
                           record=True)
    H = run_.history  # (T+1, B, d)
    T1, B, d = H.shape
    A = A_fn(H.reshape(-1, d)).reshape(T1, B, d, d)
    lam, phi = eig_desc(A)
    a = torch.einsum("tbji,tbj->tbi", phi, H)  # a_i = φ_iᵀw
    sign = torch.where(a[..., :1] < 0, -1.0, 1.0).to(H.dtype)  # c_t ≥ 0
    phi1 = phi[..., 0] * sign
    a1 = a[..., 0] * sign[..., 0]
    rest = (a[..., 1:] ** 2).sum(-1)
    one_minus_c = rest / (1 + a1)
    Sq = (lam**2 * a**2).sum(-1).sqrt()
    tail_energy = (lam[..., 1:] ** 2 * a[..., 1:] ** 2).sum(-1)
    one_minus_d = tail_energy / (Sq * (Sq + lam[..., 0] * a1))
    mu = (1 + a1) / (2 * a1**2) * (lam[..., 1] / lam[..., 0]) ** 2
    s, n = slice(0, T1 - 1), slice(1, T1)
    dw = (H[n] - H[s]).norm(dim=-1)
    dA_mat = A[n] - A[s]
    dA = torch.linalg.matrix_norm(dA_mat, ord=2)
    # Δφ₁(t) = Σ_{j>1} φ_jᵀδAφ₁/(λ₁ − λ_j) φ_j; φ₁(t+1) aligned with φ₁(t) (Lemma 9)
    proj = torch.einsum("tbji,tbjk,tbk->tbi", phi[s], dA_mat, phi1[s])[..., 1:]
    den = (lam[s][..., :1] - lam[s][..., 1:]).clamp_min(torch.finfo(H.dtype).tiny)
    dphi = torch.einsum("tbji,tbi->tbj", phi[s][..., 1:], proj / den)
    nxt = phi[n][..., 0]
    nxt = nxt * torch.where((nxt * phi1[s]).sum(-1, keepdim=True) < 0, -1.0, 1.0).to(H.dtype)
    rem = (nxt - phi1[s] - dphi).norm(dim=-1)
    tiny = torch.finfo(H.dtype).tiny
    L = dA / dw.clamp_min(tiny)
    kappa = torch.where(dA > 0, rem / dA.clamp_min(tiny) ** 2, torch.zeros_like(rem))
    gap_dc = ((phi1[s] - phi1[n]) * H[n]).sum(-1).abs()  # uses the B.4 sign (c_{t+1} ≥ 0) for φ₁(t+1)
    c, m = a1[s], mu[s]
    gap = (lam[s][..., 0] - lam[s][..., 1]).clamp_min(tiny)
    nu = 2 * kappa * L**2 * (1 + m * c) + 2 * L / gap * torch.sqrt(m * (1 + m * c))
    flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731
    return Steps(flat(one_minus_c[s]), flat(one_minus_d[s]), flat(c), flat(m), flat(lam[s]), flat(dw), flat(dA),
                 flat(L), flat(kappa), flat(gap_dc), flat(nu), flat(tail_energy[s]), flat(rest[s]), run_.steps,
                 run_.residual, flat(A[s]), flat(H[s]))


def cost(p: dict):
    """The recorded trajectory (pi_iters + 1) × starts × d and its matrices A(w(t)) (d² each, eigen-decomposed);
    the batch models build A from N × d gated inputs per start and step."""
    from ..core.result import Cost

    T, B, d = p["pi_iters"] + 1, p["starts"], p["d"]
    per_A = d * d if p["model"] == "mixture" else p["N"] * d + d * d
    return Cost(elements=2 * T * B * (d * d + per_A), work=T * B * (per_A * d + 10 * d**3))


# Steps with 1 − c_t below this are converged: their ratios carry rounding of a_i (relative ~eps·‖A‖/(gap·√(1 − c))).
C_FLOOR = 1e-10
# Lemma 9's ratio κ_t needs ‖δA‖ large enough that ‖φ₁' − φ₁ − Δφ₁‖ ~ κ‖δA‖² stands above rounding (~1e-15).
DA_FLOOR = 1e-5


def params(model: str = "mixture"):
    """The instance parameters shared by Lemmas 7, 8 and 10 (one declaration for the three results)."""
    from ..core.result import Param, seed_param

    return (
        Param("model", str, model, "A(w): Gaussian-mixture closed form (PD), finite batch with augmentation "
              "(indefinite), or the batch shifted to PD (App. B.4)", choices=MODELS, sample=MODELS),
        Param("d", int, 3, "dimension", low=2, high=6, sample=(2, 5)),
        Param("clusters", int, 3, "Gaussian clusters", low=1, high=6, sample=(1, 5)),
        Param("radius", float, 2.0, "distance of the cluster means from 0", low=0.01, high=10.0, sample=(0.5, 3.0)),
        Param("sigma", float, 0.7, "cluster standard deviation (broad clusters: A varies along the trajectory)",
              low=0.01, high=10.0, sample=(0.3, 1.2)),
        Param("starts", int, 16, "PI starts, uniform on the sphere", low=1, high=256),
        Param("pi_iters", int, 60, "PI iterations at most (stops when every start is a fixed point)", low=1, high=500),
        Param("N", int, 64, "batch size (models batch, shifted)", low=8, high=4096, sample=(16, 256)),
        Param("aug", float, 4.0, "augmentation std along one direction (models batch, shifted)", low=0.0, high=50.0,
              sample=(0.0, 6.0)),
        Param("shift", float, 0.1, "λ_min(Â) of the shifted model", low=1e-12, high=100.0, sample=(1e-4, 1.0),
              log=True),
        seed_param("seed of the mixture, batch, augmentation and starts"),
    )


def judged(st: Steps, *, positive_definite: bool, top_abs: bool = False, need_dA: bool = False) -> torch.Tensor:
    """Steps inside a lemma's hypotheses: c_t > 0 and λ₁(t) > 0 (Lemma 7), or λ_i(t) > 0 for all i (Lemmas 8, 10);
    ``top_abs`` adds |λ_i| ≤ |λ₂| for i ≥ 2 (Lemma 7 corrected); converged steps (1 − c_t < C_FLOOR) and, for κ,
    steps with ‖δA‖ < DA_FLOOR·‖A‖ are left out."""
    lam = st.lam
    ok = (st.c > 0) & (lam[:, 0] > 0) & (st.one_minus_c >= C_FLOOR)
    if positive_definite:
        ok &= lam[:, -1] > 0
    if top_abs:
        ok &= lam[:, -1].abs() <= lam[:, 1].abs()
    if need_dA:
        ok &= st.dA >= DA_FLOOR * lam.abs().max(1).values
    return ok


def worst(values: torch.Tensor, mask: torch.Tensor) -> float:
    return float(values[mask].max()) if bool(mask.any()) else float("nan")


def judged_step_params(bound: str) -> tuple[Param, ...]:
    """The two negative-control switches of Lemmas 8 and 10: which steps are judged, and a rescaled ``bound``."""
    return (Param("include_indefinite", bool, False, "also judge steps where A(w(t)) is indefinite (negative control)",
                  "False"),
            Param("bound_scale", float, 1.0, "multiplies the bound (≠ 1 rescales it: negative control)", "1", low=1e-3,
                  high=10.0, breaks=f"exact bound {bound}"))


def judged_step_hypotheses(p: dict) -> list[Violation]:
    """Lemmas 8 and 10 assume A(w(t)) positive definite (``include_indefinite`` judges the other steps too); the
    exact bound is ``bound_scale``'s (`judged_step_params`)."""
    out = []
    if p["include_indefinite"]:
        out.append(Violation("λ_i(t) > 0 for all i", "include_indefinite=True also judges steps where A(w(t)) is "
                             "indefinite (negative control)", ("include_indefinite",)))
    return out
