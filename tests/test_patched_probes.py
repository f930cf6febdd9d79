"""A patched probe (a test that changes a module constant or formula, then evaluates) is no instance of the run: two
such probes of one instance, one patched to hold and one to fail, both ``recording.expect``-ed, leave the run file's
row of the real instance the same whichever order the tests (or pytest-xdist's workers) ran them in."""

from __future__ import annotations

import itertools

import theorems
from theorems.core import recording


def test_two_patched_probes_of_one_instance_leave_the_run_deterministic(fake_results, monkeypatch):
    import fakes

    with recording.recording() as sink:
        # patched to fail (c = 0.1: 0.25² > 0.025), then to hold with room (c = 10), each expected as it comes out
        monkeypatch.setitem(fakes.CONSTANT, "corrected", 0.1)
        fails = recording.expect(theorems.check(fakes.FAKE_ID), recording.FAILS)
        monkeypatch.undo()
        monkeypatch.setitem(fakes.CONSTANT, "corrected", 10.0)
        holds = recording.expect(theorems.check(fakes.FAKE_ID), recording.HOLDS)
        monkeypatch.undo()
        real = theorems.check(fakes.FAKE_ID)  # nothing patched any more: the instance itself
    assert sink == [fails, holds, real]
    assert not fails.holds and holds.holds and real.holds
    key = recording.instance_key(real)
    assert recording.instance_key(fails) == recording.instance_key(holds) == key  # the same instance key
    assert "['corrected']" in recording.patched_what(fails) and "['corrected']" in recording.patched_what(holds)
    assert recording.patched_what(real) is None
    # the run file: the real instance, whatever the order (a serial run, or either worker's list first)
    for order in itertools.permutations(sink):
        assert recording.merge(list(order)) == [real]
        assert recording.merge(recording.from_worker_payload(recording.worker_payload(list(order)))) == [real]
    # neither probe's expectation is the real instance's: a real failure of it would still need a look
    assert recording.expected_of(real) == []


def test_patched_marks_what_a_test_patches_by_other_means(fake_results):
    from fakes import FAKE_ID

    with recording.patched("fakes.CONSTANT by hand"):
        ev = recording.expect(theorems.check(FAKE_ID, x=0.125), recording.HOLDS)
    assert recording.patched_what(ev) == "fakes.CONSTANT by hand"
    assert recording.merge([ev]) == [] and recording.worker_payload([ev]) == "[]"
    assert recording.expected_of(ev) == []
    assert recording.patched_what(theorems.check(FAKE_ID, x=0.125)) is None  # outside the block: an instance
