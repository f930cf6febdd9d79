"""Example 1 of paper 002 (SSL dynamics on half moons, Figure 1): no constraint against the orthogonality constraint.

Statement as printed
--------------------
"We numerically illustrate the importance of constraints in SSL. We consider a contrastive setting (loss in (1)) for
the half moon dataset, where x⁻ is an independent sample from the dataset and x⁺ = x + ε where ε ∼ N(0, 0.1 I).
Let us now compare the dynamics of ℒ (no constraints) and ℒ_orth, the scaling loss that corresponds to orthogonality
constraints […]. We observe that under orthogonal constraints, independent of the initialization the function
converges to fixed points (which we theoretically show in Theorem 3). On the other hand the dynamics for
unconstrained loss ℒ diverge."

Quantifiers and reading
-----------------------
The linear model u(x) = W₂ᵀW₁x (W₁ ∈ R^{h×d}, W₂ ∈ R^{h×z}) and the mean contrastive loss (1), whose trace form is
L = Tr(W₂ᵀW₁CW₁ᵀW₂) (eq. 7, C from the half-moon triplets; C has negative eigenvalues λ₁ ≤ λ₂ < 0 there). For every
initialisation (``inits`` Haar-random starts, trained at once):
* ``unconstrained_diverges``: gradient descent on L without constraint: the function's norm ‖W₁ᵀW₂‖ grows by at
  least GROWTH (10³) within the steps, from every start (min over starts of log₁₀ of the growth);
* ``orthogonal_reaches_the_minimum``: Riemannian gradient descent on W₁ᵀW₁ = I_d, W₂ᵀW₂ = I_z reaches
  L* = Σ_{i ≤ min(z, ℓ)} λᵢ(C) (ℓ = #negative eigenvalues), from every start; L* is an exact lower bound of L over
  the constraint set (‖W₁ᵀW₂‖₂ ≤ 1 and Ky Fan), so reaching it certifies a global minimum, and the last step's
  relative change of L together with the Riemannian gradient at the end point (relative to ‖C‖, RGRAD_TOL) is the
  convergence certificate (a large step, η ≳ 0.6 on half moons, stalls on an equal-loss cycle off any critical
  point: reported not converged);
* ``fixed_point_independent_of_init``: every start ends at the same function up to the symmetries of L: the
  projector W₁ᵀW₂(W₁ᵀW₂)ᵀ equals the projector P* onto the min(z, ℓ) most negative eigenvectors of C
  (max over starts of ‖·‖_F);
* measurement ``scaled_loss_ratio``: gradient descent on ℒ_orth = L/(‖W₂‖₂²‖W₁‖₂²) (Proposition 3's problem 1, the
  "scaling loss"): its final value over L* (it is scale invariant, so the weights need not converge, only the ratio).
Status ``verified``. Binding: h = d + z − min(z, ℓ), the narrowest width at which the constraint set still reaches
L* (Proposition 3's width condition).

Controls: ``C`` positive definite (no negative eigenvalue, outside the paper's setting: the unconstrained dynamics
decay instead of diverging), and h = d = z = 2 with one negative eigenvalue (below the width condition: the
orthogonal dynamics converge to λ₁ + λ₂ > L*, a different fixed point for the paper's reason); and two horizons
too short to reach the fixed point (100 and 130 steps), a few tolerances outside REACH_RTOL and PROJ_TOL, which
pin them.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..core.result import Pin
from ..data.ssl_pairs import dataset
from ..optim.stiefel import euclid_grads, haar_stiefel, trace_loss
from ..optim.threads import one_thread
from .instances import explicit_C_param
from .networks import riemannian_step
from .paper import PAPER
from .trace_form import matrix_from_text, trace_matrix

ID = "ssl_dynamics.example_1"
GROWTH = 1e3  # "diverge": the function's norm grows by three orders within the run
BLOWUP = 1e12  # a diverging run is frozen past this norm (its growth is then certain; avoids overflow)
REACH_RTOL = 1e-6  # L_T within this of L* (relative): a converged Riemannian run sits ~GTOL² from its fixed point
PROJ_TOL = 1e-4  # ‖P − P*‖_F: converged runs give ~1e-6 (the error is ~√(L_T − L*)/gap); another fixed point is O(1)
GTOL = 1e-13  # the last step's relative change of L (the certificate; the projector error is ~√ of L's gap, so ~1e-6)
RGRAD_TOL = 1e-4  # ‖grad_R L‖/‖C‖ at the end: converged runs give ≲1e-6 (~√(GTOL/η)); a non-critical cycle O(1)
MIN_STEPS = 50  # the orthogonal run stops at its certificate, not before this many steps (a flat start is not a fixed point)
SCALED_STEPS = 300  # steps of the scaled loss (a measurement; autograd through ‖·‖₂ is the costly part)


def _riem_sq(W, g):
    """‖g − W sym(Wᵀg)‖_F² per start: the squared Riemannian gradient on the Stiefel manifold (embedded metric)."""
    A = W.transpose(-1, -2) @ g
    return (g - W @ (A + A.transpose(-1, -2)) / 2).flatten(-2).pow(2).sum(-1)


def C_of(p: dict, ctx) -> torch.Tensor:
    if p["C"]:
        return ctx.tensor(matrix_from_text(p["C"]))
    t = dataset(ctx, "moons", p["n"], noise=p["moon_noise"], sigma2=p["sigma2"])
    return trace_matrix(t, "contrastive")


def width_needed(p: dict, lam: np.ndarray) -> int:
    d, z = len(lam), p["z"]
    ell = int((lam < 0).sum())
    return max(d, z, d + z - min(z, ell))


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["C"]:
        A = matrix_from_text(p["C"])
        if A is None or A.shape[0] != A.shape[1] or not np.allclose(A, A.T):
            return [Violation("C symmetric", f"C = {p['C']!r} is not a symmetric matrix", ("C",), False)]
        lam = np.linalg.eigvalsh(A)
        if lam.min() >= 0:
            out.append(Violation("C has a negative eigenvalue (the contrastive setting)", f"C = {p['C']!r} is "
                                 "positive semidefinite (a control: nothing to diverge towards)", ("C",)))
        need = width_needed(p, lam)
        if p["h"] < max(A.shape[0], p["z"]):
            return out + [Violation("h ≥ max(d, z)", "the Stiefel constraints need it", ("h", "z"), False)]
        if p["h"] < need:
            out.append(Violation("h ≥ d + z − min(z, ℓ) (Proposition 3's width condition)", f"h = {p['h']} < {need}",
                                 ("h", "z", "C")))
    elif p["h"] < max(2, p["z"]):
        # half moons: d = 2 and both eigenvalues of C negative (ℓ = 2), so d + z − min(z, ℓ) = max(d, z): the two
        # width conditions are one inequality
        out.append(Violation("h ≥ max(d, z) and h ≥ d + z − min(z, ℓ)", f"h = {p['h']}, z = {p['z']}, d = 2",
                             ("h", "z"), False))
    return out


def cost(p: dict) -> Cost:
    R, h, z = p["inits"], p["h"], p["z"]
    A = matrix_from_text(p["C"]) if p["C"] else None
    d = 2 if A is None else max(A.shape)
    return Cost(elements=10 * R * h * (d + z) + 3 * p["n"] * d, work=40.0 * p["steps"] * R * h * (d + z) * (d + z))


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    C = C_of(p, ctx)
    d, z, h, R, eta, T = C.shape[0], p["z"], p["h"], p["inits"], p["eta"], p["steps"]
    lam, V = torch.linalg.eigh(C)
    ell = int((lam < 0).sum())
    k = min(z, ell)
    L_star = float(lam[:k].sum())
    P_star = V[:, :k] @ V[:, :k].T
    W1_0, W2_0 = haar_stiefel(ctx, R, h=h, k=d), haar_stiefel(ctx, R, h=h, k=z)

    def prod(W1, W2):
        return W1.transpose(-1, -2) @ W2  # (R, d, z): u(x) = (W₁ᵀW₂)ᵀx

    # no constraint: plain gradient descent; a run past BLOWUP is frozen
    W1, W2 = W1_0.clone(), W2_0.clone()
    norm0 = prod(W1, W2).flatten(-2).norm(dim=-1)
    for _ in range(T):
        live = (prod(W1, W2).flatten(-2).norm(dim=-1) < BLOWUP)[:, None, None]
        if not bool(live.any()):
            break
        g1, g2 = euclid_grads(W1, W2, C)
        W1, W2 = torch.where(live, W1 - eta * g1, W1), torch.where(live, W2 - eta * g2, W2)
    growth = prod(W1, W2).flatten(-2).norm(dim=-1) / norm0
    log_growth = torch.log10(growth)

    # the orthogonality constraint: Riemannian gradient descent with the QR retraction
    O1, O2 = W1_0.clone(), W2_0.clone()
    prev = trace_loss(O1, O2, C)
    scale = max(abs(L_star), float(lam.abs().max()))
    taken = 0
    for taken in range(1, T + 1):  # until every start's certificate holds, at most ``steps``
        g1, g2 = euclid_grads(O1, O2, C)
        O1, O2 = riemannian_step(O1, g1, eta), riemannian_step(O2, g2, eta)
        L_now = trace_loss(O1, O2, C)
        change, prev = (L_now - prev).abs() / scale, L_now
        if bool((change <= GTOL).all()) and taken >= MIN_STEPS:
            break
    reach = float((L_now - L_star).abs().max()) / scale
    Wo = prod(O1, O2)
    proj_err = float((Wo @ Wo.transpose(-1, -2) - P_star).flatten(-2).norm(dim=-1).max())
    # First-order optimality at the end point, not only a still loss: with a large step the QR-retracted iteration
    # can settle on a cycle of equal loss (W₂ ↦ −W₂ leaves L unchanged) away from any critical point (the fuzz
    # case η = 1: L stalls at −0.499 with L* = −0.930). The Riemannian gradient g − W sym(Wᵀg) of the embedded
    # metric, relative to ‖C‖, must vanish too.
    g1, g2 = euclid_grads(O1, O2, C)
    rgrad = float(torch.sqrt(_riem_sq(O1, g1) + _riem_sq(O2, g2)).max()) / scale
    converged = bool(change.max() <= GTOL) and rgrad <= RGRAD_TOL

    # the scaled loss ℒ_orth = L / (‖W₂‖₂²‖W₁‖₂²) (Proposition 3's problem 1), plain gradient descent by autograd
    S1, S2 = W1_0.clone(), W2_0.clone()
    for _ in range(min(T, SCALED_STEPS)):
        S1, S2 = S1.requires_grad_(True), S2.requires_grad_(True)
        ratio = trace_loss(S1, S2, C) / (torch.linalg.matrix_norm(S1, 2) ** 2 * torch.linalg.matrix_norm(S2, 2) ** 2)
        a, b = torch.autograd.grad(ratio.sum(), (S1, S2))
        S1, S2 = (S1 - eta * a).detach(), (S2 - eta * b).detach()
    ratio = trace_loss(S1, S2, C) / (torch.linalg.matrix_norm(S1, 2) ** 2 * torch.linalg.matrix_norm(S2, 2) ** 2)

    claims = [
        Claim.at_least("unconstrained_diverges", float(log_growth.min()), math.log10(GROWTH),
                       "min over starts of log₁₀(‖W₁ᵀW₂‖ after the run / at the start), no constraint"),
        Claim.at_most("orthogonal_reaches_the_minimum", reach, 0.0, "max over starts of |L_T − L*| / max|λ(C)|, "
                      "Riemannian GD on W₁ᵀW₁ = I, W₂ᵀW₂ = I", atol=REACH_RTOL),
        Claim.at_most("fixed_point_independent_of_init", proj_err, 0.0, "max over starts of ‖W W ᵀ − P*‖_F, "
                      "W = W₁ᵀW₂, P* the projector on the min(z, ℓ) most negative eigenvectors of C", atol=PROJ_TOL),
        Claim.measurement("scaled_loss_ratio", float((ratio / L_star).min()) if L_star != 0 else math.nan, 1.0,
                          "min over starts of ℒ_orth at the end / L* (Proposition 3's problem 1)"),
    ]
    details = {"eigenvalues_C": lam.tolist(), "L_star": L_star, "negative_eigenvalues": ell, "eta": eta, "steps": T,
               "unconstrained_log10_growth_min": float(log_growth.min()),
               "unconstrained_log10_growth_max": float(log_growth.max()),
               "orthogonal_final_losses": L_now.tolist(), "orthogonal_riemannian_grad_max": rgrad, "orthogonal_last_change_max": float(change.max()), "orthogonal_steps": taken,
               "scaled_loss_final": ratio.tolist(), "dataset": "half moons" if not p["C"] else "explicit C"}
    return Outcome(claims=claims, details=details, converged=converged)


def _strategy():
    from ..strategies._common import declared_params

    return declared_params(ID)


# Pins of REACH_RTOL and PROJ_TOL: horizons too short for the orthogonal run to reach its fixed point, by a few
# tolerances (literals, not built from the tolerances; the Pins below): 100 steps leave |L_T − L*| at
# 6.7 REACH_RTOL, 130 steps ‖WWᵀ − P*‖ at 3.8 PROJ_TOL. Either tolerance loosened ×10 lets its pin pass. They end
# not converged by design: registered as ``pins`` (controls the conformance checks run, left out of the report).
PIN_STEPS_REACH, PIN_STEPS_PROJ = 100, 130
# Pin of GROWTH (from below): 23 steps leave the slowest unconstrained start 10^2.23 larger, short of 10³ (not
# converged); GROWTH ÷10 would call it diverged. From above, 24 steps at η = 0.0495 reach 10^3.65 (checks/
# test_example_1.py): the divergence is a finite-time blow-up, so a threshold ×10 is crossed within a step.
PIN_STEPS_GROWTH = 23
CONTROLS = (dict(C="0.5,0;0,0.2", h=4, allow_violation=True),
            dict(C="-1,0;0,0.5", z=2, h=2, allow_violation=True),
            dict(steps=PIN_STEPS_GROWTH))
PINS = (
    Pin("orthogonal_reaches_the_minimum", "steps", fails=100, within=10),
    Pin("fixed_point_independent_of_init", "steps", fails=130, within=10),
    dict(steps=PIN_STEPS_GROWTH),
)


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Dynamics of SSL with Constraints', Example 1 and Figure 1",
    title="Example 1 / Fig. 1: on half moons the unconstrained linear SSL dynamics diverge; orthogonal ones converge "
          "to the minimum from every start",
    statement=("For the contrastive loss (1) on half moons (x⁺ = x + N(0, 0.1I), x⁻ an independent sample), the "
               "dynamics of ℒ without constraints diverge, while under orthogonality constraints the function "
               "converges to fixed points independent of the initialisation."),
    status=Status.VERIFIED,
    logic=Logic(for_all="every initialisation of the linear model W₂ᵀW₁x (Haar-random starts), the half-moon data"),
    binding=(Binding("h ≥ d + z − min(z, ℓ) (the constraint set reaches L*)", dict(h=2), "h = 2 = d, z = 1"),),
    controls=CONTROLS,
    pins=PINS,
    strategy=_strategy,
    params=(
        Param("n", int, 200, "half-moon samples", low=2, high=100_000, sample=(50, 400)),
        Param("moon_noise", float, 0.05, "make_moons noise", low=0.0, high=1.0, sample=(0.0, 0.2)),
        Param("sigma2", float, 0.1, "augmentation variance (x⁺ = x + N(0, σ²I))", low=0.0, high=10.0,
              sample=(0.01, 0.5)),
        Param("z", int, 1, "output dimension", low=1, high=16, sample=(1, 2)),
        Param("h", int, 10, "hidden width", "≥ d + z − min(z, ℓ)", low=1, high=4096, sample=(3, 32)),
        Param("inits", int, 16, "random starts, trained at once", low=1, high=4096),
        Param("eta", float, 0.05, "step size", low=1e-6, high=1.0),
        Param("steps", int, 3000, "most steps of each dynamics (the orthogonal one stops at its certificate)", low=1, high=100_000),
        explicit_C_param(),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), module=__name__,
))
