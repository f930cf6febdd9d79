"""A numerical verification suite for theorems on self-supervised / contrastive learning and neural collapse.

    >>> import theorems
    >>> theorems.ids()
    >>> ev = theorems.check("neural_collapse.lemma_4_2", K=4, n=3, d=6, lam=0.05, loss="mse", seed=0)
    >>> ev.holds, ev.observed, ev.bound, ev.tightness

See README.md for the verdict table, the contract and where things go.

``import theorems`` imports neither torch nor a paper package: the public names load on first use (module
``__getattr__``), and the results are registered on the first ``ids()`` / ``get()`` / ``check()``. That
keeps ``python -m theorems list`` instant.
"""

from __future__ import annotations

from .core.lazy import lazy_names

__version__ = "0.1.0"

_WHERE = {
    "AS_PRINTED": "result", "CORRECTED": "result", "Result": "result", "Status": "result",
    "Claim": "evidence", "Evidence": "evidence",
    "DeviceUnavailable": "errors", "HypothesisViolation": "errors", "IdentityFailure": "errors",
    "ParameterError": "errors", "PluginError": "errors", "ResourceLimit": "errors", "SuiteError": "errors", "UnknownResult": "errors",
    "check": "registry", "get": "registry", "ids": "registry",
}

__all__ = [
    "AS_PRINTED", "CORRECTED", "Claim", "DeviceUnavailable", "Evidence", "HypothesisViolation", "IdentityFailure",
    "ParameterError", "PluginError", "ResourceLimit", "Result", "Status", "SuiteError", "UnknownResult", "check", "get", "ids",
    "__version__",
]
__getattr__, __dir__ = lazy_names(globals(), {name: f"{__name__}.core.{module}" for name, module in _WHERE.items()})
