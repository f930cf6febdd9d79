"""Compiled per-instance loops (numba) for the batched arrow Newton solver on small CPU problems.

At the UFM's default size (paper 004, Lemma 4.2: K=4 n=3 d=6, 68 tangent unknowns per start) the torch path of
``optim.newton`` is bound by kernel launches, not flops: an iteration is ~150 batched kernels whose inner dimensions
are 4–6 (poorly vectorised, ~30% of the time per-call overhead). Here the same two steps run as one compiled loop
over the batch, each instance's numbers staying in registers and L1:

* ``ufm_model``: value, Riemannian gradient and the arrow blocks of the UFM (Definition 3.5) in 1^⊥ coordinates,
  the closed form of ``neural_collapse.ufm.ufm_newton_model``, entry by entry;
* ``arrow_solve``: ``newton.arrow_solve``'s block elimination — Cholesky of each D_i + μI, F_i = L_i⁻¹C_iᵀ,
  S = A + μI − Σ F_iᵀF_i, its Cholesky, and the back-substitution — per instance.

Both read and write the same ``ArrowModel`` (torch tensors sharing memory with numpy arrays, no copies), so the
Newton loop, its globalisation, statuses and the certificates are the torch code's, unchanged; the torch functions
stay and are the cross-check (tests/test_ufm_fused.py compares the blocks, steps and solutions). Same arithmetic
order is not promised: results agree to rounding, not bitwise.

``AVAILABLE`` is False where numba cannot be imported (the callers then keep the torch path). ``cache=True``: the
machine code is compiled once per checkout (per dtype) and cached in ``__pycache__``; a fresh process loads it.
fastmath is limited to contraction (FMA), ``nsz`` and ``arcp``: no ``nnan``/``ninf``, so a NaN pivot still fails ``> 0``
and marks the instance not positive definite, and no ``reassoc``: with reassociation LLVM vectorises reductions with an
alignment-dependent peel, so the same call gave different roundings (15 or 16 Newton iterations on Lemma 4.2's CE
K=4 d=3 control, depending on where the allocator put the arrays) and the same seed not the same numbers.
"""

from __future__ import annotations

import math

import numpy as np
import torch

try:
    import numba
except ImportError:  # pragma: no cover - numba is a declared dependency; the torch path is the fallback
    numba = None

AVAILABLE = numba is not None
_FM = {"contract", "nsz", "arcp"}


def _njit(fn):
    return numba.njit(cache=True, fastmath=_FM, nogil=True)(fn) if AVAILABLE else fn


