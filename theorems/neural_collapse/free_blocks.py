"""Networks of post-LN ResNets built from *free* blocks: the residual blocks of objectives (7)/(11) with zero
weights and a bias only, which cost nothing.

Objectives (7) and (11) regularise θ̄, "the subset of parameters that excludes biases and the parameters in
embedding layers (W_e, W_p, W_0)" (Section 4.1, below (7)). A block with zero weights then maps, at no cost,

    L-RN1:  x ↦ LN(x + σ(b_l))          L-RN2:  x ↦ LN(x + W_{l,2}σ(b_{l,1}) + b_{l,2}) = LN(x + b_{l,2}),

and since LN removes the mean (1ᵀx = 0 for every feature after an LN) and σ(b) = b for b ≥ 0, both are the
*shift* x ↦ LN(x + u) for any u ∈ 1^⊥ (RN1: b = u + c·1 with c ≥ −min u). A shift is a central projection of the
LN sphere {‖x‖ = √d, 1ᵀx = 0} from the point −u. Two uses:

* a **fold** merges two samples x_i, x_j of the same class exactly: with p = x_j + t(x_i − x_j), t > 1 (a point
  of their line outside the sphere), x_i − p = (1 − t)(x_i − x_j) and x_j − p = −t(x_i − x_j) are positively
  parallel, so LN(x_i − p) = LN(x_j − p); the two stay identical through every later block. N − K folds leave
  one point per class. ``fold_plan`` picks, at each fold, the pair and t (from ``FOLD_T``) that keep the
  remaining distinct points farthest apart, and follows each fold with a **spread** x ↦ LN(x − α m) (m their
  mean, α from ``SPREAD_ALPHA``) that pushes them apart again: 2(N − K) blocks;
* ``shifts`` more shifts, optimised (batched L-BFGS, ``restarts`` starts) jointly with W_L on the GUFM objective
  of the K class points, move them onto the GUFM optimum (Lemma 4.2's collapsed configuration).

The network of depth L₀ = 1 + 2(N − K) + shifts (``closing_network``) has no inner cost at any λ, so its objective
is GUFM(W_L, X_L): when the polish reaches the GUFM optimum, L*_GUFM ≤ L*_L ≤ objective = L*_GUFM up to rounding
at every depth L ≥ L₀ (zero blocks appended are an exact identity). The objective is evaluated exactly by the
model's own forward pass (``models.objective``), so it is an upper bound on L*_L whatever the polish did.

The input layer (W_0, b_0) stays at its draw (``models.trainable_mask``): the construction does not use it.
Pre-LN ResNets (Appendix B) add a bias to the residual stream, a common translation that never merges two
samples: this construction does not exist there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..optim.lbfgs import autograd_objective, batched_lbfgs
from ..optim.manifolds import ln
from .models import TWO_LAYER, ModelSpec, evaluate, pack, unpack
from .ufm import ufm_objective

# Fold positions t (p = x_j + t(x_i − x_j)) and spread sizes α tried at each fold (the best kept): a grid wide
# enough that no fold of the declared sample ranges brings two classes within 0.3 of each other (observed ≥ 0.8).
FOLD_T = (1.25, 1.5, 2.0, 3.0, 5.0)
SPREAD_ALPHA = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
# Optimised shifts after the folds, and the polish's starts: the first from u = 0, the others at the scales below
# (cycled). One start from u = 0 stalls at 0.25–0.35 × L* on some corners of the sample ranges (K = 4); with eight
# the best reaches ≤ 1e-13 × L* on all 64 corners and seeds 0–9 (checks/neural_collapse/test_theorem_4_3_depth.py).
SHIFTS = 12
RESTARTS = 8
START_SCALES = (0.0, 0.3, 1.0)
POLISH_ITER = 1500
POLISH_GTOL = 1e-13
POLISH_CHUNK = 100
POLISH_STOP = 1e-14  # relative GUFM excess of the best start at which the polish stops (the rounding floor ~1e-15)


def shift(X: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """x ↦ LN(x + u), column-wise; X (..., d, N), u (..., d)."""
    return ln(X + u[..., None])


def _min_class_distance(X: torch.Tensor, groups: list[list[int]]) -> float:
    """The least distance between two distinct points (one representative per group of merged samples)."""
    if len(groups) < 2:
        return math.inf
    R = X[:, [g[0] for g in groups]]
    D = (R[:, :, None] - R[:, None, :]).norm(dim=0)
    D.fill_diagonal_(math.inf)
    return float(D.min())


def fold_plan(X: torch.Tensor, labels: torch.Tensor) -> tuple[list[torch.Tensor], torch.Tensor, list[list[int]]]:
    """The fold and spread shifts (2(N − K) vectors u ∈ 1^⊥) that merge every class of the LN-sphere points X
    (d, N) to one point; returns them, the points after them and the groups of merged samples."""
    labels = labels.tolist()
    groups = [[i] for i in range(X.shape[1])]
    shifts: list[torch.Tensor] = []
    while True:
        best = None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                i, j = groups[a][0], groups[b][0]
                if labels[i] != labels[j]:
                    continue
                merged = [g for k, g in enumerate(groups) if k not in (a, b)] + [groups[a] + groups[b]]
                for t in FOLD_T:
                    u = -(X[:, j] + t * (X[:, i] - X[:, j]))
                    score = _min_class_distance(shift(X, u), merged)
                    if best is None or score > best[0]:
                        best = (score, u, merged)
        if best is None:
            return shifts, X, groups
        _, u, groups = best
        X = shift(X, u)
        m = X[:, [g[0] for g in groups]].mean(dim=1)
        _, alpha = max((_min_class_distance(shift(X, -a * m), groups), a) for a in SPREAD_ALPHA)
        shifts += [u, -alpha * m]
        X = shift(X, -alpha * m)


@dataclass
class FreeNetwork:
    """The closing network: θ (1, P) at depth ``spec.L`` = 1 + 2(N − K) + shifts, its exact objective, and what
    the polish did (per start: the GUFM excess it reached relative to ``lower``)."""

    spec: ModelSpec
    theta: torch.Tensor
    objective: float
    inner_reg: float
    fold_blocks: int
    shifts: int
    start_excess: list[float] = field(default_factory=list)
    min_class_distance: float = math.nan  # after the folds, between the K class points
    input_separation: float = math.nan  # before them: the least distance between inputs of different classes

    def as_dict(self, lower: float) -> dict:
        return {"depth": self.spec.L, "objective": self.objective, "excess": self.objective - lower,
                "relative_excess": (self.objective - lower) / lower, "fold_blocks": self.fold_blocks, "shifts": self.shifts,
                "restarts": len(self.start_excess), "start_relative_excess": self.start_excess,
                "min_class_distance_after_folds": self.min_class_distance, "input_separation": self.input_separation}


def closing_network(spec: ModelSpec, theta0: torch.Tensor, inputs: torch.Tensor, labels: torch.Tensor, loss: str,
                    lam_last: float, lam_inner: float, ctx, *, lower: float, shifts: int = SHIFTS,
                    restarts: int = RESTARTS, max_iter: int = POLISH_ITER) -> FreeNetwork:
    """The free-block network of the module docstring, on the input layer of ``theta0`` (its first row), for a
    post-LN L-RN1 / L-RN2 ``spec``; its objective under (λ_L, λ_inner) = (``lam_last``, ``lam_inner``)."""
    if spec.transformer or spec.arch.startswith("pre_"):
        raise ValueError(f"free blocks are built for post-LN ResNets only, not {spec.arch!r}")
    if restarts < 1:
        raise ValueError(f"restarts must be ≥ 1, got {restarts}")
    K, d = spec.K, spec.d
    first = unpack(spec, theta0[:1])
    X1 = ln(first["W0"][0] @ inputs + first["b0"][0])
    cross = labels[:, None] != labels[None, :]
    gaps = (X1[:, :, None] - X1[:, None, :]).norm(dim=0)  # exact differences (cdist may expand the square)
    input_separation = float(gaps[cross].min()) if bool(cross.any()) else math.inf
    folds, Xf, groups = fold_plan(X1, labels)
    separation = _min_class_distance(Xf, groups)
    S = shifts
    # the polish: R starts of (S shifts, W_L) minimised as one batched problem on the GUFM objective
    scales = torch.tensor([0.0] + [START_SCALES[1 + r % (len(START_SCALES) - 1)] for r in range(restarts - 1)],
                          dtype=ctx.dtype, device=ctx.device)
    U0 = scales[:, None, None] * ctx.randn(restarts, S, d)
    W0 = ctx.randn(restarts, K, d) / math.sqrt(d)
    x0 = torch.cat([U0.flatten(1), W0.flatten(1)], dim=1)

    def gufm(z: torch.Tensor) -> torch.Tensor:
        U = z[:, :S * d].reshape(-1, S, d)
        W = z[:, S * d:].reshape(-1, K, d)
        Y = Xf.expand(z.shape[0], *Xf.shape)
        for s in range(S):
            Y = shift(Y, U[:, s])
        return ufm_objective(W, Y, labels, loss, lam_last)

    # In chunks of POLISH_CHUNK iterations (fresh memory each), stopping once the best start is at the rounding
    # floor: the starts that reach the optimum do so in ~100–300 iterations, the stuck ones would use them all.
    x, used = x0, 0
    while True:
        res = batched_lbfgs(autograd_objective(gufm), x, max_iter=min(POLISH_CHUNK, max_iter - used),
                            gtol=POLISH_GTOL, history=30)
        x, used = res.x, used + POLISH_CHUNK
        with torch.no_grad():
            values = gufm(x)
        if used >= max_iter or float(values.min()) - lower <= POLISH_STOP * lower or bool(res.converged.all()):
            break
    res_x = x
    k = int(values.argmin())
    U = res_x[k, :S * d].reshape(S, d)
    W = res_x[k, S * d:].reshape(K, d)
    bias = torch.stack([*folds, *U.unbind(0)]) if folds else U  # (blocks, d)
    net = spec.with_depth(1 + bias.shape[0])
    parts = {name: torch.zeros(1, *shape, dtype=ctx.dtype, device=ctx.device) for name, shape, _ in net.layout()}
    parts["W0"], parts["b0"] = first["W0"], first["b0"]
    if spec.arch in TWO_LAYER:
        parts["b2"] = bias[None, :, :, None]
    else:  # σ(b) = b needs b ≥ 0: add a multiple of 1, which the LN removes
        parts["b1"] = (bias - bias.min(dim=1, keepdim=True).values + 1.0)[None, :, :, None]
    parts["WL"] = W[None]
    theta = pack(net, parts)
    ev = evaluate(net, theta, inputs, labels, loss, lam_last, lam_inner)
    return FreeNetwork(net, theta, float(ev.objective[0]), float(ev.inner_reg[0]), len(folds), S, [(float(v) - lower) / lower for v in values], separation,
                       input_separation)
