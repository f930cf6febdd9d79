"""Lemma 1 of paper 002: no interaction across output dimensions.

Statement as printed
--------------------
"Let u(x) = Θx (linear) or u(x) = Θψ(x) (kernel). In the infinite-width limit h → ∞,
⟨∇_Θ u_l(x), ∇_Θ u_j(x')⟩ = 0 for l ≠ j, = xᵀx' for l = j (linear), = k(x, x') for l = j (kernel)."

Quantifiers and reading
-----------------------
∀ Θ, ∀ x, x', ∀ l, j (linear or kernel model); nothing existential. For u = Θψ(x), ∇_Θ u_l(x) = e_l ψ(x)ᵀ, so the
identity is exact at every size: the "h → ∞" is not needed (the hypothesis that nearly binds is the width: it
holds with one feature, h = 1).
The check computes the Jacobians by reverse-mode autograd and compares the empirical NTK blocks with
the closed form δ_{lj} ψ(x)ᵀψ(x') computed directly from the features (kernel: explicit random Fourier
features, k(x, x') = ψ(x)ᵀψ(x')). Status ``verified``.

The appendix proof argues instead about a 2-layer network u = h^{-1/2}G₂ᵀφ(G₁x) and claims the first-layer
block vanishes; it does not (for linear φ the diagonal is ≈ 2xᵀx', the W₁ block adding xᵀx'), and at finite width
the off-diagonal blocks are O(h^{-1/2}), not 0. That network is the negative control (``model='two_layer'``,
outside the lemma's "linear or kernel model" hypothesis): both claims fail on it.

Claims: ``offdiagonal_blocks_vanish`` (max_{l≠j} |K_lj| / ‖ψ(x)‖‖ψ(x')‖) and ``diagonal_equals_kernel``
(max_l |K_ll − k(x,x')| / ‖ψ(x)‖‖ψ(x')‖), over ``pairs`` random input pairs evaluated at once. Both are
``bound`` claims: the autograd NTK is computed independently of the closed form, and the 2-layer control fails
both. ``kernel_scale`` ≠ 1 multiplies the closed form (a wrong constant): at 1 + 30·EXACT_RTOL·max(d, h) it
pins the tolerance. Status ``verified`` (unchanged).
"""

from __future__ import annotations

import math
import random

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import sample_params
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..optim.threads import one_thread
from .paper import PAPER

ID = "ssl_dynamics.lemma_1"
MODELS = ("linear", "kernel", "two_layer")
# Autograd Jacobians are exact products of the inputs: the only error is float64 rounding of O(size) sums.
EXACT_RTOL = 1e-12


def _features(model: str, ctx, d: int, h: int):
    if model == "kernel":  # random Fourier features of a Gaussian kernel
        omega, b = ctx.randn(h, d), 2 * math.pi * ctx.rand(h)
        return lambda x: math.sqrt(2.0 / h) * torch.cos(omega @ x + b)
    return lambda x: x


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    d, z, h, model = p["d"], p["z"], p["h"], p["model"]
    X, Xp = ctx.randn(p["pairs"], d), ctx.randn(p["pairs"], d)
    if model == "two_layer":  # NTK parameterisation, linear φ: the appendix proof's object
        params = (ctx.randn(h, d), ctx.randn(h, z))

        def u(prm, x):
            return prm[1].T @ (prm[0] @ x) / math.sqrt(h)

        psi = lambda x: x  # noqa: E731 - the lemma's reference for the linear network is xᵀx'
    else:
        psi = _features(model, ctx, d, h)
        m = d if model == "linear" else h
        params = (ctx.randn(z, m),)

        def u(prm, x):
            return prm[0] @ psi(x)

    def jac(x):
        """Rows ∇_θ u_l(x), l = 1..z, flattened over all parameters, by reverse-mode autograd."""
        prm = tuple(q.clone().requires_grad_(True) for q in params)
        out = u(prm, x)
        rows = [torch.cat([g.flatten() for g in torch.autograd.grad(out[l], prm, retain_graph=True)])
                for l in range(out.shape[0])]
        return torch.stack(rows)

    K = torch.stack([jac(a) @ jac(b).T for a, b in zip(X, Xp)])  # (pairs, z, z)
    F, Fp = torch.stack([psi(a) for a in X]), torch.stack([psi(b) for b in Xp])
    k = p["kernel_scale"] * (F * Fp).sum(-1)  # closed form ψ(x)ᵀψ(x'), no autograd
    scale = F.norm(dim=-1) * Fp.norm(dim=-1)
    eye = torch.eye(z, dtype=torch.bool, device=ctx.device)
    off = (K.abs() * (~eye)).amax(dim=(-1, -2)) / scale
    diag = (torch.diagonal(K, dim1=-2, dim2=-1) - k[:, None]).abs().amax(-1) / scale
    off_max, diag_max = float(off.max()), float(diag.max())
    tol = EXACT_RTOL * max(d, h)
    claims = [
        Claim.at_most("offdiagonal_blocks_vanish", off_max, 0.0, "max_{l≠j} |K_lj(x,x')| / ‖ψ(x)‖‖ψ(x')‖", atol=tol),
        Claim.at_most("diagonal_equals_kernel", diag_max, 0.0, "max_l |K_ll(x,x') − ψ(x)ᵀψ(x')| / ‖ψ(x)‖‖ψ(x')‖",
                      atol=tol),
    ]
    details = {"max_offdiagonal_rel": off_max, "max_diagonal_rel_err": diag_max, "pairs": p["pairs"],
               "mean_diag_over_kernel": float((torch.diagonal(K, dim1=-2, dim2=-1).mean(-1) / k).median())}
    return Outcome(claims=claims, details=details)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["model"] == "two_layer":
        out.append(Violation("linear or kernel model u = Θψ(x)", "a 2-layer network u = h^{-1/2}G₂ᵀφ(G₁x) is the "
                             "appendix proof's object, not the lemma's: at finite width its NTK couples the outputs",
                             ("model",)))
    if p["kernel_scale"] != 1.0:
        out.append(Violation("the closed form δ_lj ψ(x)ᵀψ(x')", f"kernel_scale = {p['kernel_scale']} multiplies it "
                             "(a deliberately wrong constant)", ("kernel_scale",)))
    return out


