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
    from theorems.core.registry import is_builtin

    # The built-in papers' results (a plugin installed in the environment has its own README).
    registered = {rid: str(theorems.get(rid).status) for rid in theorems.ids() if is_builtin(theorems.get(rid))}
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


# -- "Check your own theorem": every command of the section runs, in order, in an empty folder ------------------
OWN_THEOREM_MARK = "<!-- each line below is run by tests/test_readme.py -->"


def own_theorem_commands() -> list[tuple[str, int]]:
    """(command, expected exit status) for each line of the section's code block: 1 where its comment says
    'exit 1', else 0."""
    text = README.read_text(encoding="utf-8")
    assert OWN_THEOREM_MARK in text, "README lost its 'Check your own theorem' commands"
    block = text.split(OWN_THEOREM_MARK, 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    out = []
    for line in block.strip().splitlines():
        command, _, comment = line.partition("  #")
        out.append((command.strip(), 1 if re.search(r"\bexit 1\b", comment) else 0))
    return out


def test_the_own_theorem_section_is_at_most_ten_commands():
    commands = own_theorem_commands()
    assert 3 <= len(commands) <= 10, [c for c, _ in commands]
    assert commands[0][0].startswith("python -m theorems new ") and "report" in commands[-1][0]


def _one_core():
    """A preexec_fn that gives the command one core of this process's (the one its xdist worker number picks),
    where the platform can. This test is one process among the run's workers, which fill the cores already: on
    all of them, ``report`` would start a pool of spawned processes (the cores it sees, core.runner.default_workers),
    each importing torch again, which doubled the test's CPU time. On one core it runs the instances in its own
    process, the path a one-core user takes; the pool is tested by tests/test_report_parallel.py."""
    import os

    if not hasattr(os, "sched_getaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    core = cores[int(worker) % len(cores)] if worker.isdigit() else cores[0]
    return lambda: os.sched_setaffinity(0, {core})


def test_the_own_theorem_commands_run_from_new_to_a_report(tmp_path):
    """Each command in a shell of its own, in order, in an empty folder; an ``export`` line sets the environment
    of the lines after it. This checkout's theorems stays importable (PYTHONPATH keeps the repository root),
    and the suite's pytest plugin is named with -p where the package's entry points are not installed (pytest
    loads it once either way). Ends with the report page holding the new result."""
    import os
    import shlex
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "THEOREMS_"))}
    env.update(PYTEST_ADDOPTS="-p theorems.pytest_plugin -p no:cacheprovider -p no:xdist", CI="true",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    root = str(ROOT)
    env["PYTHONPATH"] = root
    for command, expected in own_theorem_commands():
        if command.startswith("export "):
            for word in shlex.split(command)[1:]:
                name, _, value = word.partition("=")
                value = value.replace("$PWD", str(tmp_path))
                env[name] = os.pathsep.join([value, root]) if name == "PYTHONPATH" else value
            continue
        argv = shlex.split(command)
        assert argv[:2] == ["python", "-m"], command
        done = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600, preexec_fn=_one_core())
        assert done.returncode == expected, f"{command}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        if argv[3:4] == ["list"]:
            assert any(line.startswith("mythms.norms ") for line in done.stdout.splitlines())
        if argv[3:4] == ["show"]:
            assert "Control switches" in done.stdout and "Effort" in done.stdout
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "mythms.norms" in page
