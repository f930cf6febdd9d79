"""Shared machinery: results, evidence, the registry, device and seeding, suite profiles, recording.

The names below load on first use (module ``__getattr__``), so that ``import theorems`` and the command
line's ``list`` / ``show`` do not import torch (via ``context``) or numpy (via ``evidence``).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Context": "context", "resolve_device": "context",
    "DeviceUnavailable": "errors", "HypothesisViolation": "errors", "IdentityFailure": "errors",
    "ParameterError": "errors", "UnknownResult": "errors",
    "Claim": "evidence", "Evidence": "evidence",
    "check": "registry", "get": "registry", "ids": "registry", "register": "registry",
    "AS_PRINTED": "result", "CORRECTED": "result", "Binding": "result", "Logic": "result", "Outcome": "result",
    "Param": "result", "ProofErratum": "result", "Result": "result", "Status": "result", "Violation": "result",
    "SUITES": "suite", "Suite": "suite", "get_suite": "suite",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    try:
        module = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