# 30× the tolerance of the default instance (d = 3, h = 32): |cos(x, x')| of the worst pair is ≳ 0.5.
PIN_SCALE = 1 + 30 * EXACT_RTOL * 32


def _strategy():
    from ..strategies import declared_params

    return declared_params(ID)


def cost(p: dict) -> Cost:
    """Per pair, z Jacobian rows of the model's parameters (z·max(d, h) + h·(d + z) numbers) and their products."""
    size = p["z"] * max(p["d"], p["h"]) + p["h"] * (p["d"] + p["z"])
    return Cost(elements=2 * p["z"] * size, work=p["pairs"] * p["z"] ** 2 * size * 4)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(model="kernel", h=64), False
    rng = random.Random(1)
    for _ in range(suite.report_examples):
        yield AS_PRINTED, sample_params(RESULT, AS_PRINTED, rng), False
    yield AS_PRINTED, dict(model="two_layer", h=50), True  # negative control


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Learning Dynamics of Multivariate Regression', Lemma 1 (proof: Appendix)",
    title="Lemma 1: the NTK of a linear / kernel model has no cross-output interaction",
    statement="For u(x) = Θx or Θψ(x), in the infinite-width limit ⟨∇_Θu_l(x), ∇_Θu_j(x')⟩ = δ_lj xᵀx' "
              "(linear) or δ_lj k(x, x') (kernel).",
    status=Status.VERIFIED,
    logic=Logic(for_all="every Θ, every pair of inputs x, x' and every pair of outputs l, j (linear or kernel model)"),
    binding=(Binding("infinite width (not needed: exact at every width)", dict(model="kernel", h=1),
                     "h = 1 random feature"),),
    controls=(dict(model="two_layer", h=50, allow_violation=True),
              dict(kernel_scale=PIN_SCALE, allow_violation=True)),
    strategy=_strategy,
    params=(
        Param("model", str, "linear", "linear Θx, kernel Θψ(x) (random Fourier features), or the 2-layer NTK "
              "network of the appendix proof (negative control)", "linear | kernel", choices=MODELS,
              sample=("linear", "kernel")),
        Param("d", int, 3, "input dimension", low=1, high=64, sample=(1, 6)),
        Param("z", int, 4, "output dimension", low=1, high=64, sample=(1, 5)),
        Param("h", int, 32, "number of kernel features / width of the 2-layer control", low=1, high=4096,
              sample=(1, 64)),
        Param("pairs", int, 8, "random input pairs (x, x') evaluated at once", low=1, high=64, sample=(1, 8)),
        Param("kernel_scale", float, 1.0, "multiplies the closed form; ≠ 1 is a wrong constant (control)", "= 1",
              low=-1e6, high=1e6),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
