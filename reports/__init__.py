"""The report builder: one self-contained HTML page that reads as an errata of the five papers.

    >>> from reports import build_report
    >>> build_report("report", evidences, meta)      # -> Path('report/index.html')

The first screen answers which printed statements of which paper are wrong, how wrong, and what is true
instead (`reports.model`); then the proof errata, the open and vacuous results, the slack of every result,
and one section per paper with a card per result. The page has a table of contents, an anchor per result,
a filter by verdict and a text search (a small inline script; without it every section shows). Plots are
inline SVG and the CSS is inline: the file can be mailed or archived alone. Beside it, ``evidence.json``
holds every Evidence in full (``Evidence.to_dict``).

The dependency runs one way: this package imports the library, and the library finds
:func:`evidence_html` and `reports.plots.evidence_figure` through the entry-point group
``theorems.renderers`` (``pyproject.toml``), never by importing this package.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import jinja2
from markupsafe import Markup

from theorems.core import magnitude, recording
from theorems.core.evidence import Evidence
from theorems.core.result import Status

from .model import (FAILS, HOLDS, MEASURED, NOT_CONVERGED, STATUS_MEANING, InstanceError, Section, counts, error_size,
                    outcome_of, papers_of, sections_of, summary_line)
from .depth_plots import sandwich_figure
from .maths import with_maths
from .plots import (OUTCOME_STYLE, evidence_svg, has_picture, scaling_of, scaling_svg, shared_styles, slack_overview_svg,
                    svg_of)

__all__ = ["InstanceError", "build_report", "counts", "evidence_html", "prepare_out_dir", "summary_line", "FIGURES"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
INDEX = "index.html"
EVIDENCE_JSON = "evidence.json"

# A figure a result's evidence asks for by carrying a detail: (detail key, svg maker, caption). A new kind of
# figure goes here (see README, "Where things go").
FIGURES: list[tuple[str, Callable[[Evidence, str], str], Callable[[Evidence], str]]] = [
    ("scaling", lambda ev, salt: scaling_svg(ev, salt=salt),
     lambda ev: "The sweep: measured points (blue), the fitted power law (green, α ± its standard error) and the "
                "predicted slope or range of slopes (red, dashed, through the points' centre). Look at whether "
                "the green slope lies inside the red wedge."),
    ("sandwich", lambda ev, salt: svg_of(sandwich_figure, ev, salt=salt),
     lambda ev: "The depth sandwich: every global optimum of depth L lies between the exact lower bound L*_GUFM "
                "(green line) and the objective U(L) of the proof's explicit network (red); trained networks "
                "(blue) are reported, not asserted. Right: the excess U(L) − L*_GUFM on log–log axes with the "
                "proof's rate (grey). Look at whether the red points fall at least as fast as the grey line."),
]


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
    expected: Mapping[tuple, Any] | None = None,
) -> Path:
    """Write ``out_dir/index.html`` (and ``evidence.json``) for ``evidences`` and the instances that raised;
    return the page's path.

    ``only``: the result ids the report is about (``report --only``); by default every registered result,
    so that a result nobody ran shows as such. ``expected``: what the tests expected of each instance
    (`theorems.core.recording.expect`, keyed by `recording.instance_key`): an outcome expected is no alarm.

    Both files are written into a temporary folder beside ``out_dir`` that then takes its place (see
    `_publish`): the folder holds a whole report or the previous one, never a page cut short beside
    another run's evidence."""
    out = prepare_out_dir(out_dir)
    evidences, errors = list(evidences), list(errors)
    expected = expected or {}
    sections = sections_of(evidences, errors, only, expected)
    for s in sections:
        s.figures = _figures(s)
    papers = papers_of(sections)
    overview = [(s.id, [r.evidence for r in s.rows]) for s in sections if any(r.evidence.claims for r in s.rows)]
    html = _environment().get_template(f"{INDEX}.j2").render(
        meta=meta,
        totals={**counts(evidences, errors, expected), "results": len(sections)},
        papers=papers,
        sections=sections,
        by_status={str(st): sum(s.status == str(st) for s in sections) for st in Status},
        statuses=[str(st) for st in Status],
        status_meaning=STATUS_MEANING,
        attention=[s for s in sections if s.needs_attention],
        wrong=[s for s in sections if s.wrong],
        replays=[(s, rep) for s in sections for rep in s.replays()],
        proof_errata=[(s, e) for s in sections for e in s.proof_errata],
        overview=Markup(slack_overview_svg(overview, salt="overview")) if overview else None,
        outcome_style=OUTCOME_STYLE,
        outcomes=(HOLDS, FAILS, NOT_CONVERGED, MEASURED),
    )
    files = {INDEX: shared_styles(_without_indentation(html)),
             # whether the evidence is a whole run, as the run file says it (report --from-run reads either)
             EVIDENCE_JSON: json.dumps(recording.payload(
                 evidences, dict(meta), expected, finished=not (meta.get("interrupted") or meta.get("unfinished"))),
                 default=str)}
    _publish(out, files)
    return out / INDEX


