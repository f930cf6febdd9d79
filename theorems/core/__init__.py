"""Shared machinery: results, evidence, the registry, device and seeding, suite profiles, recording.

The names below load on first use (module ``__getattr__``), so that ``import theorems`` and the command
line's ``list`` / ``show`` do not import torch (via ``context``) or numpy (via ``evidence``).
"""

from __future__ import annotations

from .lazy import lazy_names

_WHERE = {
    "Context": "context", "resolve_device": "context",
    "DeviceUnavailable": "errors", "HypothesisViolation": "errors", "IdentityFailure": "errors",
    "ParameterError": "errors", "PluginError": "errors", "ResourceLimit": "errors", "SuiteError": "errors", "UnknownResult": "errors",
    "Claim": "evidence", "Evidence": "evidence",
    "Cost": "params", "seed_param": "params",
    "check": "registry", "get": "registry", "ids": "registry", "register": "registry",
    "AS_PRINTED": "result", "CORRECTED": "result", "Binding": "result", "Logic": "result", "Outcome": "result",
    "Paper": "result", "Param": "result", "ProofErratum": "result", "Result": "result", "Status": "result",
    "Violation": "result",
    "SUITES": "suite", "Suite": "suite", "get_suite": "suite",
}

__all__ = sorted(_WHERE)
__getattr__, __dir__ = lazy_names(globals(), {name: f"{__name__}.{module}" for name, module in _WHERE.items()})
