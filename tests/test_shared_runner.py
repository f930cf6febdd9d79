"""The `run` fixture's cache shared by the xdist workers of one test run (`theorems.pytest_plugin.SharedRunner`):
two runners on one folder stand for two workers. A costly instance computed by one is read by the other (the
same numbers, the same object types, never computed twice, even when asked for while the first computes it);
``fresh=True`` computes; another torch default device, or a result that is not built in, is not shared."""

from __future__ import annotations

import threading
import time

import pytest
import torch

from fakes import make_fake
from theorems import pytest_plugin
from theorems import HypothesisViolation
from theorems.core import recording, registry

RID = "cl_generalization.lemma_1"  # a built-in result whose default instance takes about a second


@pytest.fixture
def workers(tmp_path, monkeypatch):
    monkeypatch.setattr(pytest_plugin, "SHARE_AFTER_S", 0.0)  # share whatever is computed
    return pytest_plugin._make_runner(tmp_path), pytest_plugin._make_runner(tmp_path)


def never(*args, **kwargs):
    raise AssertionError(f"computed again: {args} {kwargs}")


def test_an_instance_computed_by_one_worker_is_read_by_the_other(workers):
    first, second = workers
    assert type(first).__name__ == "SharedRunner"
    computed = first(RID)
    second._check = never
    assert second.has(RID) and second.has(RID, form=computed.form)
    with recording.recording() as seen:
        read = second(RID)
    assert seen == [read]  # offered to this worker's recorders, as a computed Evidence is
    assert read.to_dict() == computed.to_dict()
    assert {k: type(v) for k, v in read.details.items()} == {k: type(v) for k, v in computed.details.items()}
    assert second(RID) is read  # then from this worker's own cache


def test_fresh_computes_and_other_contexts_are_not_shared(workers, monkeypatch):
    first, second = workers
    first(RID)
    calls = []
    check = second._check
    second._check = lambda *a, **k: calls.append(a) or check(*a, **k)
    second(RID, fresh=True)  # the determinism check's second run
    assert len(calls) == 1
    monkeypatch.setenv(pytest_plugin.ENV_SUITE, "thorough")
    assert not second.has(RID)


def test_the_device_audit_computes_and_the_others_read_what_it_computed(tmp_path, workers):
    """tests/test_devices.py's audit runs under torch's ``meta`` default device: it never reads a file (a read would
    audit nothing), while the other callers read the file it wrote (torch's default device is not in the key)."""
    first, second = workers
    with torch.device("meta"):
        audited = first(RID)
    second._check = never
    assert second(RID).to_dict() == audited.to_dict()
    calls = []
    auditor = pytest_plugin._make_runner(tmp_path)  # a third worker, on the same folder
    check = auditor._check
    auditor._check = lambda *a, **k: calls.append(a) or check(*a, **k)
    with torch.device("meta"):
        auditor(RID)
    assert len(calls) == 1


def test_allow_violation_shares_an_instance_that_violates_nothing(workers):
    """``allow_violation`` only decides whether a violated hypothesis raises: an instance that violates none is one
    evaluation under either flag, in a worker's cache and across workers; one that violates a hypothesis is not."""
    first, second = workers
    computed = first(RID)
    first._check = never
    assert first(RID, allow_violation=True) is computed
    second._check = never
    assert second(RID, allow_violation=True).to_dict() == computed.to_dict()
    switched = pytest_plugin._make_runner(None)
    control = switched(RID, allow_violation=True, bound_scale=0.5)
    assert control.violations
    with pytest.raises(HypothesisViolation):
        switched(RID, bound_scale=0.5)


def test_a_result_that_is_not_built_in_is_not_shared(workers):
    fake = make_fake("fake_shared.square")
    registry.ids()
    registry._REGISTRY[fake.id] = fake
    try:
        first, second = workers
        first(fake.id)
        assert not second.has(fake.id)
    finally:
        registry._REGISTRY.pop(fake.id)


def test_a_worker_that_asks_while_another_computes_waits_for_it(workers):
    first, second = workers
    started = threading.Event()
    check = first._check

    def slow(*args, **kwargs):
        started.set()
        time.sleep(0.5)  # the other worker asks meanwhile: it must wait on the lock, not compute
        return check(*args, **kwargs)

    first._check, second._check = slow, never
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("first", first(RID)))
    thread.start()
    assert started.wait(60)
    out["second"] = second(RID)
    thread.join()
    assert out["second"].to_dict() == out["first"].to_dict()


def test_the_folder_is_the_runs_and_only_under_xdist(tmp_path):
    """A worker's temporary folder is <the run's>/popen-gwN: the workers share its parent. A run with -n 0 has one
    process: no folder, the plain per-process cache."""
    class Factory:
        def getbasetemp(self):
            return tmp_path / "popen-gw1"

    class Worker:
        _tmp_path_factory = Factory()
        workerinput = {"workerid": "gw1"}

    assert pytest_plugin._shared_folder(Worker()) == tmp_path / pytest_plugin.SHARED_FOLDER
    assert pytest_plugin._shared_folder(type("Serial", (), {"_tmp_path_factory": Factory()})()) is None
    assert pytest_plugin._shared_folder(type("NoTmpdir", (), {"workerinput": {}})()) is None
    assert type(pytest_plugin._make_runner(None)).__name__ == "CachedRunner"


def test_the_run_fixture_is_one_runner_per_process(run, evaluated):
    assert pytest_plugin._runner(None) is run and evaluated == run.has


def test_a_cheap_instance_is_not_written(tmp_path, monkeypatch):
    monkeypatch.setattr(pytest_plugin, "SHARE_AFTER_S", 1e9)  # every instance is cheap: each worker computes its own
    first, second = pytest_plugin._make_runner(tmp_path), pytest_plugin._make_runner(tmp_path)
    first(RID)
    assert first.has(RID) and not second.has(RID)
