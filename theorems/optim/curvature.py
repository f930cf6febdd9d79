"""Second-order certificates: the smallest Hessian eigenvalue on a tangent space, and escaping a saddle.

A small gradient makes a stationary point, not a minimiser: a saddle (or a point far along a direction where the
objective keeps falling and the gradient has merely saturated) passes a gradient-norm test. The certificate here is
the extreme eigenvalues of the Hessian restricted to a tangent space, estimated by Lanczos on Hessian-vector products
(double backward; the Hessian is never formed), batched over B independent problems.

The tangent space is the complement of ``directions`` (B, P, r): directions along which the objective is flat by
construction (a symmetry orbit, e.g. Θ → QΘ for losses of inner products) or that leave the feasible set (a
constraint's normal space). Without removing them a symmetric problem always shows λ_min ≈ 0 and a constrained one
shows curvature the manifold cannot use.

Lanczos keeps every vector and re-orthogonalises fully (the problems here have tens to hundreds of variables), and the
Ritz values come from T = QᵀHQ built from the stored products, so they are valid Rayleigh–Ritz values even after a
breakdown (a random restart vector continues the basis). With ``iters`` ≥ the tangent dimension the values are the
exact extreme eigenvalues up to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from .newton import arrow_solve

BatchFn = Callable[[torch.Tensor], torch.Tensor]  # (B, P) -> (B,), instances independent


@dataclass
class Curvature:
    lam_min: torch.Tensor  # (B,) smallest Ritz value of the tangent Hessian
    lam_max: torch.Tensor  # (B,) largest Ritz value
    vec_min: torch.Tensor  # (B, P) unit Ritz vector of lam_min, in the tangent space
    iterations: int  # Lanczos steps (Hessian-vector products)
    tangent_dim: int  # P − r

    def relative_min(self) -> torch.Tensor:
        """λ_min / max(|λ_max|, |λ_min|): scale-free, in [−1, 1]."""
        scale = torch.maximum(self.lam_max.abs(), self.lam_min.abs()).clamp_min(torch.finfo(self.lam_min.dtype).tiny)
        return self.lam_min / scale

    def is_minimiser(self, rtol: float) -> torch.Tensor:
        """No negative curvature beyond ``rtol`` of the Hessian's scale (a saddle fails this)."""
        return self.relative_min() >= -rtol


