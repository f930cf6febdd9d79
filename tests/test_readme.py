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


# -- self-contained words: what a user reads cites the paper, never a file outside the repository ----------
ROOT = README.parent
OUTSIDE = re.compile(r"\bdigest\b|\.\./shared|shared/theory|DESIGN\.md|our (working )?notes", re.IGNORECASE)


def user_text_files() -> list[Path]:
    """What a user of the package reads: the README, the library and report sources (docstrings, statements,
    reasons, parameter docs), the templates and the manifest the CLI prints from."""
    files = [README, ROOT / "theorems" / "manifest.json"]
    for folder in ("theorems", "reports"):
        files += sorted((ROOT / folder).rglob("*.py")) + sorted((ROOT / folder).rglob("*.j2"))
    return files


def citations_outside(text: str) -> list[str]:
    return [m.group(0) for m in OUTSIDE.finditer(text)]


def test_no_text_cites_a_file_outside_the_repository():
    found = {}
    for path in user_text_files():
        lines = [f"{i}: {line.strip()[:100]}" for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if citations_outside(line)]
        if lines:
            found[str(path.relative_to(ROOT))] = lines
    assert not found, "text that cites what a user of the package does not have (cite the paper instead):\n" + \
        "\n".join(f"{p}\n  " + "\n  ".join(ls) for p, ls in found.items())


def test_the_citation_check_can_fail():
    assert citations_outside("as digest §7.3 says") and citations_outside("see ../shared/DESIGN.md")
    assert citations_outside("our notes (erratum A7)") and not citations_outside("Theorem 2, Appendix B of the paper")


def test_readme_links_resolve_inside_the_repository():
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        assert (ROOT / target).exists(), f"README links to {target}, which is not in the repository"
