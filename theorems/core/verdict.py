"""The rules that derive a result's status from its evidence (README, 'Results and their status').

A registered status is a claim about the evidence; :func:`derive_status` re-derives it by running the
instances the result registers, and the conformance checks (``checks/test_conformance.py``) fail wherever
the two disagree. The rules, in the order they are tried:

* ``vacuous``: the result says against what (``Result.vacuity``), the statement holds on its default
  instance, and that instance shows the vacuity (``details["vacuous"] is True``);
* ``trend``: the default instance holds (fitted exponent inside the predicted range) **and** every
  ``Result.trend_controls`` instance, a regime where the paper predicts otherwise, fails a ``bound``
  claim on a converged run (one that fails only by not converging contrasts with nothing); a trend that
  cannot tell the two regimes apart is ``open``;
* ``verified-corrected`` / ``refuted``: at least one registered counterexample, and every one replays:
  the printed form, inside its hypotheses (no ``allow_violation``), converged, with a failed ``bound``
  claim, and for an existential statement a certificate that no admissible witness works
  (``details["no_witness_certificate"]``). Then ``verified-corrected`` if the corrected form is verified
  (below), else ``refuted``;
* ``verified``: no counterexample, and the printed form is verified: its default instance holds, every
  ``Result.binding`` instance (a hypothesis close to binding) holds inside the hypotheses, and a
  worst-case search is declared (``Result.strategy``, which the conformance checks run with
  ``hypothesis.target`` on the slack);
* otherwise ``open``, which needs ``Result.open_reason``.

A proof erratum (``Result.proof_errata``) never enters the status: each must replay (its ``proof_step``
claim fails on its instance), and that is all.

How strong each verdict is (`theorems.core.grade`): :func:`counterexample_grades` gives the grade of each registered
counterexample's failure, derived from its replay; :func:`grade_problems` lists what keeps the grades of a result from
being what its evidence supports (a counterexample or a default instance without one, a rigorous grade whose enclosure
does not re-run to the same decision, a claim resting on seeds or draws graded above statistical).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeGuard

from .errors import HypothesisViolation
from .evidence import FAILS, HOLDS, Evidence
from .grade import CERTIFIED, GRADES, RIGOROUS, Enclosure, rerun
from .result import AS_PRINTED, CORRECTED, Result, Status

Runner = Callable[..., Evidence]

# Keys of an instance spec that are options of `check`, not parameters of the result.
SPEC_OPTIONS = ("form", "allow_violation")


def run_spec(run: Runner, result: Result, spec: Mapping[str, Any], form: str | None = None,
             **options: Any) -> Evidence:
    """Run one registered instance spec (parameters plus optional ``form`` / ``allow_violation``);
    ``options`` go to the runner as they are (``fresh=True`` for a `CachedRunner`)."""
    params = {k: v for k, v in spec.items() if k not in SPEC_OPTIONS}
    return run(result.id, form=spec.get("form", form or result.default_form),
               allow_violation=bool(spec.get("allow_violation", False)), **options, **params)


@dataclass
class Derivation:
    """The status the evidence supports, the reasons, and what is missing or contradicts the rules."""

    status: Status
    reasons: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def explain(self) -> str:
        lines = [f"derived status: {self.status}"]
        lines += [f"  because {r}" for r in self.reasons]
        lines += [f"  PROBLEM {p}" for p in self.problems]
        return "\n".join(lines)


def counterexample_problem(result: Result, params: Mapping[str, Any], run: Runner) -> str | None:
    """Why ``params`` is not a valid counterexample to the printed statement (None when it is)."""
    if AS_PRINTED not in result.forms:
        return "the result has no printed form to refute"
    try:
        ev = run(result.id, form=AS_PRINTED, **params)
    except HypothesisViolation as err:
        return f"{dict(params)} is outside the printed hypotheses: {err}"
    if ev.violations:
        return f"{dict(params)} violates {ev.violations}"
    if ev.converged is False:
        return f"{dict(params)}: the optimiser did not converge, so nothing is certified"
    if not ev.failed_bounds:
        return f"{dict(params)}: no bound claim fails (failed: {[c.name for c in ev.failed_claims]})"
    if result.logic is not None and result.logic.existential and not ev.details.get("no_witness_certificate"):
        return (f"{dict(params)}: the statement asserts that {result.logic.exists} exists, and the failure carries "
                "no certificate that no admissible witness works (details['no_witness_certificate'])")
    return None


def proof_erratum_problem(result: Result, erratum, run: Runner) -> str | None:
    try:
        ev = run(result.id, form=erratum.form, allow_violation=False, **erratum.params)
    except HypothesisViolation as err:
        return f"proof erratum at {erratum.step}: instance outside the hypotheses: {err}"
    names = {c.name: c for c in ev.claims}
    claim = names.get(erratum.claim)
    if claim is None:
        return f"proof erratum at {erratum.step}: the evidence has no claim {erratum.claim!r}"
    if claim.kind != "proof_step":
        return f"proof erratum at {erratum.step}: claim {erratum.claim!r} is a {claim.kind}, not a proof_step"
    if claim.passed:
        return f"proof erratum at {erratum.step}: claim {erratum.claim!r} passes on {dict(erratum.params)}"
    return None


def trend_control_problem(ev: Evidence) -> str | None:
    """Why a trend control's evidence does not contrast with the trend (None when it does): it contrasts
    only by a failed ``bound`` claim on a *converged* run. A control whose optimiser did not converge fails
    ``holds`` by the convergence rule alone, which says nothing about the regime (it must not count)."""
    if ev.converged is False:
        return "did not converge (an unconverged run contrasts with nothing)"
    if ev.holds or not ev.failed_bounds:
        return "holds"
    return None


def form_is_verified(result: Result, form: str, run: Runner, reasons: list[str]) -> bool:
    """Default instance holds, every binding instance holds inside the hypotheses, a search is declared.
    What is missing goes to ``reasons`` (it explains why the status is not 'verified')."""
    problems: list[str] = []
    ok = True
    ev = run(result.id, form=form)
    if not ev.holds:
        problems.append(f"the default instance of form {form!r} does not hold")
        ok = False
    bindings = [b for b in result.binding if (b.form or result.default_form) == form]
    if not bindings:
        problems.append(f"no instance of form {form!r} where a hypothesis nearly binds (Result.binding)")
        ok = False
    for b in bindings:
        try:
            bev = run(result.id, form=form, **b.params)
        except HypothesisViolation as err:
            problems.append(f"binding instance for {b.hypothesis!r} is outside the hypotheses: {err}")
            ok = False
            continue
        if not bev.holds:
            problems.append(f"binding instance for {b.hypothesis!r} ({dict(b.params)}) does not hold")
            ok = False
    for spec in result.searched if form == result.default_form else ():
        sev = run(result.id, form=form, **spec)
        if not sev.holds:
            why = "does not converge" if sev.converged is False else "does not hold"
            problems.append(f"the instance a worst-case search found ({dict(spec)}) {why}")
            ok = False
    if result.strategy is None:
        problems.append("no worst-case search declared (Result.strategy)")
        ok = False
    if ok:
        reasons.append(f"form {form!r} holds on its default instance and where "
                       + "; ".join(f"{b.hypothesis} nearly binds ({b.margin})" for b in bindings))
    else:
        reasons.extend(f"form {form!r} is not verified: {p}" for p in problems)
    return ok


def derive_status(result: Result, run: Runner) -> Derivation:
    """The status the evidence supports, by the rules of this module's docstring."""
    reasons: list[str] = []
    problems: list[str] = []
    if result.logic is None:
        problems.append("no quantifier structure declared (Result.logic)")
    for erratum in result.proof_errata:
        why = proof_erratum_problem(result, erratum, run)
        if why:
            problems.append(why)

    def done(status: Status) -> Derivation:
        if status is Status.OPEN and not result.open_reason:
            problems.append("the evidence supports no verdict and Result.open_reason does not say why")
        if status is Status.OPEN and result.open_reason:
            reasons.append(f"open: {result.open_reason}")
        return Derivation(status, reasons, problems)

    default = run(result.id)
    if result.vacuity:
        if default.holds and default.details.get("vacuous") is True:
            reasons.append(f"the bound holds and is vacuous against {result.vacuity}")
            return done(Status.VACUOUS)
        problems.append("Result.vacuity is set but the default instance does not show the vacuity")

    if result.trend_controls or result.status is Status.TREND:
        if not result.trend_controls:
            problems.append("a trend with no control in a regime where the paper predicts otherwise")
            return done(Status.OPEN)
        if not default.holds:
            problems.append("the default sweep does not hold (exponent outside the predicted range?)")
            return done(Status.OPEN)
        for spec in result.trend_controls:
            why = trend_control_problem(run_spec(run, result, spec))
            if why:
                problems.append(f"trend control {dict(spec)} {why}: the check cannot tell the regimes apart")
                return done(Status.OPEN)
        reasons.append(f"the sweep holds and all {len(result.trend_controls)} contrasting regimes fail it")
        return done(Status.TREND)

    if result.counterexamples:
        bad = [why for cx in result.counterexamples if (why := counterexample_problem(result, cx, run))]
        problems.extend(bad)
        if not bad:
            reasons.append(f"{len(result.counterexamples)} counterexample(s) to the printed statement replay")
            if CORRECTED in result.forms and form_is_verified(result, CORRECTED, run, reasons):
                return done(Status.VERIFIED_CORRECTED)
            return done(Status.REFUTED)
        return done(Status.OPEN)

    if AS_PRINTED in result.forms and form_is_verified(result, AS_PRINTED, run, reasons):
        return done(Status.VERIFIED)
    return done(Status.OPEN)


