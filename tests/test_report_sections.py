"""Each result links to its section of the paper where a stable anchor exists, and names it in words beside a
link to the paper where none does (`reports.model.section_link`); and what the page counts as a surprise
(`reports.model.Row.surprise`): a negative control that did not converge is inconclusive, not a control that
failed as it should, and still needs a look; the searched instance an open verdict rests on does not."""

from __future__ import annotations

import dataclasses
import re

import pytest

import theorems
from fakes import FAKE_ID
from reports import build_report, counts, summary_line
from reports.model import NOT_CONVERGED, control_failed, control_inconclusive, row, section_link
from theorems.core.evidence import Claim, Evidence
from theorems.core.recording import instance_key

HTML = "https://arxiv.org/html/2505.15239"


@pytest.mark.parametrize("where, anchor", [
    ("Section 4.2, Theorem 4.3 (proof sketch)", "S4.SS2"),
    ("Section 5, Figure 1", "S5"),
    ("§5.1 and App. E.2: Figures 4, 9, 10", "S5.SS1"),
    ("Appendix B.2 (Definition B.1)", "A2.SS2"),
    ("App. E.2, Table 1", "A5.SS2"),
    ("Appendix A, proof of Theorem 4.3", "A1"),
])
def test_a_numbered_section_links_to_its_latexml_anchor(where, anchor):
    assert section_link(HTML, where) == f"{HTML}#{anchor}"
    assert section_link("https://ar5iv.labs.arxiv.org/html/2206.01342", where).endswith(f"#{anchor}")


@pytest.mark.parametrize("url, where", [
    ("https://arxiv.org/abs/2309.02011", "Section 3.2, Theorem 1"),  # no HTML rendering named: no anchor
    ("https://arxiv.org/search/?query=x", "Section 3.2"),
    (HTML, "§One-Layer Fusion without Noise, Definition 1"),  # an unnumbered section
    (HTML, "Section 'Theoretical Analysis', Theorem 2"),
    (HTML, "Figure 1 (right panel caption), with §3.1"),  # the locator must come first
    (HTML, "Experiments (pairwise compositions)"),
])
def test_no_anchor_where_none_is_stable(url, where):
    assert section_link(url, where) == ""


def test_every_result_is_placed_in_its_paper_on_the_page(tmp_path):
    """Each registered result's place: a link to its section, or its section in words and a link to the
    paper; papers 001 and 004 (numbered, HTML rendering) link every result whose place starts with a number."""
    text = build_report(tmp_path / "out", [], {"suite": "test"}).read_text()
    for rid in theorems.ids():
        result = theorems.get(rid)
        article = text[text.index(f'<article class="result" id="{rid}"'):]
        article = article[:article.index("</article>")]
        link = section_link(result.source.link, result.section)
        if link:
            assert f'<a class="where" href="{link}"' in article, rid
        else:
            assert f'(<a href="{result.source.link}">paper</a>)' in article, rid
    linked = {rid.split(".")[0] for rid in theorems.ids()
              if section_link(theorems.get(rid).source.link, theorems.get(rid).section)}
    assert {"nonlinear_cl", "neural_collapse"} <= linked
    assert len(re.findall(r'<a class="where" href="https://ar5iv\.labs\.arxiv\.org/html/2206\.01342#S\d', text)) >= 10


# -- what needs a look ---------------------------------------------------------------------------------------
def test_a_control_that_does_not_converge_is_inconclusive_and_needs_a_look(fake_results):
    control = theorems.check(FAKE_ID, x=2.0, allow_violation=True)
    assert control_failed(control) and not control_inconclusive(control)
    stalled = dataclasses.replace(control, converged=False)
    assert not control_failed(stalled) and control_inconclusive(stalled)
    r = row(stalled, {})
    assert r.unexpected and "inconclusive" in r.surprise
    assert not row(stalled, {}, {instance_key(stalled): {NOT_CONVERGED}}).unexpected  # a test expected it
    c = counts([control, stalled])
    assert (c["controls"], c["controls_failed"], c["controls_inconclusive"], c["unexpected"]) == (2, 1, 1, 1)
    assert "failed as they should 1/2 (1 inconclusive: did not converge)" in summary_line(c)


def test_the_searched_instance_of_an_open_result_is_its_finding_not_a_surprise():
    """nonlinear_cl.figure_1_right is open on its registered searched instance: that instance failing or not
    converging is the finding the verdict rests on (core.verdict refuses `verified` on it). The same instance
    holding would be a surprise (the finding is gone); another instance not converging is one too."""
    rid = "nonlinear_cl.figure_1_right"
    result = theorems.get(rid)
    assert str(result.status) == "open" and result.searched
    ev = Evidence(
        result_id=rid, form=result.default_form, params=dict(result.defaults, **result.searched[0]), holds=False,
        observed=0.0167, bound=0.0, tightness=float("nan"), converged=False, claims=[], status="open")
    r = row(ev, result.defaults)
    assert r.searched and not r.unexpected
    failed = dataclasses.replace(ev, converged=True, claims=[Claim.at_most("c", 1.0, 0.5)])
    assert not row(failed, result.defaults).unexpected  # failing after converging is the finding too
    held = dataclasses.replace(ev, holds=True, converged=True, claims=[Claim.at_most("c", 0.5, 1.0)])
    assert row(held, result.defaults).surprise == "the searched instance holds: the open verdict's finding is gone"
    other = dataclasses.replace(ev, params=dict(result.defaults))
    assert not row(other, result.defaults).searched and row(other, result.defaults).unexpected
    verified = dataclasses.replace(ev, status="verified")  # a verified result's searched instance must converge
    assert row(verified, result.defaults).unexpected
    # only the registered instance of the default form, of a registered result, outside the hypotheses' controls
    other_form = "corrected" if result.default_form == "as_printed" else "as_printed"
    for twin in (dataclasses.replace(ev, form=other_form), dataclasses.replace(ev, violations=["a hypothesis"]),
                 dataclasses.replace(ev, result_id="nonlinear_cl.no_such_result")):
        assert not row(twin, result.defaults).searched and row(twin, result.defaults).unexpected


def test_a_control_whose_bounds_hold_but_another_claim_fails_says_so(fake_results, tmp_path):
    """Such a control failed as it should (`control_failed`: an identity or proof step fails on it), so it is no
    alarm; its row says why it counts although its outcome reads 'holds'."""
    control = theorems.check(FAKE_ID, x=2.0, allow_violation=True)
    bites = dataclasses.replace(control, holds=True, claims=[Claim.at_most("bound", 1.0, 2.0),
                                                             Claim.at_most("identity", 1.0, 0.5, kind="identity")])
    assert control_failed(bites) and not row(bites, {}).unexpected
    text = build_report(tmp_path / "out", [bites], {"suite": "test"}, only=[FAKE_ID]).read_text()
    assert "(its bounds hold; 1 other claim fails: the control bites)" in text
