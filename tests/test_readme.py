"""The README's results table is what users read first: it must list every registered result with the
status the suite asserts, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import theorems

README = Path(__file__).resolve().parents[1] / "README.md"


def table_rows() -> dict[str, str]:
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`([\w.]+)`\s*\|[^|]*\|\s*([\w-]+)\s*\|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def test_readme_table_lists_every_result_with_its_status():
    rows = table_rows()
    assert rows, "README has no results table"
    registered = {rid: str(theorems.get(rid).status) for rid in theorems.ids()}
    assert sorted(set(registered) - set(rows)) == [], "registered but missing from the README table"
    assert sorted(set(rows) - set(registered)) == [], "in the README table but not registered"
    wrong = {rid: (rows[rid], registered[rid]) for rid in rows if rows[rid] != registered[rid]}
    assert not wrong, f"README status differs from the registry (README, registry): {wrong}"
