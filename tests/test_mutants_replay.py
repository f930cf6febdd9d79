"""tools/mutants.py --replay: a logged mutant lands on the same code after the module was edited."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import mutants  # noqa: E402

OLD = "TOL = 1e-9\n\n\ndef f(x):\n    return x <= TOL\n"
NEW = "# a comment\nTOL = 1e-9\nPIN = 1 + 3e-9\n\n\ndef f(x):\n    return x <= TOL\n"


def test_a_logged_mutant_is_relocated_to_the_same_code():
    for m in mutants.sites(OLD):
        rec = {"module": "m.py", "line": m.line, "col": m.col, "end_line": m.end_line, "end_col": m.end_col,
               "new": m.new, "kind": m.kind, "what": m.what}
        moved = mutants.relocate(rec, OLD, NEW)
        assert moved is not None
        changed_old = set(m.apply(OLD).splitlines()) - set(OLD.splitlines())
        changed_new = set(moved.apply(NEW).splitlines()) - set(NEW.splitlines())
        assert changed_old == changed_new, (m, moved)


def test_a_mutant_on_code_that_is_gone_is_not_relocated():
    (m,) = [m for m in mutants.sites(OLD) if m.what.startswith("<=")][:1]
    rec = {"module": "m.py", "line": m.line, "col": m.col, "end_line": m.end_line, "end_col": m.end_col,
           "new": m.new, "kind": m.kind, "what": m.what}
    assert mutants.relocate(rec, OLD, OLD.replace("x <= TOL", "x < TOL")) is None
