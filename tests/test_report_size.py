"""The page stays small with the same content (issue 27: the ci report, 84 results and 691 instances, in at most
1.5 MB), and the compaction that keeps it small changes no point of any figure by more than a tenth of a point.

Where the ci page spends its bytes (measured on `python -m theorems report --suite ci`, same evidence before and
after this compaction): 1.68 MB before, 1.35 MB after; the 40 figures 0.76 MB -> 0.44 MB, the 691 instance rows
about 0.6 MB (mostly their content: parameters, claims, replay commands), the 84 results' own text the rest.
Each test below bounds the bytes one part spends *per unit* on a small report, so that a regression (markup
repeated on every row, a figure that keeps matplotlib's 50 vertices of a straight line or says its styles
again, a marker that carries its class) fails here in seconds instead of on the ci report. Each bound sits
between what the code spends now and what it spent before (given beside it): the old code fails every one.
"""

from __future__ import annotations

import random
import re

import pytest

import theorems
from fakes import FAKE_ID, TREND_ID
from reports import build_report
from reports.plots import _relative_path, scaling_svg, shared_styles, slack_overview_svg

# -- the budget (bytes) --------------------------------------------------------------------------------------
ROW = 400  # the markup of one instance's row, measured on the fake's rows (fixed content): 379 now, 449 before
FIGURE = 12_000  # one sweep panel of 8 points on 4 decades (ticks, minor grid, fit, wedge): 10 165 now, 18 535 before
MARKER = 55  # one instance's marker on the overview: 46 now (a <use> in a group of its class), 73 before


def _points(data: str) -> list[tuple[float, float]]:
    """The end points of every segment of ``data`` (absolute or relative M/L/H/V/C/Q/Z), in tenths."""
    tokens = re.findall(r"[A-Za-z]|-?(?:\d+\.?\d*|\.\d+)", data)
    arity = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "q": 4, "z": 0}
    x = y = x0 = y0 = 0.0
    out, i, cmd = [], 0, ""
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "zZ":
                x, y = x0, y0
                out.append((round(x * 10), round(y * 10)))
                continue
        n = arity[cmd.lower()]
        v = [float(t) for t in tokens[i:i + n]]
        i += n
        rel = cmd.islower()
        if cmd.lower() == "h":
            x = x * rel + v[0]
        elif cmd.lower() == "v":
            y = y * rel + v[0]
        else:
            x, y = (x * rel + v[-2], y * rel + v[-1])
        if cmd.lower() == "m":
            x0, y0 = x, y
            cmd = "l" if rel else "L"
        out.append((round(x * 10), round(y * 10)))
    return out


def _drawn_within_rounding(original: list, compact: list) -> bool:
    """``compact`` is ``original`` with vertices dropped, each dropped one within a tenth of a point
    (`reports.plots.COLLINEAR_TENTHS`) of the straight segment between the kept vertices around it."""
    from reports.plots import _near_segment

    k = 0
    for j, point in enumerate(compact):
        start = k
        while k < len(original) and original[k] != point:
            k += 1
        if k == len(original):
            return False  # a point that was not in the original
        if j and any(not _near_segment(original[m], compact[j - 1], point) for m in range(start, k)):
            return False
        k += 1
    return k == len(original)


def test_relative_path_data_draws_the_rounded_points():
    """Every vertex of the relative path is an absolute vertex rounded to a tenth (no drift over a long path:
    the steps are exact integers of tenths), through moves, closes, curves, horizontals and verticals; a vertex
    is dropped only where it lies on the straight line through its neighbours, to within a tenth."""
    rng = random.Random(0)
    for _ in range(200):
        parts = []
        for _ in range(rng.randint(1, 60)):
            cmd = rng.choice("MLLLLCQHVZ")
            k = {"M": 2, "L": 2, "C": 6, "Q": 4, "H": 1, "V": 1, "Z": 0}[cmd]
            nums = [round(rng.uniform(-500, 500), rng.choice([0, 1])) for _ in range(k)]
            if cmd == "L" and rng.random() < 0.3 and parts:
                nums = [nums[0], nums[0]]
            parts.append(cmd + " ".join(f"{v:g}" for v in nums))
        data = "M1 1 " + " ".join(parts)
        assert _drawn_within_rounding(_points(data), _points(_relative_path(data))), data
    # a straight line sampled at 50 points (matplotlib's power law on log axes)
    line = "M" + "L".join(f"{10 + 5.123 * k:.3f} {200 - 3.217 * k:.3f}" for k in range(50))
    assert len(_points(_relative_path(line))) <= 4  # a handful of its 50 vertices
    # a bend of two tenths of a point is kept, one of a tenth is not; 1.05 tenths off the line is kept
    assert len(_points(_relative_path("M0 0L10 0.2L20 0"))) == 3
    assert len(_points(_relative_path("M0 0L10 0.1L20 0"))) == 2
    assert len(_points(_relative_path("M0 0L.3 .2L1 .3"))) == 3  # (3, 2) is 1.054 tenths from (0, 0)-(10, 3)
    # on the line but not between its ends (a line that runs past and comes back), or a spike out and back
    assert (200, 0) in _points(_relative_path("M0 0L20 0L10 0"))
    assert (100, 0) in _points(_relative_path("M0 0L10 0L0 0L0 10"))


