"""The HTML report: complete, self-contained, escaped, and counting what it was given."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

import theorems
from fakes import CONSTANT, FAKE_COUNTS, FAKE_ID, PLAIN_ID, STATEMENT, fake_instances
from reports import InstanceError, build_report, counts
from reports.plots import tightness_svg
from theorems.core.suite import get_suite

META = {"commit": "abc123", "suite": "quick", "device": "cpu", "wall_time_s": 0.1}


class SummaryRows(HTMLParser):
    """The data-* attributes of the summary table's rows, keyed by result id."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, dict[str, int]] = {}
        self.order: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-result" in attrs:
            rid = attrs.pop("data-result")
            self.order.append(rid)
            self.rows[rid] = {k[5:].replace("-", "_"): int(v) for k, v in attrs.items() if k.startswith("data-")}


def summary_of(page: str) -> SummaryRows:
    parser = SummaryRows()
    parser.feed(page)
    return parser


def run_fake_instances() -> tuple[list, list[InstanceError]]:
    """Evidence and errors for the fake's report instances, the way the CLI collects them."""
    evidences, errors = [], []
    for form, params, allow in fake_instances(get_suite("quick")):
        try:
            evidences.append(theorems.check(FAKE_ID, form=form, allow_violation=allow, **params))
        except RuntimeError as err:
            errors.append(InstanceError(FAKE_ID, form, params, allow, f"RuntimeError: {err}"))
    evidences.append(theorems.check(PLAIN_ID))
    return evidences, errors


@pytest.fixture
def page(fake_results, tmp_path):
    evidences, errors = run_fake_instances()
    path = build_report(tmp_path / "out", evidences, META, errors)
    assert path == tmp_path / "out" / "index.html"
    return path.read_text(encoding="utf-8"), evidences, errors


def test_lists_every_registered_result_even_without_evidence(page):
    text, _, _ = page
    ids = theorems.ids()
    assert len(ids) > 2  # the real results are registered too, and have no evidence here
    rows = summary_of(text).rows
    assert set(rows) == set(ids)
    for rid in ids:
        assert f'id="{rid}"' in text
    no_evidence = [rid for rid in ids if rid not in (FAKE_ID, PLAIN_ID)]
    assert all(rows[rid]["instances"] == 0 for rid in no_evidence)
    assert text.count("No evidence for this result in this report.") == len(no_evidence)


def test_summary_counts_match_the_evidence(page):
    text, evidences, errors = page
    rows = summary_of(text).rows
    assert {k: rows[FAKE_ID][k] for k in FAKE_COUNTS} == FAKE_COUNTS
    assert rows[PLAIN_ID] == {"instances": 1, "holds": 1, "fails": 0, "not_converged": 0, "errors": 0}
    total = counts(evidences, errors)
    assert f"{total['instances']} instance(s) over {len(theorems.ids())} result(s)" in text


def test_results_that_need_a_look_come_first(page):
    order = summary_of(page[0]).order
    assert order[:2] == [FAKE_ID, PLAIN_ID]  # failures, then evidence that all held, then no evidence


def test_is_self_contained(page):
    text, _, _ = page
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.IGNORECASE)
    # Namespace declarations of the inline SVGs name URIs but load nothing; no other URL may appear.
    assert "http" not in re.sub(r'xmlns(:\w+)?="[^"]*"', "", text)
    assert "<link" not in text and "<script" not in text.replace("&lt;script", "")
    assert "<style>" in text
    assert text.count("<svg") == 3  # one overview, one figure per result with evidence


def test_shows_statement_correction_evidence_and_commands(page):
    text, evidences, errors = page
    result = theorems.get(FAKE_ID)
    assert "<script>alert" not in text  # the statement is escaped, not executed
    unescaped = html.unescape(text)
    for needed in (STATEMENT, result.correction, result.correction_reason, result.paper_title, result.title):
        assert needed in unescaped
    for ev in evidences:
        assert ev.reproduce() in unescaped
    assert errors and errors[0].reproduce() in unescaped and "RuntimeError: boom" in unescaped
    assert "(control held!)" not in unescaped
    assert "square_below_line" in unescaped  # the claims


def test_page_is_deterministic(fake_results, tmp_path):
    evidences, errors = run_fake_instances()
    first = build_report(tmp_path / "a", evidences, META, errors).read_text()
    second = build_report(tmp_path / "b", evidences, META, errors).read_text()
    assert first == second


def test_builds_with_no_evidence_at_all(tmp_path):
    text = build_report(tmp_path, [], META).read_text()
    assert "<svg" not in text
    assert set(summary_of(text).rows) == set(theorems.ids())


def test_evidence_of_an_unregistered_result_is_kept(fake_results, tmp_path):
    orphan = theorems.check(FAKE_ID)
    orphan.result_id = "fake.renamed_since"
    rows = summary_of(build_report(tmp_path, [orphan], META).read_text()).rows
    assert rows["fake.renamed_since"]["instances"] == 1


def test_unwritable_folder_raises_oserror(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(OSError):
        build_report(blocker / "out", [], META)


# -- plots -----------------------------------------------------------------------------------------------
def test_figures_have_disjoint_svg_ids(fake_results):
    # Several inline SVGs share one page: a shared id would let one figure's clip path cut another.
    evidences = [theorems.check(FAKE_ID, x=x) for x in (0.1, 0.5, 0.9)]
    ids_a, ids_b = (set(re.findall(r'id="([^"]+)"', tightness_svg([("row", evidences)], salt=salt)))
                    for salt in ("a", "b"))
    assert ids_a and not ids_a & ids_b


def test_figure_notes_values_it_cannot_place(fake_results):
    outside = theorems.check(FAKE_ID, x=2.0, allow_violation=True)  # tightness 2 / CONSTANT = 4 > 1
    assert outside.tightness == pytest.approx(2.0 / CONSTANT["corrected"])
    missing = theorems.check(FAKE_ID)
    missing.tightness = None
    svg = tightness_svg([("negative control", [outside]), ("corrected", [missing])], salt="t")
    assert svg.startswith("<svg")
    assert "1 value(s) outside [0, 1] drawn at the edge" in svg
    assert "1 instance(s) without a tightness value not drawn" in svg
