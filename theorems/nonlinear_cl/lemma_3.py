"""Lemma 3 of paper 001 (Tian, §3): the training dynamics of a 1-layer network with homogeneous activation.

Statement as printed (Lemma 3, eq. 7; derivation App. B.2)
----------------------------------------------------------
"The gradient dynamics of Eqn. 5 is (note that α is treated as an independent variable): ẇ_k = P⊥_{w_k}A(w_k)w_k",
P⊥_w = I − wwᵀ, A(w) = C_α[x̃ʷ], x̃ʷ = x·h'(wᵀx), for max_{‖w_k‖=1} ℰ_α = ½ C_α[h(w_kᵀx)] under Assumption 1
(h(x) = h'(x)x).

Quantifiers: ∀ batches (two views, any augmentation), ∀ fixed α ≥ 0, ∀ unit w_k, ∀ homogeneous h: the Riemannian
gradient of ℰ_α on the sphere is P⊥A(w)w. Nothing existential.

What one check does: ``filters`` unit filters, a batch of N samples with two views (x' = x + aug·ε) and a fixed α
(random non-negative, all ones, or InfoNCE's α of the batch held fixed); autograd of ℰ = Σ_k ½C_α[h(w_kᵀx)] (eq. 3)
against the formula, both projected by P⊥_{w_k}. ReLU uses h'(0) = 0 (App. B.1), which is torch's backward;
LeakyReLU h'(0) = leak, as torch.
* ``riemannian_gradient`` (bound): max_k ‖P⊥∂ℰ/∂w_k − P⊥A(w_k)w_k‖/‖∂ℰ/∂w_k‖ ≤ RTOL;
* ``euclidean_gradient`` (measurement): the same before P⊥ (App. B.2 shows ∂ℰ/∂w = A(w)w itself);
* ``energy_identity`` (bound): max_k |C_α[h(w_kᵀx)] − w_kᵀA(w_k)w_k|/C_α[h] ≤ RTOL (the property after eq. 6).
Negative controls: ``activation='quadratic'`` (h'(s)s = 2h: Assumption 1 fails, ∂ℰ/∂w = A(w)w/2 and
C_α[h] = wᵀA(w)w/4), ``'tanh'`` (not homogeneous), ``stop_gradient=False`` with InfoNCE's α (α
differentiated through: the lemma treats α as independent), ``formula_scale`` = 1 + 5e-10 (5× RTOL: pins it).
Binding: ``kinks=True``: integer data and filter directions, so that many pre-activations are exactly 0 and h'(0)
decides the gradient there.

Monomial activations h = s^p satisfy Assumption 1 "with an additional global constant" (§3): that is the result
``nonlinear_cl.monomial_activation``, which shares this module's machinery.

Status: new result (it was a unit test only), verified.
"""

from __future__ import annotations

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (Pin, 
    AS_PRINTED,
    Binding,
    Cost,
    Logic,
    Outcome,
    Param,
    Result,
    Status,
    Violation,
    seed_param,
)
from .common import GRADIENT_FORMULA_CONTROLS, KINKS_BINDING, declared_strategy, gradient_formula_hypotheses
from .common import alpha_hypotheses  # noqa: F401  (monomial_activation imports it from here)
from .covariance import contrastive_covariance
from .kernels import infonce_alpha
from .paper import PAPER
from .two_layer import HOMOGENEOUS, act, act_prime, project

ID = "nonlinear_cl.lemma_3"
# autograd and the formula sum the same N² products in different orders: rounding ≲ N²·eps ≈ 1e-12 relative.
RTOL = 1e-10
ALPHAS = ("random", "ones", "infonce")
ONE_LAYER_ACTIVATIONS = HOMOGENEOUS + ("quadratic", "tanh")


def hypotheses(p: dict, form: str) -> list[Violation]:
    return gradient_formula_hypotheses(p)


def cost(p: dict) -> Cost:
    """A(w_k) is d² per filter from N gated rows; α is N × N; autograd about doubles the forward pass."""
    B, d, N = p["filters"], p["d"], p["N"]
    return Cost(elements=B * (d * d + 2 * N * d) + N * N, work=4 * B * N * d * d + 8 * N * N * B)


