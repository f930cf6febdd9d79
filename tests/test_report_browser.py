"""The report as a person sees it: opened in headless Chromium, it loads without console errors, every
figure is drawn, the page is not blank, and the summary numbers on screen are those of the evidence.

Why a browser: tests/test_report.py checks the HTML text; only a browser can tell that an SVG actually
renders, that nothing throws, and that the rendered tables say what the evidence says. Skipped (with
its reason) where no Chromium is installed; .ci/run installs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import Browser, PageReport, chromium_binary

if chromium_binary() is None:
    pytest.skip("no Chromium on PATH ('chromium' or 'chromium-browser'): the browser tests need it",
                allow_module_level=True)

import theorems  # noqa: E402  (after the skip: a module that skips imports nothing it does not need)
from fakes import TREND_ID  # noqa: E402
from reports import build_report, counts  # noqa: E402
from test_report import META, run_fake_instances  # noqa: E402

pytestmark = pytest.mark.browser

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_PNG_BYTES = 2_000  # a full report is far larger; a blank or broken capture is a few hundred bytes
SUMMARY_KEYS = ("instances", "holds", "fails", "not_converged", "errors")


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module: starting it costs about a second, a page a fraction of that."""
    with Browser(timeout=20) as b:
        yield b


@pytest.fixture(scope="module")
def _built(tmp_path_factory):
    """Holds the report once built: building it (matplotlib figures) and its full-page screenshot take
    seconds, so the tests that read it share one build."""
    return {"dir": tmp_path_factory.mktemp("browser-report")}


@pytest.fixture
def report(fake_results, browser, _built):
    """The fakes' report (every report instance, and the trend with its negative control), opened in the
    browser: (PageReport, evidences, errors)."""
    if "page" not in _built:
        evidences, errors = run_fake_instances()
        evidences += [theorems.check(TREND_ID), theorems.check(TREND_ID, a=-0.5, allow_violation=True)]
        index = build_report(_built["dir"] / "out", evidences, META, errors)
        page = browser.open_page(index, screenshot=_built["dir"] / "report.png")
        _built["page"] = page, evidences, errors
    return _built["page"]


# -- the checks, shared by the real report and the negative controls ----------------------------------------
def display_problems(page: PageReport) -> list[str]:
    """Everything a reader would notice is wrong with the page: not loaded, console errors, a figure not
    drawn, no figure at all, a missing, invalid, tiny or blank screenshot."""
    problems = []
    if not page.loaded:
        problems.append(f"page not loaded (readyState={page.ready_state})")
    problems += [f"console error: {e}" for e in page.console_errors]
    problems += [f"not displayed: {d}" for d in page.not_displayed]
    if not page.images:
        problems.append("no image or svg on the page")
    problems += screenshot_problems(page.screenshot)
    return problems


def screenshot_problems(path: Path | None) -> list[str]:
    """Why the screenshot at ``path`` does not show a rendered page, or [] when it does.

    Decoded with Pillow (matplotlib's own PNG reader): its per-channel extrema answer "is every pixel the
    same colour?" without building the float array matplotlib.image.imread would (~0.4 GB for a full report).
    """
    from PIL import Image

    if path is None or not path.is_file():
        return [f"no screenshot file at {path}"]
    data = path.read_bytes()
    if not data.startswith(PNG_SIGNATURE):
        return [f"screenshot {path} is not a PNG"]
    problems = []
    if len(data) < MIN_PNG_BYTES:
        problems.append(f"screenshot {path} is only {len(data)} bytes")
    try:
        with Image.open(path) as image:
            extrema = image.convert("RGB").getextrema()  # decodes every pixel: a truncated PNG raises here
    except OSError as err:
        return problems + [f"screenshot {path} does not decode: {err}"]
    if all(lo == hi for lo, hi in extrema):
        problems.append(f"screenshot {path} is blank: every pixel is {tuple(lo for lo, _ in extrema)}")
    return problems


def expected_rows(evidences, errors) -> dict[tuple[str, str], dict[str, int]]:
    """The counts every data-* table row must show, computed here from the Evidence and errors, keyed by
    (kind, name): ("result", id), ("paper", paper), ("status", status)."""
    results = {rid: theorems.get(rid) for rid in theorems.ids()}

    def tally(keep) -> dict[str, int]:
        return counts([e for e in evidences if keep(e.result_id)], [e for e in errors if keep(e.result_id)])

    expected = {}
    for rid in results:
        c = tally(lambda r, rid=rid: r == rid)
        expected["result", rid] = {k: c[k] for k in SUMMARY_KEYS}
    for kind, key in (("paper", lambda r: r.paper or "?"), ("status", lambda r: str(r.status))):
        for name in {key(r) for r in results.values()}:
            members = {rid for rid, r in results.items() if key(r) == name}
            expected[kind, name] = {"results": len(members),
                                    "instances": tally(lambda r, m=members: r in m)["instances"]}
    return expected


