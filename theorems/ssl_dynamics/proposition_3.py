"""Proposition 3 of paper 002: operator-norm and orthogonality constraints are equivalent.

Statement as printed
--------------------
For u^I = W₂ᵀW₁x and the loss written "‖W₂ᵀW₁CW₁ᵀW₂‖₂²" (C with a negative eigenvalue), the problems
(1) min L/(‖W₂‖₂²‖W₁‖₂²); (2) min L s.t. ‖W₂‖₂ ≤ 1, ‖W₁‖₂ ≤ 1; (3) min L s.t. ‖W₂ᵀW₁‖₂ ≤ 1;
(4) min L s.t. W₂ᵀW₂ = I_z, W₁ᵀW₁ = I_d are equivalent, "and this regularisation avoids dimension collapse".

Correction (digest 002 §2 Prop. 3, §3 items 1 and 10)
-----------------------------------------------------
* The loss is L = Tr(W₂ᵀW₁CW₁ᵀW₂) (Definition 1, and the proof): ‖·‖₂² ≥ 0 cannot use the negative eigenvalue.
  With it, all four problems share the optimum L* = Σ_{i ≤ min(z, ℓ)} λᵢ(C), ℓ = #{λᵢ < 0}, where the optimal
  product has rank min(z, ℓ) (singular values 1^{min(z,ℓ)}, 0, …).
* (4) needs the width h ≥ d + z − min(z, ℓ): W₁CW₁ᵀ has spectrum spec(C) ∪ {0}^{h−d}, and the Ky-Fan optimum
  of (4) is the sum of its z smallest values. At h = d with z > ℓ the optimum of (4) is strictly above L*.
The printed statement fails twice: its ‖·‖₂² objective has minimum 0 > L* (claim
``printed_norm_objective_reaches_Lstar``), and without the width condition (4) misses L* at h = d.

What one check does
-------------------
C = Q diag(spectrum) Qᵀ (random Q), or an explicit symmetric ``C``. Each problem is solved from ``restarts``
random starts at once: (1) gradient descent on the ratio itself (autograd through ‖·‖₂), each factor rescaled to
unit spectral norm after every step (the ratio is scale invariant); (2) projected GD with singular values clipped
at 1; (3) projected GD on W = W₁ᵀW₂ ∈ R^{d×z}; (4) Riemannian GD, tangent step + QR retraction. Certificates:
the step residual per start. Claims: ``problem_k_reaches_Lstar`` and ``problem_k_not_below_Lstar`` for k = 1..4,
``rank_at_optimum`` (singular values of W₂ᵀW₁ at (4)'s optimum vs 1^{min(z,ℓ)}, 0, …).
Negative controls: h below the width condition (corrected form, allow_violation), ``bound_scale`` ≠ 1.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..optim.stiefel import haar_stiefel, qf, velocity
from .proposition_2 import _project
from .trace_form import (PAPER, PAPER_TITLE, matrix_from_text, parse_floats, random_symmetric, symmetric_C_violations,
                         width_violations)

ID = "ssl_dynamics.proposition_3"

# Every certified optimiser value must sit within this of L* (digest's calibration: ≤ 1e-5, ours tighter).
REACH_RTOL = 1e-6
# No feasible point may beat L* beyond rounding of an O(‖C‖) sum.
LOWER_RTOL = 1e-10
# Residual of a stopped run relative to ‖C‖: the value is then within ~residual²/gap of its stationary value.
GTOL = 1e-8
SV_TOL = 1e-4
# Steps of the plain descent on the ratio (1): enough to show it stays ≥ L*, not to converge (non-smooth).
RATIO_DESCENT_STEPS = 300
# Steps on the printed ‖·‖₂² objective: it only has to show a value ≥ 0, which every point has.
PRINTED_STEPS = 200


def _C(p, ctx):
    if p["C"]:
        return ctx.tensor(matrix_from_text(p["C"]))
    return random_symmetric(ctx, parse_floats(p["spectrum"]))


def _loss(W1, W2, C):
    P = W2.transpose(-1, -2) @ W1
    return (P @ C * P).sum(dim=(-1, -2))


def _spec_norm(W):
    return torch.linalg.matrix_norm(W, ord=2)


def _run(update, state, max_iter, tol):
    """Iterate ``state ← update(state)`` until every start's residual ≤ tol; returns state, residual, iterations."""
    res = None
    it = 0
    for it in range(1, max_iter + 1):
        state, res = update(state)
        if it % 50 == 0 and bool((res <= tol).all()):
            break
    return state, res, it


