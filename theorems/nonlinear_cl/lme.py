"""Locally Maximal Eigenvectors (Definition 3) and their finder.

w_* is an LME of A(·) if A(w_*)w_* = λ_max(A(w_*))w_* and λ_max is a *distinct* top eigenvalue. The finder
runs projected ascent (or power iteration) from many starts at once (batched), then classifies each end
point:

* ``lme``: self-consistent top eigenvector (relative residual ≤ RESIDUAL_TOL), gap λ₁ − λ₂ > GAP_RTOL·|λ₁|,
  and no atom on the gating plane;
* ``kink``: an atom of a discrete distribution lies on wᵀx = 0 (relative margin ≤ KINK_TOL). There A(·) jumps,
  the roughness ρ is infinite and Theorems 1 and 3 do not apply: reported as a kink, never as an LME, even
  when the eigenvector condition holds there (the categorical model's u_m, eq. (8) of the paper);
* ``unconverged``: power iteration did not certify a fixed point (e.g. chattering across a kink).

Distinct LMEs are counted by direction (cos > 1 − SAME_COS_TOL); ``up_to_sign=True`` merges ±w, the right
count for a linear activation where A does not depend on w.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from ..optim.sphere_flow import critical_residual, power_iteration, projected_flow

# A float64 fixed point of PI has residual ~1e-15; 1e-9 leaves room for slow final contraction.
RESIDUAL_TOL = 1e-9
# Relative gap below which the top eigenvalue is treated as repeated (Def. 3 needs it distinct).
GAP_RTOL = 1e-8
# Relative margin |wᵀx|/‖x‖ below which an atom is on the gating plane (a kink); PI converges to 1e-15.
KINK_TOL = 1e-9
# Two LMEs are the same direction when their cosine exceeds 1 − SAME_COS_TOL.
SAME_COS_TOL = 1e-6


@dataclass
class Classified:
    W: torch.Tensor  # (B, d)
    lam1: torch.Tensor
    lam2: torch.Tensor
    gap: torch.Tensor
    residual: torch.Tensor  # relative ‖A w − (wᵀAw)w‖ (eigenvector condition)
    top_residual: torch.Tensor  # relative ‖A w − λ₁ w‖ (top-eigenvector condition)
    kink_margin: torch.Tensor  # +inf for continuous data
    is_kink: torch.Tensor
    is_lme: torch.Tensor
    converged: torch.Tensor


def classify(A_fn: Callable, W: torch.Tensor, kink_fn: Callable | None = None,
             converged: torch.Tensor | None = None) -> Classified:
    A = A_fn(W)
    evals = torch.linalg.eigvalsh(A)
    lam1, lam2 = evals[:, -1], evals[:, -2]
    scale = torch.linalg.matrix_norm(A, ord=2).clamp_min(torch.finfo(A.dtype).tiny)
    Aw = (A @ W[:, :, None])[:, :, 0]
    top_res = (Aw - lam1[:, None] * W).norm(dim=1) / scale
    res = critical_residual(A, W)
    margin = kink_fn(W) if kink_fn is not None else torch.full_like(lam1, float("inf"))
    is_kink = margin <= KINK_TOL
    conv = converged if converged is not None else torch.ones_like(is_kink)
    is_lme = conv & (top_res <= RESIDUAL_TOL) & (lam1 - lam2 > GAP_RTOL * lam1.abs()) & ~is_kink
    return Classified(W, lam1, lam2, lam1 - lam2, res, top_res, margin, is_kink, is_lme, conv)


def distinct(W: torch.Tensor, up_to_sign: bool = False) -> torch.Tensor:
    """Indices of a maximal set of pairwise distinct directions among the rows of W (greedy, in order)."""
    keep: list[int] = []
    for i in range(W.shape[0]):
        if keep:
            c = W[keep] @ W[i]
            c = c.abs() if up_to_sign else c
            if bool((c > 1 - SAME_COS_TOL).any()):
                continue
        keep.append(i)
    return torch.tensor(keep, dtype=torch.long, device=W.device)


@dataclass
class LMESearch:
    run_W: torch.Tensor  # end points of all starts
    classified: Classified
    lmes: torch.Tensor  # (k, d) distinct LMEs
    kinks: torch.Tensor  # (k', d) distinct kink end points
    n_unconverged: int
    iterations: int

    def summary(self) -> dict:
        c = self.classified
        return {"starts": int(c.W.shape[0]), "starts_at_lme": int(c.is_lme.sum()), "starts_at_kink": int(c.is_kink.sum()),
                "starts_unconverged": self.n_unconverged, "distinct_lmes": int(self.lmes.shape[0]),
                "distinct_kinks": int(self.kinks.shape[0]), "pi_iterations": self.iterations}


def find_lmes(A_fn: Callable, W0: torch.Tensor, *, kink_fn: Callable | None = None, max_iter: int = 2000,
              up_to_sign: bool = False) -> LMESearch:
    """Power iteration from every start (fast: LMEs attract PI at rate (λ₂/λ₁)²); the starts it leaves
    uncertified (PI can settle into 2-cycles when A depends on w) are continued by projected Euler ascent of
    ℰ = ½wᵀA(w)w with step 0.5/max‖A‖, which is monotone in ℰ for small steps and settles at critical points."""
    run = power_iteration(A_fn, W0, max_iter=max_iter // 4, tol=RESIDUAL_TOL * 1e-2)
    W, res, steps = run.W.clone(), run.residual.clone(), run.steps
    todo = (run.residual > RESIDUAL_TOL * 1e-2) | run.dead
    if bool(todo.any()):
        scale = float(torch.linalg.matrix_norm(A_fn(W0[todo]), ord=2).max())
        flow = projected_flow(A_fn, W0[todo], dt=0.5 / scale, steps=max_iter, tol=RESIDUAL_TOL * 1e-2,
                              stop_early=True)
        W[todo], res[todo] = flow.W, flow.residual
        steps += flow.steps
    cl = classify(A_fn, W, kink_fn, converged=res <= RESIDUAL_TOL)
    lme_W = W[cl.is_lme]
    kink_W = W[cl.is_kink]
    return LMESearch(W, cl, lme_W[distinct(lme_W, up_to_sign)] if len(lme_W) else lme_W,
                     kink_W[distinct(kink_W)] if len(kink_W) else kink_W, int((~cl.converged).sum()), steps)
