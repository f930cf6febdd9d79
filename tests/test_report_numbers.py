"""Every number on the page is the evidence's number: figure text is never re-rounded, and each failed
claim has one size that means something for its kind of bound (`theorems.core.magnitude`)."""

from __future__ import annotations

import html
import math
import re

import pytest

import theorems
from reports import build_report, evidence_html
from reports.model import error_size, row
from reports.plots import evidence_svg, scaling_svg
from theorems.core import magnitude, recording
from theorems.core.evidence import Claim, Evidence
from theorems.metrics.scaling import SCALING_KEY, fit_power_law, scaling_series

# Numbers of the kind the compaction used to mangle: "−1.52 ± 0.016" printed as "−1.5 ± 0.0".
SIZES = [8, 16, 32, 64, 128]
NOISE = [1.03, 0.97, 1.02, 0.985, 1.01]  # deterministic scatter, so the fit has a non-zero standard error
PREDICTED = (None, -0.04321)
OBSERVED = 0.012345


def _sweep_evidence() -> Evidence:
    ys = [2.0 * n ** -1.5234 * e for n, e in zip(SIZES, NOISE, strict=True)]
    fit = fit_power_law(SIZES, ys)
    claim = Claim.at_most("exponent_at_most", fit.exponent, PREDICTED[1])
    return Evidence(result_id="x.sweep", form="as_printed", params={}, holds=claim.passed, observed=claim.observed,
                    bound=claim.bound, tightness=claim.tightness, converged=None, claims=[claim],
                    details={SCALING_KEY: [scaling_series("n", SIZES, "y", ys, fit=fit, predicted=PREDICTED)]})


def _claims_evidence() -> Evidence:
    claim = Claim.at_most("small", OBSERVED, 0.0071234)
    return Evidence(result_id="x.claims", form="as_printed", params={}, holds=False, observed=OBSERVED,
                    bound=0.0071234, tightness=claim.tightness, converged=None, claims=[claim])


def _texts(svg: str) -> list[str]:
    """The character data of every <text> element: what the figure prints."""
    return [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)]


_DECIMAL = re.compile(r"[−-]?\d+\.\d+(?:e[−+-]?\d+)?")


def _numbers_in_words(svg: str) -> list[str]:
    """Decimal numbers in titles, legends and annotations (texts with words; tick labels are bare numbers)."""
    return [n for t in _texts(svg) if re.search(r"[A-Za-zα]", t) for n in _DECIMAL.findall(t)]


def _matches_at_printed_digits(printed: str, values: list[float]) -> bool:
    text = printed.replace("−", "-")
    decimals = len(text.split("e")[0].split(".")[1])
    x = float(text)
    if x == 0:  # a printed zero ("± 0.0", "≤ -0.0") is true only of a zero
        return 0.0 in values
    return any(math.isclose(x, v, rel_tol=0, abs_tol=0.51 * 10 ** -decimals * (abs(v) / abs(x) if "e" in text else 1))
               or f"{v:.{decimals}f}" == text for v in values if math.isfinite(v))


@pytest.mark.parametrize("make, draw", [(_sweep_evidence, scaling_svg), (_claims_evidence, evidence_svg)])
def test_every_number_in_a_figures_text_is_the_evidences_to_its_printed_digits(make, draw):
    ev = make()
    svg = draw(ev, salt="t")
    values = [c.observed for c in ev.claims] + [c.bound for c in ev.claims]
    for s in ev.details.get(SCALING_KEY, []):
        values += [s["fit"]["exponent"], s["fit"]["stderr"], *(v for v in s["predicted"] if v is not None)]
    printed = _numbers_in_words(svg)
    assert printed, _texts(svg)
    wrong = [n for n in printed if not _matches_at_printed_digits(n, values)]
    assert not wrong, (wrong, values, _texts(svg))
    assert not re.search(r"± 0\.0(?!\d)", " ".join(_texts(svg)))  # a standard error of 0.0 is false


def test_the_sweep_title_keeps_the_standard_error_and_the_predicted_bound():
    ev = _sweep_evidence()
    fit = ev.details[SCALING_KEY][0]["fit"]
    assert fit["stderr"] > 1e-3  # the deterministic scatter gives a real standard error
    text = " ".join(_texts(scaling_svg(ev, salt="t")))
    assert f"± {fit['stderr']:.2g}" in text and f"{fit['exponent']:.3g}" in text
    assert f"α ≤ {PREDICTED[1]:g}" in text


def test_the_notebook_picture_keeps_its_numbers_too():
    page = evidence_html(_claims_evidence())
    assert f"{OBSERVED:.4g}" in html.unescape(page)


# -- how wrong ---------------------------------------------------------------------------------------------
def _failed(observed, bound, relation="<=", message="", atol=0.0):
    make = {"<=": Claim.at_most, ">=": Claim.at_least, "==": Claim.close}[relation]
    c = make("c", observed, bound, message, atol=atol)
    assert not c.passed
    return c


