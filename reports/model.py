"""What the report page says, computed from the registry and the evidence (no HTML here).

The page answers, in this order: which printed statements of which paper are wrong, how wrong and what is
true instead (the errata, one table per paper); which proof steps are broken (proof errata); what the
suite cannot decide and why (open), what is true but uninformative (vacuous); then every result, paper by
paper. The numbers: the *relative slack* of a claim is the room left before it fails, divided by the larger of
|observed|, |bound| and its tolerance (> 0 room, 0 at the edge, < 0 failed; `theorems.core.evidence`); the
*size of an error* is `theorems.core.magnitude.error_size`: observed/bound of the failed bound claim where
that ratio is defined and positive, else the violation in the claim's own units.

Where each result sits in its paper. Each result links to its section where the paper has a stable anchor for
it, and otherwise names the section in words beside a link to the paper (`section_link`). The texts the suite
reads carry no arXiv id of their own; each paper package's `Paper.url` is its arXiv listing. Stable anchors
exist only in arXiv's HTML rendering (LaTeXML ids: ``#S4.SS2`` is Section 4.2, ``#A2`` Appendix B), and only
where the paper numbers its sections: papers 001 (rendered by arXiv Labs' ar5iv, the paper predating arXiv's
own HTML) and 004 link each result whose place starts with "Section n.m", "§n.m" or "Appendix X.m"; paper 000
links its appendices only (its sections are unnumbered, AAAI style); 002 (unnumbered) and 003 (the suite reads
a presentation of the ICLR paper, with its own section names) name the section and link the paper. A PDF's
``#page=`` is not used: it moves between versions and says nothing about which section.

What needs a look (`Row.surprise`). A negative control is there to show that the check can fail for the claim's
reason. One whose optimiser did not converge shows nothing either way: a referee counts it neither as a control
that failed as it should nor as one that held, but as *inconclusive*, counted apart and flagged until it is moved
to where it fails for the claim's reason (or a test says it expects it not to converge). The registered searched
instance of an ``open`` result failing or not converging is the finding that verdict rests on, not a surprise
(`theorems.core.verdict` keeps a result from `verified` on exactly that); that instance *holding* is one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import theorems
from theorems.core import magnitude, registry
from theorems.core.errors import UnknownResult
from theorems.core.evidence import Claim, Evidence, bound_claims, fmt_pair, reproduce_command, summarize
from theorems.core.grade import GRADES, rank, strongest
from theorems.core.result import AS_PRINTED, Status

from theorems.core.recording import FAILS, HOLDS, MEASURED, NOT_CONVERGED, instance_key

# instance key (`recording.instance_key`) -> the outcomes a test said it expects of that instance
Expected = Mapping[tuple, "set[str] | frozenset[str]"]
_REL = {"<=": "≤", ">=": "≥", "==": "=", "=": "="}
WRONG = (str(Status.VERIFIED_CORRECTED), str(Status.REFUTED))  # the verdicts that say the printed statement is false

STATUS_MEANING = {
    str(Status.VERIFIED): "the printed statement holds on generated and worst-case-searched instances, "
                          "including where its hypothesis nearly binds",
    str(Status.VERIFIED_CORRECTED): "the printed statement fails (a replayable counterexample inside its "
                                    "hypotheses); the corrected one holds",
    str(Status.REFUTED): "the printed statement fails (a replayable counterexample); no correction is established",
    str(Status.VACUOUS): "true but never informative (shown against the trivial bound)",
    str(Status.TREND): "an asymptotic claim: the fitted exponent is in the predicted range, and a regime where "
                       "the paper predicts otherwise falls outside it",
    str(Status.OPEN): "the evidence the suite can produce decides neither way (the reason is given)",
}


def outcome_of(evidence: Evidence) -> str:
    """'not converged' outranks 'fails': an unconverged optimiser says nothing about the bound; an instance
    that asserts no bound (an open result's measurements) is 'measured', neither holding nor failing."""
    if evidence.converged is False:
        return NOT_CONVERGED
    if not bound_claims(evidence.claims):
        return MEASURED
    return HOLDS if evidence.holds else FAILS


def control_failed(evidence: Evidence) -> bool:
    """A negative control does its job when some claim fails on it (a bound, or an identity or proof step
    whose failure shows that the check can fail), or the instance does not hold, *in a run that converged*.
    A control whose optimiser did not converge is `control_inconclusive`: an unconverged run says nothing
    about the bound (it never holds, and it never fails for the claim's reason), so it shows neither that
    the check can fail nor that it cannot."""
    return evidence.converged is not False and (bool(evidence.failed_claims) or not evidence.holds)


def control_inconclusive(evidence: Evidence) -> bool:
    """A negative control that did not converge (see `control_failed`). A referee counts it as neither a
    control that failed as it should nor one that held: the suite has not shown, with this control, that
    the check can fail. It is counted apart and needs a look (the control belongs where it fails for the
    claim's reason), unless a test said it expects it not to converge (`recording.expect`)."""
    return bool(evidence.violations) and evidence.converged is False


@dataclass(frozen=True)
class InstanceError:
    """An instance the report tried to run that raised instead of giving Evidence.

    ``form`` is None when the failure came before any instance existed (``report_instances`` raised).
    """

    result_id: str
    form: str | None
    params: Mapping[str, Any]
    allow_violation: bool
    message: str

    def reproduce(self) -> str:
        """The command line that reruns the instance, to see the traceback."""
        return reproduce_command(self.result_id, self.params, self.form, self.allow_violation)


def counts(evidences: Sequence[Evidence], errors: Sequence[InstanceError] = (),
           expected: Expected | None = None) -> dict[str, int]:
    """Instances, holds, fails, not converged (as `summarize`), negative controls among them, how many of
    those failed as they should, how many need a look (``expected``: what the tests expected of each
    instance, `theorems.core.recording.expect`), errors."""
    controls = [e for e in evidences if e.violations]
    rows = [row(e, {}, expected) for e in evidences]
    return {
        **summarize(evidences),
        "controls": len(controls),
        "controls_failed": sum(control_failed(e) for e in controls),
        "controls_inconclusive": sum(control_inconclusive(e) for e in controls),
        "counterexample_runs": sum(r.is_counterexample_run and not r.is_control and r.outcome == FAILS for r in rows),
        "unexpected": sum(r.unexpected for r in rows),
        "errors": len(errors),
    }


def summary_line(c: Mapping[str, int]) -> str:
    """The counts of `counts` in words that say what happened (a failing negative control is a success)."""
    inconclusive = c.get("controls_inconclusive", 0)
    return (f"{c['instances']} instance(s): {c['holds']} hold; negative controls failed as they should "
            f"{c['controls_failed']}/{c['controls']}"
            + (f" ({inconclusive} inconclusive: did not converge)" if inconclusive else "")
            + f"; {c['counterexample_runs']} counterexample run(s) of printed "
            f"statements found wrong; {c['unexpected']} need a look; {c['not_converged']} not converged; "
            f"{c['errors']} error(s)")


def error_size(evidence: Evidence) -> str:
    """How wrong a printed statement is on one counterexample, in a reader's words: its worst failed bound
    claim with one magnitude that means something for its kind of bound (`theorems.core.magnitude`: a
    ratio where the bound is non-zero, else the violation in the claim's units)."""
    return magnitude.error_size(evidence)


@dataclass
class Row:
    """One evidence as the page shows it."""

    evidence: Evidence
    shown_params: dict[str, Any]  # only what differs from the defaults; the full set is in the command
    expected: frozenset[str] = frozenset()  # outcomes a test said it expects (a starved optimiser...)
    searched: bool = False  # a registered searched instance (Result.searched) of the result's default form

    @property
    def outcome(self) -> str:
        return outcome_of(self.evidence)

    @property
    def is_control(self) -> bool:
        return bool(self.evidence.violations)

    @property
    def is_counterexample_run(self) -> bool:
        """The printed form of a result the suite found false: failing there is the expected finding."""
        ev = self.evidence
        return ev.form == AS_PRINTED and ev.status in WRONG

    @property
    def surprise(self) -> str:
        """Why this instance needs a look, in a few words ("" when it does not): a non-converged optimiser,
        a negative control that did not converge (inconclusive: `control_inconclusive`) or that held, or a
        failure that is neither a control nor a run of a printed statement the suite already found false.

        Not surprises: an outcome a test said it expects of this instance (`recording.expect`); an ``open``
        result's instances holding or failing (that is what open says, and its reason is on the page); and
        the registered searched instance of an ``open`` result failing or not converging: that is the finding
        the open verdict rests on (`theorems.core.verdict` refuses `verified` on a searched instance that does not
        hold or does not converge), on the page under "Why open". The same searched instance *holding* is a
        surprise: the finding no longer reproduces, and the open verdict would be stale."""
        ev = self.evidence
        if self.outcome in self.expected:
            return ""
        is_open = ev.status == str(Status.OPEN)
        if self.outcome == NOT_CONVERGED:
            if self.is_control:
                return "negative control inconclusive: did not converge"
            if is_open and self.searched:
                return ""
            return "did not converge"
        if is_open:
            return "the searched instance holds: the open verdict's finding is gone" \
                if self.searched and self.outcome == HOLDS else ""
        if self.is_control:
            return "" if control_failed(ev) else "negative control held"
        return "fails outside a control and a known counterexample" \
            if self.outcome == FAILS and not self.is_counterexample_run else ""

    @property
    def unexpected(self) -> bool:
        return bool(self.surprise)

    @property
    def command(self) -> str:
        """The command that reruns this instance, with only the parameters that differ from the defaults
        (the check fills in the rest; the full set is in evidence.json beside the page)."""
        ev = self.evidence
        return reproduce_command(ev.result_id, self.shown_params, ev.form, bool(ev.violations), ev.device)

    @property
    def headline_claim(self) -> Claim | None:
        """The one claim the headline's numbers and slack come from (`magnitude.headline`)."""
        return magnitude.headline(self.evidence)

    @property
    def headline(self) -> str:
        c = self.headline_claim
        if c is None:
            ev = self.evidence
            observed, bound = fmt_pair(ev.observed, ev.bound)
            return f"{observed} {_REL.get(ev.relation, 'vs')} {bound}"
        observed, bound = fmt_pair(c.observed, c.bound)
        return f"{c.name}: {observed} {_REL.get(c.relation, 'vs')} {bound}"

    @property
    def headline_slack(self) -> float:
        c = self.headline_claim
        return c.slack if c is not None else math.nan


@dataclass
class Section:
    """One result: what it says, its verdict and what the verdict rests on, and its evidence."""

    id: str
    paper: str
    title: str
    status: str
    statement: str
    correction: str | None
    correction_reason: str | None
    registered: bool
    where: str = ""  # the paper's own numbering and section
    where_link: str = ""  # the section in the paper's arXiv HTML (`section_link`), or "" where none is stable
    paper_link: str = ""  # the paper itself (`Paper.link`)
    defaults: dict[str, Any] = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)
    errors: list[InstanceError] = field(default_factory=list)

    def claim_lines(self, row: Row) -> list[str]:
        """The claims of ``row``, a line each; a claim's description is given once per result, at the first
        row that has it in those words (later rows of the same result repeat only the numbers)."""
        first: dict[tuple[str, str], int] = {}
        for i, r in enumerate(self.rows):
            for c in r.evidence.claims:
                first.setdefault((c.name, c.message), i)
        mine = next(i for i, r in enumerate(self.rows) if r is row)
        return [c.line(describe=first[(c.name, c.message)] == mine, grade=row.evidence.grade_of(c))
                for c in row.evidence.claims]
    figures: list[tuple[str, Any]] = field(default_factory=list)  # (caption, inline svg)
    for_all: str = ""
    exists: str = ""
    open_reason: str = ""
    vacuity: str = ""
    registered_counterexamples: list[dict] = field(default_factory=list)
    proof_errata: list[dict[str, str]] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {**counts([r.evidence for r in self.rows], self.errors),
                "unexpected": sum(r.unexpected for r in self.rows)}

    @property
    def needs_attention(self) -> bool:
        return bool(self.errors) or any(r.unexpected for r in self.rows)

    @property
    def surprises(self) -> list[str]:
        """What needs a look, each kind once with its count ("2 × did not converge")."""
        kinds: dict[str, int] = {}
        for r in self.rows:
            if r.surprise:
                kinds[r.surprise] = kinds.get(r.surprise, 0) + 1
        if self.errors:
            kinds["raised"] = len(self.errors)
        return [f"{n} × {k}" if n > 1 else k for k, n in kinds.items()]

    @property
    def counterexample_rows(self) -> list[Row]:
        """Instances on which the printed statement fails, inside its hypotheses: the suite's finding."""
        return [r for r in self.rows if r.is_counterexample_run and not r.is_control and r.outcome == FAILS]

    @property
    def worst_slack(self) -> float:
        """The least relative slack over the instances of the asserted form inside the hypotheses."""
        values = [r.evidence.slack for r in self.rows if not r.is_control and not r.is_counterexample_run
                  and not math.isnan(r.evidence.slack)]
        return min(values) if values else math.nan

    @property
    def wrong(self) -> bool:
        return self.status in WRONG

    def replays(self) -> list[dict[str, Any]]:
        """Each registered counterexample with its command and, where this run has its evidence, the size of
        the error there (None: not run in this report)."""
        out = []
        for cx in self.registered_counterexamples:
            wanted = _instance(self.id, cx)
            ev = next((r.evidence for r in self.rows if r.evidence.form == AS_PRINTED and not r.is_control
                       and all(_plain(r.evidence.params.get(k)) == v for k, v in wanted.items())), None)
            failed = ev is not None and not ev.holds
            # the grade of the failure (theorems.core.grade): None where this run has no failing replay of it
            graded = ev is not None and ev.outcome == FAILS
            out.append({"command": reproduce_command(self.id, cx, AS_PRINTED),
                        "evidence": ev, "size": error_size(ev) if failed else None,
                        "short": magnitude.short_size(ev) if failed else None,
                        "replayed": ev is not None and not ev.holds,
                        "grade": ev.grade if graded else None, "grade_text": ev.grade_text() if graded else ""})
        return sorted(out, key=lambda rep: grade_rank(rep["grade"]))

    @property
    def grade(self) -> str | None:
        """How strong the finding is that the printed statement is wrong: the strongest grade among its registered
        counterexamples' failures in this run (None: none replayed here)."""
        return strongest(rep["grade"] for rep in self.replays() if rep["grade"] is not None)


