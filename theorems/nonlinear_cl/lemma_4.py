"""Lemma 4 of paper 001 (Tian, §4): the gradient dynamics of a 2-layer network, checked against autograd for ReLU.

Statement as printed (Lemma 4, eq. 12; proof in App. C.1)
---------------------------------------------------------
"V̇ = V C_α[f₁],  ẇ = P⊥_w[(S ⊗ 1_d1_dᵀ) ∘ C_α[x̃]]w", S = VᵀV, x̃_km = x_k·h'(w_kmᵀx_k), for the energy
ℰ = ½ tr C_α[f₂] (eq. 2) with α held fixed (sg) and a homogeneous activation (Assumption 1: h(x) = h'(x)x).

Quantifiers: ∀ batches (two views, any augmentation), ∀ fixed α ≥ 0, ∀ W, V, ∀ homogeneous h: the gradient of ℰ
is the right-hand side of (12) (before the projection, which only restricts it to the unit-norm filters).
Nothing existential.

Reading chosen
--------------
The Euclidean gradients ∂ℰ/∂V and ∂ℰ/∂w are compared with (12) without P⊥ (P⊥ applied to both sides changes
nothing once they agree; the projected error is recorded). ReLU uses h'(0) = 0 (App. B.1), which is also torch's
backward; LeakyReLU uses h'(0) = leak, as torch does. Theorem 4 checks (12) for linear h only; here h is ReLU by
default, with LeakyReLU and linear in the worst-case search.

Claims
------
* ``V_gradient`` (bound): ‖∂ℰ/∂V (autograd) − V C_α[f₁]‖/‖∂ℰ/∂V‖ ≤ RTOL.
* ``W_gradient`` (bound): ‖∂ℰ/∂W (autograd) − [(S ⊗ 11ᵀ) ∘ C_α[x̃]]w‖/‖∂ℰ/∂W‖ ≤ RTOL.
* ``W_gradient_projected`` (measurement): the same after P⊥ per filter.
Negative controls: ``activation='quadratic'`` (h'(s)s = 2h: Assumption 1 fails, the W formula is off by 2) and
``'tanh'`` (not homogeneous); ``stop_gradient=False`` with InfoNCE's α (α differentiated through: both formulas
miss the ∂α/∂θ terms); ``formula_scale`` = 1 + 5e-10 (5× RTOL) pins the tolerance.

Binding: ``kinks=True`` puts the data and the weights on an integer lattice, so that many pre-activations are exactly
0 (27 of 288 on the binding instance) and the convention h'(0) = 0 decides the gradient there.

Status: new result, verified (relative errors ≤ 1e-15 on the default, binding and searched instances; every control
fails by ≥ 5e-10).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Pin, Result, Status, Violation,
                           seed_param)
from .common import GRADIENT_FORMULA_CONTROLS, KINKS_BINDING, declared_strategy, gradient_formula_hypotheses
from .kernels import infonce_alpha
from .paper import PAPER
from .two_layer import ACTIVATIONS, energy, hidden, lemma_4_gradients, preact, project

ID = "nonlinear_cl.lemma_4"
# autograd and the formula sum the same N² products in different orders: rounding ≲ N²·eps ≈ 1e-12 relative.
RTOL = 1e-10
ALPHAS = ("random", "ones", "infonce")


def hypotheses(p: dict, form: str) -> list[Violation]:
    return gradient_formula_hypotheses(p)


def cost(p: dict) -> Cost:
    """C_α[x̃] is (KMd)² from N × KMd gated inputs, α is N × N; autograd about doubles the forward pass."""
    K, M, d, N = p["K"], p["M"], p["d"], p["N"]
    KMd = K * M * d
    return Cost(elements=KMd * KMd + 2 * N * KMd + N * N, work=4 * N * KMd * KMd + 8 * N * N * K * M)


def instance(p: dict, ctx):
    """Two views of N samples over K receptive fields, W, V; on an integer lattice when ``kinks``."""
    K, M, d, N = p["K"], p["M"], p["d"], p["N"]
    if p["kinks"]:  # integers: every pre-activation is computed exactly, and many are exactly 0
        x0 = torch.round(2 * ctx.randn(N, K, d))
        W = torch.round(1.5 * ctx.randn(K, M, d))
        x1, x2 = x0, x0 + torch.round(p["aug"] * ctx.randn(N, K, d))
    else:
        x0 = ctx.randn(N, K, d)
        W = ctx.randn(K, M, d) / math.sqrt(d)
        x1, x2 = x0 + p["aug"] * ctx.randn(N, K, d), x0 + p["aug"] * ctx.randn(N, K, d)
    V = ctx.randn(p["d_out"], K * M) / math.sqrt(K * M)
    return x1, x2, W, V


def alpha_of(p: dict, W, V, x1, x2, ctx) -> torch.Tensor | None:
    if p["alpha"] == "ones":
        return None
    if p["alpha"] == "random":
        return ctx.rand(p["N"], p["N"])
    F1 = hidden(W, x1, p["activation"], p["leak"]) @ V.T
    F2 = hidden(W, x2, p["activation"], p["leak"]) @ V.T
    if p["stop_gradient"]:
        F1, F2 = F1.detach(), F2.detach()
    return infonce_alpha(F1, F2, p["tau"])


def evaluate(p: dict, form: str, ctx) -> Outcome:
    x1, x2, W, V = instance(p, ctx)
    name, leak = p["activation"], p["leak"]
    Wg, Vg = W.clone().requires_grad_(True), V.clone().requires_grad_(True)
    alpha = alpha_of(p, Wg, Vg, x1, x2, ctx)
    gW, gV = torch.autograd.grad(energy(Wg, Vg, x1, x2, alpha, name, leak), (Wg, Vg))
    alpha_fixed = None if alpha is None else alpha.detach()
    fV, fW = (p["formula_scale"] * g for g in lemma_4_gradients(W, V, x1, x2, alpha_fixed, name, leak))

    def rel(a, b):
        return float((a - b).norm()) / max(float(a.norm()), 1e-300)  # 1e-300: every unit dead gives 0 = 0

    zeros = int((torch.cat([preact(W, x1), preact(W, x2)]) == 0).sum())
    claims = [
        Claim.at_most("V_gradient", rel(gV, fV), 0.0, "‖∂ℰ/∂V − V C_α[f₁]‖/‖∂ℰ/∂V‖ (autograd vs eq. 12)", atol=RTOL),
        Claim.at_most("W_gradient", rel(gW, fW), 0.0, "‖∂ℰ/∂W − [(S⊗11ᵀ)∘C_α[x̃]]w‖/‖∂ℰ/∂W‖ (autograd vs eq. 12)",
                      atol=RTOL),
        Claim.measurement("W_gradient_projected", rel(project(W, gW), project(W, fW)),
                          message="the same after P⊥_w per filter"),
    ]
    details = {"zero_preactivations": zeros, "preactivations": 2 * p["N"] * p["K"] * p["M"],
               "grad_W_norm": float(gW.norm()), "grad_V_norm": float(gV.norm())}
    return Outcome(claims=claims, details=details, headline="W_gradient")


BINDING, CONTROLS = KINKS_BINDING, GRADIENT_FORMULA_CONTROLS  # Lemma 3's too (common.py)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Section 4.1, Lemma 4, eq. (12) (proof in Appendix C.1)",
    title="Lemma 4: V̇ = V C_α[f₁], ẇ = P⊥[(S⊗11ᵀ)∘C_α[x̃]]w for a 2-layer ReLU network (autograd)",
    statement="For a 2-layer network with homogeneous activation and fixed α: V̇ = V C_α[f₁] and "
              "ẇ = P⊥_w[(S ⊗ 1_d1_dᵀ) ∘ C_α[x̃]]w, S = VᵀV (Lemma 4, eq. 12, §4; proof App. C.1).",
    status=Status.VERIFIED,
    params=(
        Param("K", int, 3, "receptive fields", low=1, high=4, sample=(1, 4)),
        Param("M", int, 2, "filters per receptive field", low=1, high=4, sample=(1, 3)),
        Param("d", int, 4, "dimension of each receptive field", low=1, high=8, sample=(1, 5)),
        Param("N", int, 24, "batch size (two views each)", low=2, high=128, sample=(2, 32)),
        Param("d_out", int, 3, "output dimension (rows of V)", low=1, high=8, sample=(1, 4)),
        Param("activation", str, "relu", "hidden activation; quadratic and tanh violate Assumption 1 (controls)",
              "relu | leaky | linear", choices=ACTIVATIONS, sample=("relu", "relu", "leaky", "linear")),
        Param("leak", float, 0.1, "LeakyReLU's negative slope", low=0.0, high=0.99, sample=(0.0, 0.9)),
        Param("alpha", str, "random", "fixed α: random non-negative, all ones, or InfoNCE's α of the batch",
              choices=ALPHAS, sample=ALPHAS),
        Param("stop_gradient", bool, True, "α held fixed; False differentiates through InfoNCE's α (control)", "True"),
        Param("tau", float, 0.5, "temperature of InfoNCE's α", low=1e-3, high=1e3, sample=(0.03, 10.0), log=True),
        Param("aug", float, 0.5, "standard deviation of the second view's augmentation", low=0.0, high=10.0,
              sample=(0.0, 1.5)),
        Param("kinks", bool, False, "integer data and weights: many pre-activations exactly 0", sample=(False, True)),
        seed_param("seed of data, views, weights and α"),
        Param("formula_scale", float, 1.0, "multiplies the formulas (negative control)", "1", low=1e-3, high=1e3,
              breaks="exact formula (12)"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    module=__name__,
    logic=Logic(for_all="every batch with two views, every fixed α ≥ 0, every W, V and every homogeneous h"),
    binding=(Binding("h'(0) convention at kinks (Assumption 1, App. B.1)", BINDING, "integer lattice: 27 of the 288 "
                     "pre-activations are exactly 0"),),
    controls=CONTROLS,
    # RTOL on both gradients: the shared control formula_scale = 1 + 5e-10 (common.py) lies 5 allowances out
    pins=(Pin(("V_gradient", "W_gradient"), "formula_scale", fails=1.0000000005, within=10,
              params=dict(allow_violation=True), reported=True),),
    strategy=lambda: declared_strategy(ID),
))