OURS = frozenset({INDEX, EVIDENCE_JSON})


def _publish(out: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` into ``out`` so that a reader (or a crash) never sees half a report.

    Where ``out`` holds nothing but a report (or nothing), the files go into a temporary sibling folder
    that is renamed into place (the old folder is moved aside first and deleted after): ``out`` is a
    whole old report, absent for an instant, or the whole new one. Where ``out`` also holds other files
    (``--out .``), each file is written to a temporary file and renamed over its name, evidence.json
    first: the page is never shorter than what it says, though for an instant it may sit beside the new
    evidence."""
    out = out.resolve()
    cwd = Path.cwd().resolve()
    movable = out.parent != out and out != cwd and out not in cwd.parents  # never rename the folder we stand in
    if movable and {p.name for p in out.iterdir()} <= OURS:
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.new-"))
        old = None
        try:
            for name, text in files.items():
                (tmp / name).write_text(text, encoding="utf-8")
            tmp.chmod(out.stat().st_mode & 0o7777)
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old-"))
            os.replace(out, old / "report")  # out is now absent: complete or absent, never mixed
            os.replace(tmp, out)
        except BaseException:
            if old is not None and (old / "report").exists() and not out.exists():
                os.replace(old / "report", out)  # put the previous report back
            shutil.rmtree(tmp, ignore_errors=True)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            raise
        shutil.rmtree(old, ignore_errors=True)
        return out
    for name in sorted(files, key=lambda n: n == INDEX):  # the page last
        recording.write_atomically(out / name, files[name])
    return out


def _figures(section: Section) -> list[tuple[str, Markup]]:
    """Each figure kind for the first instance of each kind of run (the asserted form, a negative control,
    the printed form), so the page stays small; every instance's numbers are in evidence.json."""
    out, drawn = [], set()
    for i, r in enumerate(section.rows):
        kind = (r.evidence.form, r.is_control)
        if kind in drawn:
            continue
        for key, make, caption in FIGURES:
            if key == "scaling" and not scaling_of(r.evidence) or key != "scaling" and not r.evidence.details.get(key):
                continue
            what = f"{r.evidence.form}{' (negative control)' if r.is_control else ''}, " \
                   f"{', '.join(f'{k}={v}' for k, v in r.shown_params.items()) or 'default instance'}: {r.outcome}. "
            out.append((what + caption(r.evidence), Markup(make(r.evidence, f"{section.id}-{key}-{i}"))))
            drawn.add(kind)
    return out


def evidence_html(evidence: Evidence) -> str:
    """A small HTML summary of one evidence (a table and its picture), for notebooks."""
    figure = evidence_svg(evidence, salt="evidence") if has_picture(evidence) else None
    return _environment().get_template("evidence.html.j2").render(
        ev=evidence, outcome=outcome_of(evidence), figure=Markup(figure) if figure else None,
        outcome_style=OUTCOME_STYLE, head=magnitude.headline(evidence), size=error_size(evidence),
    )


def _number(value: Any) -> str:
    """Four significant digits: enough to compare at a glance; evidence.json has the rest."""
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and value != value:
        return "nan"
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
    env.filters["signed"] = lambda v: "n/a" if v != v else f"{v:+.2g}"
    env.filters["kv"] = lambda d: ", ".join(f"{k}={v}" for k, v in d.items())
    env.filters["slug"] = lambda s: s.replace(" ", "-")
    env.filters["maths"] = with_maths
    env.globals["error_size"] = error_size
    return env


_VERBATIM = re.compile(r"(<pre\b.*?</pre>|<svg\b.*?</svg>|<script\b.*?</script>|<textarea\b.*?</textarea>)", re.S)


def _without_indentation(html: str) -> str:
    """The template's indentation and blank lines dropped (a tenth of the page's bytes), except inside the
    elements whose whitespace is content; a line break still separates what it separated."""
    parts = _VERBATIM.split(html)
    return "".join(p if i % 2 else re.sub(r"\n\s+", "\n", p) for i, p in enumerate(parts))
