"""Neural-collapse metrics: paper 004's Definition 3.4, and beside it the field's usual family.

All functions are batched over leading dimensions: ``W`` has shape (..., K, d), ``X`` (..., d, N), and
``labels`` (N,) holds class indices 0..K−1 (every class non-empty).

Two families
------------
**The paper's (Definition 3.4)**, ``nc_metrics``: every claim of paper 004 is about this family (Lemma 4.2,
Corollaries 4.5 and 4.7, the rate remark after Corollary 4.5, Lemma 4.1 made quantitative, and, as far as the
text says, the plots of Section 5 and Appendix D). Reading choices:

* NC1 = tr(Σ_W)/tr(Σ_B), the paper's ratio of traces (not Papyan's tr(Σ_W Σ_B^†)/K). It is +inf when
  every class mean coincides but samples vary, and nan when all samples coincide (undefined).
* NC2A = min_{c≥0} ‖WWᵀ − cE_K‖_F/‖WWᵀ‖_F with E_K = I − 11ᵀ/K: the printed E_K = I − 11ᵀ is a typo
  (erratum A1) under which even a simplex ETF would not be collapsed; ``literal_ek=True`` gives the
  printed matrix, for documenting the typo. The minimising c has the closed form max(0, ⟨G,E⟩/‖E‖²).
* NC2B = min_{c≥0} ‖WWᵀ − cI‖_F/‖WWᵀ‖_F, minimiser c = max(0, tr G/K).
* NC3 = 1 − mean cos(x_ki, w_k), on raw (uncentred) features. A zero row of W makes it nan.

**The field's (Papyan, Han & Donoho 2020; Zhu et al. 2021, the paper's reference [71])**,
``standard_nc_metrics``, shown beside the paper's in every Evidence so that a reader can compare with the
literature; no claim of the paper is about them:

* ``nc1_pinv`` = tr(Σ_W Σ_B^†)/K (Σ_B's pseudo-inverse; 0 when every class mean coincides, where the paper's
  ratio is inf);
* ``nc2_means_etf`` = ‖ M̃ᵀM̃/‖M̃ᵀM̃‖_F − E_K/√(K−1) ‖_F, M̃ the class means centred by the global mean (the
  simplex ETF's Gram, normalised: ‖E_K‖_F = √(K−1));
* ``nc2_w_etf`` = ‖ WWᵀ/‖WWᵀ‖_F − E_K/√(K−1) ‖_F (W's Gram against the simplex ETF);
* ``nc3_centred`` = ‖ W/‖W‖_F − M̃ᵀ/‖M̃‖_F ‖_F (self-duality against the *centred* means).

Where the two families disagree (``tests/test_metrics.py`` checks each case by hand):

* an ETF plus a common offset (features = simplex ETF + o, W = the ETF): NC3 > 0 (raw features), while
  nc3_centred = 0 (the global mean removes o);
* the MSE optimum of Lemma 4.2 at d ≥ K+1 (W orthogonal, features an orthonormal frame): NC2B = NC3 = 0, but
  nc2_w_etf = nc3_centred = √(2 − 2√((K−1)/K)) (an orthogonal W is not an ETF; centring the means makes them
  one, so nc2_means_etf = 0);
* the MSE optimum at d = K built on a simplex ETF (value ½c/(d+c), c = d/(K−1)+λK): NC2B = 1/√K, not
  collapsed in the paper's MSE sense, while every standard metric is 0.
"""

from __future__ import annotations

import torch


def class_means(X: torch.Tensor, labels: torch.Tensor, K: int) -> torch.Tensor:
    """(..., d, K) class means."""
    onehot = torch.nn.functional.one_hot(labels, K).to(X.dtype)  # (N, K)
    counts = onehot.sum(0)
    return X @ onehot / counts


def nc1(X: torch.Tensor, labels: torch.Tensor, K: int) -> torch.Tensor:
    means = class_means(X, labels, K)  # (..., d, K)
    within = (X - means[..., labels]).pow(2).sum(dim=(-2, -1)) / X.shape[-1]
    glob = means.mean(dim=-1, keepdim=True)
    between = (means - glob).pow(2).sum(dim=(-2, -1)) / K
    return within / between  # x/0 -> inf, 0/0 -> nan: both are the honest value of the ratio


