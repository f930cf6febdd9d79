"""Synthetic classification data for the deep neural-collapse results of paper 004 (Theorem 4.3, Assumption 4.4).

* ``gaussian_mixture``: K balanced classes of n inputs in R^{d0}, class means ~ N(0, sep²I), isotropic noise;
  columns ordered class by class (x_{ki} is column k·n + i, as ``balanced_labels``). With noise ≈ sep the
  classes overlap, so the first layer alone cannot collapse them and depth has work to do.
  ``duplicates = m`` overwrites the first m inputs of class 1 with the first m inputs of class 0: identical
  inputs with different labels, the breach of Assumption 4.4 that negative controls use.
* ``context_sequences``: token sequences for the transformer whose label is a function of the context
  (Assumption 4.4 for transformers): label = (sum of the tokens) mod K, read on the last position (the ViT
  reading of App. B.1: the prediction is made on the last token). Drawn by rejection so that every class
  has exactly n distinct sequences (the closed-form GUFM optimum of Lemma 4.2 is for balanced classes).
* ``min_pairwise_distance``: the smallest distance between two inputs (0 ⇔ Assumption 4.4 fails).
"""

from __future__ import annotations

import torch

from .frames import balanced_labels


def gaussian_mixture(ctx, K: int, n: int, d0: int, *, sep: float = 1.0, noise: float = 1.0,
                     duplicates: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """(X0 (d0, Kn), labels (Kn,)), drawn from ``ctx``'s generator."""
    if duplicates > n:
        raise ValueError(f"duplicates={duplicates} exceeds the n={n} samples of a class")
    labels = balanced_labels(K, n, device=ctx.device)
    means = sep * ctx.randn(d0, K)
    X0 = means[:, labels] + noise * ctx.randn(d0, K * n)
    if duplicates and K >= 2:
        X0[:, n:n + duplicates] = X0[:, :duplicates]
    return X0, labels


def min_pairwise_distance(X0: torch.Tensor) -> float:
    """Smallest Euclidean distance between two distinct columns of X0 (inputs)."""
    N = X0.shape[-1]
    if N < 2:
        return float("inf")
    D = torch.cdist(X0.T, X0.T)
    D = D + torch.diag(torch.full((N,), float("inf"), dtype=D.dtype, device=D.device))
    return float(D.min())


def sequences_per_class(K: int, V: int, C: int) -> list[int]:
    """How many of the V^C sequences have Σ tokens ≡ k (mod K), for each k (a convolution over positions)."""
    counts = [1] + [0] * (K - 1)
    for _ in range(C):
        counts = [sum(counts[(k - v) % K] for v in range(V)) for k in range(K)]
    return counts


def context_sequences(ctx, K: int, n: int, V: int, C: int, *,
                      max_draws: int = 100_000) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens (Kn, C) in [0, V), labels (Kn,)): n distinct sequences per class, label = Σ tokens mod K.

    Sequences are ordered class by class. Raises ValueError when V^C is too small to give n distinct
    sequences of every class.
    """
    if min(sequences_per_class(K, V, C)) < n:
        raise ValueError(f"fewer than n={n} sequences of some class exist with V={V}, C={C}, K={K}")
    chosen: dict[int, list[tuple[int, ...]]] = {k: [] for k in range(K)}
    seen: set[tuple[int, ...]] = set()
    draws = 0
    while any(len(v) < n for v in chosen.values()):
        if draws >= max_draws:
            raise ValueError(f"could not draw {n} distinct sequences per class with V={V}, C={C}, K={K}")
        batch = (ctx.rand(256, C) * V).floor().long().clamp_max(V - 1).cpu()
        for row in batch.tolist():
            draws += 1
            key = tuple(row)
            k = sum(key) % K
            if key not in seen and len(chosen[k]) < n:
                seen.add(key)
                chosen[k].append(key)
    tokens = torch.tensor([s for k in range(K) for s in chosen[k]], dtype=torch.long, device=ctx.device)
    return tokens, balanced_labels(K, n, device=ctx.device)
