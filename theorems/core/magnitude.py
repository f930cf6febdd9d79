"""How wrong a failed claim is: one number that means something for its kind of bound.

The relative slack (`Claim.slack`) says *whether* a claim fails and orders failures, but it saturates at −1
as soon as the observed value is on the far side of 0 from the bound, or the bound is 0: half the errata
then read "−1", the floor of the measure. The magnitude of a failure is instead

* a **ratio**, observed/bound, where the bound is a finite non-zero number of the same sign as the observed
  value ("5.82× the bound"): the size a reader would quote;
* otherwise the **violation** in the claim's own units, how far the observed value lies beyond the bound
  itself (observed − bound for ≤, bound − observed for ≥, |observed − bound| for =), with the unit named
  where the claim's description says it (standard errors, a distance, a probability, an exponent...).

Only the claim's numbers are used: the bound is "the bound", never "printed" (a threshold may be the suite's
choice; what the paper prints is the result's statement). The page's errata, the CLI, pytest's failure
message and ``repr(evidence)`` all quote :func:`how_wrong`, so they show the same number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from .numbers import fmt_pair, ratio_text  # noqa: F401  (ratio_text: re-exported)

if TYPE_CHECKING:
    from .evidence import Claim, Evidence

RATIO, VIOLATION, UNDEFINED = "ratio", "violation", "undefined"

# The unit of a claim's value, read from its description (Claim.message): first match wins. A claim whose
# description names none reads "in the claim's own units" (its description says what the value is).
UNITS: list[tuple[str, str]] = [
    (r"standard error", "standard errors"),
    (r"fitted exponent|fitted decay rate|\bslope\b", "an exponent"),
    (r"\bP\[|probabilit", "a probability"),
    (r"\bdistance\b|‖[^‖]*−[^‖]*‖(?!\s*/)", "a distance"),
    (r"σ₂/σ₁", "σ₂/σ₁, a ratio of singular values"),
    (r"relative|share|/\s*‖|/\s*max|/\s*\|", "a relative error"),
    (r"\bhours\b", "hours"),
    (r"accuracy", "accuracy points"),
]
OWN_UNITS = "in the claim's own units"
_REL = {"<=": "≤", ">=": "≥", "==": "="}


@dataclass(frozen=True)
class Magnitude:
    """The size of one failed claim: ``value`` and its ``kind`` (ratio, violation, or undefined for a NaN),
    with the ``unit`` of a violation."""

    value: float
    kind: str
    unit: str = ""

    def __str__(self) -> str:
        if self.kind == RATIO:
            return f"{ratio_text(self.value)}× the bound"
        if self.kind == VIOLATION:
            return f"{self.value:.3g} beyond the bound ({self.unit})"
        return "no size: a side of the claim is not a number"


def unit_of(claim: "Claim") -> str:
    for pattern, unit in UNITS:
        if re.search(pattern, claim.message or ""):
            return unit
    return OWN_UNITS


def magnitude(claim: "Claim") -> Magnitude | None:
    """The size of ``claim``'s failure; None for a claim that passed or asserts nothing."""
    if claim.passed or claim.relation not in _REL:
        return None
    a, b = claim.observed, claim.bound
    if math.isnan(a) or math.isnan(b):
        return Magnitude(math.nan, UNDEFINED)
    if math.isfinite(a) and math.isfinite(b) and b != 0 and a / b > 0:
        return Magnitude(a / b, RATIO)
    beyond = {"<=": a - b, ">=": b - a, "==": abs(a - b)}[claim.relation]
    return Magnitude(beyond, VIOLATION, unit_of(claim))


def how_wrong(claim: "Claim") -> str:
    """'name: observed, bound ≤ B (size)' for a failed claim; '' for one that passed."""
    size = magnitude(claim)
    if size is None:
        return ""
    observed, bound = fmt_pair(claim.observed, claim.bound)
    return f"{claim.name}: {observed}, bound {_REL[claim.relation]} {bound} ({size})"


def _severity(claim: "Claim") -> tuple:
    """Ratios first, the one farthest from 1 (in log) first; then violations, by the relative slack."""
    size = magnitude(claim)
    if size is not None and size.kind == RATIO:
        return (0, -abs(math.log(size.value)))
    return (1, claim.slack if not math.isnan(claim.slack) else -math.inf)


def worst(claims: Sequence["Claim"]) -> "Claim | None":
    """The failed ``bound`` claim to quote for an instance (see `_severity`)."""
    failed = [c for c in claims if c.kind == "bound" and not c.passed]
    return min(failed, key=_severity) if failed else None


def error_size(evidence: "Evidence") -> str:
    """How wrong the statement is on ``evidence``: `how_wrong` of its worst failed bound claim ('' if none)."""
    c = worst(evidence.claims)
    return how_wrong(c) if c is not None else ""


def short_size(evidence: "Evidence") -> str:
    """'claim: size' of ``evidence``'s worst failed bound claim ('' if none): the one-line form."""
    c = worst(evidence.claims)
    return f"{c.name}: {magnitude(c)}" if c is not None else ""


def headline(evidence: "Evidence") -> "Claim | None":
    """The one claim the headline's numbers, slack and tightness all come from (`Evidence.headline_claim`): the
    claim the evidence names as its headline, else the bound claim with the least slack."""
    return evidence.headline_claim()
