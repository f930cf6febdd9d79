"""Evidence: what one check of one result on one instance found.

An Evidence is a list of named *claims* (each a relation between an observed value and a bound, with its
tolerance as a separate field, and a kind), a headline (the numbers of one claim: the ``bound`` claim with the
least slack unless the result names another), the optimiser's convergence certificate where one was used,
and a dict of intermediate numbers. ``holds`` is true only when every ``bound`` claim passed *and* no
optimiser that the evidence rests on failed to converge.

The numbers have one meaning across the suite:

* ``observed`` / ``bound`` / ``relation`` / ``rtol`` / ``atol``: the headline claim's, exactly as the claim
  states them (the tolerance is never folded into the bound);
* ``slack``: the relative slack of a claim, the room left before it fails divided by the larger of |observed|,
  |bound| and the tolerance; > 0 with room, 0 at the edge, < 0 failed (``Claim.slack``). ``Evidence.slack``
  is the least slack over the bound claims;
* ``tightness`` = 1 − slack of the headline claim: 1 attained, below 1 with room (observed/bound for a passing
  ≤ between positive numbers, bound/observed for ≥), above 1 failed.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import SuiteError
from .grade import (CERTIFICATES, CERTIFIED, NUMERICAL, RIGOROUS, STATISTICAL, Enclosure,
                    certificate_supported, strongest, weakest)
from .magnitude import error_size, magnitude
from .numbers import fmt as _fmt
from .numbers import fmt_pair
from .params import command_word


# What a claim is to the verdict (README, 'Results and their status'):
#   bound        asserted by the printed (or corrected) statement and able to fail: decides ``holds``;
#   identity     holds by algebra or by construction: a test of the implementation, never evidence; one
#                that fails outside a negative control is a bug, and `check` raises IdentityFailure;
#   proof_step   a step of the paper's proof: its failure is a proof erratum, not a verdict on the statement;
#   measurement  a number recorded beside the verdict, not asserted (``passed`` is always True).
CLAIM_KINDS = ("bound", "identity", "proof_step", "measurement")
# The fields of a Claim its grade is derived from (theorems.core.grade): what a re-derivation of its verdict keeps.
GRADE_FIELDS = ("enclosure", "certificate", "n_draws", "stderr")
# '<=', '>=', '==' are asserted (up to the claim's tolerance); '=' is a measurement's "recorded as".
RELATIONS = ("<=", ">=", "==", "=")


@dataclass(frozen=True)
class Claim:
    """One relation between an observed value and a bound, with its tolerance, and its kind.

    ``relation``: ``'<='`` (``at_most``), ``'>='`` (``at_least``), ``'=='`` (``close``: an equality up to the
    tolerance), or ``'='`` for a measurement (recorded, not asserted). The tolerance is its own field and is
    never folded into ``bound``: ``allowance = atol + rtol·|bound|`` is how far ``observed`` may pass the
    bound (or, for ``'=='``, differ from it) while the claim still passes. ``bound`` is what the theorem
    (or the proof, or a closed form) says, exactly.

    How strong the verdict is (``grade``, one of `theorems.core.grade.GRADES`) is derived from the last four
    fields, never declared: ``enclosure`` (a rigorous re-evaluation that decides the relation: ``rigorous``),
    ``certificate`` (the kind of a-posteriori certificate, one of ``CERTIFICATES``: ``certified`` where the
    evidence's convergence supports it, `Evidence.grade_of`), ``n_draws`` and ``stderr`` (None: not recorded; the observed value is a
    mean over that many seeds or draws with that standard error: ``statistical``); otherwise ``numerical``.
    """

    name: str
    passed: bool
    observed: float
    bound: float
    relation: str
    message: str = ""
    kind: str = "bound"
    rtol: float = 0.0
    atol: float = 0.0
    enclosure: Enclosure | None = None
    certificate: str = ""
    n_draws: int = 0
    stderr: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in CLAIM_KINDS:
            raise ValueError(f"claim {self.name!r}: kind {self.kind!r} is not one of {', '.join(CLAIM_KINDS)}")
        if self.relation not in RELATIONS:
            raise ValueError(f"claim {self.name!r}: relation {self.relation!r} is not one of {', '.join(RELATIONS)}")
        if not (self.rtol >= 0 and self.atol >= 0):
            raise ValueError(f"claim {self.name!r}: tolerances must be ≥ 0 (rtol={self.rtol}, atol={self.atol})")
        if self.certificate not in ("", *CERTIFICATES):
            raise ValueError(f"claim {self.name!r}: certificate {self.certificate!r} is not one of "
                             f"{', '.join(CERTIFICATES)} (or '' for none)")
        if isinstance(self.n_draws, bool) or not isinstance(self.n_draws, int) or self.n_draws < 0:
            raise ValueError(f"claim {self.name!r}: n_draws must be an int ≥ 0, got {self.n_draws!r}")
        if self.stderr is not None and not (math.isnan(self.stderr) or self.stderr >= 0):
            raise ValueError(f"claim {self.name!r}: stderr must be ≥ 0 (None or NaN: none), got {self.stderr!r}")
        if self.enclosure is not None:
            if not isinstance(self.enclosure, Enclosure):
                raise TypeError(f"claim {self.name!r}: enclosure {self.enclosure!r} is not an Enclosure")
            decided, verdict = self.enclosure.decides(), "holds" if self.passed else "fails"
            if decided is not None and decided != verdict:
                raise SuiteError(
                    f"claim {self.name!r}: the rigorous enclosure [{self.enclosure.lo}, {self.enclosure.hi}] "
                    f"{self.enclosure.relation} {self.enclosure.bound} ({self.enclosure.method}) says the relation "
                    f"{decided}, the float64 evaluation says it {verdict} (observed {self.observed!r}, bound "
                    f"{self.bound!r}): the float code path is wrong, a bug of the suite, not a verdict on the paper")

    # -- grade ---------------------------------------------------------------------------------------
    @property
    def rigorous(self) -> bool:
        """An enclosure that decides the relation, the way the float verdict does (the other way raised on
        construction), of a value that is not a mean over draws: an enclosure of a sample mean bounds that sample,
        not the expectation the claim is about, so a claim that records draws is never rigorous."""
        return self.enclosure is not None and self.enclosure.decides() is not None and not self.statistical

    @property
    def statistical(self) -> bool:
        """Seeds or draws recorded: at least two, with a finite standard error."""
        return self.n_draws >= 2 and self.stderr is not None and math.isfinite(self.stderr)

    def grade_given(self, certificate_supported: bool = True) -> str:
        """The grade, when the evidence's convergence does (or does not) support the named certificate."""
        if self.rigorous:
            return RIGOROUS
        if self.certificate and certificate_supported:
            return CERTIFIED
        return STATISTICAL if self.statistical else NUMERICAL

    @property
    def grade(self) -> str:
        """The claim's grade from its own fields (a named certificate taken as supported; `Evidence.grade_of`
        asks the evidence's convergence certificate)."""
        return self.grade_given(True)

    @property
    def ses_beyond(self) -> float:
        """How many standard errors the observed value lies beyond the bound (> 0 on the failing side, < 0 inside);
        NaN without a standard error."""
        if self.stderr is None or not self.statistical or self.relation not in ("<=", ">=", "=="):
            return math.nan
        a, b = self.observed, self.bound
        beyond = {"<=": a - b, ">=": b - a, "==": abs(a - b)}[self.relation]
        if self.stderr == 0:
            return math.copysign(math.inf, beyond) if beyond else 0.0
        return beyond / self.stderr

    def grade_text(self, grade: str | None = None) -> str:
        """The grade with what it rests on: 'rigorous (arb: [lo, hi] ≤ bound)', 'certified (lp-duality)',
        'statistical (3 draws, stderr 0.01: 2.4 SE beyond the bound)', 'numerical'."""
        grade = self.grade if grade is None else grade
        if grade == RIGOROUS and self.enclosure is not None:
            e = self.enclosure
            return f"rigorous ({e.method}: [{e.lo}, {e.hi}] {e.relation} {e.bound})"
        if grade == CERTIFIED:
            return f"certified ({self.certificate})"
        if grade == STATISTICAL:
            k = self.ses_beyond
            where = "" if math.isnan(k) else \
                f": {abs(k):.3g} SE {'beyond' if k > 0 else 'inside'} the bound" if k else ": at the bound"
            return f"statistical ({self.n_draws} draws, stderr {_fmt(self.stderr)}{where})"
        return grade

    @staticmethod
    def _allowance(bound: float, rtol: float, atol: float) -> float:
        return atol + rtol * abs(bound) if (rtol or atol) else 0.0

    @classmethod
    def at_most(cls, name: str, observed: float, bound: float, message: str = "", kind: str = "bound", *,
                rtol: float = 0.0, atol: float = 0.0, **grade: Any) -> "Claim":
        """observed ≤ bound, up to ``atol + rtol·|bound|``. ``grade``: the fields a grade is derived from
        (``enclosure``, ``certificate``, ``n_draws``, ``stderr``)."""
        observed, bound = float(observed), float(bound)
        passed = observed <= bound + cls._allowance(bound, rtol, atol)
        return cls(name, bool(passed), observed, bound, "<=", message, kind, float(rtol), float(atol), **grade)

    @classmethod
    def at_least(cls, name: str, observed: float, bound: float, message: str = "", kind: str = "bound", *,
                 rtol: float = 0.0, atol: float = 0.0, **grade: Any) -> "Claim":
        """observed ≥ bound, up to ``atol + rtol·|bound|`` (``grade``: as for `at_most`)."""
        observed, bound = float(observed), float(bound)
        passed = observed >= bound - cls._allowance(bound, rtol, atol)
        return cls(name, bool(passed), observed, bound, ">=", message, kind, float(rtol), float(atol), **grade)

    @classmethod
    def close(cls, name: str, observed: float, bound: float, message: str = "", kind: str = "bound", *,
              rtol: float = 0.0, atol: float = 0.0, **grade: Any) -> "Claim":
        """observed = bound, up to ``atol + rtol·|bound|`` (a closed form, an identity, an attained bound;
        ``grade``: as for `at_most`)."""
        observed, bound = float(observed), float(bound)
        passed = abs(observed - bound) <= cls._allowance(bound, rtol, atol)
        return cls(name, bool(passed), observed, bound, "==", message, kind, float(rtol), float(atol), **grade)

    @classmethod
    def measurement(cls, name: str, value: float, reference: float = math.nan, message: str = "") -> "Claim":
        """A number recorded, not asserted (``reference``: what the paper or a closed form predicts, if any)."""
        return cls(name, True, float(value), float(reference), "=", message, "measurement")

    @property
    def allowance(self) -> float:
        """How far ``observed`` may pass ``bound`` and still pass: ``atol + rtol·|bound|``."""
        return self._allowance(self.bound, self.rtol, self.atol)

    @property
    def slack(self) -> float:
        """The relative slack, one meaning suite-wide: > 0 with room to spare, 0 at the edge, < 0 failed.

        The room left before the claim fails, (bound + allowance − observed) for '<=', (observed − bound +
        allowance) for '>=', (allowance − |observed − bound|) for '==', divided by max(|observed|, |bound|,
        allowance) (0 where all three are 0) and clipped to [−1, 1], so an infinite bound reads as 'far away'.
        NaN for a measurement and for a NaN side: a NaN never counts as room to spare."""
        if self.relation not in ("<=", ">=", "=="):
            return math.nan
        a, b, tol = self.observed, self.bound, self.allowance
        if math.isnan(a) or math.isnan(b) or math.isnan(tol):
            return math.nan
        if self.relation == "==":
            if math.isinf(a) or math.isinf(b):
                return 0.0 if a == b and tol == 0 else -1.0
            room = tol - abs(a - b)
        elif a == b:
            room = tol
        else:
            room = (b - a if self.relation == "<=" else a - b) + tol
        scale = max(abs(a), abs(b), tol)
        if scale == 0:
            return 0.0
        if math.isinf(scale):
            return math.copysign(1.0, room) if room else 0.0
        return max(-1.0, min(1.0, room / scale))

    @property
    def tightness(self) -> float:
        """1 − slack: 1 at the edge, < 1 with room, > 1 failed (in [0, 2]). For a passing '<=' / '>=' claim
        between positive numbers with no tolerance it is observed/bound / bound/observed."""
        return 1.0 - self.slack

    @property
    def ratio(self) -> float:
        """observed / bound (NaN where bound is 0 or either is not finite): the size of a failure in the
        words a reader would use ('the printed optimum is 5.8× too low')."""
        a, b = self.observed, self.bound
        if b == 0 or not (math.isfinite(a) and math.isfinite(b)):
            return math.nan
        return a / b

    def tolerance_text(self) -> str:
        parts = [f"rtol {self.rtol:.0e}"] if self.rtol else []
        parts += [f"atol {self.atol:.0e}"] if self.atol else []
        return ", ".join(parts)

    def __str__(self) -> str:
        return self.line()

    def line(self, describe: bool = True, grade: str | None = None) -> str:
        """One line: mark, name, observed, relation, bound, tolerance, kind, slack, the grade of a ``bound``
        claim (``grade``: as the evidence derives it, `Evidence.grade_of`; default `Claim.grade`), and
        (``describe``) the message saying what was measured."""
        if self.kind == "measurement":
            ref = "" if math.isnan(self.bound) else f" (reference {_fmt(self.bound)})"
            text = f"     {self.name}: {_fmt(self.observed)}{ref} [measurement]"
        else:
            mark = "ok  " if self.passed else "FAIL"
            tag = "" if self.kind == "bound" else f" [{self.kind}]"
            tol = self.tolerance_text()
            rel = {"<=": "≤", ">=": "≥", "==": "="}[self.relation]
            slack = "" if math.isnan(self.slack) else f"; slack {self.slack:+.3g}"
            observed, bound = fmt_pair(self.observed, self.bound)
            size = magnitude(self)
            graded = f"; grade {self.grade_text(grade)}" if self.kind == "bound" else ""
            text = (f"{mark} {self.name}: {observed} {rel} {bound}"
                    f"{' (' + tol + ')' if tol else ''}{tag}{slack}{'; ' + str(size) if size else ''}{graded}")
        return text + (f"  ({self.message})" if self.message and describe else "")


