"""Exact quantities of paper 003 on a finite population (the slides' definitions, as finite sums).

Given a :class:`~theorems.data.finite_population.Population` and its embeddings ``F = f(views)`` (N, m, d),
``F0 = f(clean)`` (N, d), everything here is a finite sum, so the theorem checks are deterministic
inequalities with float64 rounding as the only tolerance:

* ``augmented_distance``: d_A(x_i, x_j) = min over views of ‖x_i' − x_j'‖ (Def. D6), exact zeros kept;
* ``max_clique``: exact maximum clique (Bron–Kerbosch with pivoting; classes here have ≤ ~30 points);
* ``concentration``: for each candidate δ, the main parts C_k⁰ (a maximum clique of {d_A ≤ δ} per class) and
  σ(δ) = min_k |C_k⁰| / n_k (Def. 1 with uniform point weights);
* ``diameters``: diam f(A(x)), so S_ε = {diam ≤ ε} and R_ε = P[diam > ε] (D8);
* ``alignment``: L_align = E_x Σ_ab w_a w_b ‖f(x_a) − f(x_b)‖² (D9);
* ``class_centres``: μ_k = E_{x∈C_k} Σ_a w_a f(x_a) (D4); ``nearest_centre``: G_f on the clean points, ties
  counted as errors;
* ``lipschitz_on_support``: the exact Lipschitz constant of f restricted to the support (the proofs use L only
  there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..data.finite_population import Population


def pairwise_distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Euclidean distances without the matmul shortcut, so identical points give exactly 0."""
    return torch.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist")


def augmented_distance(views: torch.Tensor) -> torch.Tensor:
    """(N, N) matrix d_A(x_i, x_j) = min_{a, b} ‖views[i, a] − views[j, b]‖."""
    N, m, D = views.shape
    flat = views.reshape(N * m, D)
    return pairwise_distance(flat, flat).reshape(N, m, N, m).amin(dim=(1, 3))


def max_clique(adj: list[set[int]]) -> list[int]:
    """A maximum clique of the graph with adjacency sets ``adj`` (vertices 0..n−1), exact."""
    best: list[int] = []

    def expand(R: list[int], P: set[int], X: set[int]) -> None:
        nonlocal best
        if not P and not X:
            if len(R) > len(best):
                best = list(R)
            return
        if len(R) + len(P) <= len(best):  # cannot beat the incumbent
            return
        pivot = max(P | X, key=lambda u: len(adj[u] & P))
        for v in list(P - adj[pivot]):
            expand(R + [v], P & adj[v], X & adj[v])
            P = P - {v}
            X = X | {v}

    expand([], set(range(len(adj))), set())
    return sorted(best)


def greedy_clique(adj: list[set[int]]) -> list[int]:
    """A clique built greedily by degree: admissible for Def. 1 (any clique is), generally smaller."""
    order = sorted(range(len(adj)), key=lambda u: -len(adj[u]))
    clique: list[int] = []
    for v in order:
        if all(v in adj[u] for u in clique):
            clique.append(v)
    return sorted(clique)


@dataclass
class Concentration:
    deltas: torch.Tensor  # (Dn,) candidate δ
    sigma: torch.Tensor  # (Dn,) σ(δ)
    main: torch.Tensor  # (Dn, N) bool, the union of the main parts C_k⁰
    DA: torch.Tensor  # (N, N) augmented distances


def candidate_deltas(DA: torch.Tensor, labels: torch.Tensor, max_count: int) -> torch.Tensor:
    """0 and the distinct within-class d_A values (thinned to ``max_count`` quantiles, always keeping the ends)."""
    same = labels[:, None] == labels[None, :]
    vals = torch.unique(torch.cat([DA[same], DA.new_zeros(1)]))
    if vals.numel() > max_count:
        idx = torch.linspace(0, vals.numel() - 1, max_count, device=vals.device).round().long()
        vals = torch.unique(vals[idx])
    return vals


