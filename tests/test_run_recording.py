"""The run recording (`.theorems/last-run.json`): written by a serial pytest run and by a run across
pytest-xdist workers alike, with the same instances. Runs pytest in a subprocess on a tiny folder of
fake-result tests that uses the repository's conftest.py, so it takes seconds, not the suite's minutes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from theorems.core.evidence import Evidence
from theorems.core.recording import merge

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent

# Two files, so that two workers both get tests; x = 0.3 is checked in both (and twice in the first): a
# run records each instance once, whichever processes computed it.
FAKE_TESTS = {
    "test_fake_a.py": """
import pytest
import theorems
import registered_fakes
from fakes import FAKE_ID

@pytest.mark.parametrize("x", [0.1, 0.2, 0.3, 0.3])
def test_a(x):
    assert theorems.check(FAKE_ID, x=x).holds
""",
    "test_fake_b.py": """
import pytest
import theorems
import registered_fakes
from fakes import FAKE_ID, TREND_ID

@pytest.mark.parametrize("x", [0.3, 0.6, 0.9])
def test_b(x):
    assert not theorems.check(FAKE_ID, x=x, form="as_printed").holds or x <= 0.5

def test_trend():
    assert theorems.check(TREND_ID).holds

def test_not_registered_is_not_recorded():
    from theorems.core import registry
    from fakes import make_fake
    registry.register(make_fake("fake.throw_away"))
    theorems.check("fake.throw_away")
    registry._REGISTRY.pop("fake.throw_away")
""",
}


def recorded_run(tmp_path: Path, *args: str) -> tuple[dict, list[dict]]:
    folder = tmp_path / "_".join(args).replace("-", "")
    folder.mkdir()
    (folder / "conftest.py").write_text((REPO / "conftest.py").read_text())
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    for name, text in FAKE_TESTS.items():
        (folder / name).write_text(text)
    env_path = [str(TESTS), str(REPO)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args], cwd=folder, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(env_path)},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    payload = json.loads((folder / ".theorems" / "last-run.json").read_text())
    for d in payload["evidence"]:
        d.pop("elapsed_s")
    return payload["meta"], payload["evidence"]


@pytest.mark.slow
def test_xdist_and_serial_runs_record_the_same_instances(tmp_path):
    pytest.importorskip("xdist")
    serial_meta, serial = recorded_run(tmp_path, "-n", "0")
    _, parallel = recorded_run(tmp_path, "-n", "2")
    assert serial == parallel
    keys = [(d["result_id"], d["form"], d["params"].get("x")) for d in serial]
    assert len(keys) == len(set(keys)) == 7  # x = 0.1, 0.2, 0.3 corrected; 0.3, 0.6, 0.9 as printed; the trend
    assert "fake.throw_away" not in {d["result_id"] for d in serial}
    assert serial_meta["source"] == "pytest"


def test_merge_keeps_each_instance_once_in_a_fixed_order():
    def ev(x, form="corrected", elapsed=0.0):
        return Evidence(result_id="r", form=form, params={"x": x}, holds=True, observed=x, bound=1.0,
                        tightness=x, converged=None, claims=[], details={}, violations=[], status="verified",
                        device="cpu", elapsed_s=elapsed)

    a, b, c = ev(0.5), ev(0.1), ev(0.5, elapsed=9.0)
    assert [e.params["x"] for e in merge([c, b, a])] == [0.1, 0.5]
    merged = merge([a, b, c])
    assert [e.params["x"] for e in merged] == [0.1, 0.5] and merged[1] is a
    assert [e.params["x"] for e in merge([b, ev(0.5, "as_printed"), a])] == [0.5, 0.1, 0.5]