def status_problems(result: Result, run: Runner) -> list[str]:
    """Everything that keeps the registered status from following from the evidence (empty: it does).
    The conformance checks assert this is empty for every registered result."""
    derived = derive_status(result, run)
    out = list(derived.problems)
    if derived.status is not result.status:
        out.insert(0, f"registered {result.status}, the evidence supports {derived.status}")
    if out:
        out.append(derived.explain())
    return out


def counterexample_grades(result: Result, run: Runner) -> list[tuple[dict[str, Any], str | None]]:
    """Each registered counterexample with the grade of its failure (`Evidence.grade` of its replay, printed form):
    the strongest grade among its failed ``bound`` claims; None where it does not replay as a failure."""
    out: list[tuple[dict[str, Any], str | None]] = []
    for cx in result.counterexamples:
        try:
            ev = run(result.id, form=AS_PRINTED, **cx)
        except HypothesisViolation:
            out.append((dict(cx), None))
            continue
        out.append((dict(cx), ev.grade if ev.outcome == FAILS else None))
    return out


def enclosure_problem(enclosure: Enclosure) -> str | None:
    """Why a rigorous enclosure does not stand on its own (None when it does): it must re-run from its replay spec
    alone, as a reader of evidence.json would (through JSON, no torch), to the same decision."""
    import json

    try:
        again = rerun(Enclosure.from_dict(json.loads(json.dumps(enclosure.to_dict()))))
    except Exception as err:  # noqa: BLE001 - whatever stops the replay is the problem to report
        return f"its enclosure does not re-run from its replay spec ({type(err).__name__}: {err})"
    if again.decides() != enclosure.decides():
        return (f"its enclosure [{enclosure.lo}, {enclosure.hi}] decides {enclosure.decides()}, re-run it gives "
                f"[{again.lo}, {again.hi}], which decides {again.decides()}")
    return None


