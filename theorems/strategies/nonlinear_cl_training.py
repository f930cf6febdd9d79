"""Strategies for the BatchNorm and training results of paper 001 (``nonlinear_cl.batchnorm``; the training
results ``nonlinear_cl.figure_4`` and ``nonlinear_cl.table_1`` search only their registered instances: they are
empirical claims about one protocol).

Every range comes from the results' `Param` declarations (:func:`declared_params`): BatchNorm's draws reach the
places where its hypotheses nearly bind (``weak_rf`` down to 1e-3: the secular equation of Corollary 3 near
degeneracy; ``n_small``: σ → 0), and the conformance worst-case search steers there with ``hypothesis.target``.
"""

from __future__ import annotations

from ._common import declared_params

__all__ = ["batchnorm_params"]


def batchnorm_params():
    """Lemma 6 / Corollary 3 instances drawn from the declarations of ``nonlinear_cl.batchnorm``."""
    return declared_params("nonlinear_cl.batchnorm")