def test_relative_path_data_is_shorter_and_leaves_what_it_cannot_read():
    line = "M" + "L".join(f"{10 + 5.1 * k:.1f} {87.7 + (k % 2) * 0.3:.1f}" for k in range(50))
    assert len(_relative_path(line)) < len(line) / 1.5  # a zigzag: "5.1.3" per step
    assert _relative_path("M 0 0 A 1 1 0 0 1 2 2") == "M0 0A1 1 0 0 1 2 2"  # an arc: only tightened


def _sweep_evidence(n_points: int):
    from theorems.core.evidence import Claim, Evidence
    from theorems.metrics.scaling import SCALING_KEY, fit_power_law, scaling_series

    sizes = [2 ** k for k in range(3, 3 + n_points)]
    ys = [2.0 * n ** -1.5234 * (1 + 0.03 * (-1) ** k) for k, n in enumerate(sizes)]
    fit = fit_power_law(sizes, ys)
    claim = Claim.at_most("exponent_at_most", fit.exponent, -0.5)
    return Evidence(result_id="x.sweep", form="as_printed", params={}, holds=claim.passed, observed=claim.observed,
                    bound=claim.bound, tightness=claim.tightness, converged=None, claims=[claim],
                    details={SCALING_KEY: [scaling_series("n", sizes, "y", ys, fit=fit, predicted=(-2.0, -1.0))]})


def test_a_sweep_figure_stays_within_its_budget():
    svg = scaling_svg(_sweep_evidence(8), salt="t")
    assert len(svg.encode()) <= FIGURE, len(svg.encode())


def test_the_overview_spends_little_per_marker(fake_results):
    def size(n: int) -> int:
        evs = [theorems.check(FAKE_ID, x=0.1 + 0.8 * k / n) for k in range(n)]
        return len(slack_overview_svg([("row", evs)], salt="o").encode())

    per_marker = (size(600) - size(100)) / 500
    assert per_marker <= MARKER, per_marker


def test_a_row_of_the_table_stays_within_its_budget(fake_results, tmp_path):
    """Bytes per instance, from two pages that differ only in how many instances of one result they hold (the
    fake's rows: the same few claims and parameters each, so what grows is the markup)."""
    def page(n: int) -> int:
        evs = [theorems.check(FAKE_ID, x=round(0.1 + 0.8 * k / n, 6)) for k in range(n)]
        path = build_report(tmp_path / f"p{n}", evs, {"suite": "test"}, only=[FAKE_ID])
        return len(path.read_bytes())

    per_row = (page(60) - page(10)) / 50
    assert per_row <= ROW, per_row


def test_a_page_says_each_figure_rule_once_and_every_class_has_its_rule(fake_results, tmp_path):
    evs = [theorems.check(TREND_ID), theorems.check(TREND_ID, a=-0.5, allow_violation=True),
           theorems.check(FAKE_ID, x=0.3)]
    text = build_report(tmp_path / "out", evs, {"suite": "test"}, only=[TREND_ID, FAKE_ID]).read_text()
    assert text.count("<svg") >= 2
    assert '<style type="text/css">' not in text  # no figure carries its own copy
    css = "".join(re.findall(r"<style>(.*?)</style>", text, re.S))
    rules = re.findall(r"([^{}]+)\{([^{}]*)\}", css)
    figure_rules = [sel for sel, _ in rules if re.fullmatch(r"\.s[0-9a-f]{7}|text|\*", sel.strip())]
    assert len(figure_rules) == len(set(figure_rules))
    for svg in re.findall(r"<svg\b.*?</svg>", text, re.S):
        for cls in set(re.findall(r'\sclass="(s[0-9a-f]{7})"', svg)):
            assert f".{cls}{{" in css, cls


def test_shared_styles_leaves_a_page_alone_where_two_figures_disagree():
    page = ('<html><head></head><body><svg><defs><style type="text/css">.sabc{fill:red}</style></defs></svg>'
            '<svg><defs><style type="text/css">.sabc{fill:blue}</style></defs></svg></body></html>')
    assert shared_styles(page) == page
    same = page.replace("blue", "red")
    assert shared_styles(same).count(".sabc{fill:red}") == 1


@pytest.mark.parametrize("text", ["fitted α = −1.52 ± 0.016", "51.0 and 0.5"])
def test_compaction_never_touches_the_text(text):
    from reports.plots import _compact

    svg = f'<svg><text x="51.0" y="0.50">{text}</text></svg>'
    assert f">{text}</text>" in _compact(svg)
