"""The report as a person sees it, in headless Chromium driven by Playwright: it loads without console
errors, every figure is drawn, the first screen is the errata (every result whose verdict is
verified-corrected or refuted, with the size of its error and the command that replays it), the verdict
filter and the search hide and show sections, the counts on screen are those of the evidence, and no text
cites a file outside the repository.

Why a browser: tests/test_report.py checks the HTML text; only a browser can tell that an SVG actually
renders, that the script runs without throwing, and that clicking a filter hides what it should. Skipped
(with its reason) where Chromium or Playwright is missing; .ci/run installs Chromium, the test extra
installs Playwright, which drives the system Chromium (no browser download).

``THEOREMS_SCREENSHOTS=DIR`` saves the screenshots a reviewer looks at: the first screen, an errata row, and
a figure.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# .ci/run sets THEOREMS_REQUIRE_BROWSER=1 after installing Chromium: there a missing browser is a failure of
# the gate, not a skip that nobody reads.
REQUIRED = os.environ.get("THEOREMS_REQUIRE_BROWSER", "") not in ("", "0")
if CHROMIUM is None:
    if REQUIRED:
        pytest.fail("THEOREMS_REQUIRE_BROWSER is set but there is no Chromium on PATH", pytrace=False)
    pytest.skip("no Chromium on PATH ('chromium' or 'chromium-browser'): the browser tests need it",
                allow_module_level=True)
try:
    import playwright.sync_api as playwright_api
except ImportError:
    if REQUIRED:
        pytest.fail("THEOREMS_REQUIRE_BROWSER is set but Playwright is not installed", pytrace=False)
    pytest.skip("Playwright is in the test extra", allow_module_level=True)

import theorems  # noqa: E402  (after the skips: a module that skips imports nothing it does not need)
from fakes import TREND_ID  # noqa: E402
from reports import build_report, counts  # noqa: E402
from reports.model import WRONG  # noqa: E402
from test_report import META, run_fake_instances  # noqa: E402

# One worker builds the page these tests read (the module-scoped fixtures below). It replays every registered
# counterexample, which each result's conformance check replays too, on that result's worker: the `run` fixture
# shares a costly instance between workers (theorems.pytest_plugin.SharedRunner), so each is computed once per run.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("report_browser")]

# The flags the developers' guide names for this machine's Chromium.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
# What a user of the package does not have: text that cites it points nowhere.
OUTSIDE = re.compile(r"\bdigest\b|\.\./shared|shared/theory|DESIGN\.md|our (working )?notes", re.IGNORECASE)
MIN_PNG_BYTES = 2_000  # a rendered report is far larger; a blank capture is a few hundred bytes


@pytest.fixture(scope="module")
def chromium():
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Opened:
    """A page opened in Chromium, with what the console and the page's script said while loading."""

    def __init__(self, chromium, path: Path) -> None:
        self.page = chromium.new_page(viewport={"width": 1400, "height": 1000})
        self.console_errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")

    def figures_not_displayed(self) -> list[str]:
        """Every <img> that did not load and every <svg>/<img> without a box on the page (hidden or empty)."""
        return self.page.evaluate("""() => {
            const out = [];
            for (const el of document.querySelectorAll("img, body svg")) {
                if (el.closest("svg") !== el && el.tagName.toLowerCase() === "svg") continue;  // nested svg
                const name = el.tagName.toLowerCase() + " " + (el.id ? "#" + el.id : (el.getAttribute("src") || ""));
                if (el.tagName === "IMG" && !(el.complete && el.naturalWidth > 0)) { out.push(name + ": did not load"); continue; }
                if (el.closest("[hidden], details:not([open])")) continue;  // hidden on purpose, by the filter or a fold
                const r = el.getBoundingClientRect(), s = getComputedStyle(el);
                if (s.display === "none" || s.visibility === "hidden" || r.width === 0 || r.height === 0)
                    out.push(name + ": not displayed");
            }
            return out;
        }""")

    def visible_articles(self) -> list[str]:
        return self.page.eval_on_selector_all("article.result", "els => els.filter(e => e.offsetParent !== null).map(e => e.id)")