def grade_rank(grade: str | None) -> int:
    """The order of the errata: rigorous first, … numerical, then no grade (not replayed in this run)."""
    return rank(grade) if grade is not None else len(GRADES)


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _instance(result_id: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as the instance `check` runs: every value coerced by its declaration (a list given as
    '0.5,1,2' is the tuple (0.5, 1.0, 2.0)); as given where the result is not registered."""
    from theorems.core.registry import validate_structure

    try:
        full = validate_structure(theorems.get(result_id), dict(params), AS_PRINTED)
    except Exception:  # noqa: BLE001 - an orphan or a stale spec: match on what was given
        return {k: _plain(v) for k, v in params.items()}
    return {k: _plain(full[k]) for k in params}


@dataclass
class PaperGroup:
    number: str
    title: str
    cite: str
    link: str = ""
    sections: list[Section] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return f"paper-{self.number}"

    @property
    def statuses(self) -> dict[str, int]:
        out = {str(st): 0 for st in Status}
        for s in self.sections:
            out[s.status] = out.get(s.status, 0) + 1
        return out

    @property
    def errata(self) -> list[Section]:
        """The results whose printed statement is wrong, the strongest evidence first (`Section.grade`: rigorous,
        certified, statistical, numerical, then those with no counterexample replayed here), else in paper order."""
        return sorted((s for s in self.sections if s.wrong), key=lambda s: grade_rank(s.grade))

    @property
    def counts(self) -> dict[str, int]:
        rows = [r for s in self.sections for r in s.rows]
        return {**counts([r.evidence for r in rows], [e for s in self.sections for e in s.errors]),
                "unexpected": sum(r.unexpected for r in rows)}


# The LaTeXML anchors a paper's numbering gives (module docstring): Section n[.m] -> S<n>[.SS<m>], Appendix X[.m] ->
# A<k>[.SS<m>] with k the letter's place in the alphabet. The locator must open the result's `section`.
_LOCATOR = re.compile(r"^\s*(?:Section|Sec\.|§)\s*(\d+)(?:\.(\d+))?\b|^\s*(?:Appendix|App\.)\s*([A-Z])(?:\.(\d+))?\b")


_HTML_RENDERING = re.compile(r"https://(?:arxiv\.org|ar5iv\.labs\.arxiv\.org)/html/\d{4}\.\d{4,5}(?:v\d+)?$")


def section_link(paper_url: str, where: str) -> str:
    """The URL of the section ``where`` starts with ("Section 4.2, Theorem 4.3" -> ``…#S4.SS2``) in the
    arXiv HTML rendering at ``paper_url``; "" where ``paper_url`` is not such a rendering or ``where`` does
    not start with a numbered section or lettered appendix."""
    if not _HTML_RENDERING.match(paper_url or ""):
        return ""
    m = _LOCATOR.match(where or "")
    if m is None:
        return ""
    number, sub, letter, appendix_sub = m.groups()
    anchor = f"S{number}" + (f".SS{sub}" if sub else "") if number else \
        f"A{ord(letter) - ord('A') + 1}" + (f".SS{appendix_sub}" if appendix_sub else "")
    return f"{paper_url}#{anchor}"


def registered_section(result: Any) -> Section:
    logic = result.logic
    paper = result.source
    where = getattr(result, "section", "")
    return Section(
        id=result.id, paper=result.paper, title=result.title, status=str(result.status),
        statement=result.statement, correction=result.correction, correction_reason=result.correction_reason,
        registered=True, where=where, defaults=result.defaults,
        where_link=section_link(paper.link, where) if paper is not None else "",
        paper_link=paper.link if paper is not None else "",
        for_all=logic.for_all if logic else "", exists=logic.exists if logic else "",
        open_reason=result.open_reason, vacuity=result.vacuity,
        registered_counterexamples=[dict(cx) for cx in result.counterexamples],
        proof_errata=[{"step": e.step, "printed": e.printed, "why": e.why,
                       "reproduce": reproduce_command(result.id, e.params, e.form)} for e in result.proof_errata],
    )


def orphan_section(result_id: str, status: str) -> Section:
    return Section(id=result_id, paper="", title="(no longer registered)", status=status or "unknown",
                   statement="", correction=None, correction_reason=None, registered=False)


def row(ev: Evidence, defaults: Mapping[str, Any], expected: Expected | None = None) -> Row:
    missing = object()
    shown = {k: v for k, v in ev.params.items() if defaults.get(k, missing) != _plain(v)}
    wanted = frozenset(expected.get(instance_key(ev), ())) if expected else frozenset()
    return Row(evidence=ev, shown_params=shown, expected=wanted, searched=_is_searched(ev))


def _is_searched(ev: Evidence) -> bool:
    """Whether ``ev`` is a registered searched instance (`Result.searched`) of its result's default form."""
    try:
        result = theorems.get(ev.result_id)
    except Exception:  # noqa: BLE001 - a result no longer registered has no registered instances
        return False
    if ev.violations or ev.form != result.default_form:
        return False
    return any(all(_plain(ev.params.get(k)) == v for k, v in _instance(ev.result_id, spec).items())
               for spec in result.searched)


def _registered(result_id: str) -> bool:
    try:
        theorems.get(result_id)
    except UnknownResult:
        return False
    return True


def sections_of(evidences: list[Evidence], errors: list[InstanceError],
                only: Sequence[str] | None = None, expected: Expected | None = None) -> list[Section]:
    """One section per registered result (of those in ``only``), in registry order, then any result the
    evidence names that is no longer registered (a recorded run can outlive a rename)."""
    if only is None:
        registered = [theorems.get(rid) for rid in theorems.ids()]
    else:  # only those: `report --only` of one plugin's result imported every paper package here (1.8 s)
        registered = registry.in_order(theorems.get(rid) for rid in dict.fromkeys(only) if _registered(rid))
    sections = {result.id: registered_section(result) for result in registered}

    def section_for(result_id: str, status: str) -> Section:
        if result_id not in sections:
            sections[result_id] = orphan_section(result_id, status)
        return sections[result_id]

    for ev in evidences:
        section = section_for(ev.result_id, ev.status)
        section.rows.append(row(ev, section.defaults, expected))
    for err in errors:
        section_for(err.result_id, "").errors.append(err)
    return list(sections.values())


def papers_of(sections: list[Section]) -> list[PaperGroup]:
    """The sections grouped by paper, in paper order; results no longer registered last."""
    groups: dict[str, PaperGroup] = {}
    for s in sections:
        key = s.paper or "?"
        if key not in groups:
            source = _source(s)
            groups[key] = PaperGroup(
                number=key, title=source.title if source else ("(not registered)" if not s.paper else s.paper),
                cite=source.cite() if source else "", link=source.link if source else "")
        groups[key].sections.append(s)
    return sorted(groups.values(), key=lambda g: (g.number == "?", g.number))


def _source(section: Section):
    if not section.registered:
        return None
    result = theorems.get(section.id)
    if result.source is not None:
        return result.source
    from theorems.core.result import Paper

    return Paper(number=result.paper, title=result.paper_title, authors="")
