"""How the verdict machinery names an instance: the form a spec runs in and the cache key of a call
(issue 26 item 9: mutants of `run_spec` and `CachedRunner.key` that only a non-default form shows)."""

from __future__ import annotations

from theorems.core.result import AS_PRINTED, CORRECTED
from theorems.core.verdict import CachedRunner, run_spec

from tests.test_verdict import fake


def _recorder():
    calls = []

    def run(rid, *, form=None, allow_violation=False, **params):
        calls.append((rid, form, allow_violation, params))
        return None

    return run, calls


def test_run_spec_runs_the_form_it_is_asked_for():
    """A spec without its own form runs in the form the caller names (the corrected form of a result whose
    default is the corrected one), in the result's default form otherwise, and a spec's own form wins."""
    result = fake()
    assert result.default_form == CORRECTED
    run, calls = _recorder()
    run_spec(run, result, {"x": 0.5}, form=AS_PRINTED)
    run_spec(run, result, {"x": 0.5})
    run_spec(run, result, {"x": 0.5, "form": CORRECTED, "allow_violation": True}, form=AS_PRINTED)
    assert [(c[1], c[2], c[3]) for c in calls] == [(AS_PRINTED, False, {"x": 0.5}), (CORRECTED, False, {"x": 0.5}),
                                                    (CORRECTED, True, {"x": 0.5})]


def test_cache_key_keeps_forms_apart(monkeypatch):
    """`run(id)` and `run(id, form=<default>)` share one evaluation; another form never does."""
    from theorems.core import registry

    result = fake()
    registry.ids()  # load the registry before adding the fake to it
    monkeypatch.setitem(registry._REGISTRY, result.id, result)
    key = CachedRunner.key
    assert key(result.id) == key(result.id, form=CORRECTED)
    assert key(result.id, form=AS_PRINTED) != key(result.id)
    assert key(result.id, form=AS_PRINTED)[1] == AS_PRINTED
    assert key(result.id, x=0.25) == key(result.id)  # parameters filled with their defaults
    assert key(result.id, allow_violation=True) != key(result.id)
