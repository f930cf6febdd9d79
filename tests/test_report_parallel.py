"""The report across processes (`--workers N`) and on Ray (`--ray local`): the same instances, the same
numbers, in the same order as a serial run, whatever finishes first; `--only` restricts it.

Each worker is a fresh (spawned) process that imports torch and the paper packages, so these tests take
seconds each; they run the fakes of `fakes.py` (registered in the workers through `registered_fakes`)
and one cheap real result with seeded random instances.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from fakes import FAKE_ID, PLAIN_ID, TREND_ID
from theorems.__main__ import main
from theorems.core import registry
from theorems.core.runner import Progress, plan_instances, run_instances
from theorems.core.suite import get_suite

CHEAP_REAL = "cl_generalization.lemma_1"  # exact finite populations from seeded draws: a second or so each


@pytest.fixture
def registered_fakes_only(monkeypatch):
    """A registry of nothing but the fakes, registered from a module a worker process can import."""
    registry.ids()
    monkeypatch.setattr(registry, "_REGISTRY", {})
    import registered_fakes

    return registered_fakes.register_all()


def run_plan(workers: int, only=None, ray=None) -> list[tuple]:
    """(index, instance, error, evidence without its timing) for every planned instance."""
    instances, errors = plan_instances(get_suite("quick"), only)
    assert not errors
    finished, interrupted = run_instances(instances, "cpu", workers=workers, ray_address=ray,
                                          progress=Progress(len(instances), stream=io.StringIO(), live=False))
    assert not interrupted and len(finished) == len(instances)
    rows = []
    for done in finished:
        ev = done.evidence.to_dict() if done.evidence is not None else None
        if ev is not None:
            ev.pop("elapsed_s")
        rows.append((done.index, done.instance, done.error, ev))
    return rows


def page_without_provenance(folder: Path) -> str:
    """The report page less its provenance table (date, wall time, worker count differ between runs)."""
    text = (folder / "index.html").read_text(encoding="utf-8")
    return re.sub(r'<section id="provenance">.*?</section>', "", text, flags=re.DOTALL)


def test_process_pool_gives_the_serial_run_in_plan_order(registered_fakes_only):
    serial = run_plan(workers=1)
    assert [row[0] for row in serial] == list(range(len(serial)))
    assert run_plan(workers=2) == serial
    assert any(row[2] == "RuntimeError: boom" for row in serial)  # an error row stays an error row


@pytest.mark.slow
def test_only_one_real_result_same_numbers_with_one_and_two_workers():
    serial = run_plan(workers=1, only=[CHEAP_REAL])
    assert len(serial) > 2 and {row[1].result_id for row in serial} == {CHEAP_REAL}
    assert run_plan(workers=2, only=[CHEAP_REAL]) == serial


def test_report_command_with_workers_and_only(registered_fakes_only, tmp_path, capsys):
    pages = {}
    for workers in ("1", "2"):
        code = main(["report", "--out", str(tmp_path / workers), "--suite", "quick", "--workers", workers,
                     "--only", FAKE_ID, TREND_ID])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert out.strip().endswith("7 instance(s): 3 hold; negative controls failed as they should 2/2; "
                                    "1 counterexample run(s) of printed statements found wrong; 1 need a look; "
                                    "1 not converged; 1 error(s)")
        assert f"in {workers} process(es)" in err
        pages[workers] = page_without_provenance(tmp_path / workers)
    assert pages["1"] == pages["2"]
    assert f'id="{FAKE_ID}"' in pages["1"] and f'id="{TREND_ID}"' in pages["1"]
    assert f'id="{PLAIN_ID}"' not in pages["1"]  # --only: the other results are not on the page


def test_only_an_unknown_id_is_a_user_error(capsys, tmp_path):
    code = main(["report", "--out", str(tmp_path), "--only", "neural_collapse.lemma_4_3"])
    out, err = capsys.readouterr()
    assert code == 2 and "neural_collapse.lemma_4_2" in err and "Traceback" not in err


@pytest.mark.parametrize("workers", ["0", "-1", "two"])
def test_bad_worker_count_is_a_user_error(capsys, tmp_path, workers):
    code = main(["report", "--out", str(tmp_path), "--workers", workers])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: ") and "--workers" in err


def test_time_left_is_estimated_per_result():
    """Two results, one 10× slower: after one instance of each, the estimate counts each remaining
    instance at its own result's time (a global mean would say 4 × 5.5 = 22 s)."""
    progress = Progress(6, stream=io.StringIO(), live=False, result_ids=["slow"] * 3 + ["fast"] * 3, workers=2)
    progress.step("slow -> holds", 10.0, notable=False, result_id="slow")
    progress.step("fast -> holds", 1.0, notable=False, result_id="fast")
    assert progress.eta() == pytest.approx((2 * 10.0 + 2 * 1.0) / 2)


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("THEOREMS_RAY") != "1",
                    reason="starts and stops a local Ray (~10 s of start-up): .ci/run runs it in a step of its own; "
                           "here: THEOREMS_RAY=1 pytest -m ray")
def test_local_ray_gives_the_serial_run_in_plan_order(registered_fakes_only):
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'theorems[ray]'")
    assert run_plan(workers=2, ray="local") == run_plan(workers=1)


def test_ray_missing_is_a_user_error(registered_fakes_only, monkeypatch, tmp_path, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets where Ray is not installed
    code = main(["report", "--out", str(tmp_path), "--suite", "quick", "--ray", "local", "--only", FAKE_ID])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip().splitlines() == ["error: --ray needs Ray, an optional extra: pip install 'theorems[ray]'"]
