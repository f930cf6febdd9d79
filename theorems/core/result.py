"""What a registered result is: its statement as printed, its correction, its status and its parameters."""

from __future__ import annotations

import enum
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import HypothesisViolation

AS_PRINTED = "as_printed"
CORRECTED = "corrected"


class Status(str, enum.Enum):
    """The verdict on a printed statement (see DESIGN.md, 'Verdicts')."""

    VERIFIED = "verified"
    VERIFIED_CORRECTED = "verified-corrected"
    REFUTED = "refuted"
    VACUOUS = "vacuous"
    TREND = "trend"

    def __str__(self) -> str:  # the value is what users read and what JSON stores
        return self.value


@dataclass(frozen=True)
class Param:
    """One parameter of a result: its type, default, meaning and the range the hypotheses allow.

    ``kind`` is ``int``, ``float``, ``str`` or ``bool``. Type and ``choices`` problems are structural: no
    instance can be built from them, so they raise even under ``allow_violation=True``. Ranges that are
    hypotheses of the theorem are checked by the result's own ``hypotheses`` function instead, so that a
    negative control can step outside them on purpose.
    """

    name: str
    kind: type
    default: Any
    doc: str
    valid: str = ""
    choices: tuple[Any, ...] | None = None

    def coerce(self, value: Any, result_id: str) -> Any:
        def bad(msg: str) -> HypothesisViolation:
            return HypothesisViolation(
                f"{self.name} is {msg}", f"{self.doc}", result_id=result_id,
                values={self.name: value}, bypassable=False,
            )

        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise bad("an integer")
            value = int(value)
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise bad("a real number")
            value = float(value)
        elif self.kind is bool:
            if not isinstance(value, bool):
                raise bad("a boolean")
        elif self.kind is str:
            if not isinstance(value, str):
                raise bad("a string")
        if self.choices is not None and value not in self.choices:
            raise bad(f"one of {', '.join(map(repr, self.choices))}")
        return value


@dataclass(frozen=True)
class Violation:
    """One violated hypothesis: its name, why, and whether a negative control may step over it."""

    hypothesis: str
    message: str
    names: tuple[str, ...] = ()
    bypassable: bool = True


@dataclass(frozen=True)
class Outcome:
    """What a result's evaluation produces; `theorems.check` wraps it into an :class:`Evidence`."""

    observed: float
    bound: float
    tightness: float | None
    claims: Sequence[Any]
    details: Mapping[str, Any]
    converged: bool | None = None
    # Hypotheses only the evaluation can decide (e.g. a supremum estimated on a sample): `check` raises
    # HypothesisViolation for them after evaluating, unless allow_violation=True (a negative control).
    violations: Sequence["Violation"] = ()


@dataclass(frozen=True)
class Result:
    """A registered result. ``evaluate(params, form, ctx) -> Outcome`` runs one instance.

    ``hypotheses(params, form) -> list[Violation]`` lists what the parameters violate for that form.
    ``report_instances(suite) -> iterable of (form, params, allow_violation)`` gives the instances the report runs,
    negative controls included (marked with ``allow_violation``).
    """

    id: str
    paper: str
    paper_title: str
    title: str
    statement: str
    status: Status
    params: tuple[Param, ...]
    evaluate: Callable[..., Outcome]
    hypotheses: Callable[[dict, str], list[Violation]]
    correction: str | None = None
    correction_reason: str | None = None
    forms: tuple[str, ...] = (AS_PRINTED,)
    report_instances: Callable[[Any], Iterable[tuple[str, dict, bool]]] | None = None
    module: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def default_form(self) -> str:
        """The form whose status the suite asserts: the corrected one where a correction exists."""
        return CORRECTED if CORRECTED in self.forms else AS_PRINTED

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def __repr__(self) -> str:
        return f"<Result {self.id} [{self.status}] {self.title}>"
