"""Sharpness (paper 000, Definition 2) with the matrix it is taken on made explicit.

    𝒮(S) = inf_{i,j,p,q} S_ij / S_pq,   (x_i, x_j) in the same cluster, (x_p, x_q) in different clusters,

i.e. min_same S / max_diff S when max_diff S > 0. The paper never says which S (Definition 2 vs App. B), so
``kind`` picks it:

* ``"logit"``: S = A itself. Logits can be ≤ 0: when max_diff A = 0 and min_same A > 0 the ratio is +∞
  (block-diagonal A, the paper's "→ +∞"); when max_diff A < 0, or = 0 with min_same ≤ 0, the ratio of the
  definition is not a sharpness at all (a negative or 0/0 ratio), and the value is reported as undefined
  (``defined`` False, value nan) instead of a silently wrong number;
* ``"exp"``: S = exp(A) entrywise (App. B's α/β): always defined, log 𝒮 = min_same A − max_diff A;
* ``"softmax"``: S = row-softmax(A): always defined, computed in log space (log S = A − logsumexp_row A).

``include_diagonal`` says whether i = j counts as a same-cluster pair (the paper does not exclude it).
Everything is batched: A (..., n, n), labels (n,) shared by every matrix or (..., n) one per matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

KINDS = ("logit", "exp", "softmax")


@dataclass
class Sharpness:
    log_value: torch.Tensor  # (...) log 𝒮 (nan where undefined, +inf for a block-diagonal logit matrix)
    defined: torch.Tensor  # (...) bool
    min_same: torch.Tensor  # (...) on the matrix S the sharpness is taken on (log scale for exp/softmax)
    max_diff: torch.Tensor  # (...)
    kind: str

    @property
    def value(self) -> torch.Tensor:
        return torch.exp(self.log_value)


def _extremes(S: torch.Tensor, labels: torch.Tensor, include_diagonal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """min over same-cluster and max over cross-cluster entries of S (..., n, n); labels (n,) or (..., n), one
    labelling per matrix."""
    n = labels.shape[-1]
    same = labels.unsqueeze(-1) == labels.unsqueeze(-2)
    if not include_diagonal:
        same = same & ~torch.eye(n, dtype=torch.bool, device=labels.device)
    diff = labels.unsqueeze(-1) != labels.unsqueeze(-2)
    if not bool(same.flatten(-2).any(-1).all()) or not bool(diff.flatten(-2).any(-1).all()):
        raise ValueError("sharpness needs at least one same-cluster pair and one cross-cluster pair")
    inf = torch.full_like(S, float("inf"))
    min_same = torch.where(same, S, inf).amin(dim=(-1, -2))
    max_diff = torch.where(diff, S, -inf).amax(dim=(-1, -2))
    return min_same, max_diff


def sharpness(A: torch.Tensor, labels: torch.Tensor, kind: str = "exp", include_diagonal: bool = True) -> Sharpness:
    """𝒮 of the matrix derived from logits A by ``kind`` (see the module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"sharpness kind must be one of {KINDS}, got {kind!r}")
    if kind == "logit":
        lo, hi = _extremes(A, labels, include_diagonal)
        pos = hi > 0
        block = (hi == 0) & (lo > 0)
        log_value = torch.where(pos & (lo > 0), torch.log(lo.clamp_min(1e-300)) - torch.log(hi.clamp_min(1e-300)),
                                torch.full_like(lo, float("nan")))
        # lo ≤ 0 < hi gives a ratio ≤ 0: defined as a number but not a log; keep it as nan in log space
        log_value = torch.where(block, torch.full_like(lo, float("inf")), log_value)
        defined = (pos & (lo > 0)) | block
        return Sharpness(log_value, defined, lo, hi, kind)
    L = A if kind == "exp" else A - torch.logsumexp(A, dim=-1, keepdim=True)
    lo, hi = _extremes(L, labels, include_diagonal)
    return Sharpness(lo - hi, torch.ones_like(lo, dtype=torch.bool), lo, hi, kind)


def logit_ratio(A: torch.Tensor, labels: torch.Tensor, include_diagonal: bool = True) -> torch.Tensor:
    """min_same A / max_diff A as a plain ratio (may be negative; ±inf/nan where max_diff = 0)."""
    lo, hi = _extremes(A, labels, include_diagonal)
    return lo / hi


def cross_cluster_mass(logits: torch.Tensor, labels: torch.Tensor, exclude_self: bool = True) -> torch.Tensor:
    """Per row, the share of row-softmax(logits) attention that goes to samples of other clusters, (..., n).

    ``labels`` (..., n) broadcasts against the rows (one labelling per sequence is allowed). With
    ``exclude_self`` the share is taken of the attention to the *other* samples (Σ_{c_j≠c_i} P_ij / (1 − P_ii)):
    attention to itself is within-cluster by definition, so without this a head that only grows more
    self-focused would look more block-diagonal whatever the labels.
    """
    P = torch.softmax(logits, -1)
    diff = labels.unsqueeze(-1) != labels.unsqueeze(-2)
    mass = (P * diff).sum(-1)
    if exclude_self:
        mass = mass / (1 - P.diagonal(dim1=-2, dim2=-1)).clamp_min(torch.finfo(P.dtype).tiny)
    return mass


def chance_cross_mass(labels: torch.Tensor, dtype: torch.dtype, exclude_self: bool = True) -> torch.Tensor:
    """(..., n) the cross-cluster share of uniform attention: (n − ν_i)/(n − 1) (or /n with the self)."""
    n = labels.shape[-1]
    nu = (labels.unsqueeze(-1) == labels.unsqueeze(-2)).sum(-1).to(dtype)
    return (n - nu) / (n - 1 if exclude_self else n)