def headline_claim(claims: Sequence[Claim], name: str | None = None) -> Claim | None:
    """The claim an Evidence's headline numbers come from: ``name`` if given, else the ``bound`` claim
    with the least slack (a NaN slack first: it is the one that needs a look), else the first claim."""
    if name is not None:
        for c in claims:
            if c.name == name:
                return c
        raise KeyError(f"headline claim {name!r} is not among the claims {[c.name for c in claims]}")
    bounds = bound_claims(claims)
    if bounds:
        return min(bounds, key=lambda c: (not math.isnan(c.slack), c.slack if not math.isnan(c.slack) else 0.0))
    return claims[0] if claims else None


def bound_claims(claims: Sequence[Claim]) -> list[Claim]:
    return [c for c in claims if c.kind == "bound"]


# What one instance says, in one word (the report and the CLI show it). 'not converged' outranks the rest: an
# unconverged optimiser says nothing about the bound. An Evidence with no ``bound`` claim asserts nothing (an
# open result's measurements, an identity tested): it is 'measured', neither a pass nor a failure, and its
# ``holds`` is False because nothing was confirmed, never because something failed.
HOLDS, FAILS, NOT_CONVERGED, MEASURED = "holds", "fails", "not converged", "measured"
OUTCOMES = (HOLDS, FAILS, NOT_CONVERGED, MEASURED)


