"""The conformance checks as a pytest plugin (issue 30): ``pytest --theorems-conformance TARGET`` runs the checks
every built-in result passes on a third party's results, in that party's own project (another folder, another
pytest root), and fails a result whose bound no control breaks. Each test runs pytest in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from theorems import scaffold

ROOT = Path(__file__).resolve().parents[1]
WEYL = ROOT / "examples" / "weyl"


def inner_pytest(cwd: Path, *args: str, plugins: str, path: Path) -> subprocess.CompletedProcess:
    """pytest in ``cwd`` (its own root) with this checkout's theorems and the plugin ``plugins`` importable. The
    suite's pytest plugin is named with -p as well, so that this works where the package's entry points are not
    installed; where they are, pytest loads it once (the entry point carries the module's name)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "THEOREMS_"))}
    env.update(PYTHONPATH=os.pathsep.join([str(path), str(ROOT)]), THEOREMS_PLUGINS=plugins, CI="true")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "theorems.pytest_plugin", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_example_package_passes_the_conformance_checks_and_its_own_tests():
    done = inner_pytest(WEYL, "-v", "--theorems-conformance", "weyl", "tests", plugins="weyl", path=WEYL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert "passed" in summary and "failed" not in summary
    # The status is derived, the counterexample replays, the worst case is searched: each ran on weyl's result.
    for check in ("test_status_follows_from_the_evidence", "test_counterexamples_replay",
                  "test_every_bound_claim_has_a_negative_control", "test_bad_input_is_refused_before_any_computation",
                  "test_bound_holds_at_the_worst_instance_found", "test_same_seed_same_numbers"):
        assert f"{check}[weyl.eigenvalue_inequality] PASSED" in done.stdout, check
    assert "test_weyl.py::test_the_search_finds_the_registered_counterexample PASSED" in done.stdout


def test_a_control_that_does_not_fail_fails_the_conformance_checks(tmp_path):
    """A mutant of the scaffold whose controls keep the bound as it is (a check that cannot fail)."""
    out = scaffold.write("weak.norms", tmp_path / "weak")
    module = out / "weak" / "norms.py"
    text = module.read_text(encoding="utf-8")
    mutated = text.replace("BOUND_PINNED = dict(bound_scale=1 - 1e-9, allow_violation=True)",
                           "BOUND_PINNED = dict(bound_scale=1.0, allow_violation=True)")
    mutated = mutated.replace("controls=(BOUND_PINNED, dict(bound_scale=0.5, allow_violation=True)),",
                              "controls=(BOUND_PINNED,),")
    assert mutated.count("bound_scale=1.0, allow_violation") == 1 and "controls=(BOUND_PINNED,)" in mutated
    module.write_text(mutated, encoding="utf-8")
    done = inner_pytest(out, "--theorems-conformance", "weak", "-k", "negative_control", plugins="weak", path=out)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "bound claims no control breaks" in done.stdout and "l2_at_most_l1" in done.stdout


def test_an_unknown_target_is_a_usage_error(tmp_path):
    done = inner_pytest(tmp_path, "--theorems-conformance", "no_such_plugin", plugins="", path=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert "--theorems-conformance" in done.stderr and "no_such_plugin" in done.stderr


@pytest.mark.parametrize("argv", [["--co", "-q"]])
def test_the_plugin_stays_out_of_an_unrelated_run(tmp_path, argv):
    """Installed in an environment, the plugin changes nothing in a run that does not ask for it: no recording
    (no .theorems/ written), no header line."""
    (tmp_path / "test_x.py").write_text("def test_x():\n    assert True\n", encoding="utf-8")
    done = inner_pytest(tmp_path, plugins="", path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / ".theorems").exists()
    header = inner_pytest(tmp_path, "-v", plugins="", path=tmp_path).stdout
    assert "theorems: suite=" not in header
