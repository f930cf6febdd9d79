"""Batched Riemannian Newton (Levenberg–Marquardt trust region) for problems with an arrow Hessian.

The problems are B independent ones on R^m × (sphere-like manifold)^N whose Hessian has *arrow*
structure: a dense block for the shared Euclidean variable w, a coupling block between w and every
x_i, and no coupling between x_i and x_j (i ≠ j). The UFM is one (W shared, one feature column per
sample); so is every "shared weights + per-sample variables" problem.

Why Newton: small instances (tens to hundreds of variables) are overhead-bound, not flop-bound, so the
number of iterations is what costs; Newton needs tens where L-BFGS needs hundreds or thousands on
weakly curved problems (the MSE-UFM of paper 004: features in 1^⊥ outside span(W) have curvature
λK/(N(d+λK)²)). Why the Schur complement: eliminating the block-diagonal x part
costs O(N q³ + N m² q + m³) instead of O((m + Nq)³), and keeps larger instances cheap.

Globalisation is Levenberg–Marquardt: the step solves (H + μI) s = −g with a per-instance μ ≥ mu_min,
raised until H + μI is positive definite (a failed Cholesky factor says it is not) and adapted by the
ratio of actual to predicted decrease, as a trust region does. Negative curvature therefore never gives
an uphill step, and a strict saddle repels the iterates. μ never drops below mu_min (absolute), which
keeps steps bounded along the flat directions of symmetric problems (the UFM's optima form orbits of
rotations, so its Hessian is singular there); the local rate is then μ/(μ + smallest nonzero
curvature), superlinear in practice. Vectors along x are in tangent coordinates (q numbers per x_i, in
a basis the problem chooses and returns as ``ArrowModel.basis``), so steps stay tangent by construction.

Statuses are those of batched_lbfgs: 'gtol' (the stationarity measure, here the Riemannian gradient
norm, is ≤ gtol: the only converged status), 'stalled' (μ grew past mu_max: no acceptable step exists at
float64 resolution), 'max_iter', 'nonfinite' (non-finite objective at the start).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable

import torch

from .lbfgs import GTOL, MAX_ITER, NONFINITE, STALLED


@dataclass
class ArrowModel:
    """Value, Riemannian gradient and Hessian of B problems at their current points.

    The shared variable is a matrix w ∈ R^{K×p} (flattened row-major, m = K·p); each x_i has q tangent
    coordinates. Blocks: ``A`` (B, m, m) the w–w block; ``D`` (B, N, q, q) the x_i–x_i blocks; the w–x_i
    block in the factored form every bilinear coupling z_i = w a_i has,

        C_iᵀ[j, (k, c)] = P_i[j, k] a_i[c] + Q_i[j, c] b_i[k],

    with ``P`` (B, N, q, K), ``a`` (B, N, p), ``Q`` (B, N, q, p), ``b`` (B, N, K). Kept factored because
    materialising C (m·N·q numbers per instance) was the largest cost of an iteration.
    """

    f: torch.Tensor  # (B,)
    gw: torch.Tensor  # (B, m)
    gx: torch.Tensor  # (B, N, q), tangent coordinates
    A: torch.Tensor
    D: torch.Tensor
    P: torch.Tensor
    a: torch.Tensor
    Q: torch.Tensor
    b: torch.Tensor
    basis: torch.Tensor | None = None  # (B, N, p, q) tangent bases, for the retraction

    def coupling(self) -> torch.Tensor:
        """C materialised as (B, m, N, q) (for tests and small problems)."""
        B, N, q, K = self.P.shape
        p = self.a.shape[-1]
        Ct = self.P[..., :, None] * self.a[:, :, None, None, :] + self.b[:, :, None, :, None] * self.Q[..., None, :]
        return Ct.reshape(B, N, q, K * p).permute(0, 3, 1, 2)

    def hessian(self) -> torch.Tensor:
        """The dense (B, m + N·q, m + N·q) Hessian (for tests: the solver never forms it)."""
        B, m = self.gw.shape
        N, q = self.gx.shape[-2:]
        H = torch.zeros(B, m + N * q, m + N * q, dtype=self.A.dtype, device=self.A.device)
        H[:, :m, :m] = self.A
        C = self.coupling().reshape(B, m, N * q)
        H[:, :m, m:] = C
        H[:, m:, :m] = C.transpose(-1, -2)
        Hx = H[:, m:, m:].view(B, N, q, N, q)
        idx = torch.arange(N, device=self.A.device)
        Hx[:, idx, :, idx, :] = self.D.transpose(0, 1)
        return H

    def matvec(self, v: torch.Tensor) -> torch.Tensor:
        """H·v for flat tangent vectors v (B, m + N·q), through the blocks (the Hessian is never formed):
        [A v_w + Σ_i C_i v_i ; C_iᵀ v_w + D_i v_i], C_i applied in its factored form."""
        B, m = self.gw.shape
        N, q, K = self.P.shape[1:]
        p = self.a.shape[-1]
        v = v.contiguous()  # Lanczos passes a column of its basis: strided elementwise kernels are several times slower
        vw, vx = v[:, :m], v[:, m:].reshape(B, N, q)
        Vw = vw.view(B, K, p)
        # (C_iᵀ v_w)_j = P_i[j,:]·(V_w a_i) + Q_i[j,:]·(V_wᵀ b_i); elementwise products and sums over the last
        # axis (the blocks are tiny: a batched matmul per (q × K) block is slower, above all on strided views)
        Va = self.a @ Vw.transpose(-1, -2)  # (B, N, K): V_w a_i
        Vb = self.b @ Vw  # (B, N, p): V_wᵀ b_i
        hx = ((self.P * Va[:, :, None, :]).sum(-1) + (self.Q * Vb[:, :, None, :]).sum(-1)
              + (self.D * vx[:, :, None, :]).sum(-1))
        # Σ_i C_i v_i = Σ_i (P_iᵀ v_i) ⊗ a_i + b_i ⊗ (Q_iᵀ v_i)
        Pv = (self.P * vx[..., None]).sum(-2)  # (B, N, K)
        Qv = (self.Q * vx[..., None]).sum(-2)  # (B, N, p)
        hw = (self.A @ vw[..., None])[..., 0] + (Pv.transpose(-1, -2) @ self.a + self.b.transpose(-1, -2) @ Qv).reshape(B, m)
        return torch.cat([hw, hx.reshape(B, N * q)], dim=-1)

    @property
    def dim(self) -> int:
        """The tangent dimension m + N·q of one instance (the Hessian's size): the one place it is read off the shapes."""
        return self.gw.shape[-1] + self.gx.shape[-2] * self.gx.shape[-1]

    def grad_norm(self) -> torch.Tensor:
        return torch.sqrt(self.gw.pow(2).sum(-1) + self.gx.pow(2).sum((-2, -1)))

    def take(self, idx: torch.Tensor) -> "ArrowModel":
        """The instances ``idx`` (a 1-D index tensor), in that order."""
        return ArrowModel(**{fl.name: None if getattr(self, fl.name) is None else getattr(self, fl.name)[idx]
                             for fl in fields(self)})

    @staticmethod
    def concat(parts: "list[ArrowModel]") -> "ArrowModel":
        """The instances of ``parts``, in order, as one model."""
        return ArrowModel(**{fl.name: None if getattr(parts[0], fl.name) is None
                             else torch.cat([getattr(m, fl.name) for m in parts]) for fl in fields(ArrowModel)})

    def put_rows(self, idx: torch.Tensor, other: "ArrowModel") -> None:
        """Overwrite the instances ``idx`` with the rows of ``other`` (which holds exactly those), in place."""
        for fl in fields(self):
            a = getattr(self, fl.name)
            if a is not None:
                a[idx] = getattr(other, fl.name)


Evaluate = Callable[[torch.Tensor, torch.Tensor], ArrowModel]
Solve = Callable[[ArrowModel, torch.Tensor], tuple[torch.Tensor, torch.Tensor, torch.Tensor]]  # arrow_solve's signature
Retract = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, ArrowModel], tuple[torch.Tensor, torch.Tensor]]


