"""Under ``--dist loadgroup`` (pyproject.toml) the tests of one result run on one xdist worker, so that the
per-process cache of computed instances (the ``run`` fixture) computes each shared instance once. pytest 9 stores a
node's id where pytest-xdist 3.8's group suffix does not reach it (theorems/pytest_plugin.py, `_group_in_node_id`);
without the plugin's fix every test was its own group and, e.g., a counterexample replay ran on both workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xdist")

ROOT = Path(__file__).resolve().parents[1]

# Two groups of twelve tests each, marked as the plugin marks the tests of one result, and ungrouped tests. The
# run is not a theorems run (no --suite): the fix applies to any run that asks for loadgroup.
MODULE = '''
import pytest

@pytest.mark.parametrize("result_id", [pytest.param(r, marks=pytest.mark.xdist_group(r))
                                       for r in ("paper_a.one", "paper_b.two")])
@pytest.mark.parametrize("k", range(12))
def test_per_result(result_id, k):
    pass

@pytest.mark.parametrize("k", range(12))
def test_ungrouped(k):
    pass
'''


def test_the_tests_of_one_result_run_on_one_worker(tmp_path):
    (tmp_path / "test_groups.py").write_text(MODULE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "THEOREMS_"))}
    env.update(PYTHONPATH=str(ROOT), CI="true")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "theorems.pytest_plugin", "-p", "no:cacheprovider",
                           "-n", "2", "--dist", "loadgroup", "-v", "test_groups.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    ran = re.findall(r"\[(gw\d)\].*PASSED (\S+)", done.stdout)
    assert len(ran) == 36, done.stdout[-3000:]
    workers: dict[str, set[str]] = {}
    for worker, nodeid in ran:
        group = nodeid.rpartition("@")[2] if "@" in nodeid else None
        if "test_per_result" in nodeid:
            result_id = re.search(r"-(paper_\w\.\w+)\]", nodeid).group(1)
            assert group == result_id, nodeid  # the scheduler reads the group from the id it is sent
            workers.setdefault(result_id, set()).add(worker)
        else:
            assert group is None, nodeid  # unit tests stay ungrouped and fill the gaps
    assert {r: len(w) for r, w in workers.items()} == {"paper_a.one": 1, "paper_b.two": 1}, workers