def evaluate(p: dict, form: str, ctx) -> Outcome:
    C = _C(p, ctx)
    d, z, h, R, max_iter = C.shape[0], p["z"], p["h"], p["restarts"], p["max_iter"]
    lam = torch.linalg.eigvalsh(C)
    ell = int((lam < 0).sum())
    k = min(z, ell)
    Lstar = p["bound_scale"] * float(lam[:k].sum())
    cnorm = float(lam.abs().max())
    eta = 0.25 / cnorm
    tol = GTOL * cnorm
    results = {}

    # (2) and, via its objective, the printed ‖·‖₂² variant
    def upd2(s, printed=False):
        W1, W2 = s
        if printed:  # autograd through the spectral norm of the printed objective
            W1r, W2r = W1.detach().requires_grad_(True), W2.detach().requires_grad_(True)
            M = W2r.transpose(-1, -2) @ W1r @ C @ W1r.transpose(-1, -2) @ W2r
            g1, g2 = torch.autograd.grad((torch.linalg.matrix_norm(M, ord=2) ** 2).sum(), (W1r, W2r))
        else:
            P = W2.transpose(-1, -2) @ W1
            g1, g2 = 2 * W2 @ P @ C, 2 * W1 @ C @ P.transpose(-1, -2)
        n1, n2 = _project(W1 - eta * g1, 1.0, "spectral"), _project(W2 - eta * g2, 1.0, "spectral")
        res = torch.sqrt((n1 - W1).flatten(1).norm(dim=1) ** 2 + (n2 - W2).flatten(1).norm(dim=1) ** 2) / eta
        return (n1.detach(), n2.detach()), res

    start = (_project(ctx.randn(R, h, d), 1.0, "spectral"), _project(ctx.randn(R, h, z), 1.0, "spectral"))
    (W1, W2), res, it = _run(upd2, start, max_iter, tol)
    results[2] = (_loss(W1, W2, C), res, it)

    # (1) the scale-invariant ratio: (a) its value at (2)'s certified optimiser under random rescalings a·W₁, b·W₂
    # (the equivalence (1) ⇔ (2) is scale invariance), (b) a descent on the ratio itself from random starts (GD with
    # unit-spectral-norm renormalisation; the ratio is non-smooth at its optima, so it is only asked to stay ≥ L*).
    v2, r2, _ = results[2]
    b2 = int(torch.argmin(torch.where(r2 <= tol, v2, torch.full_like(v2, math.inf))))
    a, b = 10 ** (2 * ctx.rand(R) - 1), 10 ** (2 * ctx.rand(R) - 1)
    S1, S2 = a[:, None, None] * W1[b2], b[:, None, None] * W2[b2]

    def ratio_of(A1, A2):
        return _loss(A1, A2, C) / (_spec_norm(A1) ** 2 * _spec_norm(A2) ** 2)

    def upd1(s):
        A1, A2 = s
        A1r, A2r = A1.requires_grad_(True), A2.requires_grad_(True)
        g1, g2 = torch.autograd.grad(ratio_of(A1r, A2r).sum(), (A1r, A2r))
        n1, n2 = A1 - eta * g1, A2 - eta * g2
        n1, n2 = n1 / _spec_norm(n1)[:, None, None], n2 / _spec_norm(n2)[:, None, None]
        return (n1.detach(), n2.detach()), torch.full((R,), math.inf, dtype=C.dtype, device=C.device)

    s1 = tuple(W / _spec_norm(W)[:, None, None] for W in (ctx.randn(R, h, d), ctx.randn(R, h, z)))
    (A1, A2), _, it = _run(upd1, s1, RATIO_DESCENT_STEPS, -1.0)
    ratio_rescaled = ratio_of(S1, S2)
    descent = ratio_of(A1, A2).detach()
    uncertified = torch.full_like(descent, math.inf)  # the plain descent carries no certificate
    results[1] = (torch.cat([ratio_rescaled, descent]), torch.cat([r2[b2].expand(R), uncertified]), it)

    # (3) on the product W ∈ R^{d×z}, ‖W‖₂ ≤ 1
    def upd3(W):
        n = _project(W - eta * 2 * C @ W, 1.0, "spectral")
        return n, (n - W).flatten(1).norm(dim=1) / eta

    W, res, it = _run(upd3, _project(ctx.randn(R, d, z), 1.0, "spectral"), max_iter, tol)
    results[3] = ((W.transpose(-1, -2) @ C @ W).diagonal(dim1=-2, dim2=-1).sum(-1), res, it)

    # (4) Riemannian GD on St(h, d) × St(h, z): tangent step + QR retraction
    def upd4(s):
        U1, U2 = s
        P = U2.transpose(-1, -2) @ U1
        v1 = velocity(U1, 2 * U2 @ P @ C, "grassmann")
        v2 = velocity(U2, 2 * U1 @ C @ P.transpose(-1, -2), "grassmann")
        res = torch.sqrt(v1.flatten(1).norm(dim=1) ** 2 + v2.flatten(1).norm(dim=1) ** 2)
        return (qf(U1 + eta * v1), qf(U2 + eta * v2)), res

    (U1, U2), res, it = _run(upd4, (haar_stiefel(ctx, R, h=h, k=d), haar_stiefel(ctx, R, h=h, k=z)), max_iter, tol)
    v4 = _loss(U1, U2, C)
    results[4] = (v4, res, it)

    scale = max(abs(Lstar), 1e-300)
    claims, details, converged = [], {"L_star": Lstar, "ell": ell, "min_z_ell": k, "eigenvalues": lam.tolist()}, True
    for j in (1, 2, 3, 4):
        vals, res, it = results[j]
        conv = res <= tol
        converged &= bool(conv.any())
        best = int(torch.argmin(torch.where(conv, vals, torch.full_like(vals, math.inf)))) if bool(conv.any()) else 0
        claims += [
            Claim.at_most(f"problem_{j}_reaches_Lstar", float(vals[best]), Lstar + REACH_RTOL * scale,
                          f"best certified value of problem ({j}) vs Σ_{{i≤{k}}} λᵢ(C)"),
            Claim.at_least(f"problem_{j}_not_below_Lstar", float(vals.min()), Lstar - LOWER_RTOL * scale,
                           f"every end point of problem ({j}) is ≥ L*"),
        ]
        details.update({f"problem_{j}_best": float(vals[best]), f"problem_{j}_converged": int(conv.sum()),
                        f"problem_{j}_iterations": it, f"problem_{j}_best_residual": float(res[best])})
        if j == 4:
            sv = torch.linalg.svdvals(U2[best].T @ U1[best])
            target = torch.zeros_like(sv)
            target[:k] = 1.0
            sv_err = float((sv - target).abs().max())
            claims.append(Claim.at_most("rank_at_optimum", sv_err, SV_TOL,
                                        f"singular values of W₂ᵀW₁ at (4)'s optimum vs (1^{k}, 0…): {sv.tolist()}"))
            details["optimum_singular_values"] = sv.tolist()
    if form == AS_PRINTED:
        # The printed objective ‖W₂ᵀW₁CW₁ᵀW₂‖₂² under (2): ≥ 0 everywhere, so it can never reach L* < 0.
        (B1, B2), res, it = _run(lambda s: upd2(s, printed=True), start, PRINTED_STEPS, -1.0)
        M = B2.transpose(-1, -2) @ B1 @ C @ B1.transpose(-1, -2) @ B2
        pv = torch.linalg.matrix_norm(M, ord=2) ** 2
        claims.append(Claim.at_most("printed_norm_objective_reaches_Lstar", float(pv.min()), Lstar + REACH_RTOL * scale,
                                    "min of the printed ‖W₂ᵀW₁CW₁ᵀW₂‖₂² under (2) vs L*"))
        details["printed_objective_min"] = float(pv.min())
    best4 = details["problem_4_best"]
    return Outcome(observed=best4, bound=Lstar, tightness=(Lstar / best4) if best4 else None, claims=claims,
                   details=details, converged=converged)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out, A = symmetric_C_violations(p)
    if not p["C"]:
        spec = parse_floats(p["spectrum"])
        if spec is None:
            return out + [Violation("spectrum a list of reals", f"cannot read spectrum = {p['spectrum']!r}",
                                    ("spectrum",), bypassable=False)]
        lam = np.sort(np.array(spec))
    elif A is None:
        return out
    else:
        lam = np.linalg.eigvalsh(A)
    d, z, h = len(lam), p["z"], p["h"]
    for n in ("z", "restarts", "max_iter"):
        if p[n] < 1:
            out.append(Violation(f"{n} ≥ 1", f"{n} = {p[n]}", (n,), bypassable=False))
    out += width_violations(h, d, z)
    if lam[0] >= 0:
        out.append(Violation("C has a negative eigenvalue", f"λ_min(C) = {lam[0]:.4g} ≥ 0", ("spectrum", "C")))
    ell = int((lam < 0).sum())
    if form == CORRECTED and h < d + z - min(z, ell):
        out.append(Violation("h ≥ d + z − min(z, ℓ) (width condition for problem (4))",
                             f"h = {h} < d + z − min(z, ℓ) = {d + z - min(z, ell)} (d = {d}, z = {z}, ℓ = {ell}): "
                             "problem (4) must then use non-negative eigenvalues", ("h", "z")))
    if p["bound_scale"] != 1.0:
        out.append(Violation("exact optimum L* = Σ λᵢ", "bound_scale ≠ 1 is a deliberately wrong constant",
                             ("bound_scale",)))
    return out


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield AS_PRINTED, dict(), False  # the ‖·‖₂² objective misses L*
    yield AS_PRINTED, dict(h=5, max_iter=600), False  # counterexample: h = d, z > ℓ
    rng = np.random.default_rng(4)
    for _ in range(suite.report_examples):
        d = int(rng.integers(2, 6))
        spec = np.sort(rng.uniform(-2, 2, d))
        spec[0] = -abs(spec[0]) - 0.3
        z = int(rng.integers(1, 4))
        yield CORRECTED, dict(spectrum=",".join(f"{v:.3f}" for v in spec), z=z, h=d + z + int(rng.integers(0, 4)),
                              seed=int(rng.integers(1000))), False
    yield CORRECTED, dict(h=5, max_iter=600), True
    yield CORRECTED, dict(bound_scale=1.001), True


