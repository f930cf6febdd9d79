"""Artefacts that cannot lie: the run file and evidence.json have one documented shape (a JSON Schema),
are written whole or not at all, say whether their run finished, and are read back with every verdict
re-derived from the recorded claims; `python -m theorems diff` compares two of them."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import theorems
from fakes import FAKE_ID
from reports import build_report
from theorems.__main__ import main
from theorems.core import recording
from theorems.core.recording import RunFileError, load_run, parse_run, write_run

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "" and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def evidences(fake_results):
    return [theorems.check(FAKE_ID), theorems.check(FAKE_ID, x=0.8, form="as_printed")]


# -- the format ----------------------------------------------------------------------------------------------
def test_evidence_json_and_the_run_file_follow_the_schema(evidences, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(recording.SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    build_report(tmp_path / "r", evidences, {"commit": "x"})
    report = json.loads((tmp_path / "r" / "evidence.json").read_text())
    run = json.loads(write_run(tmp_path / "run.json", evidences, {"commit": "x"}, exitstatus=0).read_text())
    for data in (report, run):
        assert data["schema_version"] == recording.SCHEMA_VERSION
        jsonschema.validate(data, schema)
    assert run["finished"] is True and run["exitstatus"] == 0
    # the schema bites: a verdict that is not a boolean, a claim without a number
    broken = json.loads(json.dumps(report))
    broken["evidence"][0]["holds"] = "yes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    # and the reader reads back what the report wrote
    assert [e.to_dict() for e in load_run(tmp_path / "r" / "evidence.json").evidences] == \
        [e.to_dict() for e in evidences]


def test_evidence_json_says_whether_the_run_was_whole(evidences, tmp_path):
    """evidence.json beside a page says ``finished`` as the run file does, so that `report --from-run` on it
    neither warns about a whole run nor takes a cut-short one for whole."""
    build_report(tmp_path / "whole", evidences, {"commit": "x"})
    build_report(tmp_path / "cut", evidences, {"commit": "x", "interrupted": "after 1 of 2 instances"})
    assert load_run(tmp_path / "whole" / "evidence.json").finished is True
    assert load_run(tmp_path / "cut" / "evidence.json").finished is False


@pytest.mark.parametrize("data, words", [
    ([], "found a list"),
    (None, "found null"),
    ({"meta": {}, "evidence": "x"}, "'evidence' must be a list"),
    ({"meta": [], "evidence": []}, "'meta' must be an object"),
    ({"schema_version": 99, "meta": {}, "evidence": []}, "schema_version 99"),
    ({"meta": {}, "evidence": [None]}, "evidence[0] must be an object"),
    ({"meta": {}, "evidence": [{"result_id": "r"}]}, "evidence[0] has no 'form'"),
])
def test_a_file_of_the_wrong_shape_is_named_as_such(data, words):
    with pytest.raises(RunFileError, match=words.replace("[", r"\[").replace("]", r"\]")):
        parse_run(data)


def _payload(evidences) -> dict:
    return json.loads(json.dumps(recording.payload(evidences, {"commit": "x"})))


def test_every_verdict_is_re_derived_from_the_recorded_claims(evidences):
    data = _payload(evidences)
    assert [d["holds"] for d in data["evidence"]] == [True, False]
    data["evidence"][1]["holds"] = True  # a flipped verdict
    data["evidence"][1]["claims"][0]["passed"] = True
    data["evidence"][0]["claims"][0]["observed"] = "nan"  # a NaN said to hold
    run = parse_run(data)
    assert [e.holds for e in run.evidences] == [False, False] and run.rederived == 2
    assert not run.evidences[1].claims[0].passed and not run.evidences[0].claims[0].passed
    data["evidence"][0]["holds"] = "yes"
    with pytest.raises(RunFileError, match=r"holds must be true or false, found 'yes'"):
        parse_run(data)


def test_report_from_run_rejects_a_wrong_shape_and_re_derives(evidences, tmp_path, capsys):
    path = tmp_path / "run.json"
    for text in ("[]", "null", "{"):
        path.write_text(text)
        line = one_line_error(*run_cli(capsys, "report", "--out", str(tmp_path / "r"), "--from-run", str(path)))
        assert "cannot read the recorded run" in line and "internal error" not in line
    data = _payload(evidences)
    data["evidence"][1]["holds"] = True
    data["evidence"][1]["claims"][0]["passed"] = True
    path.write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "report", "--out", str(tmp_path / "r"), "--from-run", str(path))
    assert code == 0 and "2 instance(s): 1 hold;" in out and "1 recorded verdict(s) disagreed" in err


# -- finished or not -----------------------------------------------------------------------------------------
def test_an_unfinished_an_empty_run_and_an_absent_only_id_are_refused(evidences, tmp_path, capsys):
    path = tmp_path / "run.json"
    write_run(path, evidences, {"commit": "x"}, finished=False, exitstatus=2)
    line = one_line_error(*run_cli(capsys, "report", "--out", str(tmp_path / "r"), "--from-run", str(path)))
    assert "did not finish (pytest exit status 2)" in line and "--allow-unfinished" in line
    assert not (tmp_path / "r" / "index.html").exists()
    code, out, err = run_cli(capsys, "report", "--out", str(tmp_path / "r"), "--from-run", str(path),
                             "--allow-unfinished")
    assert code == 0 and "did not finish" in err
    assert "did not finish (pytest exit status 2)" in (tmp_path / "r" / "index.html").read_text()
    write_run(path, [], {"commit": "x"})
    line = one_line_error(*run_cli(capsys, "report", "--out", str(tmp_path / "r"), "--from-run", str(path)))
    assert "holds no evidence" in line
    write_run(path, evidences, {"commit": "x"})
    other = next(rid for rid in theorems.ids() if rid != FAKE_ID)
    line = one_line_error(*run_cli(capsys, "report", "--out", str(tmp_path / "r"), "--from-run", str(path),
                                   "--only", FAKE_ID, other))
    assert f"no evidence of {other}" in line


def test_an_unfinished_run_is_refused_unless_allowed(evidences, tmp_path):
    run = load_run(write_run(tmp_path / "run.json", evidences, {}, finished=False, exitstatus=2))
    with pytest.raises(ValueError, match="did not finish"):
        recording.checked_for_report(run, "run.json")
    meta, shown, _, notes = recording.checked_for_report(run, "run.json", allow_unfinished=True)
    assert len(shown) == 2 and "did not finish" in meta["unfinished"] and notes


def test_finished_means_ran_to_its_end():
    assert recording.finished(0) and recording.finished(1) and recording.finished(5)
    assert not recording.finished(2)  # interrupted (Ctrl-C)
    assert not recording.finished(3) and not recording.finished(None)
    assert not recording.finished(1, session_stopped=True)  # -x / --maxfail


INTERRUPTED_TESTS = """
import theorems
import registered_fakes
from fakes import FAKE_ID
from theorems.core import recording

