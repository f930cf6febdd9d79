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
    outside = theorems.check(FAKE_ID, x=2.0, allow_violation=True)  # x² = 4 > c·x = 2: slack (2 − 4)/4
    assert outside.tightness == pytest.approx(1 - (2.0 * CONSTANT["corrected"] - 4.0) / 4.0)
    missing = theorems.check(FAKE_ID)
    missing.tightness = None
    svg = tightness_svg([("negative control", [outside]), ("corrected", [missing])], salt="t")
    assert svg.startswith("<svg")
    assert "1 value(s) outside [0, 1] drawn at the edge" in svg
    assert "1 instance(s) without a tightness value not drawn" in svg


# -- summaries by paper and by status, counterexamples, sweeps ---------------------------------------------
class GroupRows(HTMLParser):
    """data-* attributes of the by-paper and by-status rows, keyed by (attribute, value)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[tuple[str, str], dict[str, int]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("data-paper", "data-status"):
            if tag == "tr" and key in attrs:
                self.rows[(key[5:], attrs[key])] = {k[5:]: int(v) for k, v in attrs.items()
                                                     if k.startswith("data-") and k != key}


def test_groups_by_paper_and_status_add_up(page):
    text, evidences, errors = page
    parser = GroupRows()
    parser.feed(text)
    by_paper = {name: row for (kind, name), row in parser.rows.items() if kind == "paper"}
    by_status = {name: row for (kind, name), row in parser.rows.items() if kind == "status"}
    results = [theorems.get(rid) for rid in theorems.ids()]
    for name, row in by_paper.items():
        mine = [r for r in results if r.paper == name]
        assert row["results"] == len(mine)
        assert row["instances"] == sum(1 for e in evidences if theorems.get(e.result_id).paper == name)
    for name, row in by_status.items():
        assert row["results"] == sum(str(r.status) == name for r in results)
    assert sum(row["results"] for row in by_paper.values()) == len(results)
    assert sum(row["instances"] for row in by_status.values()) == len(evidences)


def test_counterexample_to_the_printed_statement_is_spelled_out(page):
    text, evidences, _ = page
    printed = [e for e in evidences if e.form == "as_printed" and not e.holds]
    assert printed
    unescaped = html.unescape(text)
    assert "Counterexample to the printed statement" in unescaped
    for ev in printed:
        assert str(ev.failed_claims[0]) in unescaped


def test_trend_sweep_is_drawn_with_fitted_and_predicted_exponents(fake_results, tmp_path):
    from fakes import TREND_ID, TREND_RANGE

    evidences = [theorems.check(TREND_ID), theorems.check(TREND_ID, a=-0.5, allow_violation=True)]
    assert evidences[0].holds and not evidences[1].holds
    text = build_report(tmp_path, evidences, META).read_text()
    section = text[text.index(f'<section class="result" id="{TREND_ID}">'):]
    assert section.count('<figure class="sweep">') == 2
    shown = html.unescape(section)
    assert re.search(r"fitted α = -1\b", shown) and re.search(r"fitted α = -0\.5\b", shown)
    assert f"predicted α ∈ [{TREND_RANGE[0]:g}, {TREND_RANGE[1]:g}]" in shown


# -- one evidence in a notebook ----------------------------------------------------------------------------
def test_evidence_repr_html_is_a_table_and_a_picture(fake_results):
    ev = theorems.check(FAKE_ID, x=0.8, form="as_printed")
    page = ev._repr_html_()
    assert "<table>" in page and "<svg" in page and "<script" not in page
    assert "square_below_line" in page and ev.reproduce() in html.unescape(page)
    assert "fails" in page


def test_evidence_plot_draws_the_sweep_or_the_claims(fake_results):
    import matplotlib.pyplot as plt
    from fakes import TREND_ID

    trend = theorems.check(TREND_ID).plot()
    claims = theorems.check(FAKE_ID).plot()
    try:
        assert len([ax for ax in trend.axes if ax.get_visible()]) == 1
        assert trend.axes[0].get_xscale() == "log"
        assert len(claims.axes) == 1 and "square_below_line" in claims.axes[0].get_title(loc="left")
    finally:
        plt.close(trend)
        plt.close(claims)


# -- the progress bar ------------------------------------------------------------------------------------
def test_progress_bar_estimates_time_left_and_keeps_failures():
    import io

    from theorems.__main__ import Progress

    live = Progress(4, stream=io.StringIO(), live=True)
    live.step("a -> holds", 0.1, notable=False)
    assert live.bar().startswith("[" + "#" * (Progress.WIDTH // 4) + ".")
    assert "1/4" in live.bar() and "left" in live.bar()
    live.step("b -> fails", 0.1, notable=True)
    for name in "cd":
        live.step(f"{name} -> holds", 0.1, notable=False)
    out = live.stream.getvalue()
    assert "b -> fails" in out and "a -> holds" not in out  # only what did not hold stays on screen
    assert out.endswith("4/4\n") and "left" not in live.bar()

    log = Progress(2, stream=io.StringIO(), live=False)
    log.step("a -> holds", 0.1, notable=False)
    log.step("b -> holds", 0.1, notable=False)
    lines = log.stream.getvalue().splitlines()
    assert lines[0].startswith("[1/2] a -> holds (0.1s; ~") and lines[1] == "[2/2] b -> holds (0.1s)"


# -- the sweeps the real trend results record ------------------------------------------------------------
@pytest.mark.parametrize("rid", ["deep_fusion.theorem_2_depth", "ssl_dynamics.theorem_1_rate", "ssl_dynamics.conjecture_1"])
def test_recorded_sweep_is_the_one_the_claims_used(rid):
    """The plotted points refit to the plotted exponent, and that exponent is the evidence's observed value:
    the picture shows what was asserted, not a second computation."""
    import matplotlib.pyplot as plt

    from theorems.metrics.scaling import fit_power_law

    ev = theorems.check(rid)
    first = ev.details["scaling"][0]
    refit = fit_power_law(first["x"], first["y"])
    assert refit.exponent == pytest.approx(first["fit"]["exponent"], rel=1e-12)
    assert first["fit"]["exponent"] == pytest.approx(ev.observed, rel=1e-12)
    fig = ev.plot()
    plt.close(fig)
