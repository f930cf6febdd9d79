"""The explicit networks of the proofs of Theorems 4.3 and 4.6 (Appendix A), built in closed form.

The proof of Theorem 4.3 bounds the optimum of objective (7) from above by building, for every depth L, a
network whose objective tends to L*_GUFM. This module builds that network's weights without any training and
evaluates it with a real forward pass of the architecture (``models.evaluate``), so its objective U(L) is an
*exact* upper bound on the optimum L*_L at that depth: L*_GUFM ≤ L*_L ≤ U(L).

The construction, as in Appendix A (post-LN ResNets L-RN1 / L-RN2; the transformer variant is in
``transformer_construction``):

1. ``X_1 = LN(W_0X_0 + b_0)`` with the random first layer (the same draw the trained networks start from).
2. Targets: a global optimum (W*, H) of the GUFM, the collapsed pair of Lemma 4.2, rotated inside 1^⊥ so that
   its class directions are as close as possible to the class means of X_1 (orthogonal Procrustes; "pick any
   (W_L, X_L) ∈ M_0^GUFM"). The K̄ distinct target points are h̄_k = √d u_k, one per class.
3. Phase 1 ("one-sample movers", eq. (14)): for each distinct point x, in column order, L_1 blocks move it along
   the great circle towards its target h̄ until it reaches the ring x̄ᵀh̄ = d(1 − cm); every other point sits
   outside the block's cap (x'ᵀx ≤ d(1 − m)) and is untouched. The curve of the proof is the geodesic here; the
   margin m is the largest the data allow (``path_margin``: the closed-form maximum of x'ᵀx(φ) along each arc).
   **Erratum A9**: the step is constant, α = 4√(d+m²/4) sin(β⁰/(2L_1))/m, so that the L_1 equal angles β⁰/L_1
   land exactly on x̄ (the printed adaptive α^l = 4√dβ^l/(L_1m) leaves ≈ e^{-2}β⁰ untravelled).
4. Phase 2 ("group movers"): for each class j, L_2 identical blocks W_j = α_j v_j h̄_jᵀ/(‖v_j‖√d),
   b_j = −(1 − 2cm) a_j α_j √d/‖v_j‖ · 1, v_j = a_j 1 + cm h̄_j, move every sample of class j along its great
   circle towards h̄_j: x ↦ LN(x + t h̄_j), t = α_j cm cos β/√(a_j² + (cm)²), so tan β' = sin β/(cos β + t).
   **Erratum A12**: the printed group mover is a_j = 1, whose ReLU clips entries where (h̄_j)_i < −1; with
   a_j = max(1, (1 − cm)·max_i(−(h̄_j)_i), 2cm·max_i|(h̄_j)_i|) every pre-activation of class j is ≥ 0 from the
   ring inwards (entry i is ∝ (a_j + cm(h̄_j)_i)cos β − a_j(1 − 2cm) ≥ cm(1 − cm)(a_j/(1−cm) + (h̄_j)_i) ≥ 0 at
   cos β = 1 − cm and increases with cos β), which is exactly what the proof's computation needs; a_j = 1 when
   the target's entries are ≥ −1 (the 'flat' repair of ``errata_a12``). The step α_j makes the per-layer
   contraction the 1 − log L_2/L_2 of the proof (t ≈ log L_2/L_2, so β^{L_2} ≲ 2β⁰/L_2):
   α_j = √(a_j² + (cm)²) log(L_2)/(cm L_2). The ring is cm = (d − max_{j≠j'} h̄_jᵀh̄_j')/(10d), the largest
   condition 5 of the proof allows.
5. The last layer is W*; blocks left over (L − 1 − N̄L_1 − K̄L_2 of them) are zero blocks, exact identities.

Two linear layers per block (L-RN2, proof of Theorem 4.6): W_{l,1} = √α Ŵ, b_{l,1} = √α b̂ (Ŵ, b̂ the
one-layer block divided by α) and W_{l,2} = √α P with P the rank-one projection onto the direction the block
adds that LayerNorm keeps (phase 1: the ReLU output 1 + d_l, as printed; phase 2: h̄_j, since the 1-component
of the output is removed by the next LN anyway), b_{l,2} = 0. The block computes exactly the one-layer map,
and its cost ‖W_{l,1}‖² + ‖W_{l,2}‖² = 2α is linear in α rather than quadratic: hence Theorem 4.6's vanishing
λ(L).

Costs (what the rates in ``depth_trend`` are derived from), with Δ_i = β⁰_i/L_1 per point and the chord
2√d sin(Δ/2) per step:
  phase 1: Σ_i L_1 α_i² ≈ Σ_i (d + m²/4)β⁰_i²/(L_1 m²) (RN1)  or  Σ_i 2L_1α_i ≈ Σ_i 4√(d+m²/4) β⁰_i/m (RN2);
  phase 2: K̄ L_2 α_j² ∝ log²(L_2)/L_2 (RN1)  or  2K̄ L_2 α_j ∝ log L_2 (RN2);
  fit: the final angle β ≲ 2β_ring/L_2, an excess O(1/L_2²) of the GUFM objective.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..optim.manifolds import ln, orthonormal_basis_of_ones_complement
from .models import ModelSpec, TWO_LAYER, evaluate, pack
from .ufm import closed_form, collapsed_pair

# Margin safety factor: the caps are built with 0.9 of the margin the data allow, so that rounding never puts
# another point exactly on a cap's boundary (where its ReLU output would be ~1e-16 instead of 0).
MARGIN_SAFETY = 0.9
# The largest cap used (m < 2 keeps the bias of eq. (14) negative; beyond 1 nothing is gained).
MAX_MARGIN = 1.0


# ------------------------------------------------------------------------------------------------------
# Geometry on the LN sphere {x : 1ᵀx = 0, ‖x‖ = √d}
# ------------------------------------------------------------------------------------------------------
def angle(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Angle between columns (batched over leading dims), accurate for small angles (atan2 of sin and cos)."""
    cos = (x * y).sum(-2)
    sin = (x * (x * y).sum(-2, keepdim=True) - y * (x * x).sum(-2, keepdim=True)).norm(dim=-2) / x.norm(dim=-2)
    return torch.atan2(sin, cos)


