"""Metrics shared across papers (neural collapse, ...)."""

from .neural_collapse import class_means, etf_matrix, nc1, nc2a, nc2b, nc3, nc_metrics

__all__ = ["class_means", "etf_matrix", "nc1", "nc2a", "nc2b", "nc3", "nc_metrics"]
