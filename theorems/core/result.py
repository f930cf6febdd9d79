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
    OPEN = "open"

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
class Logic:
    """The quantifier structure of the printed statement, in words and in data.

    ``for_all``: what the statement quantifies universally (the instances: data, dimensions, constants
    inside the hypotheses). ``exists``: what it asserts exists (a witness W, a constant), "" if nothing.
    A failure of an existential statement on *one* witness refutes nothing: its counterexamples must carry
    a certificate that no admissible witness works (``Evidence.details["no_witness_certificate"]``).
    """

    for_all: str
    exists: str = ""

    @property
    def existential(self) -> bool:
        return bool(self.exists)


@dataclass(frozen=True)
class ProofErratum:
    """A broken step of the paper's proof, with an instance that shows it.

    ``step``: where (section, equation, lemma); ``printed``: what the proof says; ``why``: why it fails,
    with the numbers; ``params`` (+ ``form``): the instance, replayed by `theorems.check`; ``claim``: the
    ``proof_step`` claim that fails there. The statement's verdict is decided by the statement, not by this.
    """

    step: str
    printed: str
    why: str
    params: Mapping[str, Any]
    claim: str
    form: str = AS_PRINTED


@dataclass(frozen=True)
class Binding:
    """An instance where a hypothesis the theorem needs is close to binding, so that checking there tests
    the hypothesis (``margin`` says how close, in words and numbers)."""

    hypothesis: str
    params: Mapping[str, Any]
    margin: str
    form: str | None = None


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
    # -- what the verdict rests on (see theorems.core.verdict for the rules that derive ``status``) ------
    # The statement's quantifiers; required of every registered result.
    logic: Logic | None = None
    # Parameter sets of the printed form on which a ``bound`` claim fails, inside the printed hypotheses.
    counterexamples: tuple[Mapping[str, Any], ...] = ()
    proof_errata: tuple[ProofErratum, ...] = ()
    # Instances of the default form where a hypothesis nearly binds (required for a 'verified' status).
    binding: tuple[Binding, ...] = ()
    # Negative controls: parameter sets (with optional "form" and "allow_violation" keys) on which the
    # same assertions fail; together they must break every ``bound`` claim of the default form.
    controls: tuple[Mapping[str, Any], ...] = ()
    # For a trend: parameter sets in a regime where the paper predicts otherwise; each must fail a bound.
    trend_controls: tuple[Mapping[str, Any], ...] = ()
    # For 'vacuous': against what the bound is vacuous (the default instance shows it in details["vacuous"]).
    vacuity: str = ""
    # For 'open': why the evidence decides neither way, and what would decide it.
    open_reason: str = ""
    # A zero-argument callable returning a hypothesis strategy of valid parameter dicts for the default
    # form: the worst-case search (hypothesis.target on the slack) draws from it.
    strategy: Callable[[], Any] | None = None

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
