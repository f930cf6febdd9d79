"""The α-CL correspondence of paper 001 (Tian, §2): InfoNCE's gradient is the gradient of the α-weighted energy.

Statement as printed (§2, after eq. 3; Theorem 1 of Tian (2022), cited again in the proof of Lemma 4, App. C.1)
----------------------------------------------------------------------------------------------------------------
α-CL maximises ℰ_α(θ) = ½ tr C_α[f, f] by θ_{t+1} = θ_t + η∇_θ ℰ_{sg(α(θ_t))}(θ) (eq. 2), and "InfoNCE (with ε = 0)
corresponds to α_ij := exp(−d_ij²/τ)/Σ_{j≠i} exp(−d_ij²/τ)": gradient descent on ℒ_nce (eq. 1) is gradient ascent
(2) on ℰ_α with that α held fixed.

Quantifiers: ∀ networks f(·; θ), ∀ batches with two views, ∀ τ > 0 (ε = 0): −∇_θ ℒ_nce = c·∇_θ ℰ_{sg(α)} with a
positive constant c (absorbed in η). Nothing existential.

Reading chosen
--------------
d_ij² = ‖f[i] − f[j]‖²/2 over the first views (the pairs of eq. 3's first term), d_i² = ‖f[i] − f[i']‖²/2; the
sum in eq. (1) excludes j = i, so α_ii = 0. Differentiating eq. (1): −∂ℒ = Σ_i Σ_{j≠i} α_ij (∂d_ij² − ∂d_i²) (the
weights of a row sum to 1 when ε = 0), and ℰ_α = (1/2N²)Σ_ij α_ij(d_ij² − d_i²) with α fixed, so the constant is
c = 2N² (eq. 3's 1/2N²). The network is a 2-layer f = V h(Wx) (θ = (W, V), any activation: the correspondence
does not use homogeneity); both gradients are taken by torch autograd, the energy's with α detached.

Claims
------
* ``gradient_matches_energy`` (bound): ‖−∇_θℒ_nce − 2N²∇_θℰ_{sg(α)}‖/‖∇_θℒ_nce‖ ≤ RTOL.
* ``eps_generalisation`` (measurement): the same error for ε > 0 when α's denominator carries ε·e^{−d_i²/τ}
  (the correspondence extends so; for ε = 0 it is the printed α).
Negative controls: ``eps`` = 0.5 with the printed α (hypothesis ε = 0 dropped): the gradients differ by O(1);
``alpha_diag=True`` normalises over all j including j = i (α_ii ≠ 0): they differ; ``energy_scale`` = 1 + 3e-10
(3× RTOL) pins the tolerance.

Binding: τ = 0.001, where α is nearly one-hot (the largest weight of a row is 0.976 on average: hard negatives, the
log-sum-exp dominated by one term): the correspondence holds there too (relative error 7e-16).

Status: verified (relative error ≤ 1e-14 on the default, binding and searched instances; every control fails).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import Pin, AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from .common import declared_strategy
from .covariance import contrastive_covariance
from .kernels import infonce_alpha, infonce_loss
from .paper import PAPER

ID = "nonlinear_cl.alpha_cl_gradient"
# Two autograd passes over sums of N² O(1) terms: rounding ≲ N²·eps·(condition of the softmax) ≈ 1e-13.
RTOL = 1e-10
ACTIVATIONS = {"relu": torch.relu, "linear": lambda t: t, "tanh": torch.tanh}


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["eps"] > 0:
        out.append(Violation("ε = 0", "the correspondence is printed for ε = 0; the printed α has no ε term "
                             "(negative control)", ("eps",)))
    if p["alpha_diag"]:
        out.append(Violation("α_ii = 0 (the sum in eq. 1 excludes j = i)", "alpha_diag=True normalises over every j "
                             "including i (negative control)", ("alpha_diag",)))
    return out


def cost(p: dict) -> Cost:
    """N² pairwise distances and α, the two-layer forward/backward passes, three times."""
    N, d, m, o = p["N"], p["d"], p["hidden"], p["d_out"]
    return Cost(elements=4 * N * N + N * (d + m + o), work=3 * (N * N * o + N * (d * m + m * o)) * 10)


def _alpha(F1, F2, p: dict, include_eps: bool = False) -> torch.Tensor:
    """The α of §2 from the detached outputs (with the j = i term in the normaliser for the alpha_diag control)."""
    F1, F2 = F1.detach(), F2.detach()
    if not p["alpha_diag"]:
        return infonce_alpha(F1, F2, p["tau"], p["eps"], include_eps=include_eps)
    from .kernels import sq_dists

    return torch.softmax(-sq_dists(F1) / 2 / p["tau"], dim=1)


def gradients(p: dict, ctx):
    """(−∇ℒ_nce, ∇ℰ_sg(α), ∇ℰ with the ε-generalised α) over θ = (W, V), flattened."""
    N, d = p["N"], p["d"]
    x0 = ctx.randn(N, d)
    x1, x2 = x0 + p["aug"] * ctx.randn(N, d), x0 + p["aug"] * ctx.randn(N, d)
    W = ctx.randn(p["hidden"], d) / math.sqrt(d)
    V = ctx.randn(p["d_out"], p["hidden"]) / math.sqrt(p["hidden"])
    h = ACTIVATIONS[p["activation"]]
    W.requires_grad_(True)
    V.requires_grad_(True)

    def outputs():
        return h(x1 @ W.T) @ V.T, h(x2 @ W.T) @ V.T

    F1, F2 = outputs()
    g_loss = torch.autograd.grad(infonce_loss(F1, F2, p["tau"], p["eps"]), (W, V))
    out = []
    for include_eps in (False, True):
        F1, F2 = outputs()
        alpha = _alpha(F1, F2, p, include_eps)
        energy = 0.5 * torch.trace(contrastive_covariance(F1, F1, F2, F2, alpha))
        out.append(torch.cat([g.flatten() for g in torch.autograd.grad(energy, (W, V))]))
    return -torch.cat([g.flatten() for g in g_loss]), out[0], out[1], alpha


def evaluate(p: dict, form: str, ctx) -> Outcome:
    N = p["N"]
    g_nce, g_energy, g_energy_eps, alpha = gradients(p, ctx)
    c = 2 * N**2 * p["energy_scale"]
    scale = max(float(g_nce.norm()), 1e-300)  # a dead network (every unit off) has both gradients 0
    err = float((g_nce - c * g_energy).norm()) / scale
    err_eps = float((g_nce - c * g_energy_eps).norm()) / scale
    cos = float(g_nce @ g_energy / (g_nce.norm() * g_energy.norm()))
    claims = [
        Claim.at_most("gradient_matches_energy", err, 0.0,
                      "‖−∇ℒ_nce − 2N²∇ℰ_sg(α)‖/‖∇ℒ_nce‖ over θ = (W, V) (both by autograd)", atol=RTOL),
        Claim.measurement("eps_generalisation", err_eps, message="the same with ε·e^{−d_i²/τ} in α's denominator"),
    ]
    offdiag = alpha[~torch.eye(N, dtype=torch.bool, device=alpha.device)].reshape(N, N - 1)
    details = {"cosine": cos, "rel_err": err, "grad_norm": scale, "constant": c,
               "max_alpha_row_mean": float(offdiag.max(1).values.mean()), "alpha_row_sums": float(alpha.sum(1).mean())}
    return Outcome(claims=claims, details=details)


BINDING = dict(tau=0.001)
CONTROLS = (dict(eps=0.5, allow_violation=True), dict(alpha_diag=True, allow_violation=True),
            dict(energy_scale=1 + 3e-10, allow_violation=True))


# tolerance pins, both sides declared (theorems.core.result.Pin; run by checks/test_conformance.py)
PINS = (
    Pin('gradient_matches_energy', 'energy_scale', fails=1.0000000003, within=10, params=dict(allow_violation=True),
        reported=True),
)


RESULT = register(Result(
    pins=PINS, id=ID,
    paper=PAPER,
    section="Section 2, eqs. (1)–(3) (the α-CL correspondence, Theorem 1 of Tian (2022); used in Appendix C.1)",
    title="α-CL correspondence: −∇ℒ_nce = 2N²·∇ℰ_sg(α) with α_ij = exp(−d_ij²/τ)/Σ_{j≠i} exp(−d_ij²/τ)",
    statement="Gradient descent on InfoNCE (eq. 1, ε = 0) is gradient ascent (eq. 2) on ℰ_α = ½ tr C_α[f] with "
              "α_ij = exp(−d_ij²/τ)/Σ_{j≠i} exp(−d_ij²/τ) held fixed (§2, citing Theorem 1 of Tian (2022)).",
    status=Status.VERIFIED,
    params=(
        Param("N", int, 16, "batch size (two views each)", low=2, high=256, sample=(2, 48)),
        Param("d", int, 6, "input dimension", low=1, high=64, sample=(1, 8)),
        Param("hidden", int, 5, "hidden width of f = V h(Wx)", low=1, high=64, sample=(1, 8)),
        Param("d_out", int, 4, "output dimension", low=1, high=64, sample=(1, 6)),
        Param("activation", str, "relu", "hidden activation h (any: homogeneity is not used)", choices=tuple(ACTIVATIONS),
              sample=tuple(ACTIVATIONS)),
        Param("tau", float, 0.5, "temperature τ", "τ > 0", low=1e-4, high=1e3, sample=(0.01, 10.0), log=True),
        Param("aug", float, 0.3, "standard deviation of the additive augmentation of each view", low=0.0, high=10.0,
              sample=(0.0, 2.0)),
        seed_param("seed of data, views and weights"),
        Param("eps", float, 0.0, "ε of eq. (1); > 0 with the printed α is a negative control", "ε = 0", low=0.0,
              high=1e3),
        Param("alpha_diag", bool, False, "normalise α over every j including i (negative control)", "False"),
        Param("energy_scale", float, 1.0, "multiplies c = 2N² (≠ 1: a wrong constant, negative control)", "1", low=1e-3,
              high=1e3, breaks="c = 2N²"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    module=__name__,
    logic=Logic(for_all="every network f(·; θ), every batch with two views and every τ > 0 (ε = 0)"),
    binding=(Binding("τ > 0", BINDING, "τ = 0.001: the largest α_ij of a row is 0.976 on average (hard negatives)"),),
    controls=CONTROLS,
    strategy=lambda: declared_strategy(ID),
))