def display_problems(opened: Opened, screenshot: Path) -> list[str]:
    """Everything a reader would notice is wrong: console errors, a figure not drawn, no figure at all, a
    blank or tiny screenshot."""
    problems = [f"console error: {e}" for e in opened.console_errors]
    problems += [f"not displayed: {d}" for d in opened.figures_not_displayed()]
    if not opened.page.locator("img, svg").count():
        problems.append("no image or svg on the page")
    opened.page.screenshot(path=str(screenshot), full_page=False)
    problems += screenshot_problems(screenshot)
    return problems


def screenshot_problems(path: Path) -> list[str]:
    from PIL import Image

    if not path.is_file():
        return [f"no screenshot file at {path}"]
    if path.stat().st_size < MIN_PNG_BYTES:
        return [f"screenshot {path} is only {path.stat().st_size} bytes"]
    with Image.open(path) as image:
        extrema = image.convert("RGB").getextrema()
    return [f"screenshot {path} is blank"] if all(lo == hi for lo, hi in extrema) else []


# -- the report -----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return {"dir": tmp_path_factory.mktemp("browser-report")}


@pytest.fixture
def report(fake_results, chromium, built, run):
    """The report of the fakes (every report instance, the trend and its control) and of every registered
    counterexample of the real results, opened in Chromium: (Opened, evidences, errors)."""
    if "opened" not in built:
        evidences, errors = run_fake_instances()
        evidences += [theorems.check(TREND_ID), theorems.check(TREND_ID, a=-0.5, allow_violation=True)]
        for rid in theorems.ids():
            for cx in theorems.get(rid).counterexamples:
                evidences.append(run(rid, form="as_printed", **cx))
        index = build_report(built["dir"] / "out", evidences, META, errors)
        built["opened"] = Opened(chromium, index), evidences, errors
    return built["opened"]


def _shoot(opened: Opened, name: str, selector: str | None = None) -> None:
    where = os.environ.get("THEOREMS_SCREENSHOTS")
    if not where:
        return
    Path(where).mkdir(parents=True, exist_ok=True)
    target = opened.page.locator(selector).first if selector else opened.page
    target.screenshot(path=str(Path(where) / f"{name}.png"))


def test_report_displays_cleanly(report, built):
    opened, _, _ = report
    assert display_problems(opened, built["dir"] / "first-screen.png") == []
    _shoot(opened, "first-screen")
    assert opened.page.title().startswith("Machine-checked errata")


def test_the_errata_list_every_wrong_statement_with_its_size_and_replay(report):
    opened, evidences, _ = report
    wrong = [rid for rid in theorems.ids() if str(theorems.get(rid).status) in WRONG]
    assert wrong
    rows = opened.page.eval_on_selector_all("tr.erratum", """rows => rows.map(r => ({
        id: r.dataset.result, size: r.querySelector(".error-size").innerText,
        replay: r.querySelector(".reproduce").innerText}))""")
    shown = {r["id"]: r for r in rows}
    assert set(shown) == set(wrong)
    for rid in wrong:
        sizes = shown[rid]["size"].splitlines()
        assert len(sizes) == len(theorems.get(rid).counterexamples), shown[rid]
        assert all(s and "not run" not in s for s in sizes), f"{rid}: no size of the error on screen: {sizes}"
        assert f"python -m theorems check {rid}" in shown[rid]["replay"]
    _shoot(opened, "errata-row", "tr.erratum")
    # the errata come first: the first section after the contents is the errata
    first = opened.page.evaluate("() => document.querySelector('nav.toc ~ section').id")
    assert first == "errata"