@_njit
def _ufm_model_kernel(Wp, U, labels, ce, lam, f, gw, gx, A, D, P, Q, G):  # pragma: no cover - compiled
    B, K, p = Wp.shape
    N = U.shape[1]
    q = p - 1
    d = p + 1
    m = K * p
    Z = np.empty(K, dtype=Wp.dtype)
    pr = np.empty(K, dtype=Wp.dtype)
    gamb = np.empty(p, dtype=Wp.dtype)
    v = np.empty(p, dtype=Wp.dtype)
    t = np.empty(q, dtype=Wp.dtype)
    vW = np.empty(K, dtype=Wp.dtype)
    WT = np.empty((K, q), dtype=Wp.dtype)
    AWT = np.empty((K, q), dtype=Wp.dtype)
    col = np.empty(q, dtype=Wp.dtype)
    M = np.empty((K, p, p), dtype=Wp.dtype)  # Σ_i p_ik u_i u_iᵀ (CE; MSE: Σ_i u_i u_iᵀ in M[0]), lower triangles
    Vt = np.empty((m, N), dtype=Wp.dtype)  # CE: column i is p_i ⊗ u_i
    inv_n = 1.0 / N
    for b in range(B):
        W = Wp[b]
        Ab = A[b]
        reg = 0.0
        for k in range(K):
            for c in range(p):
                reg += W[k, c] * W[k, c]
        fb = 0.5 * lam * reg
        for k in range(K):
            for c in range(p):
                for c2 in range(c + 1):
                    M[k, c, c2] = 0.0
        for k in range(K):
            for c in range(p):
                gw[b, k * p + c] = lam * W[k, c]
        for i in range(N):
            u = U[b, i]
            y = labels[i]
            for k in range(K):
                z = 0.0
                for c in range(p):
                    z += u[c] * W[k, c]
                Z[k] = z
            if ce:
                zmax = Z[0]
                for k in range(1, K):
                    zmax = max(zmax, Z[k])
                se = 0.0
                for k in range(K):
                    pr[k] = math.exp(Z[k] - zmax)
                    se += pr[k]
                lse = zmax + math.log(se)
                fb += (lse - Z[y]) * inv_n
                for k in range(K):
                    pr[k] = pr[k] / se
                    G[b, i, k] = (pr[k] - (1.0 if k == y else 0.0)) * inv_n
            else:
                for k in range(K):
                    r_ = Z[k] - (1.0 if k == y else 0.0)
                    fb += 0.5 * r_ * r_ * inv_n
                    G[b, i, k] = r_ * inv_n
            g = G[b, i]
            # gradient in W: Σ_i g_i u_iᵀ; ambient gradient in u_i: Wpᵀ g_i; the sphere's curvature term c_i
            cc = 0.0
            for c in range(p):
                s_ = 0.0
                for k in range(K):
                    gw[b, k * p + c] += g[k] * u[c]
                    s_ += g[k] * W[k, c]
                gamb[c] = s_
                cc += u[c] * s_
            cc /= d
            # Householder basis T = E − v tᵀ of u^⊥ (ufm._householder)
            nrm = 0.0
            for c in range(p):
                nrm += u[c] * u[c]
            nrm = math.sqrt(nrm)
            u0 = u[0] / nrm
            v[0] = u0 + (1.0 if u0 >= 0 else -1.0)
            for c in range(1, p):
                v[c] = u[c] / nrm
            den = 1.0 + abs(u0)
            for j in range(q):
                t[j] = v[j + 1] / den
            gv = 0.0
            for c in range(p):
                gv += gamb[c] * v[c]
            for j in range(q):
                gx[b, i, j] = gamb[j + 1] - t[j] * gv
                for c in range(p):
                    Q[b, i, j, c] = (1.0 if c == j + 1 else 0.0) - v[c] * t[j]
            # Wp T_i and A_i Wp T_i (A_i = ∇²ℓ(z_i)/N)
            for k in range(K):
                s_ = 0.0
                for c in range(p):
                    s_ += v[c] * W[k, c]
                vW[k] = s_
                for j in range(q):
                    WT[k, j] = W[k, j + 1] - s_ * t[j]
            if ce:
                for j in range(q):
                    s_ = 0.0
                    for k in range(K):
                        s_ += pr[k] * WT[k, j]
                    col[j] = s_
                for k in range(K):
                    for j in range(q):
                        AWT[k, j] = pr[k] * (WT[k, j] - col[j]) * inv_n
                # H_WW = Σ_i (diag p_i − p_i p_iᵀ)/N ⊗ u_i u_iᵀ: the block diagonal Σ_i p_ik u_i u_iᵀ (lower
                # triangles) and the columns p_i ⊗ u_i of the rank-N part, assembled after the loop over i
                for k in range(K):
                    pk = pr[k]
                    for c in range(p):
                        puc = pk * u[c]
                        Vt[k * p + c, i] = puc
                        for c2 in range(c + 1):
                            M[k, c, c2] += puc * u[c2]
            else:
                for k in range(K):
                    for j in range(q):
                        AWT[k, j] = WT[k, j] * inv_n
                for c in range(p):  # H_WW = I_K ⊗ Σ_i u_i u_iᵀ/N: one block, copied to the K diagonal blocks below
                    for c2 in range(c + 1):
                        M[0, c, c2] += u[c] * u[c2]
            for j in range(q):
                for k in range(K):
                    P[b, i, j, k] = AWT[k, j]
                for j2 in range(q):
                    s_ = 0.0
                    for k in range(K):
                        s_ += WT[k, j] * AWT[k, j2]
                    D[b, i, j, j2] = s_
                D[b, i, j, j] -= cc
        # assemble H_WW (symmetric: the lower triangle, mirrored)
        for r in range(m):
            k, c = r // p, r % p
            for s2 in range(r + 1):
                k2, c2 = s2 // p, s2 % p
                acc = 0.0
                if ce:
                    for i in range(N):
                        acc -= Vt[r, i] * Vt[s2, i]
                    if k2 == k:
                        acc += M[k, c, c2]
                elif k2 == k:
                    acc = M[0, c, c2]
                acc *= inv_n
                if s2 == r:
                    acc += lam
                Ab[r, s2] = acc
                Ab[s2, r] = acc
        f[b] = fb
    return 0