def instance(p: dict, ctx):
    """Two views x1, x2 (N, d) and unit filters W (B, d); on an integer lattice when ``kinks``."""
    N, d, B = p["N"], p["d"], p["filters"]
    if p.get("kinks"):  # integers: every pre-activation exact, many exactly 0 (the direction is what matters)
        x0 = torch.round(2 * ctx.randn(N, d))
        W = torch.round(1.5 * ctx.randn(B, d))
        W = torch.where(W.abs().sum(1, keepdim=True) > 0, W, torch.ones_like(W))
        x1, x2 = x0, x0 + torch.round(p["aug"] * ctx.randn(N, d))
    else:
        x0 = p.get("scale", 1.0) * ctx.randn(N, d)
        W = ctx.randn(B, d)
        x1, x2 = x0 + p["aug"] * ctx.randn(N, d), x0 + p["aug"] * ctx.randn(N, d)
    return x1, x2, W / W.norm(dim=1, keepdim=True)


def gradient_check(p: dict, ctx, h, h_prime, constant: float):
    """Autograd of ℰ = Σ_k ½C_α[h(w_kᵀx)] against constant·A(w_k)w_k, and C_α[h] against constant²·wᵀAw.
    Returns the relative errors, details and the instance (x1, x2, W). ``h``/``h_prime`` act elementwise."""
    x1, x2, W = instance(p, ctx)
    Wg = W.clone().requires_grad_(True)
    f1, f2 = h(x1 @ Wg.T), h(x2 @ Wg.T)  # (N, B)
    alpha = None
    if p["alpha"] == "random":
        alpha = ctx.rand(p["N"], p["N"])
    elif p["alpha"] == "infonce":
        alpha = infonce_alpha(f1 if not p["stop_gradient"] else f1.detach(),
                              f2 if not p["stop_gradient"] else f2.detach(), p["tau"])
    C = contrastive_covariance(f1, f1, f2, f2, alpha)  # (B, B): filter k's energy is ½C_kk
    (gW,) = torch.autograd.grad(0.5 * torch.diagonal(C).sum(), Wg)
    a_fixed = None if alpha is None else alpha.detach()
    t1 = h_prime(x1 @ W.T).T[:, :, None] * x1  # x̃ per filter (B, N, d)
    t2 = h_prime(x2 @ W.T).T[:, :, None] * x2
    A = contrastive_covariance(t1, t1, t2, t2, a_fixed)  # (B, d, d)
    fW = p["formula_scale"] * constant * torch.einsum("bij,bj->bi", A, W)
    norms = gW.norm(dim=1).clamp_min(1e-300)  # 1e-300: a filter dead on every sample gives 0 = 0
    riem = float(((project(W, gW) - project(W, fW)).norm(dim=1) / norms).max())
    eucl = float(((gW - fW).norm(dim=1) / norms).max())
    energy = torch.diagonal(C).detach()
    quad = p["formula_scale"] * constant**2 * torch.einsum("bi,bij,bj->b", W, A, W)
    en = float(((energy - quad).abs() / energy.abs().clamp_min(1e-300)).max())
    zeros = int(((x1 @ W.T) == 0).sum() + ((x2 @ W.T) == 0).sum())
    return ({"riemannian": riem, "euclidean": eucl, "energy": en},
            {"zero_preactivations": zeros, "preactivations": 2 * p["N"] * p["filters"],
             "grad_norm_min": float(norms.min()), "energy_min": float(energy.min())}, (x1, x2, W))