def etf_matrix(K: int, *, literal: bool = False, dtype=torch.float64, device=None) -> torch.Tensor:
    """E_K = I − 11ᵀ/K (corrected), or the printed I − 11ᵀ with ``literal=True``."""
    ones = torch.ones(K, K, dtype=dtype, device=device)
    return torch.eye(K, dtype=dtype, device=device) - (ones if literal else ones / K)


def _nc2(W: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    G = W @ W.transpose(-1, -2)
    c = ((G * target).sum(dim=(-2, -1)) / target.pow(2).sum()).clamp_min(0.0)
    return (G - c[..., None, None] * target).norm(dim=(-2, -1)) / G.norm(dim=(-2, -1))


def nc2a(W: torch.Tensor, *, literal_ek: bool = False) -> torch.Tensor:
    K = W.shape[-2]
    return _nc2(W, etf_matrix(K, literal=literal_ek, dtype=W.dtype, device=W.device))


def nc2b(W: torch.Tensor) -> torch.Tensor:
    K = W.shape[-2]
    return _nc2(W, torch.eye(K, dtype=W.dtype, device=W.device))


def nc3(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    rows = W[..., labels, :]  # (..., N, d): the row of each sample's class
    Xt = X.transpose(-1, -2)  # (..., N, d)
    cos = (rows * Xt).sum(-1) / (rows.norm(dim=-1) * Xt.norm(dim=-1))
    return 1.0 - cos.mean(dim=-1)


def nc_metrics(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
    """All four metrics of Definition 3.4, batched."""
    K = W.shape[-2]
    return {"nc1": nc1(X, labels, K), "nc2a": nc2a(W), "nc2b": nc2b(W), "nc3": nc3(W, X, labels)}


# ----------------------------------------------------------------------------------------------------
# The field's family (module docstring)
# ----------------------------------------------------------------------------------------------------
STANDARD = ("nc1_pinv", "nc2_means_etf", "nc2_w_etf", "nc3_centred")


def _unit(A: torch.Tensor) -> torch.Tensor:
    """A / ‖A‖_F over the last two dimensions (0/0 = nan: an all-zero matrix has no direction)."""
    return A / A.norm(dim=(-2, -1), keepdim=True)


def _etf_distance(G: torch.Tensor) -> torch.Tensor:
    K = G.shape[-1]
    target = etf_matrix(K, dtype=G.dtype, device=G.device) / (K - 1) ** 0.5
    return (_unit(G) - target).norm(dim=(-2, -1))


def nc1_pinv(X: torch.Tensor, labels: torch.Tensor, K: int) -> torch.Tensor:
    """tr(Σ_W Σ_B^†)/K (Papyan et al.), batched. Σ_B = M̃M̃ᵀ/K has rank ≤ K−1; its pseudo-inverse drops the
    directions below pinv's default relative cutoff (max(d, d)·eps of the largest eigenvalue)."""
    means = class_means(X, labels, K)
    centred = means - means.mean(dim=-1, keepdim=True)
    R = X - means[..., labels]
    sigma_w = R @ R.transpose(-1, -2) / X.shape[-1]
    sigma_b = centred @ centred.transpose(-1, -2) / K
    return (sigma_w * torch.linalg.pinv(sigma_b, hermitian=True)).sum(dim=(-2, -1)) / K


def standard_nc_metrics(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
    """The field's NC metrics (module docstring), batched like :func:`nc_metrics`: a dict of tensors of
    shape ``W.shape[:-2]`` with keys ``nc1_pinv``, ``nc2_means_etf``, ``nc2_w_etf``, ``nc3_centred``."""
    K = W.shape[-2]
    means = class_means(X, labels, K)
    centred = means - means.mean(dim=-1, keepdim=True)  # (..., d, K)
    W_b, centred_b = torch.broadcast_tensors(W, centred.transpose(-1, -2))
    return {
        "nc1_pinv": nc1_pinv(X, labels, K),
        "nc2_means_etf": _etf_distance(centred.transpose(-1, -2) @ centred),
        "nc2_w_etf": _etf_distance(W @ W.transpose(-1, -2)),
        "nc3_centred": (_unit(W_b) - _unit(centred_b)).norm(dim=(-2, -1)),
    }


def both_families(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
    """Definition 3.4's metrics and the field's, in one dict (what an NC result's details show)."""
    return {**nc_metrics(W, X, labels), **standard_nc_metrics(W, X, labels)}