def test_a():
    assert theorems.check(FAKE_ID, x=0.1).holds

def test_starved():
    ev = recording.expect(theorems.check(FAKE_ID, converges=False), recording.NOT_CONVERGED)
    assert ev.converged is False

def test_b():
    if __import__("os").environ.get("STOP_HERE"):
        raise KeyboardInterrupt
"""


def _pytest_run(folder: Path, *args: str, env: dict | None = None) -> tuple[int, dict]:
    (folder / "conftest.py").write_text((REPO / "conftest.py").read_text())
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (folder / "test_x.py").write_text(INTERRUPTED_TESTS)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args], cwd=folder,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(TESTS), str(REPO)])})
    return done.returncode, json.loads((folder / ".theorems" / "last-run.json").read_text())


@pytest.mark.slow
def test_an_interrupted_pytest_run_is_recorded_as_unfinished_and_a_green_one_as_finished(tmp_path):
    code, green = _pytest_run(tmp_path, "-n", "0")
    assert code == 0 and green["finished"] is True and green["exitstatus"] == 0
    starved = [d for d in green["evidence"] if d["converged"] is False]
    assert len(starved) == 1 and starved[0]["expected"] == ["not converged"]
    code, stopped = _pytest_run(tmp_path, "-n", "0", env={"STOP_HERE": "1"})
    assert code == 2 and stopped["finished"] is False and stopped["exitstatus"] == 2


# -- written whole or not at all ---------------------------------------------------------------------------
def test_a_write_cut_short_leaves_the_previous_report_whole(evidences, tmp_path, monkeypatch):
    out = tmp_path / "r"
    build_report(out, evidences[:1], {"commit": "first"})
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = Path.write_text

    def cut_short(self, text, *a, **k):
        if self.name == "index.html":
            real(self, text[:100], *a, **k)
            raise OSError(28, "No space left on device")
        return real(self, text, *a, **k)

    monkeypatch.setattr(Path, "write_text", cut_short)
    with pytest.raises(OSError):
        build_report(out, evidences, {"commit": "second"})
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["r"]  # no temporary folder left behind
    build_report(out, evidences, {"commit": "second"})
    assert "second" in (out / "index.html").read_text()


def test_a_folder_with_other_files_is_written_file_by_file(evidences, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    build_report(out, evidences, {"commit": "x"})
    assert sorted(p.name for p in out.iterdir()) == ["evidence.json", "index.html", "notes.txt"]
    assert (out / "notes.txt").read_text() == "mine"


def test_the_run_file_is_replaced_atomically(evidences, tmp_path, monkeypatch):
    path = write_run(tmp_path / "run.json", evidences, {"commit": "first"})
    before = path.read_bytes()

    def fail(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_run(path, evidences, {"commit": "second"})
    monkeypatch.undo()
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["run.json"]


# -- diff -----------------------------------------------------------------------------------------------------
def test_diff_exits_non_zero_on_a_verdict_change_only(evidences, tmp_path, capsys):
    old = write_run(tmp_path / "old.json", evidences, {"commit": "a"})
    data = _payload(evidences)
    code, out, _ = run_cli(capsys, "diff", str(old), str(old))
    assert code == 0 and "0 verdict change(s)" in out
    # a number that moves within --rtol is no change; beyond it, it is listed, still exit 0
    data["evidence"][0]["claims"][0]["observed"] *= 1 + 1e-9
    (tmp_path / "same.json").write_text(json.dumps(data))
    code, out, _ = run_cli(capsys, "diff", str(old), str(tmp_path / "same.json"))
    assert code == 0 and "0 number(s) moved" in out
    data["evidence"][0]["claims"][0]["observed"] *= 1.01
    (tmp_path / "moved.json").write_text(json.dumps(data))
    code, out, _ = run_cli(capsys, "diff", str(old), str(tmp_path / "moved.json"))
    assert code == 0 and "square_below_line.observed" in out and "1 number(s) moved" in out
    # a verdict that changes (decided by the claims: the recorded holds is not read)
    data["evidence"][0]["claims"][0]["observed"] = 10.0
    (tmp_path / "new.json").write_text(json.dumps(data))
    code, out, _ = run_cli(capsys, "diff", str(old), str(tmp_path / "new.json"))
    assert code == 1 and "holds → does not hold" in out and f"check {FAKE_ID}" in out
    data["evidence"][0]["claims"][0]["observed"] = json.loads(old.read_text())["evidence"][0]["claims"][0]["observed"]
    data["evidence"][1]["status"] = "refuted"
    (tmp_path / "status.json").write_text(json.dumps(data))
    code, out, _ = run_cli(capsys, "diff", str(old), str(tmp_path / "status.json"))
    assert code == 1 and f"status       {FAKE_ID}: verified-corrected → refuted" in out
    code, out, _ = run_cli(capsys, "diff", str(old), str(tmp_path / "none.json"))
    assert code == 2 and "no such file" in _


def test_diff_lists_instances_present_in_one_run_only(evidences, tmp_path, capsys):
    old = write_run(tmp_path / "old.json", evidences[:1], {"commit": "a"})
    new = write_run(tmp_path / "new.json", evidences, {"commit": "b"})
    code, out, _ = run_cli(capsys, "diff", str(old), str(new))
    assert code == 0 and "only in NEW" in out and "1 only in NEW" in out
    assert not math.isnan(json.loads(new.read_text())["evidence"][0]["observed"])


def test_workers_are_capped_by_the_memory_available(monkeypatch, capsys):
    from theorems import __main__ as cli

    pages = {"SC_PAGE_SIZE": 4096, "SC_AVPHYS_PAGES": 3 * cli.WORKER_MEMORY_BYTES // 4096}
    monkeypatch.setattr(os, "sysconf", lambda name: pages[name])
    assert cli._memory_capped(2) == 2 and capsys.readouterr().err == ""
    assert cli._memory_capped(16) == 3
    assert "16 workers need about" in capsys.readouterr().err
    pages["SC_AVPHYS_PAGES"] = 1
    assert cli._memory_capped(4) == 1  # always at least one