def tangent_towards(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """Unit tangent at x (columns) of the great circle from x to h, inside 1^⊥."""
    d = x.shape[-2]
    u = h - x * (x * h).sum(-2, keepdim=True) / d
    return u / u.norm(dim=-2, keepdim=True)


def on_arc(x: torch.Tensor, e: torch.Tensor, phi: torch.Tensor) -> torch.Tensor:
    """The point at angle φ from x along the unit tangent e: cos φ x + sin φ √d e (phi broadcasts)."""
    d = x.shape[-2]
    return torch.cos(phi) * x + torch.sin(phi) * math.sqrt(d) * e


def arc_max_inner(x: torch.Tensor, e: torch.Tensor, beta: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
    """max_{φ ∈ [0, β]} oᵀx(φ) for the arc x(φ) = cos φ x + sin φ √d e, in closed form: oᵀx(φ) = A cos φ + B sin φ
    = R cos(φ − φ₀); the maximum is R if φ₀ ∈ [0, β], else the larger end point. Shapes broadcast:
    x, e (..., d, 1), beta (..., 1), o (..., d, M) -> (..., M)."""
    d = x.shape[-2]
    A = (o * x).sum(-2)
    B = math.sqrt(d) * (o * e).sum(-2)
    phi0 = torch.atan2(B, A)
    inside = (phi0 >= 0) & (phi0 <= beta)
    ends = torch.maximum(A, A * torch.cos(beta) + B * torch.sin(beta))
    return torch.where(inside, torch.sqrt(A * A + B * B), ends)


def procrustes_rotation(means: torch.Tensor, frame: torch.Tensor) -> torch.Tensor:
    """The rotation R of 1^⊥ (in the basis of ``orthonormal_basis_of_ones_complement``) maximising
    Σ_k ⟨μ_k, B R a_k⟩, a_k the frame's coordinates: R = U Vᵀ from the SVD of Σ_k m_k a_kᵀ (m_k = Bᵀμ_k)."""
    d = means.shape[-2]
    B = orthonormal_basis_of_ones_complement(d, dtype=means.dtype, device=means.device)
    C = (B.T @ means) @ (B.T @ frame).T
    U, _, Vh = torch.linalg.svd(C)
    return U @ Vh


# ------------------------------------------------------------------------------------------------------
# The targets: a GUFM optimum aligned with the data
# ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    W: torch.Tensor  # (K, d) the optimal last layer W*
    H: torch.Tensor  # (d, K) the class targets h̄_k = √d u_k
    value: float  # L*_GUFM
    ring: float  # cm: the phase-1 stopping ring x̄ᵀh̄ = d(1 − cm)


def aligned_target(loss: str, K: int, d: int, lam: float, X1: torch.Tensor, labels: torch.Tensor) -> Target:
    """Lemma 4.2's collapsed optimum rotated towards the class means of X_1 (any optimum would do)."""
    optimum = closed_form(loss, K, d, lam)
    W0, _ = collapsed_pair(loss, K, 1, d, 1.0, dtype=X1.dtype, device=X1.device)  # rows u_kᵀ, unit
    onehot = torch.nn.functional.one_hot(labels, K).to(X1.dtype)
    means = X1 @ onehot / onehot.sum(0)
    R = procrustes_rotation(means, W0.T)
    W, X = collapsed_pair(loss, K, 1, d, optimum.row_norm, R, dtype=X1.dtype, device=X1.device)
    G = X.T @ X
    off = G - torch.diag(torch.diagonal(G))
    gap = (d - float(off.max())) / d if K > 1 else 1.0  # (d − max_{j≠j'} h̄_jᵀh̄_j')/d, condition 5
    return Target(W=W, H=X, value=optimum.value, ring=gap / 10)


# ------------------------------------------------------------------------------------------------------
# Phase 1: one-sample movers along geodesics
# ------------------------------------------------------------------------------------------------------
@dataclass
class Phase1Plan:
    start: torch.Tensor  # (d, P) the distinct points
    goal: torch.Tensor  # (d, P) their targets h̄
    tangent: torch.Tensor  # (d, P) unit tangent of each geodesic
    travel: torch.Tensor  # (P,) the angle β⁰ each point travels (0: already inside the ring)
    stop: torch.Tensor  # (d, P) the ring points x̄
    margin: float  # the margin m the caps are built with
    data_margin: float  # the largest margin the arcs allow


def plan_phase1(points: torch.Tensor, goals: torch.Tensor, ring: float) -> Phase1Plan:
    """Arcs from each distinct point to its ring point, in column order, and the margin they allow."""
    d, P = points.shape
    theta0 = angle(points, goals)  # (P,)
    theta_ring = math.acos(1 - ring)
    travel = (theta0 - theta_ring).clamp_min(0.0)
    e = tangent_towards(points, goals)
    stop = on_arc(points, e, travel)
    # The arc of point i meets the points before it at their ring points and the ones after it unmoved.
    idx = torch.arange(P, device=points.device)
    before = idx[None, :] < idx[:, None]  # [i, o]: o already moved when i moves
    others = torch.where(before[:, None, :], stop[None], points[None])  # (P, d, P) positions seen by i
    inner = arc_max_inner(points.T[:, :, None], e.T[:, :, None], travel[:, None], others)  # (P, P)
    gap = 1 - inner / d
    gap = torch.where(idx[None, :] == idx[:, None], torch.full_like(gap, math.inf), gap)
    moving = travel > 0
    data_margin = float(gap[moving].min()) if bool(moving.any()) else math.inf
    margin = min(MARGIN_SAFETY * data_margin, MAX_MARGIN)
    return Phase1Plan(points, goals, e, travel, stop, margin, data_margin)


def phase1_blocks(plan: Phase1Plan, L1: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(W (P, L1, d, d), b (P, L1, d, 1), α (P,), out (P, L1, d)) of eq. (14) with the constant step (A9):
    L1 equal angles β⁰/L1 per point; ``out`` is the direction of the ReLU output, 1 + d_l."""
    d, P = plan.start.shape
    m = plan.margin
    steps = torch.arange(L1 + 1, dtype=plan.start.dtype, device=plan.start.device) / L1
    phi = plan.travel[:, None] * steps[None]  # (P, L1+1)
    path = on_arc(plan.start.T[:, None, :, None], plan.tangent.T[:, None, :, None], phi[..., None, None])[..., 0]
    x, nxt = path[:, :-1], path[:, 1:]  # (P, L1, d)
    chord = nxt - x
    norm = chord.norm(dim=-1, keepdim=True)
    direction = torch.where(norm > 0, chord / norm.clamp_min(torch.finfo(chord.dtype).tiny), torch.zeros_like(chord))
    scale = math.sqrt(d + m * m / 4)
    alpha = 4 * scale * torch.sin(plan.travel / (2 * L1)) / m  # (P,): the chord 2√d sin(Δ/2) = αm√d/(2·scale)
    ones = torch.ones_like(direction)
    v = ones + 0.5 * m * direction
    W = alpha[:, None, None, None] * v[..., :, None] * x[..., None, :] / (scale * math.sqrt(d))
    b = -(1 - m / 2) * alpha[:, None, None, None] * math.sqrt(d) / scale * torch.ones_like(direction)[..., None]
    return W, b, alpha, ones + direction


# ------------------------------------------------------------------------------------------------------
# Phase 2: group movers
# ------------------------------------------------------------------------------------------------------
def group_offsets(H: torch.Tensor, ring: float) -> torch.Tensor:
    """a_j of the corrected group mover (erratum A12): the smallest offset ≥ 1 keeping every pre-activation of
    class j non-negative from the ring inwards."""
    return torch.stack([torch.ones_like(H[0]), (1 - ring) * (-H).amax(dim=0), 2 * ring * H.abs().amax(dim=0)]).amax(0)


def phase2_blocks(H: torch.Tensor, ring: float, L2: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(W (K̄, d, d), b (K̄, d, 1), α (K̄,), t-factor (K̄,)) of the corrected group mover; each block is
    repeated L2 times. x ↦ LN(x + t h̄), t = factor·cos β (module docstring)."""
    d, Kb = H.shape
    a = group_offsets(H, ring)
    v = a[None, :] + ring * H  # (d, K̄)
    vnorm = v.norm(dim=0)
    speed = torch.sqrt(a * a + ring * ring)
    alpha = speed * math.log(L2) / (ring * L2) if L2 > 1 else torch.zeros_like(a)
    W = alpha[:, None, None] * v.T[:, :, None] * H.T[:, None, :] / (vnorm[:, None, None] * math.sqrt(d))
    b = -(1 - 2 * ring) * (alpha * a * math.sqrt(d) / vnorm)[:, None, None] * torch.ones(
        Kb, d, 1, dtype=H.dtype, device=H.device)
    return W, b, alpha, alpha * ring / speed


def phase2_angles(beta: torch.Tensor, factor: torch.Tensor, L2: int) -> torch.Tensor:
    """The angles after L2 group movers: tan β' = sin β/(cos β + factor·cos β), per point (closed-form steps)."""
    for _ in range(L2):
        beta = torch.atan2(torch.sin(beta), torch.cos(beta) * (1 + factor))
    return beta


# ------------------------------------------------------------------------------------------------------
# The whole network
# ------------------------------------------------------------------------------------------------------
@dataclass
class Built:
    """A constructed network and what the construction predicts about it."""

    spec: ModelSpec
    theta: torch.Tensor  # (1, P)
    objective: float  # U(L): objective (7)/(11) of the forward pass
    fit_excess: float  # L_GUFM(W*, X_L) − L*_GUFM of the forward pass's features
    inner_reg: float  # (λ_inner/2) Σ‖W‖² over the blocks
    costs: dict  # Σ‖W‖² per phase (and the attention's, for transformers)
    L1: int
    L2: int
    margin: float
    data_margin: float
    ring: float
    landing_error: float  # max ‖forward features − predicted features‖/√d (0 when the construction works)
    features: torch.Tensor = field(repr=False, default=None)  # (d, N)
    WL: torch.Tensor = field(repr=False, default=None)  # (K, d)
    extra: dict = field(default_factory=dict)


def split_depth(blocks: int, points: int, groups: int) -> int:
    """L_1 = L_2 = ⌊blocks/(N̄ + K̄)⌋: the proof's split, both ∝ L."""
    return blocks // (points + groups)


def distinct_columns(X: torch.Tensor, tol: float = 1e-9) -> tuple[torch.Tensor, torch.Tensor]:
    """(representative column indices, index of each column's representative) of X's distinct columns."""
    D = torch.cdist(X.T, X.T)
    same = D <= tol * math.sqrt(X.shape[-2])
    first = same.int().argmax(dim=1)  # the first column equal to each column
    reps = torch.unique(first)
    rep_of = torch.searchsorted(reps, first)
    return reps, rep_of


def mover_weights(spec: ModelSpec, X1: torch.Tensor, labels: torch.Tensor, target: Target, q: int,
                  first_block: int = 0) -> tuple[dict, dict]:
    """Block weights (``W1``, ``b1`` and for two-layer blocks ``W2``, ``b2``) moving the distinct columns of X1
    onto the targets, q blocks per point and per group, starting at block ``first_block``; the rest zero.
    Returns (parts, info) with the predicted final features and the costs Σ‖W‖² per phase."""
    d = spec.d
    reps, rep_of = distinct_columns(X1)
    points = X1[:, reps]
    goals = target.H[:, labels[reps]]
    plan = plan_phase1(points, goals, target.ring)
    P, K = points.shape[-1], target.H.shape[-1]
    W1p, b1p, a1, v1 = phase1_blocks(plan, q)
    W2p, b2p, a2, factor = phase2_blocks(target.H, target.ring, q)
    dt, dev = X1.dtype, X1.device
    nb = spec.blocks
    Wb = torch.zeros(nb, d, d, dtype=dt, device=dev)
    bb = torch.zeros(nb, d, 1, dtype=dt, device=dev)
    used = first_block + (P + K) * q
    if used > nb:
        raise ValueError(f"the construction needs {used} blocks, the network has {nb}")
    s1, s2 = first_block, first_block + P * q
    Wb[s1:s2], bb[s1:s2] = W1p.reshape(P * q, d, d), b1p.reshape(P * q, d, 1)
    Wb[s2:used], bb[s2:used] = W2p.repeat_interleave(q, 0), b2p.repeat_interleave(q, 0)
    parts = {}
    if spec.arch in TWO_LAYER:
        # Split α into √α·√α (proof of Theorem 4.6): the first layer is the one-layer block / √α, the second √α
        # times a rank-one projection onto what the block adds (phase 1: 1 + d_l; phase 2: h̄_j).
        alpha = torch.zeros(nb, dtype=dt, device=dev)
        alpha[s1:s2] = a1.repeat_interleave(q)
        alpha[s2:used] = a2.repeat_interleave(q)
        root = alpha.sqrt()
        inv = torch.where(root > 0, 1 / root.clamp_min(torch.finfo(dt).tiny), torch.zeros_like(root))
        dirs = torch.zeros(nb, d, dtype=dt, device=dev)
        dirs[s1:s2] = v1.reshape(P * q, d)
        dirs[s2:used] = target.H.T.repeat_interleave(q, 0)
        dirs = dirs / dirs.norm(dim=-1, keepdim=True).clamp_min(torch.finfo(dt).tiny)
        parts["W1"] = Wb * inv[:, None, None]
        parts["b1"] = bb * inv[:, None, None]
        parts["W2"] = root[:, None, None] * dirs[:, :, None] * dirs[:, None, :]
        parts["b2"] = torch.zeros_like(bb)
        cost1 = float(2 * a1.sum() * q)
        cost2 = float(2 * a2.sum() * q)
    else:
        parts["W1"], parts["b1"] = Wb, bb
        cost1 = float((a1 * a1).sum() * q)
        cost2 = float((a2 * a2).sum() * q)
    # Predicted end points: ring points (or the start, inside the ring), then L2 group steps along the circle.
    beta_ring = angle(plan.stop, goals)
    beta_end = phase2_angles(beta_ring, factor[labels[reps]], q)
    e_back = tangent_towards(goals, plan.stop)
    predicted = on_arc(goals, e_back, beta_end)
    info = dict(predicted=predicted[:, rep_of], plan=plan, cost_phase1=cost1, cost_phase2=cost2,
                points=P, groups=K, blocks_used=used, offsets=group_offsets(target.H, target.ring).tolist(),
                phase1_alpha_max=float(a1.max()) if P else 0.0, phase2_alpha=a2.tolist(),
                alpha_max=max(float(a1.max()) if P else 0.0, float(a2.max())),
                beta_ring_max=float(beta_ring.max()), beta_end_max=float(beta_end.max()))
    return parts, info


def build_resnet(spec: ModelSpec, theta0: torch.Tensor, inputs: torch.Tensor, labels: torch.Tensor, loss: str,
                 lam_last: float, lam_inner: float, q: int | None = None) -> Built:
    """The proof's network for a post-LN L-RN1 / L-RN2 of depth ``spec.L``, first layer taken from θ0 (1, P0)
    of any depth (only W_0, b_0 are read). ``q`` = L_1 = L_2 (default: the proof's split of the blocks)."""
    if spec.arch not in ("rn1", "rn2"):
        raise ValueError(f"the construction is for post-LN ResNets (rn1, rn2), not {spec.arch!r}")
    first = _first_layer(spec, theta0)
    X1 = ln(first["W0"][0] @ inputs + first["b0"][0])
    target = aligned_target(loss, spec.K, spec.d, lam_last, X1, labels)
    reps, _ = distinct_columns(X1)
    if q is None:
        q = split_depth(spec.blocks, len(reps), spec.K)
    blocks, info = mover_weights(spec, X1, labels, target, q)
    parts = {name: value[None] for name, value in blocks.items()}
    parts.update(W0=first["W0"], b0=first["b0"], WL=target.W[None])
    theta = pack(spec, parts)
    return _finish(spec, theta, inputs, labels, loss, lam_last, lam_inner, target, info, q)


def _first_layer(spec: ModelSpec, theta0: torch.Tensor) -> dict:
    """W_0, b_0 from a parameter vector of the same architecture at any depth (they lead the layout)."""
    d, d0 = spec.d, spec.d0
    return {"W0": theta0[:, :d * d0].reshape(-1, d, d0), "b0": theta0[:, d * d0:d * d0 + d].reshape(-1, d, 1)}


def _finish(spec, theta, inputs, labels, loss, lam_last, lam_inner, target: Target, info: dict, q: int,
            costs_extra: dict | None = None) -> Built:
    from .ufm import ufm_objective

    ev = evaluate(spec, theta, inputs, labels, loss, lam_last, lam_inner)
    X = ev.X[0]
    fit_excess = float(ufm_objective(target.W, X, labels, loss, lam_last)) - target.value
    landing = float((X - info["predicted"]).norm(dim=0).max()) / math.sqrt(spec.d)
    plan = info["plan"]
    costs = {"phase1": info["cost_phase1"], "phase2": info["cost_phase2"], **(costs_extra or {})}
    extra = {k: v for k, v in info.items() if k not in ("predicted", "plan")}
    return Built(spec=spec, theta=theta, objective=float(ev.objective[0]), fit_excess=fit_excess,
                 inner_reg=float(ev.inner_reg[0]), costs=costs, L1=q, L2=q, margin=plan.margin,
                 data_margin=plan.data_margin, ring=target.ring, landing_error=landing, features=X, WL=target.W,
                 extra=extra)


# ------------------------------------------------------------------------------------------------------
# Transformers (proof of Theorem 4.3 for L-Tx1; Theorem 4.6 for L-Tx2)
# ------------------------------------------------------------------------------------------------------
def binary_position_offsets(C: int, *, dtype=torch.float64, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(a, b) per position c = 0..C−1 with a + b = −1, a² + b² = 4^{i+1} − 1, i = C−1−c (Appendix A, L-Tx1):
    after LN_{1,1} the token of position c carries √d 2^{-(i+1)} on its own coordinate. The printed 'a, b > 0' is
    impossible (ab = (2 − 4^{i+1})/2 < 0; erratum A11): a = (−1 + r)/2 > 0 > b = (−1 − r)/2, r = √(2·4^{i+1} − 3)."""
    i = torch.arange(C - 1, -1, -1, dtype=dtype, device=device)
    r = torch.sqrt(2 * 4.0 ** (i + 1) - 3)
    return (r - 1) / 2, (-r - 1) / 2


def encoding_block(spec: ModelSpec, gamma: float, *, dtype=torch.float64, device=None) -> dict:
    """Embeddings and the first block of the proof's transformer: W_e e_v = e_v, W_p's column c = a e_{2V} +
    b e_{2V+1}, W_QK = 0 (uniform causal attention), W_VO = γA with A the shift of coordinates v ↦ V + v, MLP 0."""
    d, V, C = spec.d, spec.V, spec.C
    if d < 2 * V + 2:
        raise ValueError(f"the binary-history encoding needs d ≥ 2V+2 = {2 * V + 2}, got d = {d}")
    We = torch.zeros(d, V, dtype=dtype, device=device)
    We[:V, :V] = torch.eye(V, dtype=dtype, device=device)
    a, b = binary_position_offsets(C, dtype=dtype, device=device)
    Wp = torch.zeros(d, C, dtype=dtype, device=device)
    Wp[2 * V], Wp[2 * V + 1] = a, b
    shift = torch.zeros(d, d, dtype=dtype, device=device)
    shift[V:2 * V, :V] = torch.eye(V, dtype=dtype, device=device)
    return {"We": We, "Wp": Wp, "Wvo0": gamma * shift}


def build_transformer(spec: ModelSpec, tokens: torch.Tensor, labels: torch.Tensor, loss: str, lam_last: float,
                      lam_inner: float, gamma: float, q: int | None = None) -> Built:
    """The proof's L-Tx1 / L-Tx2 (post-LN, every position a sample): the binary-history encoding in block 1,
    then the ResNet construction on the distinct contexts with attention switched off (W_VO = W_QK = 0)."""
    if spec.arch not in ("tx1", "tx2") or spec.readout != "all":
        raise ValueError("the transformer construction is for post-LN tx1 / tx2 with readout='all'")
    dt, dev = tokens.dtype if tokens.is_floating_point() else torch.float64, tokens.device
    enc = encoding_block(spec, gamma, dtype=dt, device=dev)
    nb, d = spec.blocks, spec.d
    zeros = torch.zeros(nb, d, d, dtype=dt, device=dev)
    one = spec.with_depth(1)
    first = {name: torch.zeros(1, *shape, dtype=dt, device=dev) for name, shape, _ in one.layout()}
    first.update(We=enc["We"][None], Wp=enc["Wp"][None], Wvo=enc["Wvo0"][None, None])
    X1 = evaluate(one, pack(one, first), tokens, labels, loss, lam_last, lam_inner).X[0]
    target = aligned_target(loss, spec.K, d, lam_last, X1, labels)
    reps, _ = distinct_columns(X1)
    if q is None:
        q = split_depth(nb - 1, len(reps), spec.K)
    blocks, info = mover_weights(spec, X1, labels, target, q, first_block=1)
    Wvo = zeros.clone()
    Wvo[0] = enc["Wvo0"]
    parts = {name: value[None] for name, value in blocks.items()}
    parts.update(We=enc["We"][None], Wp=enc["Wp"][None], Wvo=Wvo[None], Wqk=zeros[None], WL=target.W[None])
    theta = pack(spec, parts)
    attention = float(enc["Wvo0"].pow(2).sum())
    built = _finish(spec, theta, tokens, labels, loss, lam_last, lam_inner, target, info, q,
                    costs_extra={"attention": attention})
    built.extra.update(gamma=gamma, contexts=len(reps))
    return built
