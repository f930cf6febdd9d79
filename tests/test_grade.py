"""Evidence grades (theorems.core.grade, issue 41): derived from what a claim rests on, never declared; carried by
Evidence, its JSON and the schema; the rigorous replays attached by `theorems.check`."""

from __future__ import annotations

import dataclasses
import html
import json
import math
import re

import pytest

import grade_fakes
from fakes import FAKE_CX, make_fake
from theorems.core import grade, recording, registry
from theorems.core.errors import SuiteError
from theorems.core.evidence import Claim, Evidence
from theorems.core.grade import Enclosure, rerun
from theorems.core.result import Outcome
from theorems.core.verdict import CachedRunner, counterexample_grades, enclosure_problem, grade_problems

FAKE = "fake_grade.square_below_line"


def enclosure(lo: str, hi: str, bound: str = "1", relation: str = "<=") -> Enclosure:
    return Enclosure(lo, hi, bound, relation, "test")


def evidence(*claims: Claim, converged=None, details=None) -> Evidence:
    return Evidence("fake.r", "as_printed", {}, False, math.nan, math.nan, None, converged, list(claims),
                    dict(details or {}))


# -- the grade of a claim ------------------------------------------------------------------------------
def test_a_claim_is_numerical_unless_it_rests_on_something():
    assert Claim.at_most("c", 0.5, 1.0).grade == "numerical"
    assert Claim.at_most("c", 0.5, 1.0, certificate="lp-duality").grade == "certified"
    assert Claim.at_most("c", 0.5, 1.0, n_draws=1, stderr=0.1).grade == "numerical"  # one draw has no spread
    assert Claim.at_most("c", 0.5, 1.0, n_draws=3).grade == "numerical"  # no standard error recorded
    with pytest.raises(ValueError, match="certificate"):
        Claim.at_most("c", 0.5, 1.0, certificate="trust me")
    with pytest.raises(ValueError, match="stderr"):
        Claim.at_most("c", 0.5, 1.0, n_draws=3, stderr=-1.0)


def test_a_statistical_claim_says_how_many_standard_errors_beyond_the_bound():
    c = Claim.at_most("c", 1.3, 1.0, n_draws=3, stderr=0.1)
    assert c.grade == "statistical" and c.ses_beyond == pytest.approx(3.0)
    assert "3 draws" in c.grade_text() and "3 SE beyond the bound" in c.grade_text()
    inside = Claim.at_least("c", 1.3, 1.0, n_draws=5, stderr=0.1)
    assert inside.ses_beyond == pytest.approx(-3.0) and "3 SE inside the bound" in inside.grade_text()
    assert "grade statistical (3 draws" in str(c)


def test_rigorous_only_where_the_enclosure_decides_as_the_float_verdict():
    fails = Claim.at_most("c", 1.5, 1.0, enclosure=enclosure("1.49", "1.51"))
    assert fails.grade == "rigorous" and "rigorous (test: [1.49, 1.51] <= 1)" in str(fails)
    holds = Claim.at_most("c", 0.5, 1.0, enclosure=enclosure("0.49", "0.51"))
    assert holds.grade == "rigorous"
    # mutation: widened so that it straddles the bound, the enclosure decides nothing and earns nothing
    wide = dataclasses.replace(fails, enclosure=enclosure("0.9", "1.6"))
    assert wide.grade == "numerical"
    assert dataclasses.replace(wide, certificate="dual-bound").grade == "certified"
    # an enclosure that decides against the float verdict: the float code path is wrong
    with pytest.raises(SuiteError, match="float code path is wrong"):
        Claim.at_most("c", 0.5, 1.0, enclosure=enclosure("1.1", "1.2"))
    with pytest.raises(SuiteError):
        dataclasses.replace(fails, enclosure=enclosure("0.1", "0.2"))