def ufm_model(Wp: torch.Tensor, U: torch.Tensor, labels: torch.Tensor, loss: str, lam: float):
    """``ufm.ufm_newton_model``'s ArrowModel, computed by the compiled loop (CPU tensors, float32 or float64)."""
    from .newton import ArrowModel

    B, K, p = Wp.shape
    N, q = U.shape[-2], p - 1
    kw = {"dtype": Wp.dtype, "device": Wp.device}  # the device given (CPU), never a default device
    out = dict(f=torch.empty(B, **kw), gw=torch.empty(B, K * p, **kw), gx=torch.empty(B, N, q, **kw),
               A=torch.empty(B, K * p, K * p, **kw), D=torch.empty(B, N, q, q, **kw),
               P=torch.empty(B, N, q, K, **kw), Q=torch.empty(B, N, q, p, **kw), b=torch.empty(B, N, K, **kw))
    Wn, Un = Wp.detach().contiguous(), U.detach().contiguous()
    _ufm_model_kernel(Wn.numpy(), Un.numpy(), labels.numpy(), loss == "ce", float(lam),
                      *(out[k].numpy() for k in ("f", "gw", "gx", "A", "D", "P", "Q", "b")))
    return ArrowModel(a=Un, basis=out["Q"].transpose(-1, -2), **out)


@_njit
def _cholesky_in_place(M, inv):  # pragma: no cover - compiled
    """Lower Cholesky factor of the symmetric M (its lower triangle is read) in place, column by column; inv[j] =
    1/L_jj (one division per column: the chained divisions of the row-by-row form dominated the 20×20 factor).
    False where a pivot is not > 0 (a NaN pivot included): M + μI not positive definite."""
    n = M.shape[0]
    for j in range(n):
        acc = M[j, j]
        for k in range(j):
            acc -= M[j, k] * M[j, k]
        if not acc > 0.0:
            return False
        ljj = math.sqrt(acc)
        M[j, j] = ljj
        inv[j] = 1.0 / ljj
        for r in range(j + 1, n):
            acc = M[r, j]
            for k in range(j):
                acc -= M[r, k] * M[j, k]
            M[r, j] = acc * inv[j]
    return True


