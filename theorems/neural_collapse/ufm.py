"""The unconstrained features model (UFM) of paper 004, Definition 3.5, with R = identity.

Conventions (digest 004 §1.4, §1.6): features are the columns of X ∈ R^{d×N}, each on the LayerNorm
sphere (1ᵀx = 0, ‖x‖ = √d); W ∈ R^{K×d} has no bias;

    L_MSE(W, X) = (1/2N)‖WX − Y‖_F² + (λ/2)‖W‖_F²
    L_CE(W, X)  = (1/N) Σ_i −log softmax(W x_i)_{y_i} + (λ/2)‖W‖_F²

This module holds what every result about the UFM needs: the batched objective, the closed-form optima
(digest §2.2, derived there, not printed in the paper), the collapsed configurations they are attained
at, and a batched solver over many random feasible starts with a convergence certificate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.optimize import brentq

from ..data.frames import balanced_labels, embed_in_ones_complement, one_hot, random_orthogonal, simplex_etf
from ..metrics.neural_collapse import nc_metrics
from ..optim.lbfgs import GTOL, LbfgsResult, autograd_objective, batched_lbfgs
from ..optim.manifolds import ln, tangent

LOSSES = ("mse", "ce")


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
# Closed forms (digest 004 §2.2)
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
    """The closed-form UFM optimum (digest §2.2): value L* and the optimal row norm.

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
    """MSE optimum at d = K (digest §2.2, 'where the lemma breaks'): ½c/(d+c), c = d/(K−1) + λK.

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
    converged: torch.Tensor  # (R,) bool: grad_norm <= gtol
    iterations: torch.Tensor  # (R,)
    status: list[str]
    gtol: float
    metrics: dict[str, torch.Tensor]  # nc1, nc2a, nc2b, nc3: (R,)
    row_norms: torch.Tensor  # (R, K)
    raw: LbfgsResult | None = None


def _unpack(theta: torch.Tensor, K: int, d: int, N: int) -> tuple[torch.Tensor, torch.Tensor]:
    R = theta.shape[0]
    return theta[:, : K * d].reshape(R, K, d), theta[:, K * d:].reshape(R, d, N)


def solve_ufm(loss: str, K: int, n: int, d: int, lam: float, *, restarts: int, ctx, max_iter: int = 3000,
              gtol: float = 1e-9, history: int = 20) -> UFMSolution:
    """Minimise the UFM from ``restarts`` random feasible starts at once (batched L-BFGS).

    X is parametrised as X = ln(V) (onto the product of LN spheres), W is free. Starts: W ~ N(0, 1),
    V ~ N(0, 1), i.e. X uniform on the spheres. The stopping measure is the Riemannian gradient norm,
    which in V-coordinates is ‖g_V‖ rescaled column-wise by ‖PV‖/√d (the Jacobian of ln).
    """
    labels = balanced_labels(K, n, device=ctx.device)
    N = K * n
    theta0 = torch.cat([ctx.randn(restarts, K * d), ctx.randn(restarts, d * N)], dim=1)

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
    values = ufm_objective(W, X, labels, loss, lam)
    grad_norm = riemannian_grad_norm(W, X, labels, loss, lam)
    return UFMSolution(
        W=W, X=X, labels=labels, values=values, grad_norm=grad_norm,
        converged=torch.tensor([s == GTOL for s in res.status], device=ctx.device) & (grad_norm <= gtol * 1.01),
        iterations=res.iterations, status=res.status, gtol=gtol, metrics=nc_metrics(W, X, labels),
        row_norms=W.norm(dim=-1), raw=res,
    )