# -- the grade on an evidence: the certificate must be supported by its convergence -------------------------
def test_a_certificate_counts_only_where_the_convergence_certificate_supports_it():
    second = Claim.at_most("c", 1.5, 1.0, certificate="second-order")
    assert evidence(second, converged=True, details={"hessian_min_eig": 1e-3}).grade_of(second) == "certified"
    assert evidence(second, converged=True).grade_of(second) == "numerical"  # no curvature recorded
    assert evidence(second, converged=None, details={"hessian_min_eig": 1e-3}).grade_of(second) == "numerical"
    assert evidence(second, converged=True, details={"hessian_min_eig": "nan"}).grade_of(second) == "numerical"
    lp = Claim.at_most("c", 1.5, 1.0, certificate="lp-duality")
    assert evidence(lp, converged=None).grade_of(lp) == "certified"
    assert evidence(lp, converged=False).grade_of(lp) == "numerical"
    # mutation: dropping the certificate drops certified
    assert evidence(dataclasses.replace(lp, certificate="")).grades == {"c": "numerical"}


def test_the_grade_of_an_instance_is_that_of_its_deciding_claims():
    rig = Claim.at_most("rig", 1.5, 1.0, enclosure=enclosure("1.4", "1.6"))
    num = Claim.at_most("num", 1.5, 1.0)
    ok = Claim.at_most("ok", 0.5, 1.0)
    side = Claim.at_most("side", 9.0, 1.0, kind="proof_step")
    fails = evidence(rig, num, ok, side)
    assert fails.outcome == "fails" and fails.grade == "rigorous"  # one rigorous failure refutes
    assert fails.grades == {"rig": "rigorous", "num": "numerical"}
    holds = evidence(Claim.at_most("a", 0.5, 1.0, enclosure=enclosure("0.4", "0.6")), ok)
    assert holds.outcome == "holds" and holds.grade == "numerical"  # a pass is as strong as its weakest claim
    assert evidence(ok, converged=False).grade is None and evidence().grade is None
    assert "grade     : rigorous" in repr(fails)