def evaluate(p: dict, form: str, ctx) -> Outcome:
    name, leak = p["activation"], p["leak"]
    err, details, _ = gradient_check(p, ctx, lambda s: act(name, s, leak), lambda s: act_prime(name, s, leak), 1.0)
    claims = [
        Claim.at_most("riemannian_gradient", err["riemannian"], 0.0, "max_k ‖P⊥∂ℰ/∂w_k − P⊥A(w_k)w_k‖/‖∂ℰ/∂w_k‖ "
                      "(autograd vs eq. 7)", atol=RTOL),
        Claim.at_most("energy_identity", err["energy"], 0.0, "max_k |C_α[h(w_kᵀx)] − w_kᵀA(w_k)w_k|/C_α[h] (§3, "
                      "after eq. 6)", atol=RTOL),
        Claim.measurement("euclidean_gradient", err["euclidean"], message="max_k ‖∂ℰ/∂w_k − A(w_k)w_k‖/‖∂ℰ/∂w_k‖ "
                          "(App. B.2, before P⊥)"),
    ]
    return Outcome(claims=claims, details=details, headline="riemannian_gradient")


def params(activations=ONE_LAYER_ACTIVATIONS, activation="relu") -> tuple[Param, ...]:
    """The instance's parameters, shared with ``monomial_activation``."""
    return (
        Param("d", int, 4, "input dimension", low=1, high=16, sample=(1, 8)),
        Param("N", int, 24, "batch size (two views each)", low=2, high=256, sample=(2, 48)),
        Param("filters", int, 4, "independent filters w_k checked at once", low=1, high=32, sample=(1, 8)),
        Param("activation", str, activation, "activation; quadratic and tanh violate Assumption 1 (controls)",
              "relu | leaky | linear", choices=activations, sample=("relu", "relu", "leaky", "linear")),
        Param("leak", float, 0.1, "LeakyReLU's negative slope", low=0.0, high=0.99, sample=(0.0, 0.9)),
        Param("alpha", str, "random", "fixed α: random non-negative, all ones, or InfoNCE's α of the batch",
              choices=ALPHAS, sample=ALPHAS),
        Param("stop_gradient", bool, True, "α held fixed; False differentiates through InfoNCE's α (control)", "True"),
        Param("tau", float, 0.5, "temperature of InfoNCE's α", low=1e-2, high=1e2, sample=(0.1, 10.0), log=True),
        Param("aug", float, 0.5, "standard deviation of the second view's augmentation", low=0.0, high=10.0,
              sample=(0.0, 1.5)),
        seed_param("seed of data, views, filters and α"),
        Param("formula_scale", float, 1.0, "multiplies the formula (negative control)", "1", low=1e-3, high=1e3,
              breaks="exact formula (7)"),
    )


BINDING, CONTROLS = KINKS_BINDING, GRADIENT_FORMULA_CONTROLS  # Lemma 4's too (common.py)


# tolerance pins, both sides declared (theorems.core.result.Pin; run by checks/test_conformance.py)
PINS = (
    Pin('riemannian_gradient', 'formula_scale', fails=1.0000000005, within=10, params=dict(allow_violation=True),
        reported=True),
)


RESULT = register(Result(
    pins=PINS, id=ID,
    paper=PAPER,
    section="Section 3, Lemma 3, eq. (7) (derivation in Appendix B.2)",
    title="Lemma 3: ẇ_k = P⊥_{w_k}A(w_k)w_k for a 1-layer network with homogeneous activation and fixed α (autograd)",
    statement="With α treated as an independent variable, the gradient dynamics of eq. (5) is ẇ_k = P⊥_{w_k}A(w_k)w_k, "
              "A(w) = C_α[x̃ʷ], x̃ʷ = x·h'(wᵀx), for a homogeneous activation h(x) = h'(x)x (Lemma 3, eq. 7, §3).",
    status=Status.VERIFIED,
    params=params() + (Param("kinks", bool, False, "integer data and filter directions: many pre-activations exactly "
                             "0", sample=(False, True)),),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    module=__name__,
    logic=Logic(for_all="every batch with two views, every fixed α ≥ 0, every unit w_k and every homogeneous h"),
    binding=(Binding("h'(0) convention at kinks (Assumption 1, App. B.1)", BINDING, "integer lattice: many "
                     "pre-activations exactly 0"),),
    controls=CONTROLS,
    strategy=lambda: declared_strategy(ID),
))