def concentration(pop: Population, deltas: torch.Tensor | None = None, max_deltas: int = 12,
                  clique: str = "exact", DA: torch.Tensor | None = None) -> Concentration:
    DA = augmented_distance(pop.views) if DA is None else DA
    if deltas is None:
        deltas = candidate_deltas(DA, pop.labels, max_deltas)
    sizes = pop.class_sizes()
    members = [torch.nonzero(pop.labels == k).flatten().tolist() for k in range(pop.K)]
    DAc = DA.cpu()
    # the cliques are found in Python on the CPU; the results go back to the population's device
    main = torch.zeros(len(deltas), pop.N, dtype=torch.bool, device="cpu")
    sigma = torch.ones(len(deltas), dtype=DA.dtype, device="cpu")
    finder = max_clique if clique == "exact" else greedy_clique
    for t, delta in enumerate(deltas.tolist()):
        for k, idx in enumerate(members):
            if not idx:
                continue
            close = (DAc[idx][:, idx] <= delta).numpy()
            adj = [set(j for j in range(len(idx)) if close[i, j] and j != i) for i in range(len(idx))]
            chosen = [idx[j] for j in finder(adj)]
            main[t, chosen] = True
            sigma[t] = min(float(sigma[t]), len(chosen) / int(sizes[k]))
    return Concentration(deltas, sigma.to(DA.device), main.to(DA.device), DA)


def diameters(F: torch.Tensor) -> torch.Tensor:
    """(N,) diameter of each embedded view set f(A(x))."""
    return pairwise_distance(F, F).amax(dim=(1, 2))


def candidate_eps(diam: torch.Tensor, max_count: int) -> torch.Tensor:
    """0 and the distinct diameters: R_ε is a step function that only changes there."""
    vals = torch.unique(torch.cat([diam, diam.new_zeros(1)]))
    if vals.numel() > max_count:
        idx = torch.linspace(0, vals.numel() - 1, max_count, device=vals.device).round().long()
        vals = torch.unique(vals[idx])
    return vals


