"""Language-modelling data for the transformer results of paper 004 (Section 3, Assumption 4.4): every token
position of every sequence is a sample, and its label is a function of its context (the tokens up to it).

``prefix_sum_sequences(K, V, C)``: all V^C sequences of C tokens from a vocabulary of V, each position c of
sequence s labelled (Σ_{c' ≤ c} token_{c'}) mod K. The label depends only on the context, so identical contexts
(the same prefix, in different sequences) carry the same label: Assumption 4.4 for transformers. Taking every
sequence makes every position's labels exactly balanced when K divides V (the prefix sum of uniform tokens
mod K is uniform), so the classes are balanced over all N·C samples, which Lemma 4.2's closed-form optimum
assumes; ``balanced`` reports it, and the results refuse unbalanced choices.

Samples are ordered sequence-major (column s·C + c), as ``models.features`` with ``readout="all"``.
"""

from __future__ import annotations

import itertools

import torch


def prefix_sum_sequences(K: int, V: int, C: int, *, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens (V^C, C) long, labels (V^C·C,) long): every sequence, every position labelled by its prefix sum."""
    tokens = torch.tensor(list(itertools.product(range(V), repeat=C)), dtype=torch.long, device=device)
    labels = tokens.cumsum(dim=1).remainder(K).reshape(-1)
    return tokens, labels


def balanced(labels: torch.Tensor, K: int) -> bool:
    counts = torch.bincount(labels, minlength=K)
    return bool((counts == counts[0]).all()) and len(counts) == K


def distinct_contexts(tokens: torch.Tensor) -> int:
    """How many distinct contexts (prefixes) the samples have: the number of the GUFM's equivalence classes."""
    return len({tuple(row[: c + 1]) for row in tokens.tolist() for c in range(tokens.shape[1])})


def context_count(V: int, C: int) -> int:
    """Distinct contexts of ``prefix_sum_sequences(K, V, C)`` without building it: every prefix of length
    1..C occurs, Σ_{c=1}^{C} V^c of them."""
    return sum(V ** c for c in range(1, C + 1))
