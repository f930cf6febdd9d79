"""The report builder: one self-contained HTML page of every result, its evidence and its tightness.

    >>> from reports import build_report
    >>> build_report("report", evidences, meta)      # -> Path('report/index.html')

The page lists every registered result, with or without evidence, so that a result nobody ran is
visible as such. Plots are inline SVG and the CSS is inline: the file can be mailed or archived alone.
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import jinja2
from markupsafe import Markup

import theorems
from theorems.core.evidence import Evidence, reproduce_command, summarize
from theorems.core.result import AS_PRINTED, Status

from .plots import (CONTROL_ROW, FAILS, HOLDS, NOT_CONVERGED, OUTCOME_STYLE, evidence_svg, has_picture, outcome_of,
                    row_of, scaling_of, scaling_svg, tightness_svg)

__all__ = ["InstanceError", "build_report", "counts", "evidence_html", "prepare_out_dir"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
INDEX = "index.html"


@dataclass(frozen=True)
class InstanceError:
    """An instance the report tried to run that raised instead of giving Evidence.

    ``form`` is None when the failure came before any instance existed (e.g. ``report_instances``
    itself raised).
    """

    result_id: str
    form: str | None
    params: Mapping[str, Any]
    allow_violation: bool
    message: str

    def reproduce(self) -> str:
        """The command line that reruns the instance, to see the traceback."""
        return reproduce_command(self.result_id, self.params, self.form, self.allow_violation)


@dataclass
class _Row:
    evidence: Evidence
    outcome: str
    shown_params: dict[str, Any]  # only what differs from the defaults; the full set is in the command

    @property
    def is_control(self) -> bool:
        return bool(self.evidence.violations)

    @property
    def is_counterexample_run(self) -> bool:
        """The printed form of a result the suite found false: failing there is the expected finding."""
        ev = self.evidence
        return ev.form == AS_PRINTED and ev.status in (str(Status.VERIFIED_CORRECTED), str(Status.REFUTED))

    @property
    def unexpected(self) -> bool:
        """A non-converged optimiser, a control that held, or a failure that is neither a control nor a
        run of a printed statement the suite already found false."""
        if self.outcome == NOT_CONVERGED:
            return True
        if self.is_control:
            return self.outcome == HOLDS
        return self.outcome != HOLDS and not self.is_counterexample_run


@dataclass
class _Section:
    id: str
    paper: str
    paper_title: str
    title: str
    status: str
    statement: str
    correction: str | None
    correction_reason: str | None
    registered: bool
    defaults: dict[str, Any] = field(default_factory=dict)
    rows: list[_Row] = field(default_factory=list)
    errors: list[InstanceError] = field(default_factory=list)
    figure: Markup | None = None
    scaling: list[tuple[_Row, Markup]] = field(default_factory=list)  # a sweep plot per evidence that has one
    # What the verdict rests on (Result.logic, open_reason, vacuity, counterexamples, proof_errata).
    for_all: str = ""
    exists: str = ""
    open_reason: str = ""
    vacuity: str = ""
    registered_counterexamples: list[str] = field(default_factory=list)  # reproduce commands
    proof_errata: list[dict[str, str]] = field(default_factory=list)  # step, printed, why, reproduce

    @property
    def counts(self) -> dict[str, int]:
        return counts([r.evidence for r in self.rows], self.errors)

    @property
    def has_tightness(self) -> bool:
        return any(r.evidence.tightness is not None and math.isfinite(r.evidence.tightness) for r in self.rows)

    @property
    def needs_attention(self) -> bool:
        return bool(self.errors) or any(r.unexpected for r in self.rows)

    @property
    def counterexamples(self) -> list[_Row]:
        """Instances on which the printed statement fails, inside its hypotheses: the suite's finding."""
        return [r for r in self.rows if r.is_counterexample_run and not r.is_control and r.outcome == FAILS]


def counts(evidences: Sequence[Evidence], errors: Sequence[InstanceError] = ()) -> dict[str, int]:
    """Instances, holds, fails, not converged (as `summarize`), negative controls among them, errors."""
    return {
        **summarize(evidences),
        "controls": sum(bool(e.violations) for e in evidences),
        "errors": len(errors),
    }


