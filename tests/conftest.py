"""Fixtures that register the fake results of `fakes.py` for the CLI and report tests."""

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