# -- serialisation -----------------------------------------------------------------------------------------
def test_evidence_json_carries_and_rederives_the_grades(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    ev = evidence(Claim.at_most("rig", 1.5, 1.0, enclosure=enclosure("1.4", "1.6")),
                  Claim.at_least("stat", 0.7, 1.0, n_draws=3, stderr=0.1, certificate="second-order"))
    data = ev.to_dict()
    assert data["grade"] == "rigorous" and [c["grade"] for c in data["claims"]] == ["rigorous", "statistical"]
    jsonschema.validate({"schema_version": recording.SCHEMA_VERSION, "meta": {}, "evidence": [data]},
                        json.loads(recording.SCHEMA_FILE.read_text()))
    back = Evidence.from_dict(json.loads(json.dumps(data)))
    assert back.claims == ev.claims and back.grades == ev.grades
    # a file's grade is never believed: 'rigorous' written by hand on a claim without an enclosure reads numerical
    data["claims"][1]["grade"] = "rigorous"
    assert Evidence.from_dict(data).grade_of(Evidence.from_dict(data).claims[1]) == "statistical"
    # re-deriving a file's verdicts keeps what the grades rest on
    assert recording.rederive(back).claims == ev.claims


# -- the runner hook: `theorems.check` attaches the registered replays ------------------------------------------
@pytest.fixture
def fake(registered, monkeypatch):
    registered(make_fake(FAKE))
    monkeypatch.setitem(grade.REPLAYS, (FAKE, "square_below_line"), grade_fakes.square_below_line)
    return FAKE


def test_check_attaches_the_registered_enclosure_and_it_reruns(fake):
    ev = registry.check(fake, form="as_printed", **FAKE_CX)
    claim = ev.claim("square_below_line")
    assert ev.outcome == "fails" and claim.enclosure is not None and ev.grade == "rigorous"
    assert rerun(claim.enclosure) == claim.enclosure and rerun(claim.enclosure).decides() == "fails"
    assert registry.check(fake, x=0.5).grade == "rigorous"  # a pass the enclosure decides too
    assert registry.check(fake, form="as_printed", x=0.9).to_dict()["grade"] == "rigorous"


def test_a_widened_enclosure_is_not_rigorous(fake, monkeypatch):
    monkeypatch.setattr(grade_fakes, "WIDEN", 1)
    ev = registry.check(fake, form="as_printed", **FAKE_CX)
    assert ev.claim("square_below_line").enclosure is not None and ev.grade == "numerical"


def test_a_replay_that_disagrees_with_the_float_verdict_is_a_suite_error(fake, monkeypatch):
    def wrong(point):
        return enclosure("0", "0", "1")

    monkeypatch.setitem(grade.REPLAYS, (fake, "square_below_line"), wrong)
    with pytest.raises(SuiteError, match="float code path is wrong"):
        registry.check(fake, form="as_printed", **FAKE_CX)
    monkeypatch.setitem(grade.REPLAYS, (fake, "square_below_line"), lambda point: None)  # nothing to say here
    assert registry.check(fake, form="as_printed", **FAKE_CX).grade == "numerical"


def test_the_replay_package_is_optional(monkeypatch):
    monkeypatch.setattr(grade, "REPLAY_PACKAGE", "theorems.no_such_package")
    monkeypatch.setattr(grade, "_loaded", False)
    grade.load_replays()  # nothing to import: no error
    monkeypatch.setattr(grade, "REPLAY_PACKAGE", "no_such_top_level.sub")
    monkeypatch.setattr(grade, "_loaded", False)
    grade.load_replays()


# -- counterexample grades and the conformance rules (theorems.core.verdict) ------------------------------------
def _seeded(params, form, ctx):
    """x² ≤ c·x as a mean over 3 pretend seeds with a standard error: a statistical counterexample."""
    x, c = params["x"], {"as_printed": 0.5, "corrected": 1.0}[form]
    return Outcome(claims=[Claim.at_most("square_below_line", x * x, c * x, rtol=1e-12, n_draws=3, stderr=0.01)],
                   details={"x": x, "c": c}, converged=True)


def test_each_counterexample_gets_the_grade_its_replay_supports(fake, registered, monkeypatch):
    run = CachedRunner()
    assert counterexample_grades(registry.get(fake), run) == [(FAKE_CX, "rigorous")]
    assert grade_problems(registry.get(fake), run) == []
    # without its replay the same counterexample is numerical
    monkeypatch.delitem(grade.REPLAYS, (fake, "square_below_line"))
    assert counterexample_grades(registry.get(fake), CachedRunner()) == [(FAKE_CX, "numerical")]


def test_a_statistical_counterexample_is_never_rigorous(registered, monkeypatch):
    seeded = registered(dataclasses.replace(make_fake("fake_grade.seeded"), evaluate=_seeded))
    # mislabelled: an enclosure of the sample mean, registered as if it were rigorous
    monkeypatch.setitem(grade.REPLAYS, (seeded.id, "square_below_line"), grade_fakes.square_below_line)
    run = CachedRunner()
    ev = run(seeded.id, form="as_printed", **FAKE_CX)
    assert ev.claim("square_below_line").enclosure is not None
    assert counterexample_grades(seeded, run) == [(FAKE_CX, "statistical")]
    assert "SE beyond the bound" in ev.grade_text() and grade_problems(seeded, run) == []
    # the rule bites: were an enclosure to outrank the draws, the conformance check would say so
    monkeypatch.setattr(Claim, "rigorous", property(lambda c: c.enclosure is not None
                                                    and c.enclosure.decides() is not None))
    assert any("rests on 3 draws" in p for p in grade_problems(seeded, run))


def test_a_rigorous_grade_must_rerun_to_the_same_decision(fake, monkeypatch):
    run = CachedRunner()
    ev = run(fake, form="as_printed", **FAKE_CX)
    assert ev.grade == "rigorous" and grade_problems(registry.get(fake), run) == []
    monkeypatch.setattr(grade_fakes, "WIDEN", 1)  # the replay no longer gives what was recorded
    assert "re-run it gives" in enclosure_problem(ev.claim("square_below_line").enclosure)
    assert any("re-run it gives" in p for p in grade_problems(registry.get(fake), run))
    spec_less = dataclasses.replace(ev.claim("square_below_line").enclosure, replay={})
    assert "does not re-run" in enclosure_problem(spec_less)


def test_a_counterexample_that_does_not_fail_has_no_grade(registered):
    holds = registered(dataclasses.replace(make_fake("fake_grade.no_cx"), counterexamples=({"x": 0.25},)))
    assert counterexample_grades(holds, CachedRunner()) == [({"x": 0.25}, None)]
    assert any("has no grade" in p for p in grade_problems(holds, CachedRunner()))


def test_theorem_1s_counterexample_rests_on_lp_duality():
    """deep_fusion.theorem_1's antipodal counterexample: no witness, by the LP's dual point (certified); the same
    evidence without its certificates is numerical (mutation: dropping a certificate drops certified)."""
    ev = registry.check("deep_fusion.theorem_1", form="as_printed", instance="antipodal")
    # the Arb replay (theorems.rigorous) lifts it to rigorous; without that enclosure the LP certificate remains
    assert ev.grade == "rigorous" and ev.grades["witness_exists"] == "rigorous"
    lp_only = dataclasses.replace(ev, claims=[dataclasses.replace(c, enclosure=None) for c in ev.claims])
    assert lp_only.grade == "certified" and lp_only.grades["witness_exists"] == "certified"
    bare = dataclasses.replace(lp_only, claims=[dataclasses.replace(c, certificate="") for c in lp_only.claims])
    assert bare.grade == "numerical"


# -- on the page -------------------------------------------------------------------------------------------------
def test_the_errata_show_each_grade_strongest_first(fake, registered, tmp_path):
    from reports import build_report

    plain = registered(make_fake("fake_grade.a_numerical"))  # listed first by id, numerical: must come second
    evidences = [registry.check(rid, form="as_printed", **FAKE_CX) for rid in (plain.id, fake)]
    page = build_report(tmp_path / "out", evidences, {"suite": "quick"}, only=[plain.id, fake]).read_text()
    rows = re.findall(r'<tr class="erratum" data-result="([^"]+)"', page)
    assert rows == [fake, plain.id]
    row = page[page.index(f'<tr class="erratum" data-result="{fake}"'):]
    assert 'data-grade="rigorous"' in row[:row.index("</tr>")]
    assert 'data-grade="numerical"' in page[page.index(f'<tr class="erratum" data-result="{plain.id}"'):]
    assert "grade: rigorous (exact rational:" in html.unescape(page)  # the result's own counterexample list
    data = json.loads((tmp_path / "out" / "evidence.json").read_text())
    assert [e["grade"] for e in data["evidence"]] == ["numerical", "rigorous"]
    assert data["evidence"][1]["claims"][0]["enclosure"]["replay"]["function"] == "grade_fakes:square_below_line"
    # a recorded run read back keeps the grades (re-derived from the enclosure, not read from the file)
    assert [e.grade for e in recording.parse_run(data).evidences] == ["numerical", "rigorous"]


def test_the_cli_check_prints_the_grade(fake, capsys):
    from theorems.__main__ import main

    main(["check", fake, "x=0.8", "form=as_printed"])
    out = capsys.readouterr().out
    assert "grade     : rigorous (exact rational:" in out and "; grade rigorous" in out


def test_show_grades_replays_the_counterexamples(fake, capsys):
    from theorems.__main__ import main

    main(["show", fake, "--grades"])
    assert "-> fails; grade rigorous (exact rational:" in capsys.readouterr().out
    main(["show", fake])
    assert "--grades replays them here" in capsys.readouterr().out


def test_a_run_file_whose_enclosure_contradicts_its_numbers_is_refused():
    ev = evidence(Claim.at_most("rig", 1.5, 1.0, enclosure=enclosure("1.4", "1.6")))
    data = {"schema_version": recording.SCHEMA_VERSION, "meta": {}, "evidence": [ev.to_dict()]}
    data["evidence"][0]["claims"][0]["observed"] = 0.5  # now passes, while its enclosure says it fails
    with pytest.raises(recording.RunFileError, match="float code path is wrong"):
        recording.parse_run(data)
    data["evidence"][0]["claims"][0]["observed"] = 1.5
    data["evidence"][0]["claims"][0]["enclosure"] = {"lo": "1.4"}  # malformed
    with pytest.raises(recording.RunFileError, match="evidence\\[0\\]"):
        recording.parse_run(data)