def prepare_out_dir(out_dir: str | os.PathLike) -> Path:
    """Create ``out_dir`` and prove it writable, so that a long run never ends on a write error.

    Raises OSError (with the path in its message) where the folder cannot be made or written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # os.access says yes to root on read-only mounts; writing a probe file is the only sure test.
    with tempfile.NamedTemporaryFile(dir=out, prefix=".write-probe-"):
        pass
    return out


def build_report(
    out_dir: str | os.PathLike,
    evidences: Iterable[Evidence],
    meta: Mapping[str, Any],
    errors: Iterable[InstanceError] = (),
    only: Sequence[str] | None = None,
) -> Path:
    """Write ``out_dir/index.html`` for ``evidences`` (and the instances that raised) and return its path.

    ``only``: the result ids the report is about (``report --only``); by default every registered result,
    so that a result nobody ran shows as such."""
    out = prepare_out_dir(out_dir)
    evidences, errors = list(evidences), list(errors)
    sections = _sections(evidences, errors, only)
    # Results without any tightness value (trends: their observed value is an exponent) would be empty rows.
    overview = [(s.id, [r.evidence for r in s.rows]) for s in sections if s.has_tightness]
    html = _environment().get_template(f"{INDEX}.j2").render(
        meta=meta,
        totals={**counts(evidences, errors), "results": len(sections)},
        # sorted() is stable: within each group the results keep registry (paper) order.
        summary=sorted(sections, key=lambda s: (not s.needs_attention, not s.rows)),
        by_paper=_groups(sections, lambda s: (s.paper or "?", s.paper_title or "(not registered)")),
        by_status=_groups(sections, lambda s: (s.status, _STATUS_MEANING.get(s.status, ""))),
        statuses=[str(st) for st in Status],
        sections=sections,
        overview=Markup(tightness_svg(overview, salt="overview")) if overview else None,
        outcome_style=OUTCOME_STYLE,
        outcomes=(HOLDS, FAILS, NOT_CONVERGED),
    )
    path = out / INDEX
    path.write_text(html, encoding="utf-8")
    return path


def _sections(evidences: list[Evidence], errors: list[InstanceError],
              only: Sequence[str] | None = None) -> list[_Section]:
    """One section per registered result (of those in ``only``), in registry order, then any result the
    evidence names that is no longer registered (a recorded run can outlive a rename)."""
    wanted = None if only is None else set(only)
    sections = {rid: _registered_section(theorems.get(rid)) for rid in theorems.ids()
                if wanted is None or rid in wanted}

    def section_for(result_id: str, status: str) -> _Section:
        if result_id not in sections:
            sections[result_id] = _orphan_section(result_id, status)
        return sections[result_id]

    for ev in evidences:
        section = section_for(ev.result_id, ev.status)
        section.rows.append(_row(ev, section.defaults))
    for err in errors:
        section_for(err.result_id, "").errors.append(err)
    for section in sections.values():
        if section.has_tightness:
            groups: dict[str, list[Evidence]] = {}
            for r in section.rows:
                groups.setdefault(row_of(r.evidence), []).append(r.evidence)
            rows = sorted(groups.items(), key=lambda item: (item[0] == CONTROL_ROW, item[0]))
            section.figure = Markup(tightness_svg(rows, salt=section.id))
        if section.rows:
            section.scaling = [(r, Markup(scaling_svg(r.evidence, salt=f"{section.id}-sweep-{i}")))
                               for i, r in enumerate(section.rows) if scaling_of(r.evidence)]
    return list(sections.values())


@dataclass
class _Group:
    """The summary of one paper, or of one status: how many results, how they fared."""

    name: str
    title: str
    results: int = 0
    with_evidence: int = 0
    needs_attention: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def _groups(sections: list[_Section], key) -> list[_Group]:
    """Sections summed by ``key(section) -> (name, title)``, in first-seen (registry) order."""
    groups: dict[str, _Group] = {}
    for s in sections:
        name, title = key(s)
        g = groups.setdefault(name, _Group(name, title, statuses={str(st): 0 for st in Status}))
        g.results += 1
        g.with_evidence += bool(s.rows)
        g.needs_attention += s.needs_attention
        g.statuses[s.status] = g.statuses.get(s.status, 0) + 1
        for k, v in s.counts.items():
            g.counts[k] = g.counts.get(k, 0) + v
    return list(groups.values())


_STATUS_MEANING = {
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


def evidence_html(evidence: Evidence) -> str:
    """A small HTML summary of one evidence (a table and its picture), for notebooks."""
    figure = evidence_svg(evidence, salt="evidence") if has_picture(evidence) else None
    return _environment().get_template("evidence.html.j2").render(
        ev=evidence, outcome=outcome_of(evidence), figure=Markup(figure) if figure else None,
        outcome_style=OUTCOME_STYLE,
    )


def _registered_section(result: theorems.Result) -> _Section:
    logic = result.logic
    return _Section(
        id=result.id, paper=result.paper, paper_title=result.paper_title, title=result.title,
        status=str(result.status), statement=result.statement, correction=result.correction,
        correction_reason=result.correction_reason, registered=True, defaults=result.defaults,
        for_all=logic.for_all if logic else "", exists=logic.exists if logic else "",
        open_reason=result.open_reason, vacuity=result.vacuity,
        registered_counterexamples=[reproduce_command(result.id, cx, AS_PRINTED) for cx in result.counterexamples],
        proof_errata=[{"step": e.step, "printed": e.printed, "why": e.why,
                       "reproduce": reproduce_command(result.id, e.params, e.form)} for e in result.proof_errata],
    )


def _orphan_section(result_id: str, status: str) -> _Section:
    return _Section(
        id=result_id, paper="", paper_title="", title="(no longer registered)", status=status or "unknown",
        statement="", correction=None, correction_reason=None, registered=False,
    )


def _row(ev: Evidence, defaults: Mapping[str, Any]) -> _Row:
    missing = object()
    shown = {k: v for k, v in ev.params.items() if defaults.get(k, missing) != v}
    return _Row(evidence=ev, outcome=outcome_of(ev), shown_params=shown)


def _number(value: Any) -> str:
    """Four significant digits: enough to compare observed with bound at a glance; JSON has the rest."""
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{value:.4g}"


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a typo in the template is an error, not an empty cell
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _number
    env.filters["kv"] = lambda d: ", ".join(f"{k}={v}" for k, v in d.items())
    env.filters["slug"] = lambda s: s.replace(" ", "-")
    return env