def alignment_per_point(F: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """(N,) Σ_ab w_a w_b ‖f(x_a) − f(x_b)‖²: positives drawn i.i.d. from A(x)."""
    D2 = pairwise_distance(F, F) ** 2
    return torch.einsum("na,nab,nb->n", w, D2, w)


def alignment(F: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return alignment_per_point(F, w).mean()


def view_means(F: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """(N, d) m(x) = Σ_a w_a f(x_a)."""
    return torch.einsum("na,nad->nd", w, F)


def class_centres(F: torch.Tensor, w: torch.Tensor, labels: torch.Tensor, K: int) -> torch.Tensor:
    """(K, d) μ_k = E_{x∈C_k} m(x)."""
    M = view_means(F, w)
    onehot = torch.nn.functional.one_hot(labels, K).to(F.dtype)
    return (onehot.T @ M) / onehot.sum(0).clamp_min(1)[:, None]


def centre_distances(F0: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """(N, K) ‖f(x) − μ_k‖² expanded, as the proof of Theorem 2 uses it."""
    return (F0 ** 2).sum(1, keepdim=True) + (mu ** 2).sum(1)[None, :] - 2 * F0 @ mu.T


def nearest_centre(F0: torch.Tensor, mu: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(correct (N,) bool, margin (N,)): margin = min_{ℓ≠y} ‖f−μ_ℓ‖² − ‖f−μ_y‖²; a tie (margin ≤ 0) is an error."""
    D2 = centre_distances(F0, mu)
    own = D2.gather(1, labels[:, None]).squeeze(1)
    other = D2.scatter(1, labels[:, None], float("inf")).amin(1)
    margin = other - own
    return margin > 0, margin


def lipschitz_on_support(pop: Population, F: torch.Tensor, F0: torch.Tensor) -> float:
    """max ‖f(a) − f(b)‖ / ‖a − b‖ over distinct support points (views and clean points); inf if f is not a
    function of its input there."""
    X = torch.cat([pop.views.reshape(-1, pop.views.shape[-1]), pop.clean])
    Y = torch.cat([F.reshape(-1, F.shape[-1]), F0])
    dx, dy = pairwise_distance(X, X), pairwise_distance(Y, Y)
    same = dx == 0
    if bool((same & (dy > 0)).any()):
        return float("inf")
    ratio = torch.where(same, torch.zeros_like(dx), dy / dx.where(~same, torch.ones_like(dx)))
    return float(ratio.max())


def embedded_augmented_distance(F: torch.Tensor) -> torch.Tensor:
    """(N, N) d_A in embedding space, the δ_f of the sharper Theorem 2 variant (a)."""
    return augmented_distance(F)


# ------------------------------------------------------------------------------------------------------
# Exact population losses (InfoNCE with one negative, the linear loss, the Barlow Twins correlation)
# ------------------------------------------------------------------------------------------------------
PAIRINGS = ("iid", "distinct")


def pair_weights(w: torch.Tensor, pairing: str = "iid") -> torch.Tensor:
    """(N, m, m) weights of the positive pair (x₁, x₂) within A(x): i.i.d. draws (the reading used throughout; the slides use A(x) as a set and as a distribution) or
    two distinct views (without replacement)."""
    P = w[:, :, None] * w[:, None, :]
    if pairing == "distinct":
        eye = torch.eye(w.shape[1], dtype=torch.bool, device=w.device)
        P = P.masked_fill(eye, 0.0)
        P = P / P.sum(dim=(1, 2), keepdim=True)
    return P


def infonce_terms(F: torch.Tensor, w: torch.Tensor, tau: float = 1.0, pairing: str = "iid") -> dict:
    """Exact InfoNCE of D1 (one negative x⁻ ∈ A(x'), x' an independent sample) at temperature τ, for a batch
    ``F`` (..., N, m, d), with the expectations it is built from:

    loss = E[−s⁺/τ + log(e^{s⁺/τ} + e^{s⁻/τ})], pos = E s⁺, neg = E s⁻, lse = E log(e^{s⁺/τ} + e^{s⁻/τ}),
    align = E‖f₁ − f₂‖²  (s⁺ = f₁ᵀf₂, s⁻ = f₁ᵀf⁻)."""
    N = F.shape[-3]
    P = pair_weights(w, pairing) / N  # over (x, x₁, x₂)
    Wn = w / N  # over (x', x⁻)
    spos = torch.einsum("...nad,...nbd->...nab", F, F)
    sneg = torch.einsum("...nad,...kcd->...nakc", F, F)
    lse = torch.logaddexp(spos[..., :, :, :, None, None] / tau, sneg[..., :, :, None, :, :] / tau)
    lse_mean = torch.einsum("nab,...nabkc,kc->...", P, lse, Wn)
    pos = torch.einsum("nab,...nab->...", P, spos)
    p1 = P.sum(-1)  # marginal of x₁ under the pairing
    neg = torch.einsum("na,...nakc,kc->...", p1, sneg, Wn)
    sq = (F ** 2).sum(-1)
    align = torch.einsum("nab,...nab->...", P, sq[..., :, :, None] + sq[..., :, None, :] - 2 * spos)
    return {"loss": -pos / tau + lse_mean, "pos": pos, "neg": neg, "lse": lse_mean, "align": align}


def correlation(F: torch.Tensor, w: torch.Tensor, pairing: str = "iid") -> torch.Tensor:
    """(..., d, d) C = E_x E_{x₁,x₂∈A(x)} f(x₁) f(x₂)ᵀ (D2)."""
    N = F.shape[-3]
    P = pair_weights(w, pairing) / N
    return torch.einsum("nab,...nai,...nbj->...ij", P, F, F)


def second_moment(F: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """(..., d) E_x E_{x'∈A(x)} f_i(x')², the slides' uncentred BT normalisation."""
    return torch.einsum("na,...nai->...i", w / F.shape[-3], F ** 2)


def bt_normalize(F: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Scale every coordinate so that its population second moment is exactly 1 (the slides' uncentred BT normalisation)."""
    return F / second_moment(F, w).sqrt()[..., None, None, :]


def barlow_twins_loss(C: torch.Tensor, lam: float) -> torch.Tensor:
    """L_CC = Σ_i (1 − C_ii)² + λ Σ_{i≠j} C_ij² (D2, with the index typo fixed)."""
    diag = torch.diagonal(C, dim1=-2, dim2=-1)
    off = (C ** 2).sum((-2, -1)) - (diag ** 2).sum(-1)
    return ((1 - diag) ** 2).sum(-1) + lam * off


def infonce_point_pairs(F: torch.Tensor, w: torch.Tensor, pairing: str = "iid") -> torch.Tensor:
    """(N, N) E_{x₁,x₂∈A(x_n), x⁻∈A(x_j)} log(e^{f₁ᵀf₂} + e^{f₁ᵀf⁻}) (τ = 1): averaged over classes it gives the
    per-pair T_kℓ of the Theorem 3 repair, averaged over everything L_2."""
    Pn = pair_weights(w, pairing)
    spos = torch.einsum("nad,nbd->nab", F, F)
    sneg = torch.einsum("nad,kcd->nakc", F, F)
    lse = torch.logaddexp(spos[:, :, :, None, None], sneg[:, :, None, :, :])
    return torch.einsum("nab,nabkc,kc->nk", Pn, lse, w)


# ------------------------------------------------------------------------------------------------------
# Many negatives: SimCLR and the revised InfoNCE of the experiments (slide "Experiments", last table)
# ------------------------------------------------------------------------------------------------------
def _per_model(value, F: torch.Tensor) -> torch.Tensor | float:
    """A float, or a tensor with one value per model (F's leading dimensions), shaped to broadcast over (N, m, …)."""
    if isinstance(value, torch.Tensor):
        return value.reshape(*value.shape, 1, 1)
    return float(value)


def negative_lse(F: torch.Tensor, w: torch.Tensor, tau, negatives) -> torch.Tensor:
    """(..., N, m) log(n · E_{x'} E_{x⁻∈A(x')} e^{f(x_a)ᵀf(x⁻)/τ}) for every anchor view x_a: the log-sum-exp over n
    negatives with the sum replaced by n times its expectation (the population form of n in-batch negatives,
    exact as n → ∞ up to O(1/√n) fluctuations of the sum). ``w`` (N, m) or one per model (..., N, m); ``tau``
    and ``negatives`` a number or one per model."""
    N, m, d = F.shape[-3:]
    flat = F.reshape(*F.shape[:-3], N * m, d)
    tau_ = _per_model(tau, F)
    S = flat @ flat.transpose(-1, -2) / tau_
    log_w = torch.log(w / N).reshape(*w.shape[:-2], 1, N * m)
    log_n = torch.log(negatives).reshape(*negatives.shape, 1) if isinstance(negatives, torch.Tensor) \
        else math.log(negatives)
    return (torch.logsumexp(S + log_w, dim=-1) + log_n).reshape(*F.shape[:-3], N, m)


def _pairs(w: torch.Tensor, pairing: str) -> torch.Tensor:
    """(..., N, m, m) weights of (x, x₁, x₂) for w (..., N, m): pair_weights over the population."""
    P = w[..., :, :, None] * w[..., :, None, :]
    if pairing == "distinct":
        eye = torch.eye(w.shape[-1], dtype=torch.bool, device=w.device)
        P = P.masked_fill(eye, 0.0)
        P = P / P.sum(dim=(-2, -1), keepdim=True)
    return P / w.shape[-2]


def simclr_loss(F: torch.Tensor, w: torch.Tensor, tau, negatives, pairing: str = "iid") -> torch.Tensor:
    """(...,) E_{x, x₁, x₂}[−s⁺/τ + log(e^{s⁺/τ} + Σ_{i≤n} e^{s_i⁻/τ})], the sum over n negatives in the population
    form of :func:`negative_lse` (SimCLR's NT-Xent with n negatives per anchor)."""
    tau_ = _per_model(tau, F)
    spos = torch.einsum("...nad,...nbd->...nab", F, F) / (tau_[..., None] if isinstance(tau_, torch.Tensor) else tau_)
    neg = negative_lse(F, w, tau, negatives)
    val = torch.logaddexp(spos, neg[..., :, :, None]) - spos
    return (_pairs(w, pairing) * val).sum((-3, -2, -1))


def revised_loss(F: torch.Tensor, w: torch.Tensor, tau, lam, negatives, pairing: str = "iid") -> torch.Tensor:
    """(...,) the revised InfoNCE of the slides' last experiment, E‖f(x₁) − f(x₂)‖² + λ E log Σ_{i≤n} e^{f(x₁)ᵀf(x_i⁻)/τ}:
    alignment alone in the first term, the positive pair absent from the log-sum-exp (negatives in the
    population form of :func:`negative_lse`). ``lam`` a number or one per model."""
    N = F.shape[-3]
    sq = (F ** 2).sum(-1)
    spos = torch.einsum("...nad,...nbd->...nab", F, F)
    align = (_pairs(w, pairing) * (sq[..., :, :, None] + sq[..., :, None, :] - 2 * spos)).sum((-3, -2, -1))
    spread = ((w / N) * negative_lse(F, w, tau, negatives)).sum((-2, -1))
    return align + lam * spread


def held_out_error(F: torch.Tensor, w: torch.Tensor, labels: torch.Tensor, K: int, G: torch.Tensor,
                   test_labels: torch.Tensor) -> torch.Tensor:
    """(S,) error of the nearest-centre rule G_f of each model on held-out points: the centres μ_k from the
    training views F (S, N, m, d), the embedded test points G (S, n, d); ties count as errors."""
    onehot = torch.nn.functional.one_hot(labels, K).to(F.dtype)
    mu = torch.einsum("nk,snd->skd", onehot, torch.einsum("na,snad->snd", w, F)) / onehot.sum(0)[None, :, None]
    D2 = (G ** 2).sum(-1, keepdim=True) + (mu ** 2).sum(-1)[:, None, :] - 2 * G @ mu.transpose(1, 2)
    own = D2.gather(2, test_labels[None, :, None].expand(G.shape[0], -1, 1)).squeeze(2)
    other = D2.scatter(2, test_labels[None, :, None].expand(G.shape[0], -1, 1), torch.inf).amin(2)
    return (other <= own).to(F.dtype).mean(1)


def delta_at_sigma(pop: Population, sigma0: float, DA: torch.Tensor | None = None) -> float:
    """The smallest δ at which Definition 1 admits σ ≥ σ₀: min{δ : σ(δ) ≥ σ₀}, by bisection over the distinct
    within-class augmented distances (σ(δ) is a nondecreasing step function that only jumps there), each σ(δ)
    from exact maximum cliques. Smaller is sharper concentration."""
    DA = augmented_distance(pop.views) if DA is None else DA
    same = pop.labels[:, None] == pop.labels[None, :]
    cands = torch.unique(torch.cat([DA[same], DA.new_zeros(1)]))
    lo, hi = 0, cands.numel() - 1  # σ(max within-class d_A) = 1 ≥ σ₀
    while lo < hi:
        mid = (lo + hi) // 2
        if float(concentration(pop, deltas=cands[mid:mid + 1], DA=DA).sigma[0]) >= sigma0:
            hi = mid
        else:
            lo = mid + 1
    return float(cands[lo])