def grade_problems(result: Result, run: Runner) -> list[str]:
    """What keeps the grades of ``result`` from being what its evidence supports (empty: they are). Every registered
    counterexample fails with a grade, and the default instance, where it decides, has one; every verdict-deciding
    claim's grade is one of GRADES; a rigorous one rests on an enclosure that re-runs to the same decision
    (`enclosure_problem`); a claim that rests on seeds or draws is never graded above statistical unless an
    a-posteriori certificate covers it."""
    problems: list[str] = []
    instances: list[tuple[str, Evidence]] = [("the default instance", run(result.id))]
    for cx, grade in counterexample_grades(result, run):
        if grade is None:
            problems.append(f"counterexample {cx} has no grade: it does not replay as a failure of the printed form")
            continue
        instances.append((f"counterexample {cx}", run(result.id, form=AS_PRINTED, **cx)))
    for what, ev in instances:
        if ev.outcome in (HOLDS, FAILS) and ev.grade not in GRADES:
            problems.append(f"{what}: decides ({ev.outcome}) without a grade")
        for claim in ev.deciding_claims:
            grade = ev.grade_of(claim)
            where = f"{what}: claim {claim.name!r} graded {grade}"
            if grade not in GRADES:
                problems.append(f"{where}, not one of {', '.join(GRADES)}")
            if grade == RIGOROUS:
                assert claim.enclosure is not None  # Claim.rigorous says so
                why = enclosure_problem(claim.enclosure)
                if why:
                    problems.append(f"{where}: {why}")
            if claim.statistical and grade not in ("statistical", CERTIFIED):
                problems.append(f"{where}, yet it rests on {claim.n_draws} draws: a mean over draws is statistical")
    return problems