def row_mismatches(rows: list[dict[str, str]], expected: dict[tuple[str, str], dict[str, int]]) -> list[str]:
    """Where the rendered rows (data-* attributes read from the DOM) differ from ``expected``: a value,
    a missing row, or an unexpected one."""
    shown = {}
    for row in rows:
        kind = next((k for k in ("result", "paper", "status") if k in row), None)
        if kind is None:
            continue
        values = {k.replace("-", "_"): v for k, v in row.items() if k != kind}
        shown[kind, row[kind]] = values
    problems = [f"row {key} missing from the page" for key in expected.keys() - shown.keys()]
    problems += [f"row {key} on the page but not expected" for key in shown.keys() - expected.keys()]
    for key in expected.keys() & shown.keys():
        for name, want in expected[key].items():
            got = shown[key].get(name)
            if got is None or not got.lstrip("-").isdigit() or int(got) != want:
                problems.append(f"row {key}: {name} shows {got!r}, the evidence says {want}")
    return sorted(problems)


# -- the report ---------------------------------------------------------------------------------------------
def test_report_displays_cleanly(report):
    page, _, _ = report
    assert display_problems(page) == []
    assert sum(im["kind"] == "svg" for im in page.images) >= 3  # overview, per-result figures, the sweeps
    assert page.title == "Theorem suite report"


def test_summary_numbers_on_screen_match_the_evidence(report):
    page, evidences, errors = report
    expected = expected_rows(evidences, errors)
    assert expected["result", TREND_ID]["instances"] == 2 and expected["result", TREND_ID]["fails"] == 1
    assert expected["paper", "999"]["results"] == 3 and expected["status", "trend"]["instances"] == 2
    assert row_mismatches(page.rows, expected) == []
    total = counts(evidences, errors)["instances"]
    assert f"{total} instance(s) over {len(theorems.ids())} result(s)" in page.text


# -- negative controls: each check above can fail -----------------------------------------------------------
BROKEN_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>broken</title></head><body>
<p>A page with a missing image, a hidden figure and a script error.</p>
<img src="does-not-exist.png">
<svg id="hidden" style="display:none" width="40" height="40"><rect width="40" height="40"/></svg>
<svg id="shown" width="40" height="40"><rect width="40" height="40"/></svg>
<script>console.error("boom")</script>
</body></html>
"""


def test_checks_catch_a_broken_page(browser, tmp_path):
    path = tmp_path / "broken.html"
    path.write_text(BROKEN_PAGE, encoding="utf-8")
    problems = display_problems(browser.open_page(path, screenshot=tmp_path / "broken.png"))
    text = "\n".join(problems)
    assert "not displayed: img 'does-not-exist.png': did not load" in text
    assert "not displayed: svg '#hidden': hidden (display=none" in text
    assert "console error: console.error: boom" in text
    assert "#shown" not in text  # the visible figure is not reported


def test_checks_catch_a_blank_page(browser, tmp_path):
    path = tmp_path / "blank.html"
    path.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    problems = display_problems(browser.open_page(path, screenshot=tmp_path / "blank.png"))
    assert "no image or svg on the page" in problems
    assert any("is blank" in p for p in problems)
    assert screenshot_problems(tmp_path / "missing.png") == [f"no screenshot file at {tmp_path / 'missing.png'}"]


def test_row_comparison_catches_wrong_numbers():
    # Rows as the DOM gives them (strings, dashes), then one wrong value, one missing and one extra row.
    expected = {("result", "r"): {"instances": 2, "not_converged": 1}, ("status", "trend"): {"instances": 2},
                ("paper", "999"): {"results": 1, "instances": 2}}
    good = [{"result": "r", "instances": "2", "not-converged": "1"}, {"status": "trend", "instances": "2"},
            {"paper": "999", "results": "1", "instances": "2"}]
    assert row_mismatches(good, expected) == []
    bad = [{"result": "r", "instances": "2", "not-converged": "0"}, {"status": "trend", "instances": "x"},
           {"status": "vacuous", "instances": "0"}]
    assert row_mismatches(bad, expected) == [
        "row ('paper', '999') missing from the page",
        "row ('result', 'r'): not_converged shows '0', the evidence says 1",
        "row ('status', 'trend'): instances shows 'x', the evidence says 2",
        "row ('status', 'vacuous') on the page but not expected",
    ]