def test_counts_on_screen_are_those_of_the_evidence(report):
    opened, evidences, errors = report
    c = counts(evidences, errors)
    assert opened.page.inner_text("#controls-failed") == f"{c['controls_failed']}/{c['controls']}"
    statuses = opened.page.eval_on_selector_all("article.result", "els => els.map(e => [e.id, e.dataset.status])")
    registered = {rid: str(theorems.get(rid).status) for rid in theorems.ids()}
    assert dict(statuses) == registered


def test_the_verdict_filter_and_the_search_hide_and_show_sections(report):
    opened, _, _ = report
    page = opened.page
    everything = opened.visible_articles()
    assert len(everything) == len(theorems.ids())
    page.click("button[data-filter='refuted']")
    refuted = [rid for rid in theorems.ids() if str(theorems.get(rid).status) == "refuted"]
    assert sorted(opened.visible_articles()) == sorted(refuted)
    assert page.eval_on_selector_all("tr.erratum", "rs => rs.filter(r => r.offsetParent !== null).length") == len(refuted)
    page.click("button[data-filter='all']")
    assert opened.visible_articles() == everything
    page.fill("#search", "lemma_4_2")
    assert opened.visible_articles() == ["neural_collapse.lemma_4_2"]
    page.fill("#search", "")
    assert opened.visible_articles() == everything


def test_every_figure_is_displayed_once_unfolded(report):
    opened, _, _ = report
    page = opened.page
    figures = page.locator("figure svg")
    assert figures.count() >= 2  # the overview and the fake trend's sweeps
    page.eval_on_selector_all("details", "ds => ds.forEach(d => d.open = true)")
    assert opened.figures_not_displayed() == []
    _shoot(opened, "figure", f"article[id='{TREND_ID}'] figure")


def test_no_text_cites_a_file_outside_the_repository(report):
    text = report[0].page.inner_text("body")
    found = sorted({m.group(0) for m in OUTSIDE.finditer(text)})
    assert not found, f"the page cites what a user of the package does not have: {found}"


# -- negative controls: each check above can fail ---------------------------------------------------------------
BROKEN_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>broken</title></head><body>
<p>A page with a missing image, a hidden figure and a script error.</p>
<img src="does-not-exist.png">
<svg id="hidden" style="display:none" width="40" height="40"><rect width="40" height="40"/></svg>
<svg id="shown" width="40" height="40"><rect width="40" height="40"/></svg>
<script>console.error("boom")</script>
</body></html>
"""


def test_checks_catch_a_broken_page(chromium, tmp_path):
    path = tmp_path / "broken.html"
    path.write_text(BROKEN_PAGE, encoding="utf-8")
    text = "\n".join(display_problems(Opened(chromium, path), tmp_path / "broken.png"))
    assert "not displayed: img does-not-exist.png: did not load" in text
    assert "not displayed: svg #hidden: not displayed" in text
    assert "console error: boom" in text
    assert "#shown" not in text  # the visible figure is not reported


def test_checks_catch_a_blank_page_and_a_citation(chromium, tmp_path):
    path = tmp_path / "blank.html"
    path.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    problems = display_problems(Opened(chromium, path), tmp_path / "blank.png")
    assert "no image or svg on the page" in problems and any("blank" in p for p in problems)
    assert OUTSIDE.search("as the digest §3 says") and OUTSIDE.search("see ../shared/DESIGN.md")
    assert not OUTSIDE.search("Theorem 2 of the paper, Appendix B")


# -- what a reader sees: the first screen and a figure's text --------------------------------------------------
def overlapping_text(page, selector: str) -> list[tuple[str, str]]:
    """Pairs of <text> elements inside ``selector`` whose rendered boxes overlap (labels drawn on top of
    each other), by their bounding boxes in the browser."""
    return page.eval_on_selector(selector, """(root) => {
        const boxes = [...root.querySelectorAll("text")].map(t => [t.textContent.trim(), t.getBoundingClientRect()])
            .filter(([s, r]) => s && r.width > 0 && r.height > 0);
        const out = [];
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [a, p] = boxes[i], [b, q] = boxes[j];
            const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
            const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
            if (dx > 1 && dy > 1) out.push([a, b]);
        }
        return out;
    }""")


def smallest_text_px(page, selector: str) -> float:
    """The smallest rendered font size (px on screen) of the <text> elements inside the <svg> ``selector``:
    each text's font size in the figure's units times the figure's scale on the page (rotated labels too)."""
    return page.eval_on_selector(selector, """(svg) => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return Math.min(...[...svg.querySelectorAll("text")].map(t => parseFloat(getComputedStyle(t).fontSize) * scale));
    }""")


