"""Theorem 6 of paper 001 (Tian, §4.2): global modulation enlarges the attractive basin of u_l.

Statement as printed (Theorem 6, §4.2)
--------------------------------------
If A_k(w) = Σ_l g(u_lᵀw)u_lu_lᵀ with g > 0 linear increasing and {u_l} orthonormal, then for c > 0 the attractive
basin of w_k = u_l under A_k + c·u_lu_lᵀ is larger than under A_k.

Quantifiers: ∀ d, ∀ g(y) = y + b > 0 on [−1, 1] (linear increasing), ∀ orthonormal {u_l}, ∀ c > 0:
Basin_c(u_l) ⊋ Basin_0(u_l). Nothing existential.

Reading chosen
--------------
The proof analyses the *unnormalised* ODE; the suite measures the claim where the paper's dynamics live, on the
sphere: ẇ = P⊥_w(A(w) + c·u₁u₁ᵀ)w with g(y) = y + b (b > 1 keeps g > 0 on [−1, 1]). In the u-basis
(WLOG u_l = e_l) the field is y ↦ P⊥_y((y + b + c·e₁)∘y). The basin is estimated on ``inits`` shared random
starts (uniform on the sphere) integrated by projected Euler; a start is in the basin of u₁ if its end point
has y₁ > LABEL_COS. Claims over the grid c ∈ c_max·{0, 0.1, 0.3, 1}:
``basin_grows`` (the basin fraction is non-decreasing in c), ``basin_inclusion`` (pathwise: every start in
the basin at c = 0 is in the basin at every larger c) and ``basin_strictly_larger`` (at c_max at least one more start
converges to u₁ than at c = 0: "larger"), all bounds. A finite sample cannot see the strict growth for c → 0, so
strictness is judged at c_max only. Negative control: c_max < 0 (negative modulation,
violating c > 0): the basin shrinks. Convergence certificate: every end point's critical residual ≤ FLOW_TOL
(the symmetric all-negative point, where A ∝ I, is a stable non-LME critical point; its share is reported).

Binding instance: c_max = 0.02 (c > 0 nearly binds: 4 more starts of 1000 reach u₁ at c = 0.02 than at c = 0). The
hypothesis g > 0 cannot bind on the sphere: g(y) = y + b adds b·I to A, which P⊥_w removes, so b does not change the
dynamics (the basin fractions at b = 1.5 and b = 1.05 are identical).

Status: verified → verified (basin fractions 1000 starts, d = 6: non-decreasing and pathwise nested in c, strictly
larger at c_max, also at c_max = 0.02; negative modulation c < 0 shrinks the basin).
"""

from __future__ import annotations

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Logic, Outcome, Param, Result, Status, Violation
from ..optim.sphere_flow import random_unit

ID = "nonlinear_cl.theorem_6"
GRID = (0.0, 0.1, 0.3, 1.0)
LABEL_COS = 0.999  # labelling threshold: ties at the symmetric point otherwise mislabel
FLOW_TOL = 1e-6  # critical residual ‖P⊥ A w‖ below which an end point counts as converged