@pytest.mark.parametrize("claim, expected", [
    # the shapes of the errata that read "(relative slack −1)", the floor of the measure
    (_failed(-4.9e-18, 1e-9, ">=", "min over instances of max_M min_same A_ij"), "1e-09 beyond the bound"),
    (_failed(1.41421, 0.0, "<=", "largest distance of q(T) from the unit eigenvectors"),
     "1.41 beyond the bound (a distance)"),
    (_failed(196.547, 0.0, "<=", "max entry |mean − (−XᵀX/n)| in standard errors", atol=5.0),
     "197 beyond the bound (standard errors)"),
    (_failed(0.00266667, 0.0, "<=", "(157): max over r ≥ 2 of P[E_c(r)] − min ..."),
     "0.00267 beyond the bound (a probability)"),
    (_failed(-0.994952, 0.442009, ">="), "1.44 beyond the bound (in the claim's own units)"),
    # a ratio where the bound is non-zero and on the same side of 0
    (_failed(0.138554, 0.0238095), "5.82× the bound"),
    (_failed(0.00995, 1.0, ">="), "0.00995× the bound"),
    (_failed(1.0000001, 1.0), "1.0000001× the bound"),  # never "1× the bound" for a failure
])
def test_each_failed_claim_has_one_size_that_means_something(claim, expected):
    text = magnitude.how_wrong(claim)
    assert expected in text
    assert "relative slack" not in text and "printed" not in text


def test_a_nan_has_no_size_and_a_passing_claim_none():
    assert magnitude.magnitude(Claim.at_most("c", math.nan, 1.0)).kind == magnitude.UNDEFINED
    assert magnitude.magnitude(Claim.at_most("c", 0.5, 1.0)) is None
    assert magnitude.how_wrong(Claim.at_most("c", 0.5, 1.0)) == ""


def test_the_worst_failure_is_quoted_ratios_first_farthest_from_one(fake_results):
    small, large, zero = _failed(2.0, 1.0), _failed(50.0, 1.0), _failed(3.0, 0.0)
    assert magnitude.worst([small, zero, large]) is large
    assert magnitude.worst([zero]) is zero
    # among violations (no ratio), the one with the least relative slack
    near = _failed(0.2, 0.0, atol=0.1)
    assert near.slack == pytest.approx(-0.5) and zero.slack == -1
    assert magnitude.worst([near, zero]) is zero and magnitude.worst([zero, near]) is zero


def test_the_page_quotes_the_same_size_as_the_magnitude(fake_results, tmp_path):
    from fakes import FAKE_ID

    ev = theorems.check(FAKE_ID, x=0.8, form="as_printed")
    size = magnitude.error_size(ev)
    assert size == error_size(ev) and "1.6× the bound" in size
    page = html.unescape(build_report(tmp_path / "r", [ev], {"commit": "x"}).read_text())
    assert size in page
    assert size in html.unescape(ev._repr_html_())


# -- what a test expected is no surprise ------------------------------------------------------------------
def test_an_outcome_a_test_expected_does_not_need_a_look(fake_results, tmp_path, monkeypatch):
    from fakes import FAKE_ID

    starved = theorems.check(FAKE_ID, converges=False)
    assert row(starved, {}).unexpected  # today's false alarm
    with recording.recording() as sink:
        ev = recording.expect(theorems.check(FAKE_ID, converges=False, n=7), recording.NOT_CONVERGED)
    assert sink == [ev]
    path = recording.write_run(tmp_path / "run.json", [ev], {"commit": "x"})
    run = recording.load_run(path)
    assert run.finished is True and run.expected == {recording.instance_key(ev): {"not converged"}}
    page = build_report(tmp_path / "r", run.evidences, run.meta, expected=run.expected).read_text()
    assert "Nothing needs a look" in page
    # the report's evidence.json keeps the expectation, so a report built from it says the same
    # (an empty table for this test only: the process's table holds what every other test of this worker expects,
    # and clearing it would drop those expectations from the run file)
    monkeypatch.setattr(recording, "_EXPECTED", {})
    assert recording.load_run(tmp_path / "r" / "evidence.json").expected == run.expected
    # the same instance with no expectation recorded still raises the alarm
    page = build_report(tmp_path / "r2", run.evidences, run.meta).read_text()
    assert 'id="attention">Needs a look' in page
    # an expectation is of one outcome: a run that held where a failure was expected is a surprise
    other = recording.expect(theorems.check(FAKE_ID, x=0.3, n=7), recording.FAILS)
    assert row(other, {}, {recording.instance_key(other): {"fails"}}).outcome == "holds"


def test_expecting_marks_every_evidence_of_its_block_and_names_the_outcomes(fake_results):
    from fakes import FAKE_ID

    with recording.expecting(recording.NOT_CONVERGED):
        ev = theorems.check(FAKE_ID, converges=False, n=9)
    assert recording.expected_of(ev) == ["not converged"]
    with pytest.raises(ValueError, match="not one of"):
        recording.expect(ev, "fine")
