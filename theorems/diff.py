"""``python -m theorems diff OLD.json NEW.json``: what changed between two recorded runs.

Either file may be a report's ``evidence.json`` or pytest's ``.theorems/last-run.json`` (one format,
``theorems/evidence.schema.json``). Each file's verdicts are re-derived from its claims on reading
(`theorems.core.recording.load_run`), so a diff compares what the numbers say, not what a file claims.

It prints, one line each: every result whose status changed; every instance (result, form, parameters,
device) whose verdict changed, with the command that replays it; every claim whose pass/fail changed or
whose observed value or bound moved beyond the tolerance; and the instances present in one run only.
Exit status 1 when a verdict changed (a result's status, or an instance's holds), else 0: a CI job can gate
on "no verdict changed" while numbers drift within tolerance.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from theorems.core.recording import instance_key, load_run

DEFAULT_RTOL = 1e-6  # a number "moved" when it changed by more than this, relative to the larger of the two
EXIT_SAME, EXIT_VERDICT_CHANGED = 0, 1


@dataclass
class Changes:
    statuses: list[str] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    only_old: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)

    @property
    def verdict_changed(self) -> bool:
        return bool(self.statuses or self.verdicts)

    def lines(self) -> list[str]:
        out = [*self.statuses, *self.verdicts, *self.claims, *self.numbers]
        out += [f"only in OLD  {k}" for k in self.only_old] + [f"only in NEW  {k}" for k in self.only_new]
        out.append(f"{len(self.statuses)} status change(s), {len(self.verdicts)} verdict change(s), "
                   f"{len(self.claims)} claim(s) that changed pass/fail, {len(self.numbers)} number(s) moved beyond "
                   f"tolerance, {len(self.only_old)} instance(s) only in OLD, {len(self.only_new)} only in NEW")
        return out


def _verdict(holds: bool) -> str:
    return "holds" if holds else "does not hold"


def _moved(a: float, b: float, rtol: float, allowance: float = 0.0) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) != math.isnan(b)
    if a == b:
        return False
    if math.isinf(a) or math.isinf(b):
        return True
    return abs(a - b) > max(rtol * max(abs(a), abs(b)), allowance)


def _label(ev) -> str:
    params = ", ".join(f"{k}={v}" for k, v in ev.params.items())
    return f"{ev.result_id} [{ev.form}{', negative control' if ev.violations else ''}] {params}"


def compare(old: list, new: list, rtol: float = DEFAULT_RTOL) -> Changes:
    """The changes from the evidences ``old`` to ``new`` (each instance matched by `instance_key`)."""
    ch = Changes()
    status_old = {e.result_id: e.status for e in old}
    status_new = {e.result_id: e.status for e in new}
    for rid in sorted(status_old.keys() & status_new.keys()):
        if status_old[rid] != status_new[rid]:
            ch.statuses.append(f"status       {rid}: {status_old[rid]} → {status_new[rid]}")
    a = {instance_key(e): e for e in old}
    b = {instance_key(e): e for e in new}
    for key in sorted(a.keys() & b.keys()):
        eo, en = a[key], b[key]
        if eo.holds != en.holds or eo.converged != en.converged:
            conv = "" if eo.converged == en.converged else f" (converged {eo.converged} → {en.converged})"
            ch.verdicts.append(f"verdict      {_label(en)}: {_verdict(eo.holds)} → {_verdict(en.holds)}{conv}"
                               f"   {en.reproduce()}")
        claims_old = {c.name: c for c in eo.claims}
        for cn in en.claims:
            co = claims_old.get(cn.name)
            if co is None:
                ch.claims.append(f"claim added  {_label(en)}: {cn.name}")
                continue
            if co.passed != cn.passed:
                ch.claims.append(f"claim        {_label(en)}: {cn.name} {'passed' if co.passed else 'failed'} → "
                                 f"{'passed' if cn.passed else 'failed'}")
            for what in ("observed", "bound"):
                vo, vn = getattr(co, what), getattr(cn, what)
                if _moved(vo, vn, rtol, cn.allowance if cn.relation in ("<=", ">=", "==") else 0.0):
                    ch.numbers.append(f"number       {_label(en)}: {cn.name}.{what} {vo!r} → {vn!r}")
        for name in claims_old.keys() - {c.name for c in en.claims}:
            ch.claims.append(f"claim gone   {_label(en)}: {name}")
    ch.only_old = [_label(a[k]) for k in sorted(a.keys() - b.keys())]
    ch.only_new = [_label(b[k]) for k in sorted(b.keys() - a.keys())]
    return ch


def main(old_path: Any, new_path: Any, rtol: float = DEFAULT_RTOL, out: TextIO | None = None) -> int:
    """Print the changes; return 1 when a verdict changed, else 0. Raises OSError / ValueError
    (RunFileError, JSONDecodeError) for a file that cannot be read or is not a recorded run."""
    if not rtol >= 0:
        raise ValueError(f"--rtol {rtol}: expected a number ≥ 0")
    out = out or sys.stdout
    old, new = load_run(old_path), load_run(new_path)
    changes = compare(old.evidences, new.evidences, rtol)
    for line in changes.lines():
        print(line, file=out)
    return EXIT_VERDICT_CHANGED if changes.verdict_changed else EXIT_SAME
