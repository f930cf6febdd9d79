"""Mutation testing for the verdict code: does `pytest` catch a small bug?

    python tools/mutants.py theorems/nonlinear_cl/theorem_1.py -- checks/test_001_nonlinear_cl.py
    python tools/mutants.py MODULE --max 20 --seed 0 --list        # show the mutants, run nothing
    python tools/mutants.py MODULE --lines 40-120 -- TESTS ...      # only mutate those lines

Each mutant changes one token of the module: a constant named in UPPER_CASE scaled (a tolerance loosened
×1000, a constant in a bound ×1.1), a comparison flipped (``<=`` ↔ ``>=``, ``<`` ↔ ``>``), ``not``
dropped from a condition, ``True``/``False`` swapped, ``min``/``max`` swapped. The mutant is written in
place, the tests run (``-x -q``, serially: ``-n 0``, hypothesis without its shrink phase, the ``ci`` profile), and the file is
restored whatever happens. A mutant is *killed* when the tests fail; one whose tests time out is
not counted. The score is killed / decided.

Dev tool: not part of the library or of the CI gate.
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

CONST = re.compile(r"^(?P<head>[A-Z][A-Z0-9_]*\s*(?::[^=]+)?=\s*)(?P<num>[0-9][0-9_.eE+-]*)\s*(?P<tail>(#.*)?)$")
SWAPS = [
    (re.compile(r"(?<![<>=!])<=(?!=)"), ">="),
    (re.compile(r"(?<![<>=!])>=(?!=)"), "<="),
    (re.compile(r"(?<![<>=!-])<(?![<=])"), ">"),
    (re.compile(r"(?<![<>=!-])>(?![>=])"), "<"),
    (re.compile(r"\bif not "), "if "),
    (re.compile(r"\bTrue\b"), "False"),
    (re.compile(r"\bFalse\b"), "True"),
    (re.compile(r"\bmin\("), "max("),
    (re.compile(r"\bmax\("), "min("),
]


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("#", '"', "'", "from ", "import "))


def mutants(lines: list[str], lo: int, hi: int) -> list[tuple[int, str, str]]:
    """(line number, description, new line) for every candidate mutation in [lo, hi]."""
    out = []
    in_doc = False
    for i, line in enumerate(lines, 1):
        if line.count('"""') % 2 == 1:
            in_doc = not in_doc
            continue
        if in_doc or not (lo <= i <= hi) or not _is_code(line):
            continue
        code, _, comment = line.partition("  #")
        m = CONST.match(line.strip())
        if m:
            try:
                value = float(m.group("num").replace("_", ""))
            except ValueError:
                value = None
            if value not in (None, 0.0):
                factor = 1000.0 if value < 1e-2 else 1.1
                indent = line[: len(line) - len(line.lstrip())]
                new = f"{indent}{m.group('head')}{value * factor!r}"
                out.append((i, f"{m.group('num')} -> ×{factor:g}", new))
            continue
        for pattern, repl in SWAPS:
            for hit in pattern.finditer(code):
                if "->" in code[max(0, hit.start() - 1):hit.end() + 1] or "lambda" in code[:hit.start()]:
                    continue
                new = code[: hit.start()] + repl + code[hit.end():] + (("  #" + comment) if comment else "")
                out.append((i, f"{hit.group(0).strip()} -> {repl.strip()}", new))
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    tests: list[str] = []
    if "--" in argv:
        k = argv.index("--")
        argv, tests = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("module", type=Path)
    ap.add_argument("--max", type=int, default=15, help="mutants to run (a seeded sample)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lines", default="1-100000", help="only mutate lines LO-HI")
    ap.add_argument("--list", action="store_true", help="list the sampled mutants and stop")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant (a hang counts as killed)")
    args = ap.parse_args(argv)
    source = args.module.read_text(encoding="utf-8")
    lines = source.splitlines()
    lo, hi = (int(x) for x in args.lines.split("-"))
    pool = mutants(lines, lo, hi)
    random.Random(args.seed).shuffle(pool)
    chosen = sorted(pool[: args.max])
    if args.list or not tests:
        for i, what, new in chosen:
            print(f"{args.module}:{i}: {what}\n    {new.strip()}")
        print(f"{len(chosen)} of {len(pool)} candidate mutants")
        return 0
    killed = timed_out = 0
    # A SIGTERM (a killed job) must still restore the module: turn it into SystemExit so `finally` runs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", "--suite", "ci", *tests]
    try:
        for i, what, new in chosen:
            mutated = lines.copy()
            mutated[i - 1] = new
            args.module.write_text("\n".join(mutated) + "\n", encoding="utf-8")
            start = time.perf_counter()
            try:
                rc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                    env={**__import__("os").environ, "THEOREMS_MUTANT": "1"}).returncode
            except subprocess.TimeoutExpired:
                rc = None
            # A timeout decides nothing (a loaded machine is not a caught bug): it is neither killed nor run.
            if rc is None:
                timed_out += 1
                verdict = "TIMEOUT "
            else:
                killed += rc != 0
                verdict = "killed  " if rc != 0 else "SURVIVED"
            print(f"{verdict} {args.module}:{i}: {what}   ({time.perf_counter() - start:.0f}s)"
                  f"\n    {new.strip()}", flush=True)
    finally:
        args.module.write_text(source, encoding="utf-8")
    decided = len(chosen) - timed_out
    print(f"score: {killed}/{decided} killed ({100 * killed / max(decided, 1):.0f}%)"
          + (f"; {timed_out} timed out (not counted)" if timed_out else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
