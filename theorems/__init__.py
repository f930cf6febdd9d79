"""A numerical verification suite for theorems on self-supervised / contrastive learning and neural collapse.

    >>> import theorems
    >>> theorems.ids()
    >>> ev = theorems.check("neural_collapse.lemma_4_2", K=4, n=3, d=6, lam=0.05, loss="mse", seed=0)
    >>> ev.holds, ev.observed, ev.bound, ev.tightness

See README.md for the verdict table and DESIGN.md for the contract.
"""

from .core import (
    AS_PRINTED,
    CORRECTED,
    Claim,
    DeviceUnavailable,
    Evidence,
    HypothesisViolation,
    ParameterError,
    Result,
    Status,
    UnknownResult,
    check,
    get,
    ids,
)

__version__ = "0.1.0"

__all__ = [
    "AS_PRINTED", "CORRECTED", "Claim", "DeviceUnavailable", "Evidence", "HypothesisViolation",
    "ParameterError", "Result", "Status", "UnknownResult", "check", "get", "ids", "__version__",
]
