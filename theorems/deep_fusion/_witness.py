"""Witness searches for the existential statements of paper 000 (Theorems 1 and 2: "there exist W^Q, W^K").

A failure of one witness (the proof's W) refutes nothing; a statement "∃ W" fails only if *no* admissible W
works. This module searches the witness and, where it can, certifies that none exists.

* :func:`block_diagonal_lp`: A = XMXᵀ with M = W^Q W^Kᵀ is *linear* in M, and every m×m matrix M is such a
  product (d_k = n ≥ rank of the data suffices, as in the proof). Whether some M gives zero cross entries and
  positive same-cluster entries is therefore a linear programme: maximise t subject to A_ij(M) ≥ t (same
  cluster, diagonal included), M in the null space of the cross constraints, coefficients in a box. Its optimum
  t* is exact (HiGHS, a simplex method with a dual certificate): t* > 0 gives a witness (scaled as needed);
  t* ≤ 0 certifies that no W^Q, W^K of any scale or shape works. Runs in numpy/scipy on purpose (an exact LP
  solver); the result comes back as a tensor on the data's device.
* :func:`unit_column_upper_bound`: for W^Q, W^K ∈ R^{m×n} with unit columns, ‖W^QW^Kᵀ‖_* ≤ ‖W^Q‖_F‖W^K‖_F = n.
  For any λ on the simplex over same-cluster pairs and any μ on cross pairs (where A_pq = 0),
      min_same A_ij/b_ij ≤ Σ λ_ij A_ij/b_ij = ⟨M, Σλ_ij x_ix_jᵀ/b_ij + Σμ_pq x_px_qᵀ⟩ ≤ n‖Σλ x_ix_jᵀ/b + Σμ x_px_qᵀ‖₂,
  so *every* (λ, μ) gives a valid upper bound on what any unit-column witness reaches (weak duality); a
  batched Adam run only makes it tighter, and the best iterate is kept. No convergence is needed for validity.
* :func:`allocation_lower_bound`: the proof's construction gives cluster c's columns the direction v_c; with
  unit columns, giving n_c of the n columns to cluster c makes min_{i,j∈c} A_ij = n_c ρ̃_c². The best integer
  allocation (greedy water-filling, optimal for max-min of linear gains) is a lower bound on the best witness.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.optimize import linprog

from ..optim.threads import single_threaded

# Null space of the cross constraints: singular values below this fraction of the largest are zero (the
# constraint rows are products of unit vectors, exact to ~1e-16; genuinely independent rows sit far above).
NULL_RTOL = 1e-10
# The LP's box on the null-space coefficients (the optimum only matters up to scale: t* > 0 or not).
BOX = 1.0
# Adam on the dual of the unit-column problem: steps and rate (any iterate is a valid bound).
DUAL_STEPS = 100
DUAL_LR = 0.05


def block_diagonal_lp(X: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """(B,) the exact value of the LP's returned point, a lower bound on t* (:func:`block_diagonal_lp_bounds`)."""
    return block_diagonal_lp_bounds(X, labels)[0]


