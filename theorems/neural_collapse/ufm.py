"""The unconstrained features model (UFM) of paper 004, Definition 3.5, with R = identity.

Conventions (Definition 3.5; the losses as in objective (7) and eq. (13)): features are the columns of
X ∈ R^{d×N}, each on the LayerNorm sphere (1ᵀx = 0, ‖x‖ = √d); W ∈ R^{K×d} has no bias;

    L_MSE(W, X) = (1/2N)‖WX − Y‖_F² + (λ/2)‖W‖_F²
    L_CE(W, X)  = (1/N) Σ_i −log softmax(W x_i)_{y_i} + (λ/2)‖W‖_F²

This module holds what every result about the UFM needs: the batched objective, the closed-form optima
(derived for this suite from the proof of Lemma 4.2 in Appendix A, not printed in the paper), the
collapsed configurations they are attained at, and a batched solver over many random feasible starts
with a convergence certificate.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.optimize import brentq

from ..data.frames import balanced_labels, embed_in_ones_complement, one_hot, random_orthogonal, simplex_etf
from ..metrics.neural_collapse import both_families
from ..optim import fused
from ..optim.curvature import arrow_curvature, arrow_shift_certificate
from ..optim.lbfgs import GTOL, LbfgsResult, autograd_objective, batched_lbfgs
from ..optim.manifolds import ln, orthonormal_basis_of_ones_complement, tangent
from ..optim.newton import ArrowModel, NewtonResult, arrow_solve, mixed_precision_newton
from ..optim.threads import pinned

LOSSES = ("mse", "ce")
# Second-order certificate: a stationary start counts as converged only if the Riemannian Hessian has no eigenvalue
# below −CURV_RTOL·(its scale). Zero eigenvalues of the rotation orbit come out at ~1e-15 relative. solve_ufm decides
# it at every start by the inertia test of optim.curvature.arrow_shift_certificate: the block Cholesky of H + σI
# (σ = CURV_RTOL·ŝ, ŝ ≤ max|λ|) succeeding proves λ_min > −CURV_RTOL·max|λ|, a bound, not a number (at about the
# cost of one Newton step: the exact spectrum of every start cost more than the whole float64 polish at K=4). The
# number is a measurement at the best start only: up to DENSE_CURV_MAX the exact spectrum (eigvalsh), which also
# sharpens that start's proven bound; beyond it CURV_ITERS Lanczos steps, whose Ritz value λ_min is an upper estimate
# (a capped Lanczos can miss a saddle: on a synthetic spectrum of that dimension a lone eigenvalue at −1e-3 relative
# needed 120–200 steps and one at −1e-5 was missed at 200), so it is shown, never used to certify.
CURV_RTOL = 1e-8
CURV_ITERS = 120
# Up to this tangent dimension K(d−1) + N(d−2) the measured λ_min is the exact spectrum of the dense Hessian
# (eigvalsh; ufm_second_order's default, which tests use as the reference, certifies by it too): below CURV_ITERS
# Lanczos would run to the full dimension anyway, at the cost of one Python step per dimension, and a little beyond it
# the dense eigensolver is still cheaper than the capped Lanczos and gives exact values. (The inertia test's scale is
# the Hessian's largest column norm at every size: ufm_second_order.)
DENSE_CURV_MAX = 256
# Restarts are solved in chunks of at most this many floats of Newton model (the arrow blocks of one chunk), so that a
# chunk's working set stays in cache and the time grows linearly with the restarts (one batch of 1024 small
# instances spilled out of cache and cost 7–13× the time of 256).
CHUNK_FLOATS = 1 << 19
# Small instances on the CPU run the Newton model and the arrow solve as compiled per-start loops (optim.fused: ~2×
# the torch kernels' speed at K=4 n=3 d=6, whose ~150 batched kernels an iteration have inner dimensions 4–6); the
# torch path stays for CUDA, for large instances (where its batched products are flop-efficient) and as the
# cross-check (tests/test_ufm_fused.py). Up to this many floats of Newton model per start (K=4 n=3 d=6: 1,360;
# K=10 n=20 d=32: 720,100). Measured (CE, 1 thread, CPU s, median of 3 alternations, compiled vs torch): K=6 n=4 d=12
# (13,956 floats, R=64) 0.29 vs 0.42; K=8 n=4 d=16 (38,592, R=32) 0.59 vs 0.58; K=10 n=4 d=24 (123,300, R=16) 1.24
# vs 0.77: the crossover is near 40k, the limit below it. THEOREMS_FUSED=0 in the environment forces the torch path.
FUSED_MAX_FLOATS = 1 << 15
FUSED = fused.AVAILABLE and os.environ.get("THEOREMS_FUSED", "1") != "0"


# ----------------------------------------------------------------------------------------------------
# Objective
# ----------------------------------------------------------------------------------------------------
def ufm_objective(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor, loss: str, lam: float) -> torch.Tensor:
    """The UFM objective, batched: W (..., K, d), X (..., d, N) -> (...)."""
    K, N = W.shape[-2], X.shape[-1]
    Z = W @ X  # (..., K, N) logits
    reg = 0.5 * lam * W.pow(2).sum(dim=(-2, -1))
    if loss == "mse":
        Y = one_hot(labels, K, dtype=W.dtype).to(W.device)
        return (Z - Y).pow(2).sum(dim=(-2, -1)) / (2 * N) + reg
    if loss == "ce":
        correct = Z.gather(-2, labels.expand(*Z.shape[:-2], 1, N)).squeeze(-2)
        return (torch.logsumexp(Z, dim=-2) - correct).mean(dim=-1) + reg
    raise ValueError(f"unknown loss {loss!r}")


def riemannian_grad_norm(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor, loss: str, lam: float) -> torch.Tensor:
    """Norm of the gradient on R^{K×d} × (LN sphere)^N: the KKT residual of the constrained UFM."""
    with torch.enable_grad():
        W_ = W.detach().requires_grad_(True)
        X_ = X.detach().requires_grad_(True)
        gW, gX = torch.autograd.grad(ufm_objective(W_, X_, labels, loss, lam).sum(), (W_, X_))
    return torch.sqrt(gW.pow(2).sum(dim=(-2, -1)) + tangent(X, gX).pow(2).sum(dim=(-2, -1)))


# ----------------------------------------------------------------------------------------------------
# Closed forms (derived from the proof of Lemma 4.2, Appendix A; see lemma_4_2's docstring)
# ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UFMOptimum:
    """The optimal value of the UFM and the row norm ‖w_k‖ of the collapsed configuration attaining it.

    ``frame`` is "orthogonal" (MSE: K orthonormal directions, needs d−1 ≥ K) or "simplex" (CE: a simplex
    ETF, needs d−1 ≥ K−1); ``attainable`` says whether 1^⊥ ⊂ R^d is large enough to hold that frame.
    ``formula`` names where the numbers come from, for the report.
    """

    loss: str
    K: int
    d: int
    lam: float
    value: float
    row_norm: float
    frame: str
    attainable: bool
    formula: str
    extra: dict = field(default_factory=dict)

    def scaled(self, factor: float, why: str) -> "UFMOptimum":
        """The same optimum with its value multiplied by ``factor`` (a deliberately wrong constant)."""
        return UFMOptimum(self.loss, self.K, self.d, self.lam, self.value * factor, self.row_norm,
                          self.frame, self.attainable, f"{self.formula} x {factor!r} ({why})", self.extra)


def frame_rank(loss: str, K: int) -> int:
    return K if loss == "mse" else K - 1


def collapsed_value(loss: str, K: int, d: int, lam: float, row_norm: float) -> float:
    """Objective of the collapsed configuration with equal row norms ``row_norm`` (any n: it is per class).

    MSE, orthogonal frame: logits (z√d) e_k, so ½(1 − z√d)² + (λK/2) z².
    CE, simplex ETF: the margin to every wrong class is aρ with a = √d K/(K−1), so
    log(1 + (K−1)e^{−aρ}) + (λK/2) ρ².
    """
    if loss == "mse":
        return 0.5 * (1 - row_norm * math.sqrt(d)) ** 2 + 0.5 * lam * K * row_norm**2
    a = math.sqrt(d) * K / (K - 1)
    return math.log1p((K - 1) * math.exp(-a * row_norm)) + 0.5 * lam * K * row_norm**2


def closed_form(loss: str, K: int, d: int, lam: float) -> UFMOptimum:
    """The closed-form UFM optimum (``lemma_4_2`` docstring, "Correction"): value L* and the optimal row norm.

    MSE: z* = √d/(d + Kλ), L* = Kλ/(2(d + Kλ)). CE: ρ* is the unique root of
    λKρ = a(K−1)e^{−aρ}/(1 + (K−1)e^{−aρ}) (solved with brentq, not tabulated), L* = g(ρ*).
    λ = 0 gives the infimum (MSE: 0, attained; CE: 0 at ρ = ∞, not attained); λ < 0 is unbounded below.
    """
    attainable = d - 1 >= frame_rank(loss, K)
    if lam < 0:
        return UFMOptimum(loss, K, d, lam, -math.inf, math.inf, "none", False, "unbounded below (λ < 0)")
    if loss == "mse":
        z = math.sqrt(d) / (d + K * lam)
        value = K * lam / (2 * (d + K * lam))
        return UFMOptimum(loss, K, d, lam, value, z, "orthogonal", attainable,
                          "L* = Kλ/(2(d+Kλ)), z* = √d/(d+Kλ)")
    if loss != "ce":
        raise ValueError(f"unknown loss {loss!r}")
    if lam == 0:
        return UFMOptimum(loss, K, d, lam, 0.0, math.inf, "simplex", attainable, "infimum 0 at ρ → ∞ (λ = 0)")
    a = math.sqrt(d) * K / (K - 1)

    def dg(rho: float) -> float:  # g'(ρ), written with exp(aρ) in the denominator to avoid overflow
        return -a * (K - 1) / (math.exp(min(a * rho, 700.0)) + K - 1) + lam * K * rho

    hi = a / (lam * K) + 1.0  # g'(hi) > 0 because the first term is bounded by a in magnitude
    rho = brentq(dg, 0.0, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    return UFMOptimum(loss, K, d, lam, collapsed_value("ce", K, d, lam, rho), rho, "simplex", attainable,
                      "ρ* = root of λKρ = a(K−1)e^{−aρ}/(1+(K−1)e^{−aρ}), L* = log(1+(K−1)e^{−aρ*}) + λKρ*²/2",
                      {"a": a})


def printed_mse_row_norm(K: int, d: int, lam: float) -> float:
    """The optimal row norm as printed in the proof of Lemma 4.2: 1/(√d(1+λK)) (erratum A2)."""
    return 1.0 / (math.sqrt(d) * (1 + lam * K))


def mse_signed_simplex_value(K: int, d: int, lam: float) -> float:
    """MSE optimum at d = K (where Lemma 4.2's MSE part breaks, ``lemma_4_2``): ½c/(d+c), c = d/(K−1) + λK.

    Attained by a signed simplex (equiangular lines |u_kᵀu_j| = 1/(K−1)), whose NC2B is 1/√K.
    """
    c = d / (K - 1) + lam * K
    return 0.5 * c / (d + c)


# ----------------------------------------------------------------------------------------------------
# Collapsed configurations
# ----------------------------------------------------------------------------------------------------
def collapsed_pair(loss: str, K: int, n: int, d: int, row_norm: float, rotation: torch.Tensor | None = None,
                   *, dtype=torch.float64, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """A perfectly collapsed feasible (W, X): x_ki = √d u_k, w_k = row_norm·u_k, U the loss's frame in 1^⊥.

    Raises ValueError when 1^⊥ ⊂ R^d cannot hold the frame (MSE needs d ≥ K+1, CE d ≥ K).
    """
    frame = torch.eye(K, dtype=dtype, device=device) if loss == "mse" else simplex_etf(K, dtype=dtype, device=device)
    U = embed_in_ones_complement(frame, d, rotation)  # (d, K), unit columns in 1^⊥
    W = row_norm * U.T
    X = math.sqrt(d) * U[:, balanced_labels(K, n, device=device)]
    return W, X


def random_rotation_of_ones_complement(ctx, d: int) -> torch.Tensor:
    return random_orthogonal(ctx, d - 1)


# ----------------------------------------------------------------------------------------------------
# Analytic derivatives on R^{K×d} × (LN sphere)^N (for the Newton solver)
# ----------------------------------------------------------------------------------------------------
def _householder(u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(v, t) with T = E − v tᵀ an orthonormal basis of u^⊥ (E = the identity without its first column).

    T is columns 2..p of the Householder reflection I − 2vvᵀ/‖v‖² that maps u/‖u‖ to ∓e_1,
    v = û + sign(û_1)e_1, t = 2v_{2..p}/‖v‖² = v_{2..p}/(1 + |û_1|).
    """
    uh = u / u.norm(dim=-1, keepdim=True)
    sign = torch.where(uh[..., :1] >= 0, 1.0, -1.0)
    v = torch.cat([uh[..., :1] + sign, uh[..., 1:]], dim=-1)
    return v, v[..., 1:] / (1.0 + uh[..., :1].abs())


def sphere_tangent_basis(u: torch.Tensor) -> torch.Tensor:
    """Orthonormal bases of the tangent spaces u^⊥ of spheres in R^p: (..., p) -> (..., p, p−1).

    Householder columns: closed form, a few elementwise kernels, no QR.
    """
    v, t = _householder(u)
    eye = torch.eye(u.shape[-1], dtype=u.dtype, device=u.device)[:, 1:]
    return eye - v[..., :, None] * t[..., None, :]


def ufm_newton_model(Wp: torch.Tensor, U: torch.Tensor, labels: torch.Tensor, loss: str, lam: float) -> ArrowModel:
    """Value, Riemannian gradient and Riemannian Hessian of the UFM in 1^⊥ coordinates, batched, in closed form.

    With Q (d × (d−1)) an orthonormal basis of 1^⊥, features are x_i = Q u_i (‖u_i‖ = √d, a plain sphere
    in R^{d−1}) and W = Wp Qᵀ (the component of W along 1 is decoupled, ½λ‖W1‖²/d, and is zero at every
    critical point). ``Wp`` (B, K, p), ``U`` (B, N, p) holds the u_i as rows, p = d − 1. With G = ∇_Z f
    (K×N, the 1/N included), A_i = ∇²ℓ(z_i)/N (MSE: I/N; CE: (diag p_i − p_i p_iᵀ)/N), c_i = u_iᵀWpᵀg_i/d
    and T_i an orthonormal basis of u_i^⊥ (tangent coordinates, q = d − 2 per feature):

        grad_W = G Uᵀ + λWp                      grad_{u_i} = T_iᵀ Wpᵀ g_i
        H_WW   = Σ_i A_i ⊗ u_i u_iᵀ + λI          H_{W,u_i} = (A_i Wp T_i) ⊗ u_i + g_i ⊗ T_i (kept factored)
        H_{u_i u_i} = (Wp T_i)ᵀ A_i (Wp T_i) − c_i I   (c_i I: the sphere's curvature term).

    Written out instead of autograd because the solver is overhead-bound at these sizes: one pass of
    a few dozen batched kernels gives f, the gradient and the whole Hessian (tests compare with autograd).
    """
    B, K, p = Wp.shape
    N = U.shape[-2]
    d = p + 1
    Zr = U @ Wp.transpose(-1, -2)  # (B, N, K): row i is z_i
    Yr = torch.nn.functional.one_hot(labels, K).to(Wp.dtype)  # (N, K)
    reg = 0.5 * lam * Wp.pow(2).sum((-2, -1))
    if loss == "mse":
        R = Zr - Yr
        f = R.pow(2).sum((-2, -1)) / (2 * N) + reg
        Gr = R / N
    elif loss == "ce":
        lse = torch.logsumexp(Zr, dim=-1)
        f = (lse - (Zr * Yr).sum(-1)).mean(-1) + reg
        prob = torch.exp(Zr - lse[..., None])
        Gr = (prob - Yr) / N
    else:
        raise ValueError(f"unknown loss {loss!r}")
    gW = Gr.transpose(-1, -2) @ U + lam * Wp
    gU_amb = Gr @ Wp  # (B, N, p): row i is Wpᵀ g_i
    c = (U * gU_amb).sum(-1) / d
    v, t = _householder(U)
    T = torch.eye(p, dtype=Wp.dtype, device=Wp.device)[:, 1:] - v[..., :, None] * t[..., None, :]  # (B, N, p, q)
    # products with T through its Householder form E − v tᵀ: O(p) per row instead of O(p·q)
    gx = gU_amb[..., 1:] - t * (gU_amb * v).sum(-1, keepdim=True)
    WT = Wp[:, None, :, 1:] - (v @ Wp.transpose(-1, -2))[..., None] * t[:, :, None, :]  # (B, N, K, q): Wp T_i
    if loss == "mse":
        AWT = WT / N
        A = (U.transpose(-1, -2) @ U / N)[:, None, :, None, :] * torch.eye(K, dtype=Wp.dtype, device=Wp.device)[
            None, :, None, :, None]
        A = A.reshape(B, K * p, K * p)
        A.diagonal(dim1=-2, dim2=-1).add_(lam)
    else:
        pWT = prob[..., None] * WT
        AWT = (pWT - prob[..., None] * pWT.sum(-2, keepdim=True)) / N
        P_U = (prob[..., :, None] * U[..., None, :]).reshape(B, N, K * p)  # rows p_i ⊗ u_i
        diag_part = (prob.transpose(-1, -2) @ (U[..., :, None] * U[..., None, :]).reshape(B, N, p * p)) / N
        # beta=0: the uninitialised input is ignored (not read), and λI goes on the diagonal in place: no K·p × K·p
        # identity built and read per evaluation (~0.1 ms of ~1.7 at K=10 n=20 d=32)
        A = torch.baddbmm(Wp.new_empty(B, K * p, K * p), P_U.transpose(-1, -2), P_U, beta=0.0, alpha=-1.0 / N)
        A.diagonal(dim1=-2, dim2=-1).add_(lam)
        A.view(B, K, p, K, p).diagonal(dim1=1, dim2=3).add_(diag_part.view(B, K, p, p).permute(0, 2, 3, 1))
    D = WT.transpose(-1, -2) @ AWT  # (B, N, q, q): a batched product beat the broadcast-and-sum ~1.5×
    D.diagonal(dim1=-2, dim2=-1).sub_(c[..., None])
    return ArrowModel(f=f, gw=gW.reshape(B, K * p), gx=gx, A=A, D=D, P=AWT.transpose(-1, -2), a=U,
                      Q=T.transpose(-1, -2), b=Gr, basis=T)


def _retract(w: torch.Tensor, u: torch.Tensor, sw: torch.Tensor, sx: torch.Tensor, model: ArrowModel | None):
    """w + s_w, and u_i + T_i s_i scaled back onto the sphere of radius √d (a second-order retraction). ``model``
    None: a zero step, the projection of (w, u) back onto the manifold (no tangent basis needed)."""
    d = u.shape[-1] + 1
    # T_i s_i as a batched matrix–vector product: ~0.4× the time of the broadcast-and-sum on (256·12) 5×4 blocks, equal
    # to it up to rounding (bitwise on the batch measured)
    v = u if model is None else u + (model.basis @ sx[..., None])[..., 0]
    return w + sw, math.sqrt(d) * v / v.norm(dim=-1, keepdim=True)


# ----------------------------------------------------------------------------------------------------
# Batched solver
# ----------------------------------------------------------------------------------------------------
@dataclass
class UFMSolution:
    """R restarts of the UFM, solved together. Every tensor has the restart index first."""

    W: torch.Tensor  # (R, K, d)
    X: torch.Tensor  # (R, d, N)
    labels: torch.Tensor  # (N,)
    values: torch.Tensor  # (R,) objective at the final iterate
    grad_norm: torch.Tensor  # (R,) Riemannian gradient norm at the final iterate (recomputed from W, X)
    converged: torch.Tensor  # (R,) bool: grad_norm <= gtol and λ_min/max|λ| ≥ −CURV_RTOL proven (ufm_second_order)
    iterations: torch.Tensor  # (R,)
    status: list[str]
    gtol: float
    metrics: dict[str, torch.Tensor]  # nc1, nc2a, nc2b, nc3 and the field's (metrics.neural_collapse): (R,)
    row_norms: torch.Tensor  # (R, K)
    raw: LbfgsResult | NewtonResult | None = None  # the optimiser's own result
    # (R,) λ_min/|λ|_max of the Riemannian Hessian at the final iterate, a measurement at best_start only (NaN at the
    # other starts): exact (eigvalsh) up to DENSE_CURV_MAX, beyond it the Lanczos Ritz estimate (an upper estimate of
    # λ_min). The UFM's rotation orbit (W, X) → (WO, OᵀX) gives zero eigenvalues, which pass.
    min_curvature: torch.Tensor | None = None
    first_order: torch.Tensor | None = None  # (R,) bool: the gradient certificate alone
    # (R,) a proven lower bound on λ_min/|λ|_max: −CURV_RTOL where the inertia test (Cholesky of H + σI) succeeded, −1
    # (the trivial bound) elsewhere; at best_start up to DENSE_CURV_MAX the larger of that and the eigvalsh value less
    # its rounding allowance
    min_curvature_lower_bound: torch.Tensor | None = None
    curvature_method: str = ""  # how the second-order certificate was decided (INERTIA / INERTIA_BEST_DENSE)


def second_order_details(sol: UFMSolution, i: int, prefix: str = "best_") -> dict:
    """What the second-order certificate of start ``i`` proves and what was measured, for a result's details: the
    proven lower bound on λ_min/max|λ| (the certificate), the measured ratio (exact at dense sizes, a Lanczos
    estimate beyond, NaN where not measured) and how it was decided. Nothing here is shown as more than it is."""
    bound = float(sol.min_curvature_lower_bound[i])
    return {
        f"{prefix}min_curvature_lower_bound": bound,  # proven: λ_min/max|λ| ≥ this
        f"{prefix}min_curvature": float(sol.min_curvature[i]),  # measured (see UFMSolution.min_curvature)
        f"{prefix}second_order": (f"λ_min/max|λ| ≥ {bound:.3g} proven by {sol.curvature_method}" if bound >= -CURV_RTOL
                                  else f"not certified (λ_min/max|λ| ≥ −{CURV_RTOL:g} not proven by "
                                       f"{sol.curvature_method})"),
    }


def best_start(sol: UFMSolution) -> int:
    """The lowest value among certified starts (among all starts when none is certified)."""
    masked = torch.where(sol.converged, sol.values, torch.full_like(sol.values, math.inf))
    return int(torch.argmin(masked if bool(sol.converged.any()) else sol.values))


def _unpack(theta: torch.Tensor, K: int, d: int, N: int) -> tuple[torch.Tensor, torch.Tensor]:
    R = theta.shape[0]
    return theta[:, : K * d].reshape(R, K, d), theta[:, K * d:].reshape(R, d, N)


def _model_floats(K: int, N: int, d: int) -> int:
    """Floats in one instance's Newton model (the arrow blocks A, D and the coupling factors)."""
    p, q = d - 1, d - 2
    return (K * p) ** 2 + N * q * (q + K + 2 * p + 2)


def _compiled(K: int, N: int, d: int, device: torch.device, dtype: torch.dtype = torch.float64) -> bool:
    """Whether float64 instances of this size on ``device`` use the compiled loops (``FUSED_MAX_FLOATS``; float64
    only: one dtype is one compilation per checkout)."""
    return FUSED and device.type == "cpu" and dtype == torch.float64 and _model_floats(K, N, d) <= FUSED_MAX_FLOATS


def _arrow_solve_for(model: ArrowModel):
    """The arrow solve for this model's instances: the compiled one where ``_compiled`` says so, else the torch one."""
    K, N, d = model.b.shape[-1], model.gx.shape[-2], model.a.shape[-1] + 1
    return fused.arrow_solve if _compiled(K, N, d, model.gw.device, model.gw.dtype) else arrow_solve


def _chunks(restarts: int, floats_per_restart: int) -> list[slice]:
    size = max(1, CHUNK_FLOATS // floats_per_restart)
    return [slice(i, min(i + size, restarts)) for i in range(0, restarts, size)]


@pinned  # one intra-op thread: small tensors, where more threads only synchronise (optim.threads)
def solve_ufm(loss: str, K: int, n: int, d: int, lam: float, *, restarts: int, ctx, max_iter: int = 3000,
              gtol: float = 1e-9, history: int = 20, method: str = "newton") -> UFMSolution:
    """Minimise the UFM from ``restarts`` random feasible starts at once.

    Starts: W ~ N(0, 1), X = ln(V) with V ~ N(0, 1), i.e. X uniform on the spheres (the same draws for
    every method). ``method="newton"`` (default): batched Riemannian Newton with Levenberg–Marquardt
    damping on R^{K×d} × (LN sphere)^N, analytic derivatives (``ufm_newton_model``), float32 iterations
    finished by float64 polish steps (``optim.newton.mixed_precision_newton``: only the float64 stage certifies),
    or, for small instances on the CPU (``FUSED_MAX_FLOATS``), float64 iterations whose model and arrow solve are
    compiled per-start loops (``optim.fused``; the torch path is the cross-check), restarts in chunks of CHUNK_FLOATS; ``max_iter`` counts its trial steps (both stages together). ``method="lbfgs"``: batched L-BFGS in coordinates X = ln(V), autograd gradients;
    ``history`` is its memory. Either way the stopping measure is the Riemannian gradient norm, and the
    certificate reported (``grad_norm``, ``converged``) is recomputed from the final (W, X) by autograd. Runs with
    one intra-op thread (``optim.threads.pinned``), restoring the caller's count.
    """
    labels = balanced_labels(K, n, device=ctx.device)
    N = K * n
    theta0 = torch.cat([ctx.randn(restarts, K * d), ctx.randn(restarts, d * N)], dim=1)
    if method == "newton":
        W0, V0 = _unpack(theta0, K, d, N)
        Q = orthonormal_basis_of_ones_complement(d, dtype=ctx.dtype, device=ctx.device)
        # W's component along 1 is a decoupled quadratic ½λ‖W1‖²/d: minimised exactly (set to 0) up front
        w0, u0 = (W0 @ Q).reshape(restarts, K * (d - 1)), ln(V0).transpose(-1, -2) @ Q
        floats = _model_floats(K, N, d)
        compiled = _compiled(K, N, d, ctx.device, ctx.dtype)
        # compiled: plain float64 (the loops cost the same in float32, and float64 alone compiles half the machine
        # code); torch: float32 iterations and a float64 polish (optim.newton.mixed_precision_newton)
        model_fn = fused.ufm_model if compiled else ufm_newton_model
        res = NewtonResult.concat([
            mixed_precision_newton(lambda w, u: model_fn(w.view(-1, K, d - 1), u, labels, loss, lam), _retract,
                                   w0[s], u0[s], max_iter=max_iter, gtol=gtol,
                                   solve=fused.arrow_solve if compiled else None, float32_stage=not compiled)
            for s in _chunks(restarts, floats)])
        W, X = res.w.view(restarts, K, d - 1) @ Q.T, Q @ res.x.transpose(-1, -2)
    elif method == "lbfgs":
        def objective(theta: torch.Tensor) -> torch.Tensor:
            W, V = _unpack(theta, K, d, N)
            return ufm_objective(W, ln(V), labels, loss, lam)

        def stationarity(theta: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
            _, V = _unpack(theta, K, d, N)
            gW, gV = _unpack(g, K, d, N)
            scale = (V - V.mean(dim=-2, keepdim=True)).norm(dim=-2, keepdim=True) / math.sqrt(d)
            return torch.sqrt(gW.pow(2).sum(dim=(1, 2)) + (gV * scale).pow(2).sum(dim=(1, 2)))

        res = batched_lbfgs(autograd_objective(objective), theta0, max_iter=max_iter, gtol=gtol,
                            history=history, stationarity=stationarity)
        W, V = _unpack(res.x, K, d, N)
        X = ln(V)
    else:
        raise ValueError(f"unknown method {method!r}: use 'newton' or 'lbfgs'")
    values = ufm_objective(W, X, labels, loss, lam)
    grad_norm = riemannian_grad_norm(W, X, labels, loss, lam)
    first = torch.tensor([s == GTOL for s in res.status], device=ctx.device) & (grad_norm <= gtol * 1.01)
    # Newton: the solver's last model, evaluated at its final iterate (the point W, X hold, before their change of
    # coordinates), is the model the second-order test needs: reused rather than evaluated again
    second = ufm_second_order(W, X, labels, loss, lam, ctx, spectra=False,
                              model=res.model if method == "newton" else None)
    sol = UFMSolution(
        W=W, X=X, labels=labels, values=values, grad_norm=grad_norm, converged=first & second.certified,
        iterations=res.iterations, status=res.status, gtol=gtol, metrics=both_families(W, X, labels),
        row_norms=W.norm(dim=-1), raw=res, min_curvature=second.min_curvature, first_order=first,
        min_curvature_lower_bound=second.lower_bound, curvature_method=second.method,
    )
    # the measured number, at the start the results report: exact (one eigvalsh) at dense sizes, where it is also a
    # proven bound (less its rounding allowance), kept where sharper than the inertia test's; one Lanczos run beyond
    b = best_start(sol)
    sol.min_curvature[b] = ufm_curvature(W[b:b + 1], X[b:b + 1], labels, loss, lam, ctx)[0]
    dim = second.dim
    if dim <= DENSE_CURV_MAX:
        exact_bound = sol.min_curvature[b] - dim * torch.finfo(W.dtype).eps
        sol.min_curvature_lower_bound[b] = torch.maximum(sol.min_curvature_lower_bound[b], exact_bound)
        sol.curvature_method = INERTIA_BEST_DENSE
    return sol


DENSE = "dense eigvalsh"
INERTIA = "inertia (Cholesky of H + σI)"
INERTIA_BEST_DENSE = f"{INERTIA} at every start, {DENSE} at the best"


@dataclass
class SecondOrderEvidence:
    certified: torch.Tensor  # (R,) bool: no eigenvalue below −CURV_RTOL·max|λ|, proven
    lower_bound: torch.Tensor  # (R,) proven lower bound on λ_min/max|λ|
    min_curvature: torch.Tensor  # (R,) measured λ_min/max|λ| (NaN where not measured)
    method: str
    dim: int  # the tangent dimension K(d−1) + N(d−2) in 1^⊥ coordinates (W along 1 left out): ArrowModel.dim


def ufm_second_order(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor, loss: str, lam: float,
                     ctx, *, spectra: bool = True, model: ArrowModel | None = None) -> SecondOrderEvidence:
    """The second-order certificate of every start (W (R, K, d), X (R, d, N)), in 1^⊥ coordinates.

    Up to DENSE_CURV_MAX and with ``spectra``: the exact spectrum (eigvalsh) of every start; certified =
    λ_min/max|λ| ≥ −CURV_RTOL; the bound is that ratio less (tangent dimension)·eps, eigvalsh's backward error
    relative to ‖H‖. Otherwise: the inertia test (optim.curvature.arrow_shift_certificate), which proves
    λ_min/max|λ| > −CURV_RTOL where it succeeds and measures nothing; min_curvature is left NaN for the caller to
    measure where cheap. Its scale ŝ is the largest column norm of H (``arrow_column_norm``, from the blocks, no
    Hessian product) at every size: ŝ ≤ ‖H‖₂ = max|λ|, so the test is at least as strict as the ratio it proves (at
    K=10 n=20 d=32 ŝ ≈ 0.13 against max|λ| ≈ 0.28: twice as strict as the 6-step Ritz scale it replaced there, which
    cost 6 Hessian products of every start, ~0.1 s of a ~2.7 s solve).
    ``model``: ``ufm_newton_model`` at (W, X) in 1^⊥ coordinates where the caller has it (the solver's last
    evaluation), else evaluated here.
    """
    if model is None:
        d = W.shape[-1]
        Q = orthonormal_basis_of_ones_complement(d, dtype=W.dtype, device=W.device)
        model = ufm_newton_model(W @ Q, (Q.T @ X).transpose(-1, -2), labels, loss, lam)
    dim = model.dim
    if dim <= DENSE_CURV_MAX and spectra:
        rel = _dense_relative_min(model)
        return SecondOrderEvidence(rel >= -CURV_RTOL, rel - dim * torch.finfo(rel.dtype).eps, rel, DENSE, dim)
    ok, _ = arrow_shift_certificate(model, CURV_RTOL, scale_iters=0, generator=ctx.generator,
                                    solve=_arrow_solve_for(model))
    bound = torch.where(ok, torch.full_like(model.f, -CURV_RTOL), torch.full_like(model.f, -1.0))
    return SecondOrderEvidence(ok, bound, torch.full_like(model.f, math.nan), INERTIA, dim)


def _dense_relative_min(model: ArrowModel) -> torch.Tensor:
    ev = torch.linalg.eigvalsh(model.hessian())
    lam_min, lam_max = ev[..., 0], ev[..., -1]
    return lam_min / torch.maximum(lam_max.abs(), lam_min.abs()).clamp_min(torch.finfo(ev.dtype).tiny)


def ufm_curvature(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor, loss: str, lam: float, ctx) -> torch.Tensor:
    """λ_min/|λ|_max of the UFM's Riemannian Hessian at (W (R, K, d), X (R, d, N)), measured: the arrow model in 1^⊥
    coordinates (W's component along 1 is a decoupled λ-quadratic, curvature λ > 0, left out). Exact (eigvalsh) up
    to DENSE_CURV_MAX; beyond it CURV_ITERS Lanczos steps, whose Ritz value is an upper estimate of λ_min (a
    measurement: the certificate there is ``ufm_second_order``'s inertia test)."""
    K, d = W.shape[-2:]
    Q = orthonormal_basis_of_ones_complement(d, dtype=W.dtype, device=W.device)
    model = ufm_newton_model(W @ Q, (Q.T @ X).transpose(-1, -2), labels, loss, lam)
    if model.dim <= DENSE_CURV_MAX:
        return _dense_relative_min(model)
    return arrow_curvature(model, iters=CURV_ITERS, generator=ctx.generator).relative_min()
