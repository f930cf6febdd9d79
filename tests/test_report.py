"""The HTML report: complete, self-contained, escaped, and counting what it was given."""

from __future__ import annotations

import dataclasses
import html
import re
from html.parser import HTMLParser

import pytest

import theorems
from fakes import CONSTANT, FAKE_COUNTS, FAKE_ID, PLAIN_ID, STATEMENT, fake_instances
from reports import InstanceError, build_report, counts
from reports.plots import slack_overview_svg
from theorems.core.evidence import reproduce_command
from theorems.core.suite import get_suite

META = {"commit": "abc123", "suite": "quick", "device": "cpu", "wall_time_s": 0.1}


class Articles(HTMLParser):
    """Each result's article on the page: id -> its data-status; and the errata rows' result ids."""

    def __init__(self) -> None:
        super().__init__()
        self.articles: dict[str, str] = {}
        self.errata: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article" and "result" in (attrs.get("class") or ""):
            self.articles[attrs["id"]] = attrs["data-status"]
        if tag == "tr" and "erratum" in (attrs.get("class") or ""):
            self.errata.append(attrs["data-result"])


def parsed(page: str) -> Articles:
    parser = Articles()
    parser.feed(page)
    return parser


def run_fake_instances() -> tuple[list, list[InstanceError]]:
    """Evidence and errors for the fake's report instances (its registered counterexample x = 0.8 among
    them), the way the CLI collects them."""
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
    articles = parsed(text).articles
    assert articles == {rid: str(theorems.get(rid).status) for rid in ids}
    no_evidence = [rid for rid in ids if rid not in (FAKE_ID, PLAIN_ID)]
    assert text.count("No evidence for this result in this report.") == len(no_evidence)


def test_counts_say_what_happened(page):
    text, evidences, errors = page
    c = counts(evidences, errors)
    assert c["controls"] == 1 and c["controls_failed"] == 1  # the fake's x = 2 fails, as it should
    assert f'<strong id="controls-failed">{c["controls_failed"]}/{c["controls"]}</strong>' in text
    mine = counts([e for e in evidences if e.result_id == FAKE_ID], errors)
    assert {k: mine[k] for k in FAKE_COUNTS} == FAKE_COUNTS
    assert f"{c['instances']} instances, {c['not_converged']} not converged, {c['errors']} raised" in text
    # the fake's non-converged run and its raising instance need a look; the plain fake does not
    start = text.index('id="attention"')
    attention = html.unescape(text[start:text.index("</span>", start)])
    assert FAKE_ID in attention and PLAIN_ID not in attention


def test_errata_come_first_with_the_size_of_the_error_and_its_replay(page):
    text, evidences, _ = page
    found = parsed(text)
    wrong = [rid for rid in theorems.ids() if str(theorems.get(rid).status) in ("verified-corrected", "refuted")]
    assert sorted(found.errata) == sorted(wrong)
    assert text.index('id="errata"') < text.index('id="proof-errata"') < text.index('id="overview"') \
        < text.index('class="paper"')
    row = text[text.index(f'<tr class="erratum" data-result="{FAKE_ID}"'):]
    row = html.unescape(row[:row.index("</tr>")])
    # the fake's registered counterexample x = 0.8 ran: x² = 0.64 against the printed x/2 = 0.4
    assert "square_below_line: 0.64, bound ≤ 0.4 (1.6× the bound)" in row
    assert "python -m theorems check fake.square_below_line x=0.8 form=as_printed" in row
    unrun = next(rid for rid in wrong if rid != FAKE_ID)
    other = text[text.index(f'<tr class="erratum" data-result="{unrun}"'):]
    assert "(not run in this report)" in other[:other.index("</tr>")]


def test_is_self_contained(page):
    text, _, _ = page
    assert not re.search(r"""src\s*=\s*["']?\s*(https?:)?//""", text, re.IGNORECASE)
    # Namespace declarations of the inline SVGs name URIs but load nothing, and a paper's title links to the paper
    # (a link the reader may follow, nothing the page loads); no other URL may appear.
    # A result's section links into its paper (reports.model.section_link): the paper's link and an anchor.
    papers = {theorems.get(rid).source.link for rid in theorems.ids() if theorems.get(rid).source is not None}
    paper_links = re.compile(r'href="(https?://[^"#]*)(#[A-Za-z0-9.]+)?"')
    assert re.search(r'<h2>Paper \d+: <a href="https://', text)
    assert {html.unescape(m.group(1)) for m in paper_links.finditer(text)} <= papers
    assert "http" not in paper_links.sub("", re.sub(r'xmlns(:\w+)?="[^"]*"', "", text))
    assert "<link" not in text and "<script src" not in text
    assert text.count("<script>") == 1  # the filter, inline
    assert "<style>" in text
    assert text.count("<svg") == 1  # the overview: the fakes have no sweep in this run
    for anchor in re.findall(r'href="#([^"]+)"', text):
        assert f'id="{anchor}"' in text, f"a link to #{anchor} leads nowhere"


