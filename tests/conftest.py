"""Fixtures that register fake results (those of `fakes.py`, or a test's own) for the duration of a test."""

from __future__ import annotations

import pytest

from fakes import all_fakes
from theorems.core import registry


@pytest.fixture
def fake_results():
    """The fake results, registered beside the real ones and removed afterwards."""
    registry.ids()  # load the real results first, so that loading cannot happen inside the test
    added = [registry.register(result).id for result in all_fakes()]
    try:
        yield added
    finally:
        for rid in added:
            registry._REGISTRY.pop(rid, None)


@pytest.fixture
def only_fake_results(monkeypatch):
    """A registry holding nothing but the fakes, for commands that run every registered result."""
    registry.ids()
    monkeypatch.setattr(registry, "_REGISTRY", {})
    return [registry.register(result).id for result in all_fakes()]


@pytest.fixture
def registered():
    """Register a test's own fakes for the duration of the test (the registry is process-global): ``add(result)``."""
    registry.ids()  # load the real results first, as above
    added = []

    def add(result):
        registry._REGISTRY[result.id] = result
        added.append(result.id)
        return result

    yield add
    for rid in added:
        registry._REGISTRY.pop(rid, None)
