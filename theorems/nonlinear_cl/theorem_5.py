"""Theorem 5 of paper 001 (Tian): the dynamics of w_k in a 2-layer ReLU network (C = 2, M = 1), with the global
modulation term δ_kΔ_kΔ_kᵀ.

Statement as printed
--------------------
Under Assumption 2 (uniform α, N → ∞, no augmentation; rank-1 top layer S = ssᵀ, s the top eigenvector of
𝕍[f₁]; x_k conditionally independent given a binary latent z with P[z = c] = p_c):
ẇ_k = P⊥_{w_k}(s_k²A_k(w_k) + δ_kΔ_kΔ_kᵀ)w_k, A_k = 𝕍[x̃_k] = L_k + p₀p₁Δ_kΔ_kᵀ, with
δ_k = p₀p₁/(Z²(λ − d_k))·Σ_{k'≠k} b_{k'}²/(λ − d_{k'}) ≥ 0, λ = λ_max(𝕍[f₁]) ≥ max d_k, and (end of the proof)
"we can also write δ_k = 1 − p₀p₁b_k²/(λ − d_k)".

Correction (digest 001 §2 Theorem 5, §3 item 3)
-----------------------------------------------
The alternative formula drops a factor: δ_k = [1 − p₀p₁b_k²/(λ − d_k)]/(Z²(λ − d_k)) (from the secular equation
p₀p₁Σ_k b_k²/(λ − d_k) = 1). The main statement is right.

What one check does: a random instance (K receptive fields, ``atoms`` atoms per (RF, z) with Dirichlet
probabilities, random unit filters) is enumerated *jointly* (all atom combinations), which gives 𝕍[x̃] and
𝕍[f₁] without using Assumption 2(iii); s is the top eigenvector of 𝕍[f₁]. Claims: ``lemma_5_decomposition``
(𝕍[x̃] = diag_k L_k + p₀p₁ΔΔᵀ), ``theorem_5_equals_lemma_4`` (the projected Lemma-4 gradient with S = ssᵀ equals the
Theorem-5 expression), ``bns_eigenvector`` (|⟨s, s_BNS⟩| = 1), ``delta_nonnegative`` (δ_k ≥ 0), and
``alternative_delta`` (the printed alternative, or the corrected one, equals δ_k). Negative controls:
``dependent=True`` (RFs share their atom index given z: Assumption 2(iii) fails) and ``delta_scale`` ≠ 1.
"""

from __future__ import annotations

import itertools

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from ..data.latents import dirichlet
from ..optim.sphere_flow import normalize