def test_shows_statement_correction_evidence_and_commands(page):
    text, evidences, errors = page
    result = theorems.get(FAKE_ID)
    assert "<script>alert" not in text  # the statement is escaped, not executed
    unescaped = html.unescape(text)
    for needed in (STATEMENT, result.correction, result.correction_reason, result.paper_title, result.title,
                   result.section, result.source.cite()):
        assert needed in unescaped
    defaults = result.defaults
    for ev in evidences:  # each row's command names only what differs from the defaults, and reruns the instance
        shown = {k: v for k, v in ev.params.items() if v != defaults[k]}
        command = reproduce_command(ev.result_id, shown, ev.form, bool(ev.violations), ev.device)
        assert command in unescaped
        assert theorems.check(ev.result_id, form=ev.form, allow_violation=bool(ev.violations), **shown).params \
            == ev.params
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
    assert set(parsed(text).articles) == set(theorems.ids())


def test_evidence_of_an_unregistered_result_is_kept(fake_results, tmp_path):
    orphan = theorems.check(FAKE_ID)
    orphan.result_id = "fake.renamed_since"
    text = build_report(tmp_path, [orphan], META).read_text()
    assert "fake.renamed_since" in parsed(text).articles and "1 instance: 1 hold" in text


def test_unwritable_folder_raises_oserror(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(OSError):
        build_report(blocker / "out", [], META)


# -- plots -----------------------------------------------------------------------------------------------
def test_figures_have_disjoint_svg_ids(fake_results):
    # Several inline SVGs share one page: a shared id would let one figure's clip path cut another.
    evidences = [theorems.check(FAKE_ID, x=x) for x in (0.1, 0.5, 0.9)]
    ids_a, ids_b = (set(re.findall(r'id="([^"]+)"', slack_overview_svg([("row", evidences)], salt=salt)))
                    for salt in ("a", "b"))
    assert ids_a and not ids_a & ids_b


def test_compacted_figures_are_whole_svg_with_their_references_and_classes(fake_results):
    """The compaction (ids dropped, groups unwrapped, styles as classes) keeps a well-formed SVG in which
    every reference has its id and every class its rule, and a class two figures share has the same rule in
    both (CSS in an inline SVG is page-wide: a name must mean one rule on the whole page)."""
    from xml.dom.minidom import parseString

    evidences = [theorems.check(FAKE_ID, x=x) for x in (0.1, 0.5, 0.9)]
    svgs = [slack_overview_svg([("row", evidences)], salt=salt) for salt in ("a", "b")]
    for svg in svgs:
        parseString(svg)
        ids = set(re.findall(r'\sid="([^"]+)"', svg))
        refs = set(re.findall(r"url\(#([^)]+)\)", svg)) | set(re.findall(r'href="#([^"]+)"', svg))
        assert refs and refs <= ids
        classes = set(re.findall(r'\sclass="([^"]+)"', svg))
        assert classes and all(f".{c}{{" in svg for c in classes)
        rules = re.findall(r"\{([^}]*)\}", re.search(r"<style[^>]*>(.*?)</style>", svg).group(1))
        for declaration in (d.strip() for rule in rules for d in rule.split(";") if d.strip()):
            # one property, one value: a family list cut in two would leave "font-size: 9px, 'Bitstream…'"
            assert re.fullmatch(r"[a-z-]+: ?[^:]+", declaration), declaration
            if declaration.startswith("font-size"):
                assert re.fullmatch(r"font-size: ?[\d.]+px", declaration), declaration
        assert "<!--" not in svg and "<g>" not in svg and "\n" not in svg.strip()
        # the one font family, said once for every text of the figure
        style = re.search(r"<style[^>]*>(.*?)</style>", svg).group(1)
        assert "<text" in svg and re.search(r"(^|\})text\{font-family: ?'DejaVu Sans'", style)
    rules_a, rules_b = (dict(re.findall(r"\.(s[0-9a-f]+)\{([^}]*)\}", svg)) for svg in svgs)
    assert rules_a and all(rules_b[c] == rule for c, rule in rules_a.items() if c in rules_b)


def test_unwrapping_drops_only_bare_groups_with_their_own_ends():
    from reports.plots import _unwrap_bare_groups

    svg = '<svg><g clip-path="url(#c)"><g><path d="M0 0"/></g><g transform="scale(2)"><g><text>a</text></g></g></g></svg>'
    assert _unwrap_bare_groups(svg) == ('<svg><g clip-path="url(#c)"><path d="M0 0"/><g transform="scale(2)">'
                                        '<text>a</text></g></g></svg>')
    # a bare group around a group with attributes: each end tag goes with its own start tag
    assert _unwrap_bare_groups('<g><g a="1"><p/></g><q/></g>') == '<g a="1"><p/></g><q/>'


def test_compaction_drops_comments_and_tightens_path_data():
    from reports.plots import _compact

    svg = ('<svg><!-- $10^{0}$ --><g id="unused"><path id="used" d="M 1.2345 2 \nL 3 4 \nz"/></g>'
           '<use href="#used"/></svg>')
    assert _compact(svg) == '<svg><path id="used" d="M1.2 2l1.8 2z"/><use href="#used"/></svg>'  # relative steps


def test_only_non_convergence_of_an_open_result_needs_a_look(fake_results):
    from reports.model import row

    failing = theorems.check(FAKE_ID, x=0.8, form="as_printed")
    held_control = theorems.check(FAKE_ID, x=0.2, late=True, allow_violation=True)
    unconverged = theorems.check(FAKE_ID, converges=False)
    for status, expected in (("verified", [True, True, True]), ("open", [False, False, True])):
        evs = [dataclasses.replace(ev, status=status) for ev in (failing, held_control, unconverged)]
        assert [row(ev, {}).unexpected for ev in evs] == expected, status


def test_the_overview_places_every_slack_and_says_what_it_leaves_out(fake_results):
    """The relative slack lies in [−1, 1] by definition, so the overview draws every asserted instance, a
    failing control at its negative slack; an instance that asserts no bound is counted, not drawn."""
    outside = theorems.check(FAKE_ID, x=2.0, allow_violation=True)  # x² = 4 > c·x = 2: slack (2 − 4)/4
    assert outside.slack == pytest.approx((2.0 * CONSTANT["corrected"] - 4.0) / 4.0)
    assert outside.tightness == pytest.approx(1 - outside.slack)
    measured = theorems.check(FAKE_ID)
    measured.claims = [dataclasses.replace(c, kind="measurement", relation="=") for c in measured.claims]
    svg = slack_overview_svg([("negative control", [outside]), ("corrected", [measured])], salt="t")
    assert svg.startswith("<svg")
    assert "1 instance(s) without an asserted bound (measurements only) not drawn" in svg


def test_trend_sweep_is_drawn_with_fitted_and_predicted_exponents(fake_results, tmp_path):
    from fakes import TREND_ID, TREND_RANGE

    evidences = [theorems.check(TREND_ID), theorems.check(TREND_ID, a=-0.5, allow_violation=True)]
    assert evidences[0].holds and not evidences[1].holds
    text = build_report(tmp_path, evidences, META).read_text()
    section = text[text.index(f'<article class="result" id="{TREND_ID}"'):]
    section = section[:section.index("</article>")]
    assert section.count("<figure>") == 2  # the asserted instance and its control, each captioned
    shown = html.unescape(section)
    assert re.search(r"fitted α = -1\b", shown) and re.search(r"fitted α = -0\.5\b", shown)
    assert f"predicted α ∈ [{TREND_RANGE[0]:g}, {TREND_RANGE[1]:g}]" in shown
    assert shown.count("Look at whether the green slope lies inside the red wedge") == 2


def test_proof_errata_open_and_vacuous_results_are_listed(tmp_path):
    from reports.maths import with_maths

    text = build_report(tmp_path, [], META).read_text()

    def shown(prose: str) -> bool:  # as the page renders prose: escaped, its formulas as MathML
        return str(with_maths(prose)) in text

    for rid in theorems.ids():
        result = theorems.get(rid)
        for e in result.proof_errata:
            assert shown(e.step) and shown(e.why)
        if str(result.status) == "open":
            assert shown(result.open_reason)
        if str(result.status) == "vacuous":
            assert shown(result.vacuity)


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


def test_each_paper_heading_links_to_the_paper():
    """Every paper section's title is a link: each of the five papers names its arXiv listing (an abstract page
    or an HTML rendering, one id per paper); a paper that names no URL gets arXiv's search for its exact title."""
    from urllib.parse import parse_qs, urlparse

    from theorems.core.result import Paper

    pages = {}
    for rid in theorems.ids():
        paper = theorems.get(rid).source
        if paper is not None:
            pages[paper.number] = paper
    assert {"000", "001", "002", "003", "004"} <= set(pages)
    listing = re.compile(r"https://(?:arxiv\.org/(?:abs|html)|ar5iv\.labs\.arxiv\.org/html)/(\d{4}\.\d{4,5})")
    ids = [listing.fullmatch(pages[n].link) for n in ("000", "001", "002", "003", "004")]
    assert all(ids) and len({m.group(1) for m in ids}) == 5, [p.link for p in pages.values()]
    search = Paper("9", "A title", "A")
    assert search.link.startswith("https://arxiv.org/search/")
    assert parse_qs(urlparse(search.link).query)["query"] == ['"A title"']
    assert Paper("9", "T", "A", url="https://doi.org/10.1/x").link == "https://doi.org/10.1/x"
    from pathlib import Path

    html = (Path(__file__).resolve().parents[1] / "reports" / "templates" / "index.html.j2").read_text()
    assert '<a href="{{ p.link }}">{{ p.title }}</a>' in html