def outcome_of(claims: Sequence[Claim], converged: bool | None) -> str:
    """The one-word outcome of an instance (see ``OUTCOMES``): 'not converged', else 'measured' when no
    ``bound`` claim is asserted, else 'holds' / 'fails' as :func:`decides_holds` says."""
    if converged is False:
        return NOT_CONVERGED
    if not bound_claims(claims):
        return MEASURED
    return HOLDS if decides_holds(claims, converged) else FAILS


def decides_holds(claims: Sequence[Claim], converged: bool | None) -> bool:
    """The verdict of one instance: every ``bound`` claim passed (and there is one), no NaN among them, and
    no optimiser the evidence rests on failed to converge. Identities, proof steps and measurements do
    not enter it."""
    bounds = bound_claims(claims)
    return (bool(bounds) and all(c.passed and not math.isnan(c.observed) and not math.isnan(c.bound)
                                 for c in bounds) and converged is not False)


def non_finite_bounds(claims: Sequence[Claim]) -> list[Claim]:
    """The ``bound`` claims with an infinite or NaN side: a verdict cannot rest on them (a bound that is
    infinite on an instance says nothing there, and belongs in a measurement, not in a bound claim)."""
    return [c for c in bound_claims(claims) if not (math.isfinite(c.observed) and math.isfinite(c.bound))]


