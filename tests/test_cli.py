"""The command line, called in-process through `theorems.__main__.main(argv)` on fake results."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import theorems
from theorems.__main__ import main, parse_value
from theorems.core import registry
from theorems.core.evidence import Evidence
from theorems.core.recording import DEFAULT_RUN_FILE, write_run

from fakes import BROKEN_ID, FAKE_ID, STATEMENT, broken_instances, make_fake

REPO = Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str) -> None:
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err


# -- list / show -----------------------------------------------------------------------------------------
def test_list_has_one_line_per_result(fake_results, capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == len(theorems.ids())
    fake_line = next(line for line in lines if line.startswith(FAKE_ID))
    assert "verified-corrected" in fake_line and theorems.get(FAKE_ID).title in fake_line


def test_list_with_nothing_registered(monkeypatch, capsys):
    registry.ids()
    monkeypatch.setattr(registry, "_REGISTRY", {})
    code, out, _ = run(capsys, "list")
    assert code == 0 and out == ""


def test_show_gives_statement_correction_and_parameters(fake_results, capsys):
    code, out, _ = run(capsys, "show", FAKE_ID)
    assert code == 0
    result = theorems.get(FAKE_ID)
    for text in (STATEMENT, result.correction, result.correction_reason, "verified-corrected",
                 "as_printed, corrected (default: corrected)", "0 ≤ x ≤ 1", "one of 'mse', 'ce'",
                 "an integer in [1, 100]", "drawn from [0, 1]"):
        assert text in out, text
    param_line = next(line for line in out.splitlines() if line.strip().startswith("x "))
    assert "float" in param_line and "0.25" in param_line


# -- check -----------------------------------------------------------------------------------------------
def test_check_exit_status_says_whether_it_holds(fake_results, capsys):
    code, out, _ = run(capsys, "check", FAKE_ID)
    assert code == 0 and "HOLDS" in out
    code, out, _ = run(capsys, "check", FAKE_ID, "x=0.8", "form=as_printed")
    assert code == 1 and "DOES NOT HOLD" in out


def test_check_converts_values_by_parameter_kind(fake_results, capsys):
    code, out, _ = run(capsys, "check", FAKE_ID, "x=1", "n=7", "loss=ce", "converges=no", "--json")
    params = json.loads(out)["params"]
    assert params["x"] == 1.0 and isinstance(params["x"], float)
    assert params["n"] == 7 and params["loss"] == "ce" and params["converges"] is False
    assert code == 1  # a non-converged optimiser never holds


@pytest.mark.parametrize("text, expected", [("true", True), ("YES", True), ("1", True), ("False", False),
                                            ("no", False), ("0", False)])
def test_booleans_accept_the_usual_spellings(text, expected):
    assert parse_value("flag", text, bool) is expected


def test_json_round_trips_through_evidence(fake_results, capsys):
    code, out, _ = run(capsys, "check", FAKE_ID, "x=0.5", "--json")
    data = json.loads(out)
    evidence = Evidence.from_dict(data)
    assert code == 0 and evidence.holds and evidence.result_id == FAKE_ID
    assert evidence.to_dict() == data


def test_reproduce_command_reruns_the_same_instance(fake_results, capsys):
    original = theorems.check(FAKE_ID, form="as_printed", x=0.8, loss="ce", converges=True)
    argv = shlex.split(original.reproduce())
    assert argv[:4] == ["python", "-m", "theorems", "check"]
    code, out, _ = run(capsys, *argv[3:], "--json")
    again = Evidence.from_dict(json.loads(out))
    assert code == 1
    assert (again.form, again.params, again.observed, again.bound) == (
        original.form, original.params, original.observed, original.bound)


def test_allow_violation_runs_a_negative_control(fake_results, capsys):
    code, out, _ = run(capsys, "check", FAKE_ID, "x=2", "allow_violation=true", "--json")
    evidence = Evidence.from_dict(json.loads(out))
    assert code == 1 and evidence.violations and not evidence.holds


@pytest.mark.parametrize("argv", [
    pytest.param(["check", "fake.no_such_result"], id="unknown-id"),
    pytest.param(["show", "fake.no_such_result"], id="show-unknown-id"),
    pytest.param(["check", FAKE_ID, "y=1"], id="unknown-parameter"),
    pytest.param(["check", FAKE_ID, "x"], id="no-equals"),
    pytest.param(["check", FAKE_ID, "=1"], id="no-name"),
    pytest.param(["check", FAKE_ID, "x=abc"], id="not-a-number"),
    pytest.param(["check", FAKE_ID, "n=1.5"], id="not-an-integer"),
    pytest.param(["check", FAKE_ID, "converges=maybe"], id="not-a-boolean"),
    pytest.param(["check", FAKE_ID, "x=1", "x=2"], id="given-twice"),
    pytest.param(["check", FAKE_ID, "loss=hinge"], id="not-a-choice"),
    pytest.param(["check", FAKE_ID, "form=nope"], id="unknown-form"),
    pytest.param(["check", FAKE_ID, "x=2"], id="hypothesis-violation"),
    pytest.param(["check", FAKE_ID, "--device", "tpu"], id="unknown-device"),
    pytest.param(["frobnicate"], id="unknown-command"),
])
def test_user_errors_are_one_line_and_exit_2(fake_results, capsys, argv):
    assert_one_line_error(*run(capsys, *argv))


def test_hypothesis_violation_names_the_hypothesis(fake_results, capsys):
    _, _, err = run(capsys, "check", FAKE_ID, "x=2")
    assert "0 ≤ x ≤ 1" in err and "allow_violation" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_missing_cuda_is_a_user_error(fake_results, capsys):
    assert_one_line_error(*run(capsys, "check", FAKE_ID, "--device", "cuda"))


# -- report ----------------------------------------------------------------------------------------------
def test_report_runs_every_instance_and_summarises(only_fake_results, tmp_path, capsys):
    code, out, err = run(capsys, "report", "--out", str(tmp_path / "r"), "--suite", "quick", "--workers", "1")
    assert code == 0
    assert (tmp_path / "r" / "index.html").is_file()
    progress = [line for line in err.splitlines() if line.startswith("[")]
    # six fake instances; the plain result's default run and its registered counterexample; two of the trend
    assert len(progress) == 10
    assert [line.split()[0] for line in progress] == [f"[{i}/10]" for i in range(1, 11)]
    assert "left)" in progress[0] and "left" not in progress[-1]  # the time-left estimate
    verdicts = [line.split(" -> ")[1].rsplit(" (", 1)[0] for line in progress]
    assert sorted(verdicts) == sorted(["holds"] * 4 + ["fails"] * 4 + ["fails (not converged)"]
                                      + ["ERROR RuntimeError: boom"])
    assert any(f"{FAKE_ID} corrected x=2.0 [negative control] -> fails" in line for line in progress)
    assert out.strip().endswith("9 instance(s): 4 hold; negative controls failed as they should 2/2; "
                                "2 counterexample run(s) of printed statements found wrong; 1 need a look; "
                                "1 not converged; 1 error(s)")


def test_report_survives_a_broken_instance_generator(only_fake_results, monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(registry._REGISTRY, BROKEN_ID, make_fake(BROKEN_ID, broken_instances))
    code, out, err = run(capsys, "report", "--out", str(tmp_path), "--suite", "quick", "--workers", "1")
    assert code == 0 and "2 error(s)" in out
    assert "instance generator broke" in (tmp_path / "index.html").read_text()


def test_report_into_an_unwritable_folder_fails_before_running(only_fake_results, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, out, err = run(capsys, "report", "--out", str(blocker / "report"))
    assert_one_line_error(code, out, err)
    assert str(blocker / "report") in err


def test_report_from_a_recorded_run(only_fake_results, tmp_path, monkeypatch, capsys):
    evidences = [theorems.check(FAKE_ID), theorems.check(FAKE_ID, x=0.8, form="as_printed")]
    monkeypatch.chdir(tmp_path)  # --from-run without a path reads the default file under the cwd
    write_run(DEFAULT_RUN_FILE, evidences, {"commit": "abc123"})
    code, out, err = run(capsys, "report", "--out", "r", "--from-run", "--suite", "quick")
    assert code == 0 and "2 instance(s): 1 hold;" in out and "1 counterexample run(s)" in out
    assert "--suite is ignored" in err and not any(line.startswith("[") for line in err.splitlines())
    page = (tmp_path / "r" / "index.html").read_text()
    assert "abc123" in page and str(DEFAULT_RUN_FILE) in page


def test_report_from_a_missing_run_is_a_user_error(only_fake_results, tmp_path, capsys):
    code, out, err = run(capsys, "report", "--out", str(tmp_path), "--from-run", str(tmp_path / "none.json"))
    assert_one_line_error(code, out, err)
    assert "pytest" in err


def test_report_requires_out(capsys):
    assert_one_line_error(*run(capsys, "report"))


# -- as a program ----------------------------------------------------------------------------------------
def test_python_dash_m_theorems_list():
    done = subprocess.run([sys.executable, "-m", "theorems", "list"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stdout.strip().splitlines()) == len(theorems.ids())


def test_a_bug_of_the_suite_is_not_a_verdict(fake_results, capsys):
    """An evaluation that raises is an internal error (exit 3, the traceback and one error line), never
    exit 1, which would read as "the bound does not hold"."""
    code, out, err = run(capsys, "check", FAKE_ID, "explode=true")
    assert code == 3 and out == ""
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("error: internal error of the suite")


def test_domain_errors_are_one_line_before_anything_runs(fake_results, capsys):
    for word in ("n=0", "n=1000", "x=nan", "seed=-1", f"seed={2**64}", "loss=hinge"):
        assert_one_line_error(*run(capsys, "check", FAKE_ID, word))