UNROLL_MAX = 8  # blocks up to this size are factorised entry by entry (vectorised over blocks), larger by LAPACK
# ... when there are at least this many of them: below it the unrolled loops' ~50 kernel launches cost more than
# LAPACK's one call per block (measured on 4×4 blocks, 1 thread: Cholesky 0.11 vs 0.003 ms for 12 blocks, 0.14 vs
# 0.03 ms for 384; the triangular solves cross over at ~500–1000 blocks). The Newton loop's small batches (re-solves
# of the few instances whose H + μI was indefinite, the last stragglers) are all below it, full batches above.
UNROLL_MIN_BLOCKS = 512


def _unrolled(M: torch.Tensor) -> bool:
    """Whether the tiny blocks M (..., q, q) are factored and solved entry by entry (else by LAPACK)."""
    q = M.shape[-1]
    return q <= UNROLL_MAX and M.numel() >= UNROLL_MIN_BLOCKS * q * q


GRAM_OVERHEAD = 3  # measured: the Gram-form Schur assembly wins once its flops are below ~1/3 of forming F (K ≳ 10)


def block_cholesky(M: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Cholesky factors of many tiny SPD blocks (..., q, q), and whether each block is positive definite.

    For q ≤ UNROLL_MAX and at least UNROLL_MIN_BLOCKS blocks the factor is computed entry by entry, each entry one
    vectorised kernel over all blocks (~q³/6 kernels on (…)-sized tensors); otherwise by LAPACK, one call per block.
    ``ok`` is False where a pivot is not positive (LAPACK: where it stopped at a pivot ≤ 0 or NaN).
    """
    q = M.shape[-1]
    if not _unrolled(M):
        L, info = torch.linalg.cholesky_ex(M)
        return L, info == 0
    tiny = torch.finfo(M.dtype).tiny
    ok = torch.ones(M.shape[:-2], dtype=torch.bool, device=M.device)
    col: list[list[torch.Tensor]] = [[] for _ in range(q)]  # col[i][j] = L[i, j], j ≤ i
    for j in range(q):
        pivot = M[..., j, j]
        for k in range(j):
            pivot = pivot - col[j][k] * col[j][k]
        ok &= pivot > 0
        ljj = pivot.clamp_min(tiny).sqrt()
        col[j].append(ljj)
        for i in range(j + 1, q):
            lij = M[..., i, j]
            for k in range(j):
                lij = lij - col[i][k] * col[j][k]
            col[i].append(lij / ljj)
    zero = torch.zeros_like(M[..., 0, 0])
    L = torch.stack([torch.stack(col[i] + [zero] * (q - 1 - i), dim=-1) for i in range(q)], dim=-2)
    return L, ok


def _forward(L: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """L⁻¹ rhs for lower-triangular tiny blocks L (..., q, q) and rhs (..., q, r)."""
    q = L.shape[-1]
    if not _unrolled(L):
        return torch.linalg.solve_triangular(L, rhs, upper=False)
    rows: list[torch.Tensor] = []
    for j in range(q):
        r = rhs[..., j, :]
        for k in range(j):
            r = r - L[..., j, k, None] * rows[k]
        rows.append(r / L[..., j, j, None])
    return torch.stack(rows, dim=-2)


def _backward_t(L: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """L⁻ᵀ rhs for lower-triangular tiny blocks L (..., q, q) and rhs (..., q)."""
    q = L.shape[-1]
    if not _unrolled(L):
        return torch.linalg.solve_triangular(L.transpose(-1, -2), rhs[..., None], upper=True)[..., 0]
    out: list[torch.Tensor] = [rhs[..., 0]] * q
    for j in reversed(range(q)):
        r = rhs[..., j]
        for k in range(j + 1, q):
            r = r - L[..., k, j] * out[k]
        out[j] = r / L[..., j, j]
    return torch.stack(out, dim=-1)


def schur_complement(model: ArrowModel, alpha: torch.Tensor, beta: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """S = A + μI − Σ_i F_iᵀF_i (B, m, m); see ``_schur_and_factor`` (formed F) and ``_schur_gram`` (the Gram form)."""
    if _gram_form(model):
        ab = torch.cat([alpha, beta], dim=-1)
        return _schur_gram(model, ab.transpose(-1, -2) @ ab, mu)
    return _schur_and_factor(model, alpha, beta, mu)[0]


def _gram_form(model: ArrowModel) -> bool:
    """Whether S is assembled from the per-feature Gram blocks (large K·p) rather than from a formed F: the Gram
    form's flops (``_schur_gram``), charged GRAM_OVERHEAD times, against the 2NqK²p² of forming F and FᵀF."""
    N, q, K = model.P.shape[1:]
    p = model.a.shape[-1]
    return 2 * q * K * K * p * p > GRAM_OVERHEAD * (q * (K + p) ** 2 + 6 * K * K * p * p)


def _schur_and_factor(model: ArrowModel, alpha: torch.Tensor, beta: torch.Tensor,
                      mu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(S, F) with F_i = L_i⁻¹C_iᵀ formed from its factors, F_i[j, (k, c)] = α_jk a_c + b_k β_jc, as (B, N·q, m), and
    S = A + μI − FᵀF: for small blocks, where one product over contiguous rows is fewer kernels than the Gram form."""
    B, m = model.gw.shape
    N, q, K = model.P.shape[1:]
    a, b = model.a, model.b
    # two products and an in-place add: a broadcasting addcmul over these 5-D shapes was ~2.5× slower in float32
    F = alpha[..., :, None] * a[:, :, None, None, :]
    F += b[:, :, None, :, None] * beta[..., None, :]
    F = F.reshape(B, N * q, m)
    S = model.A - F.transpose(-1, -2) @ F
    S.diagonal(dim1=-2, dim2=-1).add_(mu[:, None])
    return S, F


_GRAM_INDEX: dict[tuple, tuple[torch.Tensor, ...]] = {}


def _gram_index(K: int, p: int, stride: int, device: torch.device) -> tuple[torch.Tensor, ...]:
    """Index tensors of the Gram-form assembly for K×p blocks, cached per (K, p, stride, device):

    * ``gkk``, ``gpp``: the upper triangles (k ≤ k', c ≤ c') of the K×K and p×p Gram blocks inside a row-major
      (·, stride, stride) Gram matrix whose K block starts at 0 and p block at K;
    * ``kk``, ``cc``: the same pairs inside row-major K×K and p×p blocks (b bᵀ and a aᵀ);
    * ``diag``: for S's entry [(k,c), (k',c')], the flat position of (pair(k,k'), pair(c,c')) in the packed product;
    * ``cross``: its position [k, c', c, k'] in the (K·p) × (p·K) cross product.
    """
    key = (K, p, stride, str(device))
    if key not in _GRAM_INDEX:
        k0, k1 = torch.triu_indices(K, K, device=device)
        c0, c1 = torch.triu_indices(p, p, device=device)
        pair_k = torch.zeros(K, K, dtype=torch.long, device=device)
        pair_k[k0, k1] = pair_k[k1, k0] = torch.arange(k0.numel(), device=device)
        pair_c = torch.zeros(p, p, dtype=torch.long, device=device)
        pair_c[c0, c1] = pair_c[c1, c0] = torch.arange(c0.numel(), device=device)
        k, c, k2, c2 = torch.meshgrid(*(torch.arange(n, device=device) for n in (K, p, K, p)), indexing="ij")
        diag = pair_k[k, k2] * c0.numel() + pair_c[c, c2]
        cross = ((k * p + c2) * p + c) * K + k2
        _GRAM_INDEX[key] = (k0 * stride + k1, (K + c0) * stride + K + c1, k0 * K + k1, c0 * p + c1,
                            diag.reshape(-1), cross.reshape(-1))
    return _GRAM_INDEX[key]


def _schur_gram(model: ArrowModel, G: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """S = A + μI − Σ_i F_iᵀF_i from the per-feature Gram blocks G_i = [α_i β_i …]ᵀ[α_i β_i …] (B, N, M, M), M ≥ K + p
    (the α columns first, then the β ones; a trailing column, such as h, is ignored).

    Expanding F_iᵀF_i with F_i[j, (k, c)] = α_jk a_c + b_k β_jc:

        (F_iᵀF_i)[(k,c), (k',c')] = (αᵀα)_kk' a_c a_c' + b_k b_k' (βᵀβ)_cc' + (αᵀβ)_kc' a_c b_k' + (αᵀβ)_k'c b_k a_c'.

    The first two terms are sums over i of products of two symmetric factors, so only k ≤ k' and c ≤ c' are computed:
    one product over the 2N rows of K(K+1)/2 and p(p+1)/2 packed columns (~4× fewer flops than all K² × p²), spread
    over S by one gather. The cross terms are one product of the K·p entries of αᵀβ against the p·K of a bᵀ, spread by
    a second gather, and its transpose. No permuted copies; O(N(M²q + K²p²/2 + K²p²)) flops.
    """
    B, m = model.gw.shape
    N, q, K = model.P.shape[1:]
    p = model.a.shape[-1]
    M = G.shape[-1]
    gkk, gpp, kk, cc, diag, cross = _gram_index(K, p, M, G.device)
    a, b = model.a, model.b
    Gf = G.reshape(B, N, M * M)
    pick = torch.index_select  # beat advanced indexing (x[..., idx]) ~2× on these sizes
    bb = (b[..., :, None] * b[..., None, :]).reshape(B, N, K * K)
    aa = (a[..., :, None] * a[..., None, :]).reshape(B, N, p * p)
    left = torch.cat([pick(Gf, 2, gkk), pick(bb, 2, kk)], dim=1)  # (B, 2N, K(K+1)/2)
    right = torch.cat([pick(aa, 2, cc), pick(Gf, 2, gpp)], dim=1)  # (B, 2N, p(p+1)/2)
    packed = (left.transpose(-1, -2) @ right).reshape(B, -1)
    ab = G[..., :K, K:K + p].reshape(B, N, K * p)  # (αᵀβ)_i[k, c']
    prod = (ab.transpose(-1, -2) @ (a[..., :, None] * b[..., None, :]).reshape(B, N, p * K)).reshape(B, -1)
    S = (model.A.reshape(B, m * m) - pick(packed, 1, diag)).view(B, m, m)
    cross_kc = pick(prod, 1, cross).view(B, m, m)  # the (αᵀβ)_kc' a_c b_k' term; the other is its transpose
    S -= cross_kc
    S -= cross_kc.transpose(-1, -2)
    S.diagonal(dim1=-2, dim2=-1).add_(mu[:, None])
    return S


# Instances solved at once by one arrow_solve call: more than this many floats of model are solved in pieces. One
# K=10 n=20 d=32 UFM instance is ~720k floats; a batch of 16 of them, float64, took ~1.5× the time per instance of
# one alone (1 thread: the blocks fall out of cache between the passes of the solve).
SOLVE_CHUNK_FLOATS = 1 << 19


def model_floats(model: ArrowModel) -> int:
    """Floats of one instance's arrow blocks (A, D and the coupling factors)."""
    m = model.gw.shape[-1]
    N, q, K = model.P.shape[1:]
    p = model.a.shape[-1]
    return m * m + N * q * (q + K + p) + N * (p + K)


def arrow_solve(model: ArrowModel, mu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Solve (H + μI) s = −g per instance through the Schur complement of the block-diagonal x part.

    With L_i L_iᵀ = D_i + μI, F_i = L_i⁻¹C_iᵀ and h_i = L_i⁻¹g_{x_i}: S = A + μI − Σ F_iᵀF_i,
    S s_w = −g_w + Σ F_iᵀh_i, s_{x_i} = −L_i⁻ᵀ(h_i + F_i s_w). The triangular solves act on the factors
    of C (K + p columns instead of K·p). Returns (s_w, s_x, ok); ``ok`` is False where H + μI is not
    positive definite (a Cholesky factor failed), and the step of such an instance is meaningless.

    Large blocks (``_gram_form``): one batched product R_iᵀR_i of R_i = L_i⁻¹[P_i Q_i g_i] = [α_i β_i h_i] gives the
    Gram blocks S is assembled from (``_schur_gram``) and, in its last column, the αᵀh and βᵀh of Σ F_iᵀh_i; F s_w is
    one product of [α_i β_i] with (S_w a_i, S_wᵀ b_i). Small blocks form F (``_schur_and_factor``).
    """
    B, m = model.gw.shape
    N, q, K = model.P.shape[1:]
    p = model.a.shape[-1]
    per = model_floats(model)
    if B > 1 and B * per > SOLVE_CHUNK_FLOATS:  # a large batch in cache-sized pieces (e.g. a certificate of all starts)
        size = max(1, SOLVE_CHUNK_FLOATS // per)
        parts = [arrow_solve(model.take(torch.arange(i, min(i + size, B), device=mu.device)), mu[i:i + size])
                 for i in range(0, B, size)]
        return tuple(torch.cat(x) for x in zip(*parts, strict=True))  # type: ignore[return-value]
    eye_q = torch.eye(q, dtype=mu.dtype, device=mu.device)
    Lx, ok_x = block_cholesky(model.D + mu[:, None, None, None] * eye_q)
    ok_blocks = ok_x.all(dim=-1)
    if not bool(ok_blocks.any()):
        # no instance has definite x blocks (μ below the sphere's negative curvature): H + μI is indefinite for all,
        # so the Schur complement, which costs most of a solve, is not formed (the caller raises μ and re-solves)
        return model.gw.new_zeros(B, m), model.gx.new_zeros(B, N, q), ok_blocks
    if _gram_form(model):
        # Rᵀ = [P Q g]ᵀ L⁻ᵀ (B, N, K+p+1, q) by a right-sided solve: [P Q g]ᵀ's rows (the model's AWT, T and g_x) are
        # contiguous, so the stacking is a plain copy and LAPACK's layout needs no transposing copy; cat + solve + the
        # Gram product 0.80–0.85 vs 1.48–1.53 ms at K=10 n=20 d=32 float32 (B=1, 1 thread, the same numbers to rounding)
        if _unrolled(Lx):
            Rt = _forward(Lx, torch.cat([model.P, model.Q, model.gx[..., None]], dim=-1)).transpose(-1, -2)
        else:
            Rt = torch.linalg.solve_triangular(
                Lx.transpose(-1, -2), torch.cat([model.P.transpose(-1, -2), model.Q.transpose(-1, -2),
                                                 model.gx[..., None, :]], dim=-2), upper=True, left=False)
        G = Rt @ Rt.transpose(-1, -2)  # (B, N, K+p+1, K+p+1)
        S = _schur_gram(model, G, mu)
        ah, bh = G[..., :K, K + p], G[..., K:K + p, K + p]  # Σ_j α_jk h_j, Σ_j β_jc h_j per feature
        rhs = ((ah.transpose(-1, -2) @ model.a + model.b.transpose(-1, -2) @ bh).reshape(B, m) - model.gw)[..., None]
        Lw, info_w = torch.linalg.cholesky_ex(S)
        sw = torch.cholesky_solve(rhs, Lw)[..., 0]
        Sw = sw.view(B, K, p)
        v = torch.cat([model.a @ Sw.transpose(-1, -2), model.b @ Sw], dim=-1)  # (B, N, K+p): S_w a_i, S_wᵀ b_i
        Fsw = (Rt[..., :K + p, :] * v[..., :, None]).sum(-2)
        sx = -_backward_t(Lx, Rt[..., K + p, :] + Fsw)
        return sw, sx, ok_blocks & (info_w == 0)
    R = _forward(Lx, torch.cat([model.P, model.Q, model.gx[..., None]], dim=-1))
    # contiguous copies: the broadcasts below on strided slices of R ran ~3× slower than the copies cost
    alpha, beta, h = R[..., :K].contiguous(), R[..., K:K + p].contiguous(), R[..., K + p].contiguous()
    S, F = _schur_and_factor(model, alpha, beta, mu)
    # F formed: one product each instead of a dozen small kernels through the factors
    rhs = torch.baddbmm(model.gw[..., None], F.transpose(-1, -2), h.reshape(B, N * q, 1), beta=-1.0)
    Lw, info_w = torch.linalg.cholesky_ex(S)
    sw = torch.cholesky_solve(rhs, Lw)[..., 0]
    Fsw = (F @ sw[..., None]).view(B, N, q)
    sx = -_backward_t(Lx, h + Fsw)
    return sw, sx, ok_blocks & (info_w == 0)


@dataclass
class NewtonResult:
    w: torch.Tensor  # (B, m) final iterates
    x: torch.Tensor  # (B, N, q)
    f: torch.Tensor  # (B,)
    gw: torch.Tensor  # (B, m) Riemannian gradient at the final iterate
    gx: torch.Tensor  # (B, N, q)
    stationarity: torch.Tensor  # (B,) Riemannian gradient norm (what gtol was compared with)
    iterations: torch.Tensor  # (B,) iterations each instance ran (accepted or rejected trial steps)
    status: list[str]
    evaluations: int  # batched model evaluations
    factorizations: int  # batched Schur solves (one per iteration, more where μ had to grow)
    mu: torch.Tensor  # (B,) final damping
    polish_iterations: torch.Tensor | None = None  # (B,) of ``iterations``, those of the float64 stage (mixed precision)
    # the model at the final iterates, every instance (the last evaluation there: a caller's second-order test at the
    # returned point reuses it instead of evaluating it again)
    model: ArrowModel | None = None

    @property
    def converged(self) -> torch.Tensor:
        return torch.tensor([s == GTOL for s in self.status], device=self.f.device)

    @staticmethod
    def concat(parts: "list[NewtonResult]") -> "NewtonResult":
        """The results of consecutive chunks of one batch as one result (counts of batched calls are summed)."""
        if len(parts) == 1:
            return parts[0]
        cat = {fl.name: None if getattr(parts[0], fl.name) is None else torch.cat([getattr(r, fl.name) for r in parts])
               for fl in fields(NewtonResult) if fl.name not in ("status", "evaluations", "factorizations", "model")}
        models = [r.model for r in parts]
        return NewtonResult(**cat, model=None if any(m is None for m in models) else ArrowModel.concat(models),
                            status=[s for r in parts for s in r.status],
                            evaluations=sum(r.evaluations for r in parts),
                            factorizations=sum(r.factorizations for r in parts))


# inference mode: the loop never differentiates, and its ~300 small kernels an iteration skip autograd's view and
# version-counter bookkeeping (CE K=4 R=256, 1 thread, 4 alternated process pairs: median 0.121 vs 0.129 s CPU). The
# results are inference tensors: read them, or copy them before an in-place write outside inference mode
@torch.inference_mode()
def batched_arrow_newton(
    evaluate: Evaluate,
    retract: Retract,
    w0: torch.Tensor,
    x0: torch.Tensor,
    *,
    max_iter: int = 200,
    gtol: float = 1e-9,
    mu0: float | torch.Tensor = 0.1,
    mu_min: float = 1e-10,
    mu_max: float = 1e20,
    eta: float = 0.1,
    shrink: float = 3.0,
    grow: float = 3.0,
    bump: float = 3.0,
    solve: Solve | None = None,
) -> NewtonResult:
    """Minimise B problems from (w0 (B, m), x0 (B, N, q)) by damped Riemannian Newton steps.

    ``evaluate(w, x)`` returns the :class:`ArrowModel` at (w, x); ``retract(w, x, s_w, s_x, model)`` maps
    a tangent step (in the coordinates of the model's gradient) back onto the manifold (``mixed_precision_newton``
    also calls it with zero steps and model None, to put a rounded point back onto the manifold). Instances stop on
    their own; only the active ones are evaluated and solved (the batch is compacted as they stop, since
    the work is proportional to the instances carried), and stopped ones never change again. ``solve`` replaces
    :func:`arrow_solve` (same signature and meaning: ``optim.fused.arrow_solve``, the compiled loop for small CPU
    problems).
    """
    solve = arrow_solve if solve is None else solve
    B = w0.shape[0]
    dev, dt = w0.device, w0.dtype
    eps = torch.finfo(dt).eps
    w, x = w0.clone(), x0.clone()
    model = evaluate(w, x)
    f, gw, gx = model.f.clone(), model.gw.clone(), model.gx.clone()
    gnorm = model.grad_norm()
    evaluations, factorizations = 1, 0
    mu = torch.as_tensor(mu0, dtype=dt, device=dev).expand(B).clone()  # a float, or one per instance
    iterations = torch.zeros(B, dtype=torch.long, device=dev)
    status = [MAX_ITER] * B
    done = ~torch.isfinite(f) | (gnorm <= gtol)
    for i in torch.nonzero(done).flatten().tolist():
        status[i] = NONFINITE if not bool(torch.isfinite(f[i])) else GTOL
    act = torch.nonzero(~done).flatten()  # indices of the active instances; `model` holds their rows
    final = model  # every instance's model at its current point, written back as instances stop
    model = model.take(act)

    for _ in range(max_iter):
        if act.numel() == 0:
            break
        mu_a = mu[act]
        sw, sx, ok = solve(model, mu_a)
        factorizations += 1
        # Raise μ where H + μI is not positive definite, re-solving only those instances.
        bad = torch.nonzero(~ok).flatten()
        bumped = ~ok
        while bad.numel() and bool((mu_a[bad] <= mu_max).any()):
            mu_a[bad] = torch.clamp_min(mu_a[bad] * bump, 1e-8)
            sw_b, sx_b, ok_b = solve(model.take(bad), mu_a[bad])
            factorizations += 1
            sw[bad], sx[bad], ok[bad] = sw_b, sx_b, ok_b
            bad = bad[~ok_b]
        sw = torch.where(ok[:, None], sw, torch.zeros_like(sw))
        sx = torch.where(ok[:, None, None], sx, torch.zeros_like(sx))
        gs = (model.gw * sw).sum(-1) + (model.gx * sx).sum((-2, -1))
        ss = sw.pow(2).sum(-1) + sx.pow(2).sum((-2, -1))
        pred = 0.5 * (mu_a * ss - gs)  # model decrease: −gᵀs − ½sᵀHs with Hs = −g − μs

        w_a, x_a = w[act], x[act]
        w_try, x_try = retract(w_a, x_a, sw, sx, model)
        trial = evaluate(w_try, x_try)
        evaluations += 1
        gnorm_a = gnorm[act]
        gnorm_try = trial.grad_norm()
        ratio = (model.f - trial.f) / pred.clamp_min(torch.finfo(dt).tiny)
        # Once the model decrease is below the objective's rounding, the ratio is noise: accept a step
        # that does not raise f beyond rounding and lowers the gradient norm (Newton's local regime).
        slack = 8 * eps * (model.f.abs() + 1)
        in_noise = (pred <= slack) & (trial.f <= model.f + slack) & (gnorm_try < gnorm_a)
        accept = ok & torch.isfinite(trial.f) & ((ratio >= eta) | in_noise)

        w[act] = torch.where(accept[:, None], w_try, w_a)
        x[act] = torch.where(accept[:, None, None], x_try, x_a)
        rejected = torch.nonzero(~accept).flatten()
        if rejected.numel():  # usually few: patch their rows back instead of a where over every block
            trial.put_rows(rejected, model.take(rejected))
        model = trial
        gnorm_a = torch.where(accept, gnorm_try, gnorm_a)
        gnorm[act], f[act], gw[act], gx[act] = gnorm_a, model.f, model.gw, model.gx
        # μ that had to be raised for H + μI to be definite is not lowered in the same iteration: lowering it
        # re-entered the indefinite range next time, and each re-solve is a separate small batch
        very_good = accept & ((ratio > 0.75) | in_noise) & ~bumped
        poor = ok & ~(accept & (ratio >= 0.25)) & ~in_noise
        mu_a = torch.where(very_good, torch.clamp_min(mu_a / shrink, mu_min), mu_a)
        mu_a = torch.where(poor, torch.clamp_min(mu_a * grow, 1e-8), mu_a)
        mu[act] = mu_a
        iterations[act] += 1
        converged = accept & (gnorm_a <= gtol)
        stalled = ~converged & (mu_a > mu_max)
        stop = converged | stalled
        if bool(stop.any()):
            for i, conv, stall in zip(act.tolist(), converged.tolist(), stalled.tolist(), strict=True):
                if conv or stall:
                    status[i] = GTOL if conv else STALLED
            final.put_rows(act[stop], model.take(torch.nonzero(stop).flatten()))
            act, model = act[~stop], model.take(torch.nonzero(~stop).flatten())
    if act.numel():
        final.put_rows(act, model)

    return NewtonResult(w=w, x=x, f=f, gw=gw, gx=gx, stationarity=gnorm, iterations=iterations,
                        status=status, evaluations=evaluations, factorizations=factorizations, mu=mu, model=final)


# The float32 stage stops here: ~80 float32 epsilons, above its rounding floor at O(1) scales (the CE UFM at K=10 n=20
# d=32 reaches it in 16–17 iterations, none stalled). From 1e-5 one float64 Newton step reaches gtol = 1e-9 at most
# CE starts (K=4 R=256: 236/256 polished in one step at 1e-5, 12/256 at 1e-4), which saves a float64 iteration
# (~2× the cost of a float32 one) for ~1 more float32 iteration; 3e-6 cost more float32 iterations at K=10
WARM_GTOL = 1e-5
WARM_MU_MIN = 1e-5  # float32 Cholesky cannot factor the UFM's singular (rotation-orbit) Hessian + 1e-10·I
# The float64 stage starts where the float32 one converged, in Newton's local regime: μ = 1e-6 makes its first step
# almost a Newton step (2 polish steps instead of 3 at K=4; 1e-4 damped the first step enough to need a third); starts
# the float32 stage left unconverged keep the old, more damped 1e-4
POLISH_MU0, POLISH_MU0_FAR = 1e-6, 1e-4


def mixed_precision_newton(evaluate: Evaluate, retract: Retract, w0: torch.Tensor, x0: torch.Tensor, *,
                           max_iter: int = 200, gtol: float = 1e-9, solve: Solve | None = None,
                           float32_stage: bool = True) -> NewtonResult:
    """Float32 iterations until the gradient norm is WARM_GTOL, then float64 polish steps to ``gtol``.

    The global phase (most of the iterations) needs no float64 accuracy and runs ~1.6× faster in float32 (half
    the memory traffic); only the float64 stage's status counts ('gtol' is earned at float64 from its own
    evaluation), so the float32 stage can only change where the polish starts, never the certificate. Every
    start, even one that stalled in float32, is polished. ``max_iter`` caps the two stages together per
    instance. Counts (iterations, evaluations, factorizations) are summed over both stages. ``solve``: as in
    :func:`batched_arrow_newton`, for both stages. ``float32_stage=False``: float64 iterations only (for a model and
    solve that cost the same in float32, such as the compiled loops of ``optim.fused``).
    """
    if w0.dtype != torch.float64 or max_iter < 2 or not float32_stage:
        return batched_arrow_newton(evaluate, retract, w0, x0, max_iter=max_iter, gtol=gtol, solve=solve)
    warm = batched_arrow_newton(evaluate, retract, w0.float(), x0.float(), max_iter=max_iter // 2,
                                gtol=max(gtol, WARM_GTOL), mu_min=WARM_MU_MIN, solve=solve)
    # back onto the manifold at float64 (a zero step through the retraction): the float32 point is off it by
    # ~1e-7, a jump the float64 model cannot predict, which made every polish step look like a bad one
    w32, x32 = warm.w.double(), warm.x.double()
    w32, x32 = retract(w32, x32, torch.zeros_like(w32), torch.zeros_like(warm.gx, dtype=w32.dtype), None)
    # starts the float32 stage did not move, or whose float32 value is not finite, polish from their own start
    moved = (warm.iterations > 0) & torch.isfinite(warm.f)
    w1 = torch.where(moved[:, None], w32, w0)
    x1 = torch.where(moved[:, None, None], x32, x0)
    used = int(warm.iterations.max()) if warm.iterations.numel() else 0
    local = torch.tensor([s == GTOL for s in warm.status], device=w0.device)
    mu0 = torch.where(local, POLISH_MU0, POLISH_MU0_FAR).double()
    res = batched_arrow_newton(evaluate, retract, w1, x1, max_iter=max(0, max_iter - used), gtol=gtol, mu0=mu0,
                               solve=solve)
    res.polish_iterations = res.iterations
    res.iterations = res.iterations + warm.iterations
    res.evaluations += warm.evaluations
    res.factorizations += warm.factorizations
    return res
