"""Shared machinery: results, evidence, the registry, device and seeding, suite profiles, recording."""

from .context import Context, resolve_device
from .errors import DeviceUnavailable, HypothesisViolation, ParameterError, UnknownResult
from .evidence import Claim, Evidence
from .registry import check, get, ids, register
from .result import AS_PRINTED, CORRECTED, Outcome, Param, Result, Status, Violation
from .suite import SUITES, Suite, get_suite

__all__ = [
    "AS_PRINTED", "CORRECTED", "Claim", "Context", "DeviceUnavailable", "Evidence", "HypothesisViolation",
    "Outcome", "Param", "ParameterError", "Result", "SUITES", "Status", "Suite", "UnknownResult",
    "Violation", "check", "get", "get_suite", "ids", "register", "resolve_device",
]