def to_jsonable(value: Any) -> Any:
    """Plain JSON types for tensors, arrays, numpy scalars, enums and dataclasses; inf/nan as strings."""
    try:
        import torch

        if isinstance(value, torch.Tensor):
            value = value.detach().cpu().numpy()
    except ImportError:  # pragma: no cover - torch is a hard dependency
        pass
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()] if value.ndim else to_jsonable(value.item())
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else repr(value)  # 'inf', '-inf', 'nan'
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return to_jsonable(asdict(value))
    if hasattr(value, "value") and isinstance(getattr(value, "value"), str):  # enums
        return value.value
    return value


def _from_json_float(value: Any) -> Any:
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    return value


def _from_json_details(value: Any) -> Any:
    """``to_jsonable`` in reverse for details: the non-finite floats it wrote as 'inf', '-inf', 'nan' are floats
    again at any depth (a fit's NaN standard error read back from a run file is a number, not text)."""
    if isinstance(value, Mapping):
        return {k: _from_json_details(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json_details(v) for v in value]
    return _from_json_float(value)


def reproduce_command(result_id: str, params: Mapping[str, Any], form: str | None = None,
                      allow_violation: bool = False, device: str = "cpu") -> str:
    """``python -m theorems check ...`` for one instance, quoted for a POSIX shell."""
    cmd = ["python", "-m", "theorems", "check", result_id, *(f"{k}={command_word(v)}" for k, v in params.items())]
    if form:
        cmd.append(f"form={form}")
    if allow_violation:
        cmd.append("allow_violation=true")
    if device != "cpu":
        cmd += ["--device", device]
    return shlex.join(cmd)


@dataclass
class Evidence:
    result_id: str
    form: str
    params: dict[str, Any]
    holds: bool
    observed: float
    bound: float
    tightness: float | None
    converged: bool | None
    claims: list[Claim] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    status: str = ""
    device: str = "cpu"
    elapsed_s: float = 0.0
    # The headline claim (its name) and its relation and tolerance; "" where the result set the headline
    # numbers by hand (the old convention).
    headline: str = ""
    relation: str = ""
    rtol: float = 0.0
    atol: float = 0.0

    # -- queries -----------------------------------------------------------------------------------
    def claim(self, name: str) -> Claim:
        for c in self.claims:
            if c.name == name:
                return c
        raise KeyError(f"{self.result_id} has no claim {name!r}; it has {[c.name for c in self.claims]}")

    @property
    def failed_claims(self) -> list[Claim]:
        """Every claim that did not pass, whatever its kind."""
        return [c for c in self.claims if not c.passed]

    @property
    def failed_bounds(self) -> list[Claim]:
        """The failed ``bound`` claims: what makes this instance a counterexample to the statement."""
        return [c for c in bound_claims(self.claims) if not c.passed]

    @property
    def outcome(self) -> str:
        """'holds', 'fails', 'not converged' or 'measured' (no bound claim: nothing asserted), :func:`outcome_of`."""
        return outcome_of(self.claims, self.converged)

    # -- grades (theorems.core.grade) -----------------------------------------------------------------
    def grade_of(self, claim: Claim) -> str:
        """``claim``'s grade on this evidence: `Claim.grade`, with a named certificate counted only where this
        evidence's convergence certificate supports it (`theorems.core.grade.certificate_supported`)."""
        return claim.grade_given(certificate_supported(claim.certificate, self.converged, self.details))

    @property
    def deciding_claims(self) -> list[Claim]:
        """The claims the instance's outcome rests on: its failed ``bound`` claims where it fails, every ``bound``
        claim where it holds, none where it decides nothing (not converged, measurements only)."""
        outcome = self.outcome
        return self.failed_bounds if outcome == FAILS else bound_claims(self.claims) if outcome == HOLDS else []

    @property
    def grades(self) -> dict[str, str]:
        """The grade of each verdict-deciding claim (`deciding_claims`), by name."""
        return {c.name: self.grade_of(c) for c in self.deciding_claims}

    @property
    def grade(self) -> str | None:
        """How strong the outcome is: the strongest grade among the failed bound claims of an instance that fails
        (one rigorous failure refutes), the weakest among the bound claims of one that holds; None where the
        instance decides nothing."""
        grades = [self.grade_of(c) for c in self.deciding_claims]
        return (strongest if self.outcome == FAILS else weakest)(grades)

    def grade_text(self) -> str:
        """The outcome's grade with what it rests on (the deciding claim's `Claim.grade_text`); '' for none."""
        grade = self.grade
        if grade is None:
            return ""
        claim = next(c for c in self.deciding_claims if self.grade_of(c) == grade)
        return claim.grade_text(grade)

    @property
    def failed_proof_steps(self) -> list[Claim]:
        return [c for c in self.claims if c.kind == "proof_step" and not c.passed]

    @property
    def slack(self) -> float:
        """The smallest normalised slack over the ``bound`` claims (< 0: a bound failed; NaN: none)."""
        values = [c.slack for c in bound_claims(self.claims)]
        if not values:
            return math.nan
        return math.nan if any(math.isnan(v) for v in values) else min(values)

    def explain(self) -> str:
        """Every claim with its numbers; the message pytest shows when an assertion on ``holds`` fails."""
        lines = [f"{self.result_id} [{self.form}] {self.reproduce()}"]
        if self.converged is False:
            lines.append("NOT CONVERGED: the optimiser's certificate failed, so the evidence cannot hold")
        lines += [f"  {c.line(grade=self.grade_of(c))}" for c in self.claims]
        if self.violations:
            lines.append("  hypotheses deliberately violated: " + "; ".join(self.violations))
        return "\n".join(lines)

    def headline_claim(self) -> Claim | None:
        """The one claim the headline's numbers, slack and tightness all come from: the claim the evidence
        names as its headline, else the bound claim with the least slack (`headline_claim`)."""
        if self.headline:
            try:
                return self.claim(self.headline)
            except KeyError:
                pass
        return headline_claim(self.claims)

    def reproduce(self) -> str:
        """The command line that reruns exactly this instance."""
        return reproduce_command(self.result_id, self.params, self.form, bool(self.violations), self.device)

    # -- pictures: drawn by the report package, found through `theorems.core.display` (no import of it here)
    def plot(self):
        """A matplotlib Figure: the sweep with its fitted and predicted exponents for a trend result,
        otherwise each claim's observed value against its bound."""
        from .display import renderer

        draw = renderer("figure")
        if draw is None:
            raise RuntimeError("no figure renderer is installed (the `reports` package of this repository "
                               "provides one: pip install -e .)")
        return draw(self)

    def _repr_html_(self) -> str:
        """A small table and picture for notebooks (Jupyter calls this); the text summary where no renderer
        is installed."""
        from html import escape

        from .display import renderer

        draw = renderer("html")
        return draw(self) if draw is not None else f"<pre>{escape(repr(self))}</pre>"

    # -- serialisation ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(
            {
                "result_id": self.result_id,
                "form": self.form,
                "status": self.status,
                "params": self.params,
                "holds": self.holds,
                "converged": self.converged,
                "observed": self.observed,
                "bound": self.bound,
                "tightness": self.tightness,
                "headline": self.headline,
                "relation": self.relation,
                "rtol": self.rtol,
                "atol": self.atol,
                "slack": self.slack,
                "grade": self.grade,
                "claims": [{**asdict(c), "grade": self.grade_of(c)} for c in self.claims],
                "details": self.details,
                "violations": self.violations,
                "device": self.device,
                "elapsed_s": self.elapsed_s,
                "reproduce": self.reproduce(),
            }
        )

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Evidence":
        # A claim's grade is derived on reading from what it rests on (its enclosure, certificate, draws), never
        # read back: a file that says 'rigorous' without an enclosure that decides is not believed.
        claims = [
            Claim(**{**{k: v for k, v in c.items() if k != "grade"},
                     "observed": _from_json_float(c["observed"]), "bound": _from_json_float(c["bound"]),
                     "kind": c.get("kind", "bound"), "rtol": float(c.get("rtol", 0.0)),
                     "atol": float(c.get("atol", 0.0)),
                     "enclosure": None if c.get("enclosure") is None else Enclosure.from_dict(c["enclosure"]),
                     "certificate": c.get("certificate", ""), "n_draws": int(c.get("n_draws", 0)),
                     "stderr": None if c.get("stderr") is None else float(_from_json_float(c["stderr"]))})
            for c in data.get("claims", [])
        ]
        tight = data.get("tightness")
        return cls(
            result_id=data["result_id"],
            form=data["form"],
            params=dict(data["params"]),
            holds=bool(data["holds"]),
            observed=_from_json_float(data["observed"]),
            bound=_from_json_float(data["bound"]),
            tightness=None if tight is None else _from_json_float(tight),
            converged=data.get("converged"),
            claims=claims,
            details=_from_json_details(dict(data.get("details", {}))),
            violations=list(data.get("violations", [])),
            status=data.get("status", ""),
            device=data.get("device", "cpu"),
            elapsed_s=float(data.get("elapsed_s", 0.0)),
            headline=data.get("headline", ""),
            relation=data.get("relation", ""),
            rtol=float(data.get("rtol", 0.0)),
            atol=float(data.get("atol", 0.0)),
        )

    def __repr__(self) -> str:
        verdict = "HOLDS" if self.holds else {
            NOT_CONVERGED: "DOES NOT HOLD (not converged)",
            MEASURED: "NOTHING ASSERTED (no bound claim: measurements only)"}.get(self.outcome, "DOES NOT HOLD")
        conv = {None: "n/a (no optimiser)", True: "yes", False: "NO"}[self.converged]
        head = self.headline_claim()  # the one claim the headline's slack and tightness come from
        tight = _fmt(head.tightness) if head is not None and not math.isnan(head.slack) else \
            ("n/a" if self.tightness is None else _fmt(self.tightness))
        slack = "n/a" if head is None or math.isnan(head.slack) else f"{head.slack:+.3g}"
        rel = {"<=": "≤", ">=": "≥", "==": "=", "=": "="}.get(self.relation, "vs")
        observed, bound = fmt_pair(self.observed, self.bound)
        tol = ", ".join(t for t in (f"rtol {self.rtol:.0e}" if self.rtol else "",
                                   f"atol {self.atol:.0e}" if self.atol else "") if t)
        lines = [
            f"Evidence {self.result_id} [{self.form}] -> {verdict}",
            f"  params    : {', '.join(f'{k}={v}' for k, v in self.params.items())}",
            f"  headline  : {self.headline + ': ' if self.headline else ''}{observed} {rel} {bound}"
            f"{' (' + tol + ')' if tol else ''}   relative slack: {slack}   tightness: {tight}",
            f"  converged : {conv}   device: {self.device}   time: {self.elapsed_s:.2f}s",
            "  claims    :",
        ]
        lines += [f"    {c.line(grade=self.grade_of(c))}" for c in self.claims]
        if self.grade is not None:
            lines.append(f"  grade     : {self.grade_text()}")
        wrong = error_size(self)
        if wrong:
            lines.append(f"  how wrong : {wrong}")
        if self.violations:
            lines.append("  violates  : " + "; ".join(self.violations))
        scalars = {k: v for k, v in self.details.items() if isinstance(v, (int, float, str, bool)) or v is None}
        shown = list(scalars.items())[:12]
        if shown:
            lines.append("  details   : " + ", ".join(f"{k}={_fmt(v)}" for k, v in shown))
            if len(self.details) > len(shown):
                lines.append(f"              (+{len(self.details) - len(shown)} more in .details)")
        lines.append(f"  reproduce : {self.reproduce()}")
        return "\n".join(lines)


def summarize(evidences: Sequence[Evidence]) -> dict[str, Any]:
    """Counts used by the CLI and the report: instances, holds, not holding ('fails': every instance that does
    not hold, whatever the reason), non-converged, and 'measured' (no bound claim: nothing asserted, counted
    among 'fails' only because it confirms nothing)."""
    return {
        "instances": len(evidences),
        "holds": sum(e.holds for e in evidences),
        "fails": sum(not e.holds for e in evidences),
        "not_converged": sum(e.converged is False for e in evidences),
        "measured": sum(e.outcome == MEASURED for e in evidences),
    }
