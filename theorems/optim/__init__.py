"""Batched optimisers and manifold helpers shared by every paper."""

from .lbfgs import GTOL, MAX_ITER, NONFINITE, STALLED, LbfgsResult, autograd_objective, batched_lbfgs
from .manifolds import center, feasibility_residual, ln, orthonormal_basis_of_ones_complement, random_point, tangent

__all__ = [
    "GTOL", "MAX_ITER", "NONFINITE", "STALLED", "LbfgsResult", "autograd_objective", "batched_lbfgs",
    "center", "feasibility_residual", "ln", "orthonormal_basis_of_ones_complement", "random_point", "tangent",
]
