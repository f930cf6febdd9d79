"""The conformance checks' hang guard (theorems.conformance._hang_guard) counts CPU time for a spinning call, so
that a call slowed by a loaded machine is not reported as a hang, and a busy loop still is."""

from __future__ import annotations

import time

import pytest

from theorems.conformance import _hang_guard


def test_a_spinning_call_is_stopped_after_its_cpu_seconds():
    start = time.process_time()
    with pytest.raises(TimeoutError, match="1 s of CPU time"):
        with _hang_guard(1, "spin"):
            while time.process_time() - start < 30:
                pass
    assert time.process_time() - start < 10


def test_a_call_that_finishes_leaves_no_timer_behind():
    with _hang_guard(1, "quick"):
        pass
    start = time.process_time()
    while time.process_time() - start < 1.5:  # past the guard's second: nothing fires after the block
        pass