MIN_LABEL_PX = 9  # below this a label is not read at the page's zoom


def test_the_first_screen_names_every_wrong_statement_with_its_size(report, built):
    opened, evidences, _ = report
    page = opened.page
    page.evaluate("() => window.scrollTo(0, 0)")
    wrong = [rid for rid in theorems.ids() if str(theorems.get(rid).status) in WRONG]
    items = page.eval_on_selector_all("#wrong-list li", """ls => ls.map(l => ({id: l.dataset.result,
        top: l.getBoundingClientRect().top, height: l.getBoundingClientRect().height, text: l.innerText}))""")
    assert sorted(i["id"] for i in items) == sorted(wrong)
    line = min(i["height"] for i in items)
    for i in items:
        assert i["height"] < 1.6 * line, f"{i['id']} takes more than one line: {i}"
        assert "×" in i["text"] or "beyond the bound" in i["text"], i
    # the list is on the first screen (the 1400×1000 viewport), above the long tables
    assert max(i["top"] + i["height"] for i in items) <= 1000 or len(items) > 20
    assert page.evaluate("() => document.querySelector('#wrong-list').getBoundingClientRect().top") < \
        page.evaluate("() => document.querySelector('#errata').getBoundingClientRect().top")
    page.screenshot(path=str(built["dir"] / "first-screen-list.png"))
    assert screenshot_problems(built["dir"] / "first-screen-list.png") == []


def test_an_anchor_lands_below_the_sticky_filter_bar(report):
    page = report[0].page
    page.evaluate("() => { location.hash = ''; window.scrollTo(0, 0); }")
    page.click(f"nav.toc a[href='#{'errata'}']")
    page.wait_for_timeout(100)
    bar = page.evaluate("() => document.getElementById('filters').getBoundingClientRect().bottom")
    heading = page.evaluate("() => document.querySelector('#errata h2').getBoundingClientRect().top")
    assert heading >= bar, f"the heading (top {heading}px) is under the sticky bar (bottom {bar}px)"
    page.evaluate("() => window.scrollTo(0, 0)")


def test_a_scaling_figure_is_legible(report, built):
    """The trend's sweep: no two labels drawn over each other, and no label smaller than MIN_LABEL_PX."""
    page = report[0].page
    selector = f"article[id='{TREND_ID}'] figure svg"
    page.locator(selector).first.scroll_into_view_if_needed()
    assert overlapping_text(page, selector) == []
    assert smallest_text_px(page, selector) >= MIN_LABEL_PX
    width = page.eval_on_selector(selector, "s => s.getBoundingClientRect().width")
    assert width >= 400, f"the figure is {width}px wide: too small to read"
    page.locator(selector).first.screenshot(path=str(built["dir"] / "figure.png"))
    assert screenshot_problems(built["dir"] / "figure.png") == []
    _shoot(report[0], "scaling-figure", selector)


def test_the_overlap_check_catches_overlapping_labels(chromium, tmp_path):
    path = tmp_path / "overlap.html"
    path.write_text('<!DOCTYPE html><html><body><svg id="f" width="200" height="50">'
                    '<text x="10" y="30" font-size="12">4×10⁰</text><text x="30" y="30" font-size="12">6×10⁰</text>'
                    '<text x="150" y="30" font-size="12">apart</text></svg></body></html>', encoding="utf-8")
    opened = Opened(chromium, path)
    assert overlapping_text(opened.page, "#f") == [["4×10⁰", "6×10⁰"]]