def block_diagonal_lp_bounds(X: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(lower, upper), each (B,), bracketing t* = max_M min_{c_i=c_j} x_iᵀMx_j subject to x_pᵀMx_q = 0 for c_p ≠ c_q, M in a box of the null
    space (orthonormal coordinates). t* ≤ 0: no bilinear form, hence no (W^Q, W^K), is block-diagonal with a
    positive block; t* > 0: a witness exists. The null spaces come from torch's SVD (in the caller's thread
    setting; numpy's BLAS would start its own threads), the LP from HiGHS.

    HiGHS solves to feasibility tolerances of ~1e-7, so its objective is no certificate where t* is smaller
    (near-dependent subspaces: t* ≈ ε_z²/4). ``lower`` is the exact value min(Gc) of the returned point c;
    ``upper`` = BOX·‖Gᵀλ‖₁ for the normalised dual weights λ ≥ 0 of the same-cluster rows, valid for *any* λ on
    the simplex by weak duality (min_i (Gc)_i ≤ λᵀGc ≤ BOX‖Gᵀλ‖₁ for |c| ≤ BOX). "No witness" is certified by
    ``upper``, never by ``lower`` (which is ≈ −ε_z², below zero, where HiGHS stops short of a tiny optimum)."""
    lab = labels.cpu()
    same = lab[:, None] == lab[None, :]
    U, S, _ = torch.linalg.svd(X.detach().cpu(), full_matrices=False)
    out, upper = [], []
    for Ub, Sb in zip(U, S, strict=True):
        # A = XMXᵀ only sees M on the row space of X: reduce to Y = U S (n×q), A = Y Z Yᵀ, Z ∈ R^{q×q} free
        q = int((Sb > NULL_RTOL * Sb[0]).sum())
        Y = Ub[:, :q] * Sb[:q]
        kron = torch.einsum("ia,jb->ijab", Y, Y).reshape(len(lab), len(lab), q * q)
        cross = kron[~same]
        if cross.numel():
            # full right factor only when there are fewer rows than unknowns (then it is small anyway)
            _, sv, vt = torch.linalg.svd(cross, full_matrices=cross.shape[0] < cross.shape[1])
            rank = int((sv > NULL_RTOL * max(float(sv[0]), 1e-300)).sum())
            N = vt[rank:].T  # (q², dim) orthonormal basis of admissible Z
        else:
            N = torch.eye(q * q, dtype=X.dtype, device="cpu")
        if N.shape[1] == 0:
            out.append(0.0)  # only M = 0 is admissible: every entry is 0
            upper.append(0.0)
            continue
        G = (kron[same] @ N).numpy()  # same-cluster entries as linear functions of the coefficients
        k = N.shape[1]
        # variables (c_1..c_k, t): maximise t s.t. t − G c ≤ 0, |c| ≤ BOX
        res = linprog(np.r_[np.zeros(k), -1.0], A_ub=np.c_[-G, np.ones(len(G))], b_ub=np.zeros(len(G)),
                      bounds=[(-BOX, BOX)] * k + [(None, None)], method="highs")
        if res.status != 0:  # pragma: no cover - the LP is always feasible (c = 0, t = 0) and bounded
            raise RuntimeError(f"witness LP failed: {res.message}")
        # the exact value of the returned point (not the solver's objective): a witness only if it is positive
        out.append(float((G @ res.x[:k]).min()))
        lam = np.abs(res.ineqlin.marginals)
        upper.append(BOX * float(np.abs(G.T @ (lam / lam.sum())).sum()) if lam.sum() > 0 else math.inf)
    return (torch.tensor(out, dtype=X.dtype, device=X.device), torch.tensor(upper, dtype=X.dtype, device=X.device))


def unit_column_upper_bound(X: torch.Tensor, labels: torch.Tensor, b: torch.Tensor, n_cols: int,
                            steps: int = DUAL_STEPS) -> torch.Tensor:
    """(B,) an upper bound on max over unit-column W^Q, W^K ∈ R^{m×n_cols} with zero cross entries of
    min_{c_i=c_j} A_ij / b_ij (b: (B, n, n) positive bounds), by weak duality (module docstring). One intra-op
    thread: a loop of small operations (`theorems.optim.threads`)."""
    with single_threaded():
        return _unit_column_upper_bound(X, labels, b, n_cols, steps)


def _unit_column_upper_bound(X, labels, b, n_cols: int, steps: int) -> torch.Tensor:
    same = labels[:, None] == labels[None, :]
    B, n, m = X.shape
    outer = torch.einsum("bia,bjc->bijac", X, X)  # x_i x_jᵀ
    So = outer[:, same] / b[:, same][..., None, None]  # (B, P, m, m)
    Co = outer[:, ~same]  # (B, Q, m, m)
    lam = torch.zeros(B, So.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    mu = torch.zeros(B, Co.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    opt = torch.optim.Adam([lam, mu], lr=DUAL_LR)
    best = torch.full((B,), math.inf, dtype=X.dtype, device=X.device)
    for _ in range(steps + 1):
        Mdual = torch.einsum("bp,bpij->bij", torch.softmax(lam, -1), So) + torch.einsum("bq,bqij->bij", mu, Co)
        val = n_cols * torch.linalg.matrix_norm(Mdual, ord=2)
        best = torch.minimum(best, val.detach())
        opt.zero_grad()
        val.sum().backward()
        opt.step()
    return best


def allocation_lower_bound(margin_c: torch.Tensor, need_c: torch.Tensor, n_cols: int) -> torch.Tensor:
    """(B,) max over integer allocations n_c ≥ 1, Σ n_c = n_cols, of min_c n_c margin_c² / need_c: what unit
    columns pointing along the construction's v_c reach, relative to the per-cluster need (e.g. ν_cρ²)."""
    gain = margin_c.clamp_min(0.0) ** 2 / need_c  # (B, K): ratio per column
    B, K = gain.shape
    if n_cols < K:
        return torch.zeros(B, dtype=gain.dtype, device=gain.device)
    alloc = torch.ones(B, K, dtype=gain.dtype, device=gain.device)
    for _ in range(n_cols - K):  # give the next column to the cluster with the smallest ratio
        worst = (alloc * gain).argmin(-1, keepdim=True)
        alloc = alloc.scatter_add(-1, worst, torch.ones_like(worst, dtype=gain.dtype))
    return (alloc * gain).min(-1).values