def hvp(fn: BatchFn, x: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    """v ↦ ∇²f(x)·v per row (B, P) -> (B, P), by double backward on one retained graph."""
    with torch.enable_grad():
        xr = x.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(fn(xr).sum(), xr, create_graph=True)

    def apply(v: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            (hv,) = torch.autograd.grad((g * v).sum(), xr, retain_graph=True, allow_unused=True)
        return torch.zeros_like(v) if hv is None else hv.detach()

    return apply


def _orthonormal(directions: torch.Tensor | None, B: int, P: int, like: torch.Tensor) -> torch.Tensor:
    """An orthonormal basis (B, P, r') of span(directions); r' = 0 without directions. Rank-deficient sets (a
    symmetry generator that vanishes at this point) keep only their independent part."""
    if directions is None or directions.shape[-1] == 0:
        return like.new_zeros(B, P, 0)
    U, S, _ = torch.linalg.svd(directions, full_matrices=False)
    keep = S > S.amax(-1, keepdim=True).clamp_min(torch.finfo(like.dtype).tiny) * P * torch.finfo(like.dtype).eps
    r = int(keep.sum(-1).max())
    return U[..., :r] * keep[:, None, :r]


def lanczos_extremes(matvec: Callable[[torch.Tensor], torch.Tensor], B: int, P: int, *,
                     directions: torch.Tensor | None = None, iters: int | None = None, like: torch.Tensor,
                     generator: torch.Generator | None = None) -> Curvature:
    """Extreme eigenvalues of the symmetric operator ``matvec`` ((B, P) -> (B, P)) on the complement of
    ``directions`` (B, P, r). ``like`` gives dtype and device; start vectors come from ``generator`` (CPU).

    The basis is stored row-wise, (B, k, P): step j's vector is a contiguous row (what ``matvec`` reads), and the
    re-orthogonalisation against the first j vectors is two batched matrix products on a contiguous leading block
    (a column slice of a (B, P, k) basis is strided, and its products and elementwise kernels were several times
    slower: most of the certificate's time on the large UFM)."""
    N = _orthonormal(directions, B, P, like)
    tangent_dim = P - N.shape[-1]
    k = max(1, min(iters or tangent_dim, tangent_dim))
    Nt = N.transpose(-1, -2).contiguous()  # (B, r', P)

    def project(v: torch.Tensor) -> torch.Tensor:
        return v - (N @ (Nt @ v[..., None]))[..., 0] if N.shape[-1] else v

    tiny = torch.finfo(like.dtype).tiny
    Qb = like.new_zeros(B, k, P)  # the Lanczos basis, row j filled at step j
    HQ = like.new_zeros(B, k, P)

    def orth(v: torch.Tensor, j: int) -> torch.Tensor:
        """v minus its components on the first j basis vectors, twice (Kahan's "twice is enough"), and on the
        left-out directions again: near an invariant subspace v is rounding noise, whose normal part would otherwise
        enter the basis as an O(1) component and bring a spurious Ritz value (the flat normal's 0)."""
        if not j:
            return project(v)
        Qj = Qb[:, :j]  # (B, j, P), contiguous rows
        v = v[:, None, :]  # (B, 1, P)
        for _ in range(2):
            v = torch.baddbmm(v, torch.bmm(v, Qj.transpose(-1, -2)), Qj, alpha=-1.0)
        return project(v[:, 0])

    def fresh(j: int) -> torch.Tensor:
        v = project(torch.randn(B, P, generator=generator, dtype=like.dtype, device="cpu").to(like.device))
        v = orth(v, j)
        return v / v.norm(dim=-1, keepdim=True).clamp_min(tiny)

    Qb[:, 0] = fresh(0)
    for j in range(k):
        w = project(matvec(Qb[:, j]))
        HQ[:, j] = w
        if j == k - 1:
            break
        r = orth(w, j + 1)
        beta = r.norm(dim=-1, keepdim=True)
        scale = w.norm(dim=-1, keepdim=True).clamp_min(tiny)
        broke = beta <= 1e3 * torch.finfo(like.dtype).eps * scale  # invariant subspace: restart at random
        nxt = r / beta.clamp_min(tiny)
        Qb[:, j + 1] = torch.where(broke, fresh(j + 1), nxt) if bool(broke.any()) else nxt
    T = HQ @ Qb.transpose(-1, -2)  # (B, k, k): T[a, b] = (H q_a)·q_b
    evals, evecs = torch.linalg.eigh(0.5 * (T + T.transpose(-1, -2)))
    vec = (evecs[..., :1].transpose(-1, -2) @ Qb)[:, 0]
    vec = vec / vec.norm(dim=-1, keepdim=True).clamp_min(tiny)
    return Curvature(lam_min=evals[..., 0], lam_max=evals[..., -1], vec_min=vec, iterations=k,
                     tangent_dim=tangent_dim)


def tangent_curvature(fn: BatchFn, x: torch.Tensor, *, directions: torch.Tensor | None = None,
                      iters: int | None = None, generator: torch.Generator | None = None) -> Curvature:
    """Smallest and largest eigenvalue of ∇²f(x) on the complement of ``directions``, per row of x (B, P)."""
    B, P = x.shape
    return lanczos_extremes(hvp(fn, x), B, P, directions=directions, iters=iters, like=x, generator=generator)


def arrow_curvature(model, *, iters: int | None = None, generator: torch.Generator | None = None) -> Curvature:
    """Extreme eigenvalues of the (Riemannian) Hessian of an ``optim.newton.ArrowModel``, by Lanczos on its block
    products: tangent coordinates already, so no directions to remove. ``iters`` below m + N·q gives Ritz values,
    which bracket the spectrum from inside (λ_min is then an upper estimate: a saddle can be missed, never invented)."""
    return lanczos_extremes(model.matvec, model.gw.shape[0], model.dim, iters=iters, like=model.gw, generator=generator)


def arrow_shift_certificate(model, rtol: float, *, scale_iters: int = 6, generator: torch.Generator | None = None,
                            solve=arrow_solve) -> tuple[torch.Tensor, torch.Tensor]:
    """(ok (B,) bool, σ (B,)): ok where the block Cholesky of H + σI succeeds, σ = rtol·ŝ, ŝ ≤ max|λ(H)|.

    Success proves λ_min(H) > −σ (H + σI is positive definite iff every pivot block of its block Cholesky is:
    Haynsworth inertia additivity over the x blocks and their Schur complement, which ``newton.arrow_solve``
    factors), hence λ_min(H)/max|λ(H)| > −rtol. ŝ = max(|θ_min|, |θ_max|) from ``scale_iters`` Lanczos steps: Ritz
    values lie inside the spectrum, so ŝ ≤ max|λ(H)| and fewer steps only make the test stricter. Cholesky is
    backward stable: success holds up to a perturbation of ~(m + N·q)·eps·‖H‖, so rtol must be far above that
    (1e-8 against ~1e-12 at the UFM's sizes). ok False is "not certified", never a proof of a saddle. The
    factorisation costs about one Newton iteration, the Lanczos steps one Hessian product each.

    ``scale_iters=0``: ŝ = max_j ‖H e_j‖ instead (``arrow_column_norm``: ‖H e_j‖ ≤ ‖H‖₂ = max|λ(H)|), from the
    blocks without a Hessian product, for small problems where the Lanczos steps (each a few dozen kernels) cost more
    than the factorisation. ``solve``: ``newton.arrow_solve`` or another with its meaning (``optim.fused.arrow_solve``,
    the same block Cholesky as a compiled loop; its ``ok`` is the same pivot test)."""
    tiny = torch.finfo(model.gw.dtype).tiny
    if scale_iters == 0:
        scale = arrow_column_norm(model)
    else:
        ritz = arrow_curvature(model, iters=scale_iters, generator=generator)
        scale = torch.maximum(ritz.lam_max.abs(), ritz.lam_min.abs())
    sigma = rtol * scale.clamp_min(tiny)
    _, _, ok = solve(model, sigma)
    return ok, sigma


def arrow_column_norm(model) -> torch.Tensor:
    """(B,) max_j ‖H e_j‖, the largest column norm of an arrow Hessian, from its blocks (H is never formed).

    Column j of block x_i: ‖D_i e_j‖² + ‖row j of C_iᵀ‖², where C_iᵀ[j, (k, c)] = P_jk a_c + Q_jc b_k gives
    ‖P_j‖²‖a‖² + 2(P_j·b)(Q_j·a) + ‖Q_j‖²‖b‖². Column (k, c) of w: ‖A e_(k,c)‖² + Σ_i [a_c² Σ_j P_jk² +
    2 a_c b_k (PᵀQ)_kc + b_k² Σ_j Q_jc²]."""
    P, a, Q, b = model.P, model.a, model.Q, model.b  # (B, N, q, K), (B, N, p), (B, N, q, p), (B, N, K)
    B, m = model.gw.shape
    aa, bb = a.pow(2), b.pow(2)
    row = (P.pow(2).sum(-1) * aa.sum(-1, keepdim=True) + 2 * (P * b[:, :, None, :]).sum(-1) * (Q * a[:, :, None, :]).sum(-1)
           + Q.pow(2).sum(-1) * bb.sum(-1, keepdim=True))  # (B, N, q)
    x_cols = model.D.pow(2).sum(-2) + row
    col = (P.pow(2).sum(-2)[..., :, None] * aa[..., None, :] + 2 * (P.transpose(-1, -2) @ Q) * b[..., :, None] * a[..., None, :]
           + bb[..., :, None] * Q.pow(2).sum(-2)[..., None, :]).sum(1)  # (B, K, p)
    w_cols = model.A.pow(2).sum(-2) + col.reshape(B, m)
    return torch.maximum(w_cols.amax(-1), x_cols.amax((-2, -1))).sqrt()


def arrow_certificate(model, rtol: float, *, scale_iters: int = 6,
                      generator: torch.Generator | None = None) -> torch.Tensor:
    """(B,) bool: True where the arrow model's Hessian H has no eigenvalue below −rtol·max|λ(H)|, decided exactly
    by inertia instead of by Ritz values (``arrow_shift_certificate``). A saddle of any depth beyond rtol fails it,
    where capped Lanczos (``arrow_curvature``) can miss one whose negative eigenvalue sits next to a dense cluster.
    False is "not certified", never a proof of a saddle."""
    return arrow_shift_certificate(model, rtol, scale_iters=scale_iters, generator=generator)[0]


def rotation_orbit(theta: torch.Tensor, z: int, d: int) -> torch.Tensor:
    """Tangent directions (B, z·d, z(z−1)/2) of the orbit Θ ↦ QΘ (Q ∈ O(z)) at flattened Θ's (B, z·d): AΘ for the
    skew generators A = E_kl − E_lk. Losses of inner products u(x)ᵀu(x') with u = Θx are constant along them."""
    T = theta.reshape(-1, z, d)
    gens = []
    for k in range(z):
        for l in range(k + 1, z):
            A = torch.zeros(z, z, dtype=theta.dtype, device=theta.device)
            A[k, l], A[l, k] = 1.0, -1.0
            gens.append((A @ T).reshape(-1, z * d))
    return torch.stack(gens, -1) if gens else theta.new_zeros(theta.shape[0], z * d, 0)


@dataclass
class SecondOrder:
    x: torch.Tensor  # (B, P) final points
    curvature: Curvature  # at x
    first_order: torch.Tensor  # (B,) bool: the solver's own (gradient) certificate
    minimiser: torch.Tensor  # (B,) bool: first order and no negative tangent curvature beyond rtol
    escapes: torch.Tensor  # (B,) saddle escapes taken
    solve_result: object  # the last solve's result


def escape_step(fn: BatchFn, x: torch.Tensor, vec: torch.Tensor, lam: torch.Tensor, *, t0: float = 1.0,
                halvings: int = 40) -> torch.Tensor:
    """Move each row along ±vec (unit, λ = its curvature < 0) by the largest t ≤ t0·max(1, ‖x‖) (halving) that lowers
    f by at least a quarter of the quadratic model's |λ|t²/2; rows where no such step exists stay put."""
    f0 = fn(x)
    t = t0 * x.norm(dim=-1).clamp_min(1.0)
    out = x.clone()
    pending = lam < 0
    for _ in range(halvings):
        if not bool(pending.any()):
            break
        for sign in (1.0, -1.0):
            xt = x + sign * t[:, None] * vec
            ok = pending & (fn(xt) < f0 - 0.125 * lam.abs() * t**2)
            out = torch.where(ok[:, None], xt, out)
            pending = pending & ~ok
        t = t * 0.5
    return out


def second_order_solve(fn: BatchFn, x0: torch.Tensor, solve: Callable[[torch.Tensor], object], *,
                       directions: Callable[[torch.Tensor], torch.Tensor] | None = None, rtol: float,
                       max_escapes: int = 3, iters: int | None = None,
                       generator: torch.Generator | None = None) -> SecondOrder:
    """``solve`` (returning an object with ``.x`` (B, P) and ``.converged`` (B,)), then check the tangent curvature
    at each point; where it is negative beyond ``rtol``, step down the negative direction and solve again (at most
    ``max_escapes`` times). ``directions(x)`` gives the flat or infeasible directions (B, P, r) to leave out."""
    res = solve(x0)
    escapes = torch.zeros(x0.shape[0], dtype=torch.long, device=x0.device)
    for attempt in range(max_escapes + 1):
        x = res.x
        curv = tangent_curvature(fn, x, directions=directions(x) if directions else None, iters=iters,
                                 generator=generator)
        saddle = ~curv.is_minimiser(rtol)
        if attempt == max_escapes or not bool(saddle.any()):
            break
        x1 = torch.where(saddle[:, None], escape_step(fn, x, curv.vec_min, curv.lam_min), x)
        moved = (x1 != x).any(-1)
        if not bool(moved.any()):
            break
        escapes += moved.long()
        res = solve(x1)  # rows that did not move restart where they stopped
    first = res.converged.to(x0.device)
    return SecondOrder(x=res.x, curvature=curv, first_order=first, minimiser=first & curv.is_minimiser(rtol),
                       escapes=escapes, solve_result=res)
