"""Synthetic instance generators shared across papers."""

from .frames import balanced_labels, embed_in_ones_complement, one_hot, random_orthogonal, simplex_etf, span_rank

__all__ = ["balanced_labels", "embed_in_ones_complement", "one_hot", "random_orthogonal", "simplex_etf", "span_rank"]