def flow(Y0: torch.Tensor, b: torch.Tensor, dt: float, steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Projected Euler for ẏ = P⊥_y((y + b)∘y), batched over rows; returns end points and residuals."""
    Y = Y0
    for _ in range(steps):
        g = (Y + b) * Y
        g = g - (g * Y).sum(-1, keepdim=True) * Y
        Y = Y + dt * g
        Y = Y / Y.norm(dim=-1, keepdim=True)
    g = (Y + b) * Y
    res = (g - (g * Y).sum(-1, keepdim=True) * Y).norm(dim=-1)
    return Y, res


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["d"] < 2 or p["inits"] < 10 or p["steps"] < 1 or not 0 < p["dt"] <= 0.2:
        out.append(Violation("d ≥ 2, inits ≥ 10, steps ≥ 1, 0 < dt ≤ 0.2", "a basin estimate needs a sphere, starts "
                             "and a stable Euler step", ("d", "inits", "steps", "dt"), bypassable=False))
    if not p["b"] > 1:
        out.append(Violation("g > 0 on [−1, 1] (b > 1)", "g(y) = y + b must be positive on the sphere", ("b",),
                             bypassable=False))
    if p["c_max"] == 0:
        out.append(Violation("c_max ≠ 0", "the grid of c must span an interval", ("c_max",), bypassable=False))
    elif abs(p["c_max"] - 1) < 0.05:
        out.append(Violation("|c_max − 1| ≥ 0.05 (verifier)", "at c = 1 (with a = 1) the other u_j become marginal "
                             "critical points and the flow reaches them only algebraically: no convergence certificate",
                             ("c_max",), bypassable=False))
    elif p["c_max"] < 0:
        out.append(Violation("c > 0 (positive modulation)", "c < 0 is negative modulation (negative control)",
                             ("c_max",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    d = p["d"]
    Y0 = random_unit(ctx, p["inits"], d)
    cs = torch.tensor([p["c_max"] * f for f in GRID], dtype=ctx.dtype, device=ctx.device)
    b = torch.full((len(cs), 1, d), p["b"], dtype=ctx.dtype, device=ctx.device)
    b[:, 0, 0] += cs
    Y, res = flow(Y0.expand(len(cs), -1, -1), b, p["dt"], p["steps"])  # one batched problem over (c, init)
    in_basin = Y[..., 0] > LABEL_COS
    frac = in_basin.to(ctx.dtype).mean(1)
    steps_up = frac[1:] - frac[:-1]
    lost = (in_basin[:1] & ~in_basin[1:]).sum(1)  # starts in basin(c=0) missing from basin(c)
    sym = ((Y < 0).all(-1)).to(ctx.dtype).mean(1)
    converged = bool((res <= FLOW_TOL).all())
    claims = [
        Claim.at_least("basin_grows", float(steps_up.min()), 0.0,
                       "min over the grid of P[→u₁](c_{i+1}) − P[→u₁](c_i)"),
        Claim.at_most("basin_inclusion", int(lost.max()), 0, "starts in basin(c = 0) but not in basin(c), max over c"),
        Claim.at_least("basin_strictly_larger", int(in_basin[-1].sum() - in_basin[0].sum()), 1,
                       "starts converging to u₁ at c_max minus at c = 0"),
    ]
    details = {"c": cs.tolist(), "basin_fraction": frac.tolist(), "symmetric_negative_fraction": sym.tolist(),
               "max_residual": float(res.max()), "unconverged": int((res > FLOW_TOL).sum()),
               "T": p["dt"] * p["steps"]}
    return Outcome(float(frac[-1] - frac[0]), 0.0, None, claims, details, converged)


def report_instances(suite):
    yield AS_PRINTED, {}, False
    for i in range(suite.report_examples):
        yield AS_PRINTED, dict(d=3 + i, b=round(1.2 + 0.3 * i, 2), seed=i), False
    yield AS_PRINTED, dict(c_max=-0.5), True


RESULT = register(Result(
    id=ID,
    paper="001",
    paper_title="Tian: Understanding the Role of Nonlinearity in Training Dynamics of Contrastive Learning",
    title="Theorem 6: the global modulation c·u_lu_lᵀ enlarges the basin of u_l (measured on the sphere)",
    statement="If A_k(w) = Σ_l g(u_lᵀw)u_lu_lᵀ with g > 0 linear increasing and {u_l} orthonormal, then for c > 0 the "
              "attractive basin of w_k = u_l under A_k + c·u_lu_lᵀ is larger than under A_k.",
    status=Status.VERIFIED,
    params=(
        Param("d", int, 6, "dimension (number of patterns u_l)", "≥ 2"),
        Param("b", float, 1.5, "g(y) = y + b", "> 1"),
        Param("c_max", float, 0.8, "largest modulation; the grid is c_max·(0, 0.1, 0.3, 1)", "> 0, ≠ 1"),
        Param("inits", int, 1000, "shared random starts", "≥ 10"),
        Param("dt", float, 0.2, "Euler step", "(0, 0.2]"),
        Param("steps", int, 1000, "Euler steps (T = 200: the slowest attracting mode decays at rate 1 − c_max)", "≥ 1"),
        Param("seed", int, 0, "seed of the starts", "any integer"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="every d, every g(y) = y + b > 0 on [−1, 1], every orthonormal {u_l} and every c > 0"),
    binding=(Binding("c > 0", dict(c_max=0.02), "c_max = 0.02: basin fraction 0.159 → 0.163 (4 starts of 1000)"),),
    controls=(dict(c_max=-0.5, allow_violation=True),),
    strategy=lambda: __import__("theorems.strategies.nonlinear_cl", fromlist=["theorem_6_params"]).theorem_6_params(),
))