ID = "nonlinear_cl.theorem_5"
# Exact enumeration of O(1) quantities: identities hold to a few ulps times the number of terms.
ATOL = 1e-12
# The erratum differs by O(1) (digest: 0.0036 vs 0.0149); a relative 1e-8 separates them by far.
DELTA_RTOL = 1e-8


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if not 2 <= p["K"] <= 4:
        out.append(Violation("2 ≤ K ≤ 4 receptive fields", "global modulation needs ≥ 2 RFs; joint enumeration "
                             "caps K", ("K",), bypassable=False))
    if not 2 <= p["atoms"] <= 4:
        out.append(Violation("2 ≤ atoms ≤ 4", "atoms per (RF, z), enumerated jointly", ("atoms",), bypassable=False))
    if not p["d"] >= 2:
        out.append(Violation("d ≥ 2", "RF dimension", ("d",), bypassable=False))
    if not 0 < p["p1"] < 1:
        out.append(Violation("0 < p₁ < 1 (probabilities in the simplex)", "P[z = 1] must be a probability strictly "
                             "between 0 and 1", ("p1",), bypassable=False))
    if p["dependent"]:
        out.append(Violation("Assumption 2(iii): x_k conditionally independent given z", "dependent=True couples the "
                             "RFs' atoms (negative control)", ("dependent",)))
    if p["delta_scale"] != 1.0:
        out.append(Violation("exact δ_k", "delta_scale ≠ 1 deliberately falsifies δ_k (negative control)",
                             ("delta_scale",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    K, n, d = p["K"], p["atoms"], p["d"]
    p1 = p["p1"]
    pz = [1 - p1, p1]
    atoms = ctx.randn(K, 2, n, d) + 0.5  # shifted so that ReLU gates are neither all on nor all off
    probs = torch.stack([torch.stack([dirichlet(ctx, n, 0.1) for _ in range(2)]) for _ in range(K)])  # (K, 2, n)
    W = normalize(ctx.randn(K, d))
    # Joint enumeration: (z, i_1..i_K) → x = [x_1; ..; x_K]
    rows, pr = [], []
    combos = [(i,) * K for i in range(n)] if p["dependent"] else list(itertools.product(range(n), repeat=K))
    for z in (0, 1):
        for idx in combos:
            rows.append(torch.cat([atoms[k, z, idx[k]] for k in range(K)]))
            q = pz[z]
            for k in range(K):
                q = q * probs[k, z, idx[k]]
            pr.append(q)
    X = torch.stack(rows)  # (J, K d)
    P = torch.stack([torch.as_tensor(v, dtype=ctx.dtype, device=ctx.device) for v in pr])
    P = P / P.sum()  # dependent: renormalise the coupled index distribution
    Xk = X.reshape(-1, K, d)
    pre = torch.einsum("jkd,kd->jk", Xk, W)
    gate = (pre > 0).to(ctx.dtype)
    Xt = (gate[..., None] * Xk).reshape(-1, K * d)  # gated input x̃
    f1 = gate * pre  # ReLU(w_kᵀx_k)
    mean_t = P @ Xt
    V = (Xt * P[:, None]).T @ Xt - torch.outer(mean_t, mean_t)
    mf = P @ f1
    Vf = (f1 * P[:, None]).T @ f1 - torch.outer(mf, mf)
    # Per-z conditional moments, from the same joint enumeration
    zmask = torch.cat([torch.zeros(len(combos)), torch.ones(len(combos))]).to(ctx.device).bool()
    cond = []
    for z in (False, True):
        m = zmask == z
        Pz = P[m] / P[m].sum()
        mz = Pz @ Xt[m]
        Sz = (Xt[m] * Pz[:, None]).T @ Xt[m] - torch.outer(mz, mz)
        cond.append((float(P[m].sum()), mz, Sz))
    (q0, m0, S0), (q1, m1, S1) = cond
    Delta = m1 - m0
    L = q0 * S0 + q1 * S1
    blockdiag = torch.zeros_like(L)
    for k in range(K):
        sl = slice(k * d, (k + 1) * d)
        blockdiag[sl, sl] = L[sl, sl]
    lemma5 = float((V - blockdiag - q0 * q1 * torch.outer(Delta, Delta)).abs().max())
    Dk = Delta.reshape(K, d)
    Lk = torch.stack([L[k * d:(k + 1) * d, k * d:(k + 1) * d] for k in range(K)])
    dk = torch.einsum("ki,kij,kj->k", W, Lk, W)
    bk = (W * Dk).sum(1)
    evals, evecs = torch.linalg.eigh(Vf)
    lam, s = evals[-1], evecs[:, -1]
    Z = torch.sqrt(((bk / (dk - lam)) ** 2).sum())
    s_bns = bk / (Z * (dk - lam))
    inv = 1 / (lam - dk)
    delta = p["delta_scale"] * q0 * q1 * inv / Z**2 * ((bk**2 * inv).sum() - bk**2 * inv)
    # Lemma 4 with S = ssᵀ (projected): ẇ_k = P⊥ Σ_k' s_k s_k' Cov[x̃_k, x̃_k'] w_k'
    Vb = V.reshape(K, d, K, d)
    g4 = torch.einsum("k,l,kilj,lj->ki", s, s, Vb, W)
    Ak = torch.stack([V[k * d:(k + 1) * d, k * d:(k + 1) * d] for k in range(K)])
    g5 = torch.einsum("k,kij,kj->ki", s**2, Ak, W) + delta[:, None] * Dk * bk[:, None]

    def proj(g):
        return g - (g * W).sum(1, keepdim=True) * W

    thm5 = float((proj(g4) - proj(g5)).abs().max())
    alt_printed = 1 - q0 * q1 * bk**2 * inv
    alt = alt_printed if form == AS_PRINTED else alt_printed * inv / Z**2
    # relative to the largest δ: a δ_k can be exactly 0 (b_{k'} = 0 for every k' ≠ k)
    alt_err = float((alt - delta).abs().max() / delta.abs().max().clamp_min(ATOL))
    claims = [
        Claim.at_most("lemma_5_decomposition", lemma5, ATOL, "max |𝕍[x̃] − diag_k L_k − p₀p₁ΔΔᵀ| (joint enumeration)"),
        Claim.at_most("theorem_5_equals_lemma_4", thm5, ATOL * max(1.0, float(g4.abs().max())),
                      "max |P⊥(Lemma-4 gradient, S = ssᵀ) − P⊥(s_k²A_k + δ_kΔ_kΔ_kᵀ)w_k|"),
        Claim.at_least("bns_eigenvector", float((s * s_bns).sum().abs()), 1 - 1e-10, "|⟨s, s_BNS⟩|"),
        Claim.at_least("delta_nonnegative", float(delta.min()), 0.0, f"min_k δ_k (λ − max d_k = {float(lam - dk.max()):.4g})"),
        Claim.at_most("alternative_delta" + ("_as_printed" if form == AS_PRINTED else ""), alt_err, DELTA_RTOL,
                      "max_k |δ_k^alt − δ_k|/max_k δ_k, δ^alt = 1 − p₀p₁b_k²/(λ − d_k)"
                      + ("" if form == AS_PRINTED else " divided by Z²(λ − d_k)")),
    ]
    details = {"delta": delta.tolist(), "delta_alt_printed": alt_printed.tolist(),
               "delta_alt_corrected": (alt_printed * inv / Z**2).tolist(), "d_k": dk.tolist(), "b_k": bk.tolist(),
               "lambda": float(lam), "s": s.tolist(), "lemma5_err": lemma5, "thm5_err": thm5,
               "secular_equation": float(q0 * q1 * (bk**2 * inv).sum())}
    return Outcome(thm5, ATOL, None, claims, details)


def report_instances(suite):
    yield CORRECTED, {}, False
    yield AS_PRINTED, {}, False  # the printed alternative δ_k: counterexample
    for i in range(suite.report_examples):
        yield CORRECTED, dict(K=2 + i % 3, d=2 + i % 3, p1=round(0.2 + 0.15 * i, 2), seed=i), False
    yield CORRECTED, dict(dependent=True), True
    yield CORRECTED, dict(delta_scale=-1.0), True


RESULT = register(Result(
    id=ID,
    paper="001",
    paper_title="Tian: Understanding the Role of Nonlinearity in Training Dynamics of Contrastive Learning",
    title="Theorem 5: ẇ_k = P⊥(s_k²A_k + δ_kΔ_kΔ_kᵀ)w_k with δ_k ≥ 0 (global modulation); erratum in the alternative δ_k",
    statement="Under Assumption 2 with C = 2, M = 1: ẇ_k = P⊥_{w_k}(s_k²A_k(w_k) + δ_kΔ_kΔ_kᵀ)w_k, δ_k = p₀p₁/(Z²(λ − d_k))"
              "·Σ_{k'≠k} b_{k'}²/(λ − d_{k'}) ≥ 0; 'we can also write δ_k = 1 − p₀p₁b_k²/(λ − d_k)'.",
    correction="δ_k = [1 − p₀p₁b_k²/(λ − d_k)]/(Z²(λ − d_k)); the rest of the theorem is right.",
    correction_reason="The secular equation p₀p₁Σ_k b_k²/(λ − d_k) = 1 turns Σ_{k'≠k} into 1 − p₀p₁b_k²/(λ − d_k), but the "
                      "prefactor p₀p₁/(Z²(λ − d_k)) of δ_k stays (digest §3 item 3).",
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("K", int, 3, "receptive fields", "2 ≤ K ≤ 4"),
        Param("d", int, 3, "dimension of each RF", "≥ 2"),
        Param("atoms", int, 3, "atoms per (RF, z), Dirichlet probabilities", "2 ≤ atoms ≤ 4"),
        Param("p1", float, 0.4, "P[z = 1]", "(0, 1)"),
        Param("seed", int, 0, "seed of the atoms, probabilities and filters", "any integer"),
        Param("dependent", bool, False, "couple the RFs given z (violates Assumption 2(iii); negative control)", "False"),
        Param("delta_scale", float, 1.0, "multiplies δ_k (negative control)", "= 1"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
))