@_njit
def _arrow_solve_kernel(A, D, P, a, Q, bb, gw, gx, mu, sw, sx, ok):  # pragma: no cover - compiled
    B, N, q, K = P.shape
    p = a.shape[2]
    m = K * p
    nq = N * q
    L = np.empty((N, q, q), dtype=A.dtype)
    inv_l = np.empty((N, q), dtype=A.dtype)
    Ft = np.empty((m, nq), dtype=A.dtype)  # F transposed: row (k, c) holds column (k, c) of F, contiguous
    h = np.empty(nq, dtype=A.dtype)
    alpha = np.empty((q, K), dtype=A.dtype)
    beta = np.empty((q, p), dtype=A.dtype)
    S = np.empty((m, m), dtype=A.dtype)
    inv_s = np.empty(m, dtype=A.dtype)
    y = np.empty(m, dtype=A.dtype)
    for b in range(B):
        good = True
        mub = mu[b]
        for i in range(N):
            # Cholesky of D_i + μI
            Li = L[i]
            inv = inv_l[i]
            for r in range(q):
                for s in range(r + 1):
                    Li[r, s] = D[b, i, r, s]
                Li[r, r] += mub
            if not _cholesky_in_place(Li, inv):
                good = False
                break
            # forward substitution: α = L⁻¹P_i, β = L⁻¹Q_i, h = L⁻¹g_{x_i}
            for r in range(q):
                for k in range(K):
                    acc = P[b, i, r, k]
                    for s in range(r):
                        acc -= Li[r, s] * alpha[s, k]
                    alpha[r, k] = acc * inv[r]
                for c in range(p):
                    acc = Q[b, i, r, c]
                    for s in range(r):
                        acc -= Li[r, s] * beta[s, c]
                    beta[r, c] = acc * inv[r]
                acc = gx[b, i, r]
                for s in range(r):
                    acc -= Li[r, s] * h[i * q + s]
                h[i * q + r] = acc * inv[r]
            # F_i[j, (k, c)] = α_jk a_c + b_k β_jc
            for k in range(K):
                bk = bb[b, i, k]
                for c in range(p):
                    ac = a[b, i, c]
                    row = Ft[k * p + c]
                    for j in range(q):
                        row[i * q + j] = alpha[j, k] * ac + bk * beta[j, c]
        if not good:
            ok[b] = False
            continue
        # S = A + μI − FᵀF (lower triangle) and rhs = −g_w + Fᵀh
        for r in range(m):
            fr = Ft[r]
            for s in range(r + 1):
                fs = Ft[s]
                acc = 0.0
                for j in range(nq):
                    acc += fr[j] * fs[j]
                S[r, s] = A[b, r, s] - acc
            S[r, r] += mub
            acc = 0.0
            for j in range(nq):
                acc += fr[j] * h[j]
            y[r] = acc - gw[b, r]
        if not _cholesky_in_place(S, inv_s):
            ok[b] = False
            continue
        for r in range(m):
            acc = y[r]
            for k in range(r):
                acc -= S[r, k] * y[k]
            y[r] = acc * inv_s[r]
        for r in range(m - 1, -1, -1):
            acc = y[r]
            for k in range(r + 1, m):
                acc -= S[k, r] * y[k]
            y[r] = acc * inv_s[r]
        for r in range(m):
            sw[b, r] = y[r]
        # s_{x_i} = −L_i⁻ᵀ(h_i + F_i s_w)
        for j in range(nq):
            acc = h[j]
            for r in range(m):
                acc += Ft[r, j] * y[r]
            h[j] = acc
        for i in range(N):
            Li = L[i]
            inv = inv_l[i]
            for r in range(q - 1, -1, -1):  # z = L_i⁻ᵀ(...) by back-substitution, stored as s = −z
                acc = h[i * q + r]
                for k in range(r + 1, q):
                    acc += Li[k, r] * sx[b, i, k]
                sx[b, i, r] = -acc * inv[r]
        ok[b] = True
    return 0


def arrow_solve(model, mu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``newton.arrow_solve`` by the compiled loop: (s_w, s_x, ok) for (H + μI) s = −g per instance (CPU)."""
    B, m = model.gw.shape
    N, q = model.gx.shape[-2:]
    dt, dev = model.gw.dtype, model.gw.device
    sw, sx = torch.zeros(B, m, dtype=dt, device=dev), torch.zeros(B, N, q, dtype=dt, device=dev)
    ok = torch.zeros(B, dtype=torch.bool, device=dev)

    def np_(x: torch.Tensor) -> np.ndarray:
        return x.contiguous().numpy()

    _arrow_solve_kernel(np_(model.A), np_(model.D), np_(model.P), np_(model.a), np_(model.Q), np_(model.b),
                        np_(model.gw), np_(model.gx), np_(mu.to(dt)), sw.numpy(), sx.numpy(), ok.numpy())
    return sw, sx, ok