class CachedRunner:
    """`theorems.check` with every (id, form, allow_violation, params) evaluated once per process.

    Conformance checks and per-paper checks ask for the same instances (the default instance, the
    controls, the counterexamples); the cache makes each cost one evaluation. A HypothesisViolation is
    cached and raised again. ``fresh=True`` bypasses the cache (the determinism check needs a second run).
    """

    def __init__(self, check: Runner | None = None) -> None:
        from .registry import check as registry_check

        self._check = check or registry_check
        self._cache: dict[tuple, Evidence | HypothesisViolation] = {}

    @staticmethod
    def key(result_id: str, form: str | None = None, allow_violation: bool = False, **params: Any) -> tuple:
        """The instance a call names: its form resolved and every parameter filled with its default and
        coerced, so that ``run(id)``, ``run(id, form=<default form>)`` and ``run(id, K=<default K>)`` share one
        evaluation. A call that does not validate keys on what it was given (`check` then raises)."""
        from .registry import get, validate_structure

        try:
            result = get(result_id)
            form = result.default_form if form is None else form
            params = validate_structure(result, params, form)
        except Exception:  # noqa: BLE001 - the call itself reports what is wrong
            pass
        return result_id, form, allow_violation, tuple(sorted((k, repr(v)) for k, v in params.items()))

    def has(self, result_id: str, **kwargs: Any) -> bool:
        """Whether this runner has already computed that instance (then a call returns it without computing)."""
        return self._cached(self.key(result_id, **kwargs))

    def _cached(self, key: tuple) -> bool:
        """``key`` is in the cache, or its twin under the other ``allow_violation`` gives the same Evidence: the
        flag only decides whether a violated hypothesis raises, so an instance that violates none (an Evidence with
        no violations, or any Evidence when the call allows them) is the same evaluation either way."""
        if key in self._cache:
            return True
        result_id, form, allow_violation, params = key
        twin = self._cache.get((result_id, form, not allow_violation, params))
        if self.serves(twin, allow_violation):
            self._cache[key] = twin
            return True
        return False

    @staticmethod
    def serves(twin: Any, allow_violation: bool) -> TypeGuard[Evidence]:
        """Whether ``twin``, cached for the same instance under the other ``allow_violation``, is this call's
        Evidence too: an Evidence, and one with no violations unless this call allows them."""
        return isinstance(twin, Evidence) and (allow_violation or not twin.violations)

    def __call__(self, result_id: str, *, form: str | None = None, allow_violation: bool = False,
                 fresh: bool = False, **params: Any) -> Evidence:
        key = self.key(result_id, form, allow_violation, **params)
        if fresh or not self._cached(key):
            try:
                value: Evidence | HypothesisViolation = self._check(
                    result_id, form=form, allow_violation=allow_violation, **params)
            except HypothesisViolation as err:
                value = err
            if fresh:
                if isinstance(value, HypothesisViolation):
                    raise value
                return value
            self._cache[key] = value
        value = self._cache[key]
        if isinstance(value, HypothesisViolation):
            raise value
        return value