RESULT = register(Result(
    id=ID, paper=PAPER, paper_title=PAPER_TITLE,
    title="Proposition 3: operator-norm and orthogonality constraints are equivalent",
    statement="With L = ‖W₂ᵀW₁CW₁ᵀW₂‖₂², the problems min L/(‖W₂‖₂²‖W₁‖₂²), min L s.t. ‖W₂‖₂, ‖W₁‖₂ ≤ 1, min L s.t. "
              "‖W₂ᵀW₁‖₂ ≤ 1 and min L s.t. W₂ᵀW₂ = I_z, W₁ᵀW₁ = I_d are equivalent, and avoid dimension collapse.",
    correction="L = Tr(W₂ᵀW₁CW₁ᵀW₂); all four problems reach L* = Σ_{i ≤ min(z,ℓ)} λᵢ(C) (ℓ negative eigenvalues), "
               "with "
               "product rank min(z, ℓ), provided h ≥ d + z − min(z, ℓ) for the orthogonality-constrained problem.",
    correction_reason="‖·‖₂² is non-negative and cannot use C's negative eigenvalues (Definition 1 and the proof use "
                      "the "
                      "trace); at h = d the constraint W₁ᵀW₁ = I makes W₁CW₁ᵀ have no zero eigenvalue to fall back on.",
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("spectrum", str, "-2,-1,0.5,1,2", "eigenvalues of C (random eigenvectors)", "at least one negative"),
        Param("C", str, "", "explicit symmetric C ('a,b;c,d'), overrides spectrum", "symmetric"),
        Param("z", int, 3, "output dimension", "≥ 1"),
        Param("h", int, 8, "width", "h ≥ d + z − min(z, ℓ)"),
        Param("restarts", int, 8, "random starts per problem, batched", "≥ 1"),
        Param("max_iter", int, 2000, "iterations per problem", "≥ 1"),
        Param("bound_scale", float, 1.0, "multiplies L*; ≠ 1 is a wrong constant", "= 1"),
        Param("seed", int, 0, "seed", "any integer"),
    ),
    evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED, CORRECTED), report_instances=report_instances,
    module=__name__,
))
