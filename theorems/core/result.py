"""What a registered result is: its statement as printed, its correction, its status and its parameters.

Converting a result (issues 18 and 19)
--------------------------------------
A result module written for this core:

* declares each parameter once, as a :class:`~theorems.core.params.Param` with its structural domain
  (``low``/``high``, list ``length``/``increasing``/``distinct``, ``choices``; reals are finite unless
  ``finite=False``) and the range the suite draws from (``sample``, ``log``). Sizes get a ``high`` that keeps
  one instance on a 2-core, 24 GiB machine. The seed is ``seed_param()``. Type, domain and "restarts ≥ 1"
  checks do **not** appear in ``hypotheses``: that function lists only the theorem's hypotheses (and the
  deliberately wrong constants of negative controls), each a bypassable :class:`Violation` unless no
  instance can be built at all;
* declares ``cost=`` (params -> :class:`~theorems.core.params.Cost`): the peak tensor elements and the
  rough arithmetic of one instance, so that `theorems.check` refuses an instance that would exhaust the
  machine (``ResourceLimit``) before drawing any data;
* writes every claim with its tolerance as a separate field, ``Claim.at_most(name, observed, bound,
  message, rtol=TOL)`` (or ``atol=``; ``Claim.close`` for an equality), never ``bound * (1 + TOL)``;
* returns ``Outcome(claims=..., details=..., converged=...)`` without observed/bound/tightness: the
  Evidence's headline is the bound claim with the least slack, or the claim named by ``headline=``, and
  its tightness has the one meaning of `theorems.core.evidence`;
* takes its paper from the package (``paper=PAPER`` from ``theorems/<package>/paper.py``) and says where in
  the paper the result is (``section="Section 4.1, Lemma 4.2"``);
* draws its hypothesis strategy and report instances from the declarations
  (`theorems.strategies.declared_params`, `theorems.strategies.param`, `theorems.core.params.sample_params`),
  narrowing a range only where a hypothesis ties two parameters together (left out, ``report_instances`` is
  what the result declares: :class:`DeclaredInstances`); registers a control that ends just outside a tolerance
  by design as a tolerance pin (``pins=``), which the conformance checks run and the report leaves out; a
  tolerance or threshold that decides a claim is declared there as a :class:`Pin` (the parameter or module
  constant moved and the literal value on each side: the claim passes at one, fails at the other), which
  ``checks/test_conformance.py::test_declared_pins_hold_on_their_sides`` runs, both sides, once;
* never lets a verdict rest on a non-finite number: a bound that is infinite (or an observed value that is
  ±inf or NaN) on an instance says nothing there, so it is recorded as a measurement, not as a ``bound``
  claim; `theorems.check` raises ``SuiteError`` when an instance would hold on one.

``checks/test_conformance.py`` then fuzzes the result from its declarations (bad types, NaN/inf, values
outside the domains, unknown names and choices: a typed error before any computation; the edges of the
domains run as negative controls: an Evidence or a typed error, never a raw exception or a hang). The fake
results of ``tests/fakes.py`` are a small worked example of every point above.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from .params import Cost, Param, declared_instances, seed_param  # noqa: F401  (re-exported: result modules import them from here)

AS_PRINTED = "as_printed"
CORRECTED = "corrected"


class Status(str, enum.Enum):
    """The verdict on a printed statement (README, 'Results and their status')."""

    VERIFIED = "verified"
    VERIFIED_CORRECTED = "verified-corrected"
    REFUTED = "refuted"
    VACUOUS = "vacuous"
    TREND = "trend"
    OPEN = "open"

    def __str__(self) -> str:  # the value is what users read and what JSON stores
        return self.value


@dataclass(frozen=True)
class Paper:
    """A paper the suite checks: its metadata, written once in its package (``theorems/<package>/paper.py``)."""

    number: str  # "000" … "004": the order of the papers in the suite, and the prefix of the checks file
    title: str
    authors: str
    venue: str = ""
    year: int | None = None
    # Where a reader finds the paper. The texts the suite checks carry no arXiv id or DOI of their own, so the
    # default is arXiv's search for the exact title (a link that cannot point at the wrong paper).
    url: str = ""

    @property
    def link(self) -> str:
        if self.url:
            return self.url
        from urllib.parse import urlencode

        return "https://arxiv.org/search/?" + urlencode({"query": f'"{self.title}"', "searchtype": "title"})

    def cite(self) -> str:
        """'Authors, Title, Venue Year'."""
        where = " ".join(str(x) for x in (self.venue, self.year) if x)
        return ", ".join(part for part in (self.authors, self.title, where) if part)


@dataclass(frozen=True)
class Violation:
    """One violated hypothesis: its name, why, and whether a negative control may step over it."""

    hypothesis: str
    message: str
    names: tuple[str, ...] = ()
    bypassable: bool = True


def switch_violations(params: Sequence[Param], values: Mapping[str, Any]) -> list[Violation]:
    """The hypotheses broken by negative-control switches (``Param(breaks=...)``) set off their defaults."""
    return [Violation(p.breaks, f"{p.name} = {values[p.name]!r} ≠ {p.default!r}: {p.doc}", (p.name,))
            for p in params if p.breaks and p.name in values and values[p.name] != p.default]


@dataclass(frozen=True)
class Outcome:
    """What a result's evaluation produces; `theorems.check` wraps it into an :class:`Evidence`.

    Write ``Outcome(claims=..., details=..., converged=...)``: the Evidence's headline (observed, bound,
    relation, tolerance, tightness) is taken from the ``bound`` claim with the least slack, or from the claim
    named by ``headline``. ``observed``/``bound``/``tightness`` given by hand are the old convention (their
    meaning varied from result to result); they are still read where a result has not been converted.
    """

    observed: float | None = None
    bound: float | None = None
    tightness: float | None = None
    claims: Sequence[Any] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    converged: bool | None = None
    # Hypotheses only the evaluation can decide (e.g. a supremum estimated on a sample): `check` raises
    # HypothesisViolation for them after evaluating, unless allow_violation=True (a negative control).
    violations: Sequence["Violation"] = ()
    # The claim whose numbers are the Evidence's headline (default: the bound claim with the least slack).
    headline: str | None = None


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
class Pin:
    """A tolerance or threshold that decides ``claims``, pinned where the result is declared (``Result(pins=...)``).

    ``name`` is what moves: a declared parameter of the result, or a module-level constant of the result's module
    (an UPPER_CASE name, or ``"package.module:NAME"`` for a constant of another module). ``passes`` and ``fails``
    are the literal values on each side of the tolerance: on the instance ``params`` (plus optional ``form`` and
    ``allow_violation`` keys) with ``name`` set to ``passes`` every claim of ``claims`` passes, with ``name`` set
    to ``fails`` every one fails (or the run ends not converged, or, for an identity on an instance inside the
    hypotheses, `check` raises IdentityFailure naming it). Literals, never built from the constant they pin: a pin
    computed from the tolerance would move with it. ``within`` (a number of allowances) also asks that the failing
    side lie at most that far outside each claim (and more than one allowance): the tolerance loosened that much
    lets it pass. ``passes=None`` declares no passing side (then ``within`` is what pins the other side).

    ``checks/test_conformance.py::test_declared_pins_hold_on_their_sides`` runs every declared pin of every
    registered result, both sides, once. A parameter pin's failing instance is a negative
    control too (``Result.controls`` lists it, like a parameter-set pin); both sides test the suite's tolerances, not
    the statement, so the report leaves them out. ``converged`` asks the failing side's run to converge (True) or
    not (False).
    A pin no declaration can express (a formula moved by a literal bump) stays a test in the result's checks file,
    with ``monkeypatch`` and a line saying why.

        Pin("bound_attained", "w_scale", passes=1.0000000002, fails=1.000000002, within=10,
            params=dict(allow_violation=True), why="BOUND_RTOL = 1e-9: A scaled by (1 + 2e-9)^2")
        Pin("witness_increases_every_block", "STEP_MIN", passes=1e-9, fails=1e-8)      # a module constant
    """

    claims: "str | tuple[str, ...]"
    name: str
    passes: Any = None
    fails: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)
    within: float | None = None
    # True/False: the failing side's run must (not) converge (None: either, as a convergence tolerance allows)
    converged: bool | None = None
    # True: the failing side is one of the result's own ``controls`` (which the report shows), pinning a tolerance
    # too; the pin checks that it is registered there, so a control moved off its literal is noticed
    reported: bool = False
    why: str = ""
    # set by ``Result`` on construction where ``name`` is one of its declared parameters (an UPPER_CASE parameter,
    # such as a horizon ``T``, is then moved as a parameter, not read as a module constant)
    parameter: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.claims, str):
            object.__setattr__(self, "claims", (self.claims,))
        if not self.claims or not self.name:
            raise TypeError(f"Pin needs the claims it pins and the name it moves: {self!r}")
        if self.passes is None and self.within is None:
            raise TypeError(f"Pin {self.name!r}: a pin needs a passing side (passes=) or within= allowances")

    @property
    def claim_names(self) -> tuple[str, ...]:
        """``claims`` as a tuple (one name given alone is stored as a tuple on construction)."""
        return (self.claims,) if isinstance(self.claims, str) else tuple(self.claims)

    @property
    def is_constant(self) -> bool:
        """Whether ``name`` is a module constant (UPPER_CASE, or ``module:NAME``) rather than a parameter: a declared
        parameter of the result (``parameter``) never is, whatever its case."""
        return not self.parameter and (":" in self.name or self.name.isupper())

    def spec(self, side: str) -> dict[str, Any]:
        """The registered instance spec of one side (``"passes"`` or ``"fails"``): ``params`` with ``name`` set,
        for a parameter pin; ``params`` alone for a constant pin (the constant is moved around the run)."""
        value = getattr(self, side)
        return dict(self.params) if self.is_constant else {**self.params, self.name: value}

    def label(self) -> str:
        """A short name of the pin: its first claim, what moves and the two sides."""
        return f"{self.claim_names[0]}-{self.name}={self.passes!r}|{self.fails!r}"


def instance_key(form: str, params: Mapping[str, Any]) -> tuple:
    """What tells two registered instances apart: the form and every parameter given (by ``repr``)."""
    return form, tuple(sorted((k, repr(v)) for k, v in params.items()))


def spec_instance(spec: Mapping[str, Any], default_form: str) -> tuple[str, dict[str, Any]]:
    """A registered parameter set (a control, a pin) as (form, params): its "form" and "allow_violation" keys
    read off."""
    return spec.get("form", default_form), {k: v for k, v in spec.items() if k not in ("form", "allow_violation")}


class DeclaredInstances:
    """The default ``Result.report_instances``: `declared_instances` of the result it belongs to (the default
    instance, the binding instances, ``suite.report_examples`` draws from the declared ranges, the controls),
    less the result's tolerance pins. ``Result`` binds it to itself on construction (``dataclasses.replace``
    included), so a module that reports what it declares writes nothing."""

    __slots__ = ("result",)

    def __init__(self, result: "Result | None" = None) -> None:
        self.result = result

    def __call__(self, suite: Any) -> Iterable[tuple[str, dict, bool]]:
        result = self.result
        if result is None:
            raise TypeError("DeclaredInstances is bound to a result by Result's construction; this one is not")
        for form, params, allow in declared_instances(result, suite):
            if not result.is_pin(form, params):
                yield form, params, allow

    # Every result's default is the same rule: equal whichever result it is bound to (no recursion into it).
    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeclaredInstances)

    def __hash__(self) -> int:
        return hash(DeclaredInstances)

    def __repr__(self) -> str:
        return "DeclaredInstances()"


DECLARED = DeclaredInstances()


@dataclass(frozen=True)
class Result:
    """A registered result. ``evaluate(params, form, ctx) -> Outcome`` runs one instance.

    ``hypotheses(params, form) -> list[Violation]`` lists what the parameters violate for that form.
    ``report_instances(suite) -> iterable of (form, params, allow_violation)`` gives the instances the report runs,
    negative controls included (marked with ``allow_violation``). Left out, it is what the result declares
    (:class:`DeclaredInstances`); a module writes its own only to add instances or to leave some out. ``None``
    runs the default instance alone. The report never runs ``pins``, whatever ``report_instances`` yields.
    """

    id: str
    paper: "str | Paper"
    paper_title: str = ""
    title: str = ""
    statement: str = ""
    status: Status = Status.OPEN
    params: tuple[Param, ...] = ()
    evaluate: Callable[..., Outcome] | None = None
    hypotheses: Callable[[dict, str], list[Violation]] = lambda params, form: []
    correction: str | None = None
    correction_reason: str | None = None
    forms: tuple[str, ...] = (AS_PRINTED,)
    report_instances: Callable[[Any], Iterable[tuple[str, dict, bool]]] | None = DECLARED
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
    # Hard instances of the default form that a worst-case search found inside the hypotheses: a verified form
    # must hold on each (one that does not converge keeps the status 'open'), so a search's finding outlives
    # the run that found it.
    searched: tuple[Mapping[str, Any], ...] = ()
    # Negative controls: parameter sets (with optional "form" and "allow_violation" keys) on which the
    # same assertions fail; together they must break every ``bound`` claim of the default form.
    controls: tuple[Mapping[str, Any], ...] = ()
    # Tolerance pins: parameter sets just outside a tolerance, which end not converged (or fail) by design, so
    # that loosening the tolerance lets them pass. They are negative controls (``controls`` lists them too:
    # construction appends those it lacks), so the conformance checks run them; they test the suite's
    # tolerances, not the statement, and the report leaves them out.
    # Entries are either such a parameter set (a control pinning a tolerance from the failing side) or a
    # :class:`Pin`, the richer declaration: the parameter or constant moved, the literal value on each side.
    pins: tuple["Mapping[str, Any] | Pin", ...] = ()
    # Identity controls: parameter sets (a perturbed construction, a scaled closed form, a point outside a proof's
    # range) on which only ``identity`` or ``proof_step`` claims fail: tests of the code, never negative controls
    # of the statement. Like pins, ``controls`` lists them too (construction appends those it lacks), so they run
    # wherever controls run; the conformance checks require each to fail an identity or proof-step claim, and
    # every other control that is not a pin to fail a ``bound`` claim.
    identity_controls: tuple[Mapping[str, Any], ...] = ()
    # For a trend: parameter sets in a regime where the paper predicts otherwise; each must fail a bound.
    trend_controls: tuple[Mapping[str, Any], ...] = ()
    # For 'vacuous': against what the bound is vacuous (the default instance shows it in details["vacuous"]).
    vacuity: str = ""
    # For 'open': why the evidence decides neither way, and what would decide it.
    open_reason: str = ""
    # A zero-argument callable returning a hypothesis strategy of valid parameter dicts for the default
    # form: the worst-case search (hypothesis.target on the slack) draws from it.
    strategy: Callable[[], Any] | None = None
    # Where in the paper (its own numbering): "Section 4.1, Lemma 4.2".
    section: str = ""
    # params -> Cost: what one instance needs, compared with the machine's ceilings before computing.
    cost: Callable[[dict], Cost] | None = None
    # The paper's metadata (set from ``paper`` when a Paper is given; ``paper`` then holds its number).
    source: Paper | None = None

    def __post_init__(self) -> None:
        if isinstance(self.paper, Paper):
            object.__setattr__(self, "source", self.paper)
            object.__setattr__(self, "paper_title", self.paper.title)
            object.__setattr__(self, "paper", self.paper.number)
        if self.evaluate is None:
            raise TypeError(f"result {self.id!r}: evaluate is required")
        declared = {p.name for p in self.params}
        if any(isinstance(pin, Pin) and pin.name in declared and not pin.parameter for pin in self.pins):
            object.__setattr__(self, "pins", tuple(
                dataclasses.replace(pin, parameter=True) if isinstance(pin, Pin) and pin.name in declared else pin
                for pin in self.pins))
        missing = tuple(pin for pin in self.pin_instances(controls_only=True) if pin not in self.controls)
        if missing:
            object.__setattr__(self, "controls", (*self.controls, *missing))
        missing = tuple(spec for spec in self.identity_controls if spec not in self.controls)
        if missing:
            object.__setattr__(self, "controls", (*self.controls, *missing))
        if isinstance(self.report_instances, DeclaredInstances) and self.report_instances.result is not self:
            object.__setattr__(self, "report_instances", DeclaredInstances(self))
        switches = tuple(p for p in self.params if p.breaks)
        if switches:  # the switches' violations are the suite's to record (Param.breaks), after the module's own
            # the module's own function, also when a copy (dataclasses.replace) passes the wrapper back in
            own = getattr(self.hypotheses, "__wrapped__", self.hypotheses)

            def hypotheses(params: dict, form: str) -> list[Violation]:
                return [*own(params, form), *switch_violations(switches, params)]

            hypotheses.__wrapped__ = own  # type: ignore[attr-defined]
            object.__setattr__(self, "hypotheses", hypotheses)

    @property
    def declared_pins(self) -> tuple[Pin, ...]:
        """The :class:`Pin` declarations among ``pins`` (the conformance checks run each, both sides)."""
        return tuple(p for p in self.pins if isinstance(p, Pin))

    def pin_instances(self, controls_only: bool = False) -> tuple[Mapping[str, Any], ...]:
        """The registered instances the pins name, which the report leaves out: every parameter-set pin, and both
        sides of each parameter `Pin` not ``reported`` (with ``controls_only``: the failing side of every parameter
        `Pin`, a negative control like the parameter-set pins)."""
        out: list[Mapping[str, Any]] = []
        for pin in self.pins:
            if not isinstance(pin, Pin):
                out.append(pin)
            elif not pin.is_constant:
                if controls_only:  # a reported pin's failing side is one of the module's own controls
                    out += [pin.spec("fails")] if pin.fails is not None and not pin.reported else []
                elif not pin.reported:
                    out += [pin.spec(side) for side in ("passes", "fails") if getattr(pin, side) is not None]
        return tuple(out)

    def is_pin(self, form: str, params: Mapping[str, Any]) -> bool:
        """Whether the instance (``form``, ``params``) is one of the result's tolerance ``pins`` (a `Pin`'s sides
        included)."""
        return instance_key(form, params) in {instance_key(*spec_instance(p, self.default_form))
                                              for p in self.pin_instances()}

    def is_identity_control(self, form: str, params: Mapping[str, Any]) -> bool:
        """Whether the instance (``form``, ``params``) is one of the result's ``identity_controls``."""
        return instance_key(form, params) in {instance_key(*spec_instance(c, self.default_form))
                                              for c in self.identity_controls}

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
