"""Mutation testing for the verdict code: does `pytest` catch a small bug?

    python tools/mutants.py theorems/nonlinear_cl/theorem_1.py -- checks/nonlinear_cl/test_theorem_1.py
    python tools/mutants.py MODULE --max 20 --seed 0 --list        # show the sampled mutants, run nothing
    python tools/mutants.py MODULE --lines 40-120 -- TESTS ...      # only mutate those lines
    python tools/mutants.py MOD1 MOD2 --max 40 --gate --log sweep.jsonl   # each against the tests CI runs for it

The mutants are generated from the module's syntax tree (`sites`), not written by hand: every numeric
constant that can change a verdict and every comparison, each with its operators:

* ``tolerance``: a float in a module-level constant, in a ``Claim`` call, a comparison, an ``atol=`` /
  ``rtol=`` / ``tol=`` argument or any expression that reaches a verdict: ×10, ×1000, ÷10, ÷1000
  (an int: ±1);
* ``control``: a number inside a registered instance (``CONTROLS``, ``COUNTEREXAMPLES``, ``TREND_CONTROLS``,
  ``Binding``/``controls=``/``trend_controls=``/``counterexamples=``/``searched=`` of ``Result``): same operators;
* ``comparison``: ``<``, ``<=``, ``>``, ``>=`` flipped and their strictness changed, ``==`` ↔ ``!=``,
  ``is`` ↔ ``is not``, ``in`` ↔ ``not in``,
  ``min`` ↔ ``max`` (also ``.min``/``.max``, ``minimum``/``maximum``, ``amin``/``amax``), ``and`` ↔ ``or``,
  ``not`` dropped, ``Claim.at_most`` ↔ ``Claim.at_least``;
* ``hypothesis``: a hypothesis check dropped: ``raise HypothesisViolation/ParameterError(...)`` or
  ``out.append(Violation(...))`` made a ``pass``, or a negative control's switch declared with
  ``Param(..., breaks="...")`` (or ``replace(param, breaks=...)``) made ``breaks=""`` (the switch off its default
  then no longer counts as a violation);
* ``other``: a number elsewhere in a function body (an iteration count, a guard).

Not mutated: docstrings and strings (f-strings included), ``Param(...)`` / ``*_param(s)(...)`` declarations other than
their ``breaks`` (the declared domains have their own conformance checks), ``report_instances``, ``cost``, ``details`` and ``Claim.measurement``
(they decide no verdict), subscripts (indices),
exponents of ``**``, zero floats (×10 of 0 is 0: an equivalent mutant).

Sampling (``--max N``) is deterministic for a seed: each site's operators are shuffled, one operator per
site is taken before a second one, and the kinds are interleaved with tolerance and comparison mutants
first (``PRIORITY``), so a small budget still covers what the held-out mutants test most.

Each mutant is written in place, the tests run (``-x -q``, serially: ``-n 0``, the ``ci`` suite, no cache
plugin), and the file is restored whatever happens (an exception, Ctrl-C, SIGTERM). A mutant is *killed* when
the tests fail, *survives* when they pass; one whose tests time out, or that pytest cannot run (a usage error:
``error``), decides nothing and is not counted; a node id that the mutant makes vanish (pytest: "not found") runs
its file whole instead, as the default pytest would. The score is killed / decided, per module and per kind; ``--log``
appends one JSON line per mutant, with the tests that killed it (``killers``).

The gate (``--gate``, `gate_tests`) is what CI runs for the module, found from a static import graph of
``theorems/``, ``checks/`` and ``tests/`` (`ImportGraph`), not from file names: the modules that import the
mutated one, directly or through others (``from .networks import``, a ``checks/hand_tables.py``-like helper,
``from theorems.pkg import module as M``), reach it, and so do the results they register. The gate is the
conformance cases of those results and every test that uses a name imported from a reaching module, names a
reaching result id (``registry.get("pkg.result")``, a parametrize list, ``P + "figure_2"`` in the paper's own
files) or iterates the paper's results (``registry.ids()``), directly or through a module-level helper or
constant. A package's ``__init__`` is not followed (a paper's imports all its results), and shared machinery
outside the paper packages is followed through machinery only (``SHARED_GATE`` adds conformance cases).
Tests over every result that sit outside the paper's files (``tests/test_devices.py``, the manifest, the
README) are not in a paper module's gate. The gate is then collected once per module (`gate_items`): its
parametrised cases are narrowed to the results that reach the module, and it runs as one pytest call of test
items, ordered so that a kill comes early: the tests that killed earlier mutants of the module in the
``--log``, the files importing it directly and its own ids' cases, the other checks, then ``tests/``.
``--whole-files`` skips that step (the runs of `gate_tests` as they are).

Dev tool: not part of the library or of the CI gate.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

KINDS = ("tolerance", "comparison", "hypothesis", "control", "other")
# Interleaving order of a sample: two tolerance and two comparison mutants for each of the others.
PRIORITY = ("tolerance", "comparison", "tolerance", "comparison", "hypothesis", "control", "other")

FLOAT_OPS = (("×10", 10.0), ("×1000", 1000.0), ("÷10", 0.1), ("÷1000", 0.001))
CMP_SWAPS = {  # flipped, strictness changed
    ast.Lt: ("<", (">", "<=")),
    ast.LtE: ("<=", (">=", "<")),
    ast.Gt: (">", ("<", ">=")),
    ast.GtE: (">=", ("<=", ">")),
    ast.Eq: ("==", ("!=",)),
    ast.NotEq: ("!=", ("==",)),
    ast.Is: ("is", ("is not",)),
    ast.IsNot: ("is not", ("is",)),
    ast.In: ("in", ("not in",)),
    ast.NotIn: ("not in", ("in",)),
}
MINMAX = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum", "amin": "amax", "amax": "amin",
          "at_most": "at_least", "at_least": "at_most"}
HYPOTHESIS_ERRORS = ("HypothesisViolation", "ParameterError")
REGISTERED_INSTANCES = ("controls", "trend_controls", "counterexamples", "searched", "binding")
SKIP_FUNCTIONS = ("report_instances", "cost")


@dataclass(frozen=True)
class Mutant:
    """One change of the source: bytes [start, end) of line ``line`` (1-based, UTF-8 offsets as `ast`
    gives them; ``end_line`` may be later for a dropped statement) replaced by ``new``."""

    line: int
    col: int
    end_line: int
    end_col: int
    new: str
    kind: str
    what: str

    def apply(self, source: str) -> str:
        lines = source.encode("utf-8").splitlines(keepends=True)
        head = b"".join(lines[: self.line - 1]) + lines[self.line - 1][: self.col]
        tail = lines[self.end_line - 1][self.end_col:] + b"".join(lines[self.end_line:])
        return (head + self.new.encode("utf-8") + tail).decode("utf-8")


def _segment(lines: list[bytes], a: tuple[int, int], b: tuple[int, int]) -> str:
    """Source between positions a and b ((line, byte col), 1-based lines)."""
    if a[0] == b[0]:
        return lines[a[0] - 1][a[1]:b[1]].decode("utf-8")
    parts = [lines[a[0] - 1][a[1]:]] + lines[a[0]:b[0] - 1] + [lines[b[0] - 1][:b[1]]]
    return b"".join(parts).decode("utf-8")


def _advance(lines: list[bytes], pos: tuple[int, int], k: int) -> tuple[int, int]:
    """Position k characters after pos (k counted in the decoded text of the segment)."""
    line, col = pos
    while True:
        rest = lines[line - 1][col:].decode("utf-8")
        if k <= len(rest):
            return line, col + len(rest[:k].encode("utf-8"))
        k -= len(rest)
        line, col = line + 1, 0


def _operator_between(lines, left: ast.AST, right: ast.AST, token: str):
    """(start, end) of ``token`` between two nodes (it is the only thing there besides brackets,
    whitespace and comments), or None."""
    a, b = (left.end_lineno, left.end_col_offset), (right.lineno, right.col_offset)
    text = _segment(lines, a, b)
    code = re.sub(r"#[^\n]*", lambda m: " " * len(m.group(0)), text)
    hit = re.search(r"(?<![<>=!])" + re.escape(token) + r"(?![<>=])" if token in ("<", ">", "<=", ">=", "==", "!=")
                    else r"\b" + token.replace(" ", r"\s+") + r"\b", code)
    if hit is None:
        return None
    return _advance(lines, a, hit.start()), _advance(lines, a, hit.end())


def _number_ops(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    if isinstance(value, int):
        return [("+1", repr(value + 1)), ("-1", repr(value - 1))]
    if value == 0.0 or value != value:
        return []
    return [(name, _float_literal(value * f)) for name, f in FLOAT_OPS]


def _float_literal(x: float) -> str:
    text = f"{x:.12g}"  # 1e-9 ×1000 is 1e-06, not 1.0000000000000002e-06
    return text if any(c in text for c in ".eEn") else text + ".0"


class _Sites(ast.NodeVisitor):
    def __init__(self, lines: list[bytes]):
        self.lines = lines
        self.out: list[Mutant] = []
        self.context: list[str] = []  # "module-const", "claim", "compare", "tol", "control", "skip", "func"

    # -- context ---------------------------------------------------------------------------------
    def _within(self, tag: str, node: ast.AST) -> None:
        self.context.append(tag)
        self.generic_visit(node)
        self.context.pop()

    def visit_FunctionDef(self, node):
        if node.name in SKIP_FUNCTIONS:
            return
        self.context.append("func")
        for stmt in node.body:  # decorators, defaults and annotations decide no verdict
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                self.visit(stmt)
        self.context.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._within("func", node)

    def visit_Assign(self, node):
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if names == ["details"] or any(isinstance(t, ast.Subscript) and getattr(t.value, "id", "") == "details"
                                       for t in node.targets):
            return  # what a report shows, not what decides
        self._assign(node, names)

    def visit_AnnAssign(self, node):
        self._assign(node, [node.target.id] if isinstance(node.target, ast.Name) else [])

    def _assign(self, node, names):
        if "func" not in self.context and names and all(n.isupper() for n in names):
            tag = "control" if any(any(r.upper() in n for r in REGISTERED_INSTANCES) for n in names) \
                else "module-const"
            self._within(tag, node)
        else:
            self.generic_visit(node)

    def visit_JoinedStr(self, node):
        return  # an f-string is a message, not a verdict

    def visit_Subscript(self, node):
        self.visit(node.value)  # the index is not a verdict constant

    def visit_BinOp(self, node):
        self.visit(node.left)
        if not isinstance(node.op, ast.Pow):
            self.visit(node.right)
        elif not isinstance(node.right, ast.Constant):
            self.visit(node.right)

    def visit_keyword(self, node):
        if node.arg == "details":
            return
        if node.arg in REGISTERED_INSTANCES:
            self._within("control", node)
        elif node.arg and ("tol" in node.arg.lower()):
            self._within("tol", node)
        else:
            self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "Param" or name.endswith(("_param", "_params")):  # declarations of parameters
            return self._breaks(node)
        if name == "replace":  # dataclasses.replace(param, breaks=...): a shared Param given its own switch
            self._breaks(node)
        if isinstance(func, ast.Attribute) and func.attr == "update" and getattr(func.value, "id", "") == "details":
            return  # what a report shows, not what decides
        if name in MINMAX and not (name in ("min", "max") and isinstance(func, ast.Attribute)
                                   and isinstance(func.value, ast.Name) and func.value.id == "math"):
            self._swap_name(func, name)
        if name == "Binding":
            return self._within("control", node)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "Claim":
            if func.attr == "measurement":
                return  # a measurement is recorded, never judged
            return self._within("claim", node)
        self.generic_visit(node)

    def _breaks(self, node):
        """A negative control's switch (``breaks="..."``) dropped: its violation is no longer recorded."""
        for kw in node.keywords:
            if kw.arg == "breaks" and not (isinstance(kw.value, ast.Constant) and kw.value.value == ""):
                self.out.append(Mutant(kw.lineno, kw.col_offset, kw.end_lineno, kw.end_col_offset, 'breaks=""',
                                       "hypothesis", "breaks dropped"))

    def _swap_name(self, func, name):
        if isinstance(func, ast.Attribute):
            end = (func.end_lineno, func.end_col_offset)
            start = (end[0], end[1] - len(name.encode()))
        else:
            start, end = (func.lineno, func.col_offset), (func.end_lineno, func.end_col_offset)
        self.out.append(Mutant(start[0], start[1], end[0], end[1], MINMAX[name], "comparison",
                               f"{name} -> {MINMAX[name]}"))

    # -- sites -----------------------------------------------------------------------------------
    def visit_Constant(self, node):
        ops = _number_ops(node.value)
        if not ops or not self.context:
            return
        # The innermost function decides: a number in a claim, comparison or tolerance argument inside it
        # is a tolerance/bound constant, any other number in it is "other" (a lambda inside a module-level
        # constant is code, not a constant).
        inner = self.context[len(self.context) - self.context[::-1].index("func"):] if "func" in self.context \
            else self.context
        if "control" in self.context:
            kind = "control"
        elif set(inner) & {"module-const", "claim", "compare", "tol"}:
            kind = "tolerance"
        elif "func" in self.context:
            kind = "other"
        else:
            return
        text = _segment(self.lines, (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset))
        for name, new in ops:
            self.out.append(Mutant(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new, kind,
                                   f"{text} {name}"))

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return self.visit(node.operand)
        if isinstance(node.op, ast.Not) and self.context:
            self.out.append(Mutant(node.lineno, node.col_offset, node.operand.lineno, node.operand.col_offset,
                                   "", "comparison", "not dropped"))
        self.generic_visit(node)

    def visit_Compare(self, node):
        if self.context:
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                if type(op) in CMP_SWAPS:
                    token, news = CMP_SWAPS[type(op)]
                    span = _operator_between(self.lines, left, right, token)
                    if span:
                        for new in news:
                            self.out.append(Mutant(*span[0], *span[1], new, "comparison", f"{token} -> {new}"))
                left = right
        self._within("compare", node)

    def visit_BoolOp(self, node):
        if self.context:
            token, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            spans = [_operator_between(self.lines, a, b, token) for a, b in zip(node.values, node.values[1:], strict=False)]
            if spans and spans[0]:
                self.out.append(Mutant(*spans[0][0], *spans[0][1], new, "comparison", f"{token} -> {new}"))
        self.generic_visit(node)

    def visit_IfExp(self, node):
        self.generic_visit(node)

    def visit_Raise(self, node):
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = getattr(exc, "id", getattr(exc, "attr", ""))
        if name in HYPOTHESIS_ERRORS:
            self.out.append(Mutant(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, "pass",
                                   "hypothesis", f"raise {name} dropped"))
        self.generic_visit(node)

    def visit_Expr(self, node):
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("append",
                                                                                                       "extend")
                and call.args and "Violation(" in ast.unparse(call.args[0])):
            self.out.append(Mutant(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, "pass",
                                   "hypothesis", "Violation dropped"))
        self.generic_visit(node)


def parses(source: str, mutant: Mutant) -> bool:
    try:
        ast.parse(mutant.apply(source))
    except SyntaxError:
        return False
    return True


def sites(source: str, lo: int = 1, hi: int = 10**9, validate: bool = True) -> list[Mutant]:
    """Every mutant of ``source`` (see the module docstring) whose site starts on a line in [lo, hi],
    in source order. With ``validate`` each one parses (the generator drops any that would not)."""
    lines = source.encode("utf-8").splitlines(keepends=True)
    visitor = _Sites(lines)
    visitor.visit(ast.parse(source))
    out = []
    seen = set()
    for m in sorted(visitor.out, key=lambda m: (m.line, m.col, m.kind, m.what)):
        key = (m.line, m.col, m.end_line, m.end_col, m.new)
        if not (lo <= m.line <= hi) or key in seen:
            continue
        seen.add(key)
        if not validate or parses(source, m):
            out.append(m)
    return out


def sample(pool: list[Mutant], n: int, seed: int = 0, kinds: tuple[str, ...] = KINDS) -> list[Mutant]:
    """A deterministic sample of ``n`` mutants: one operator per site before a second, kinds interleaved
    by ``PRIORITY`` (tolerance and comparison first); returned in source order."""
    rng = random.Random(seed)
    by_kind: dict[str, list[list[Mutant]]] = defaultdict(list)
    by_site: dict[tuple, list[Mutant]] = defaultdict(list)
    for m in pool:
        if m.kind in kinds:
            by_site[(m.line, m.col, m.kind)].append(m)
    for key in sorted(by_site):
        ops = by_site[key][:]
        rng.shuffle(ops)
        by_kind[key[2]].append(ops)
    queues: dict[str, list[Mutant]] = {}
    for kind, groups in by_kind.items():
        rng.shuffle(groups)
        depth = max(len(g) for g in groups)
        queues[kind] = [g[i] for i in range(depth) for g in groups if i < len(g)]
    chosen: list[Mutant] = []
    while len(chosen) < n and any(queues.values()):
        for kind in PRIORITY:
            if queues.get(kind) and len(chosen) < n:
                chosen.append(queues[kind].pop(0))
    return sorted(chosen, key=lambda m: (m.line, m.col, m.new))


# -- the tests CI runs for a module ---------------------------------------------------------------------
PAPER_NUMBER = {"deep_fusion": "000", "nonlinear_cl": "001", "ssl_dynamics": "002", "cl_generalization": "003",
                "neural_collapse": "004"}
TEST_GLOBS = ("checks/**/test_*.py", "tests/test_*.py")  # checks/<paper package>/test_<result>.py too
# The tests of this tool load it (by path or by name): they test the tool, not the module it mutates.
_TOOL_TESTS = re.compile(r"^\s*import mutants\b|load_tool\(\s*[\"']mutants[\"']|^\s*MUTANTS\s*=.*tools\W+mutants\.py", re.M)


# Conformance checks the gate runs for a shared module, beyond the test files that import it: the verdict
# rules are exercised on real results of every status (the whole conformance run is the integrator's).
SHARED_GATE = {
    "theorems/core/verdict.py": [["checks/test_conformance.py", "-k", "test_status_follows_from_the_evidence and ("
                                  "deep_fusion or ssl_dynamics)"]],
}


# -- the import graph ------------------------------------------------------------------------------------
GRAPH_DIRS = ("theorems", "checks", "tests")
# A test calling one of these reaches every registered result: it is selected, and its parametrised cases are kept
# only where they name a reaching id (`_keep_case`)
REGISTRY_WIDE = re.compile(r"\b(?:registry|theorems)\.(?:ids|registered|catalog)\(|\bconformance_targets\b")


def _dotted(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class ImportGraph:
    """The static import graph of ``theorems/``, ``checks/`` and ``tests/``: module → the modules it imports (at
    module level or inside a function). ``from pkg import name`` is an edge to the submodule ``pkg.name`` when there
    is one, else to the module the package's ``__init__`` re-exports ``name`` from, else to ``pkg`` itself; a package's
    ``__init__`` is not an edge of its submodules (a paper's ``__init__`` imports all its results: through it every
    module would reach every other). Registry lookups by id are not edges: `gate_tests` follows them by the ids."""

    def __init__(self, root: Path = Path(".")):
        self.root = Path(root)
        self.paths: dict[str, Path] = {}
        for d in GRAPH_DIRS:
            for p in sorted((self.root / d).rglob("*.py")) if (self.root / d).is_dir() else []:
                if "__pycache__" not in p.parts:
                    self.paths[_dotted(p, self.root)] = p
        self.trees: dict[str, ast.Module] = {}
        for name, p in self.paths.items():
            try:
                self.trees[name] = ast.parse(p.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                self.trees[name] = ast.Module(body=[], type_ignores=[])
        self.reexports: dict[str, dict[str, str]] = {}
        for name, p in self.paths.items():
            if p.name == "__init__.py":
                self.reexports[name] = {b: t for node in self.trees[name].body if isinstance(node, ast.ImportFrom)
                                        for b, t in self._from(name, node, reexport=False)}
        self.edges = {name: {t for node in ast.walk(tree) for _, t in self.bindings(name, node)}
                      for name, tree in self.trees.items()}

    def _base(self, current: str, node: ast.ImportFrom) -> str | None:
        if node.level:
            pkg = current if self.paths[current].name == "__init__.py" else current.rpartition(".")[0]
            for _ in range(node.level - 1):
                pkg = pkg.rpartition(".")[0]
            return ".".join(x for x in (pkg, node.module) if x)
        if node.module is None:
            return None
        if node.module in self.paths or node.module.split(".")[0] in GRAPH_DIRS:
            return node.module
        # a bare import of a sibling helper (`from fakes import ...`: tests/ and checks/ are on sys.path)
        sibling = f"{current.split('.')[0]}.{node.module}"
        return sibling if sibling in self.paths else node.module

    def _from(self, current: str, node: ast.ImportFrom, reexport: bool = True):
        base = self._base(current, node)
        if base is None:
            return
        for a in node.names:
            bound = a.asname or a.name
            if f"{base}.{a.name}" in self.paths:
                yield bound, f"{base}.{a.name}"
            elif reexport and a.name in self.reexports.get(base, {}):
                yield bound, self.reexports[base][a.name]
            elif base in self.paths:
                yield bound, base

    def bindings(self, current: str, node: ast.AST):
        """(name bound, module it comes from) of an import statement (nothing for any other node)."""
        if isinstance(node, ast.ImportFrom):
            yield from self._from(current, node)
        elif isinstance(node, ast.Import):
            for a in node.names:
                name = a.name
                if name not in self.paths:
                    sibling = f"{current.split('.')[0]}.{name}"
                    name = sibling if sibling in self.paths else name
                while name and name not in self.paths:
                    name = name.rpartition(".")[0]
                if name and name != "theorems":  # `import theorems`: lazy names, the registry (followed by id)
                    yield a.asname or a.name.split(".")[0], name

    def reaching(self, module: str) -> set[str]:
        """``module`` and every module that imports it, directly or transitively."""
        users: dict[str, set[str]] = defaultdict(set)
        for src, targets in self.edges.items():
            for t in targets:
                users[t].add(src)
        # a package's __init__ that imports it is not followed (a paper's imports all its results: importing the
        # package for one name would reach every result; the names it re-exports are edges of their own)
        inits = {m for m, p in self.paths.items() if p.name == "__init__.py"} - {module}
        seen, todo = {module}, [module]
        while todo:
            for u in users[todo.pop()] - seen - inits:
                seen.add(u)
                todo.append(u)
        return seen

    def ids(self) -> dict[str, list[str]]:
        """module → the result ids it registers (paper packages only). Read once per graph (`_graph_of` builds a
        new one when a file changes): each gate asks, and re-parsing every paper module cost ~0.7 s a gate."""
        if not hasattr(self, "_ids"):
            self._ids = {name: ids for name, p in self.paths.items() if name.count(".") == 2 and name.split(".")[1]
                         in PAPER_NUMBER and (ids := registered_ids(p.read_text(encoding="utf-8")))}
        return self._ids


def registered_ids(source: str) -> list[str]:
    """The ids a module registers, read from its syntax tree: the ``id=`` of every ``Result(...)`` call, a string
    or a module-level string constant of any name (``ID``, ``ID_A9``, ``LEMMA_2``, ...), or written inline."""
    tree = ast.parse(source)
    strings = {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
               for t in node.targets if isinstance(t, ast.Name)}
    ids = []
    for node in ast.walk(tree):
        func = getattr(node, "func", None)
        if isinstance(node, ast.Call) and getattr(func, "id", getattr(func, "attr", "")) == "Result":
            for kw in node.keywords:
                if kw.arg == "id":
                    value = kw.value.value if isinstance(kw.value, ast.Constant) else strings.get(
                        getattr(kw.value, "id", ""))
                    if isinstance(value, str):
                        ids.append(value)
    return list(dict.fromkeys(ids))


def paper_test_files(package: str, root: Path = Path(".")) -> list[str]:
    """The test files of a paper, discovered: every ``checks/test_*.py`` and ``tests/test_*.py`` whose text names
    the package (its ids all carry it: ``neural_collapse.lemma_4_2``), except the tests of this tool. A new test
    file counts without editing the tool; which of its tests run is ``_tests_naming``'s choice."""
    named = re.compile(rf"\b{re.escape(package)}\b")
    return [str(p.relative_to(root)) for g in TEST_GLOBS for p in sorted(root.glob(g))
            if named.search(text := p.read_text(encoding="utf-8")) and not _TOOL_TESTS.search(text)]


def _segment_of(source: str, node: ast.AST) -> str:
    """The source of a definition with its decorators (``parametrize`` lists name ids too)."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "".join(source.splitlines(keepends=True)[first - 1: node.end_lineno])


def _tests_naming(path: Path, names: tuple[str, ...], short: tuple[str, ...] = (), bound: set[str] = frozenset(),
                 extra: re.Pattern | None = None) -> list[str]:
    """Node ids ``path::test_x`` of the test functions (and test classes) of ``path`` whose source (decorators
    included) names one of ``names`` (a result id, the module's dotted name ``package.module``), that quotes
    or whose name carries one of ``short`` (an id without its package: ``test_lemma_4_2_edge`` for ``lemma_4_2``, not
    ``test_lemma_4_2x`` nor ``test_theorem_4_3`` for ``theorem_4``), or that uses a module-level helper, constant
    or imported name (``from theorems.pkg import module as M``) that does. A bare module name is not a name: it is
    often an English word ("errata", "construction", "paper") that a report test uses for something else."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    # a name, a function-local `from theorems.pkg import module` of a `pkg.module` name, or a short id as a string
    # (`rid == P + "theorem_3"`)
    pattern = re.compile("|".join([rf"\b{re.escape(n)}\b" for n in names] + [
        rf"\bfrom\s+theorems\.{re.escape(n.split('.')[0])}\s+import\s+[^\n]*\b{re.escape(n.split('.')[1])}\b"
        for n in names if n.count(".") == 1] + [rf"[\"']{re.escape(s)}[\"']" for s in short]
        + ([extra.pattern] if extra is not None else [])) or r"(?!x)x")
    in_name = re.compile("|".join(rf"(?:^|_){re.escape(s)}(?:$|_(?!\d))" for s in short)) if short else None
    # `from theorems.pkg.module import X, Y as Z` / `import theorems.pkg.module as m`: a test using X, Z or m uses it,
    # and `from theorems.pkg import module as M`: a test using M uses it
    known = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module
             for a in node.names if a.name != "*" and (pattern.search(node.module) or pattern.search(f"{node.module}.{a.name}"))}
    known |= {a.asname for node in tree.body if isinstance(node, ast.Import) for a in node.names
              if a.asname and pattern.search(a.name)}
    known |= set(bound)  # the names it imports from a module that reaches the mutated one (ImportGraph)
    # then the module-level helpers (functions, classes) and constants (`A, B = M.ID, M.ID_2` too) that use one of
    # those, and those that use them in turn
    defs = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith(("test_", "Test")):
            defs.append(({node.name}, _segment_of(source, node)))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            pairs = [(t, node.value) for t in targets]
            pairs = [p for t, v in pairs for p in (zip(t.elts, v.elts, strict=False) if isinstance(t, ast.Tuple) and isinstance(
                v, ast.Tuple) and len(t.elts) == len(v.elts) else [(t, v)])]  # `A, B = X, Y`: A uses X only
            defs += [({n.id for n in ast.walk(t) if isinstance(n, ast.Name)}, ast.get_source_segment(source, v))
                     for t, v in pairs]
    # a module-level definition may also hold a short id as a word (`A, B = (f"pkg.{n}" for n in ("a_id", "b_id"))`)
    by_word = re.compile("|".join(rf"\b{re.escape(s)}\b" for s in short)) if short else None
    uses = pattern
    while True:
        if known:
            uses = re.compile(pattern.pattern + "|" + "|".join(rf"\b{re.escape(h)}\b" for h in sorted(known)))
        more = {n for names_, text in defs if not names_ <= known
                and (uses.search(text) or (by_word and by_word.search(text))) for n in names_}
        if more <= known:
            break
        known |= more
    return [f"{path}::{node.name}" for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith(("test_", "Test"))
            and (uses.search(_segment_of(source, node)) or (in_name and in_name.search(node.name[4:].lstrip("_"))))]


_GRAPHS: dict = {}


def _graph_of(root: Path) -> ImportGraph:
    """The import graph of ``root``, built again only when a file was added, removed or edited."""
    stamp = tuple((str(p), p.stat().st_mtime_ns) for d in GRAPH_DIRS for p in sorted((root / d).rglob("*.py")))
    key = str(root.resolve())
    if key not in _GRAPHS or _GRAPHS[key][0] != stamp:
        _GRAPHS[key] = (stamp, ImportGraph(root))
    return _GRAPHS[key][1]


def _file_names_package(text: str, package: str | None) -> bool:
    return package is not None and re.search(rf"\b{re.escape(package)}\b", text) is not None


def gate_tests(module: Path, root: Path = Path("."), graph: "ImportGraph | None" = None) -> list[list[str]]:
    """The pytest invocations (argument lists) that the CI gate runs for ``module``, found from the import graph
    (`ImportGraph`), not from file names: the modules that import ``module`` directly or transitively reach it, and
    so do the results they register. First the conformance checks of those results (``checks/test_conformance.py -k
    "<id>] or <id>-"``, the module's own ids first), then the tests (node ids ``path::test``) of every test file that
    reach it: a test that uses a name imported from a reaching module (an alias ``from theorems.pkg import module as
    M``, a helper of ``checks/`` that imports it), that names a reaching id (``registry.get("pkg.result")``, a
    parametrize list), a reaching module's dotted name, or (in the paper's own files) a reaching id without its
    package (``P + "figure_2"``), or that iterates the paper's registered results (``registry.ids()``), directly or
    through a module-level helper or constant that does. Shared machinery outside the paper packages is followed
    through the modules outside them only (through the results it would reach every test) and gets the conformance
    checks ``SHARED_GATE`` names."""
    return _gate(module, root, graph)["runs"]


def _gate(module: Path, root: Path = Path("."), graph: "ImportGraph | None" = None) -> dict:
    """`gate_tests`' runs, with what `gate_items` needs to narrow and order them."""
    module, root = Path(module), Path(root)
    graph = graph or _graph_of(root)
    name = _dotted(root / module, root)
    parts = module.with_suffix("").parts
    package = parts[1] if len(parts) == 3 and parts[0] == "theorems" and parts[1] in PAPER_NUMBER else None
    reach = graph.reaching(name)
    if package is None:  # through the paper modules shared machinery would reach everything
        reach = {m for m in reach if not (m.startswith("theorems.") and m.split(".")[1] in PAPER_NUMBER)}
    by_module = graph.ids()
    ids = list(dict.fromkeys(by_module.get(name, []) + [i for m in sorted(reach) for i in by_module.get(m, [])]))
    names = list(ids) + [m for m in sorted(reach) if m.startswith("theorems.")]
    names += [m.split(".", 1)[1] for m in sorted(reach) if m.count(".") == 2 and m.split(".")[1] in PAPER_NUMBER
              and m.split(".")[2] != "__init__"]
    short = tuple(dict.fromkeys(i.split(".", 1)[1] for i in ids if i.split(".")[0] == package))
    runs: list[list[str]] = []
    if ids:
        runs.append(["checks/test_conformance.py", "-k", " or ".join(f"{i}]" for i in ids)])
    nodes: list[str] = []
    for g in TEST_GLOBS:
        for p in sorted(root.glob(g)):
            text = p.read_text(encoding="utf-8")
            rel = str(p.relative_to(root))
            if rel == "checks/test_conformance.py" or _TOOL_TESTS.search(text):
                continue
            mod = _dotted(p, root)
            paper_file = _file_names_package(text, package)
            bound = {b for node in graph.trees.get(mod, ast.Module(body=[], type_ignores=[])).body
                     for b, t in graph.bindings(mod, node) if t in reach}
            if not (bound or paper_file or any(n in text for n in names)):
                continue
            nodes += [rel + node[len(str(p)):] for node in _tests_naming(
                p, tuple(dict.fromkeys(names)), short if paper_file else (), bound,
                REGISTRY_WIDE if paper_file else None)]
    if nodes:
        runs.append(nodes)
    runs += SHARED_GATE.get(str(module), []) if package is None else []
    direct = {_dotted(root / f, root) for f in (n.split("::")[0] for n in nodes)} & {
        m for m, targets in graph.edges.items() if name in targets}
    return dict(runs=runs, ids=ids, own=by_module.get(name, []), all_ids={i for v in by_module.values() for i in v},
                package=package, short=short, short_all={i.split(".", 1)[1] for v in by_module.values() for i in v
                                                         if i.split(".")[0] == package},
                direct={str(graph.paths[m].relative_to(root)) for m in direct})


_FULL_ID = re.compile(r"\b[a-z_]+\.[A-Za-z0-9_]+\b")


def _keep_case(node: str, gate: dict) -> bool:
    """A parametrised case is kept unless its parameters name registered results, none of which reaches the module
    (``test_x[ssl_dynamics.figure_3-params0]`` is dropped from a gate that ``figure_3`` does not reach)."""
    if "[" not in node:
        return True
    params = node[node.index("[") + 1:]
    named = [i for i in _FULL_ID.findall(params) if i in gate["all_ids"]]
    if named:
        return any(i in gate["ids"] for i in named)
    tokens = set(re.split(r"[^A-Za-z0-9_]+", params))
    if gate["package"] and tokens & gate["short_all"]:
        return bool(tokens & set(gate["short"]))
    return True


def _collect(args: list[str], root: Path) -> list[str] | None:
    """The node ids ``pytest --collect-only`` finds for ``args`` (the CI suite), or None if collection failed."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider",
                           "--suite", "ci", *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "CI": "true"})
    if proc.returncode != 0:
        return None
    return [line.strip() for line in proc.stdout.splitlines() if "::" in line and not line.startswith(" ")]


def gate_items(gate: dict, root: Path = Path("."), killers: tuple[str, ...] = ()) -> list[list[str]]:
    """The gate as one pytest run of test items, cheapest-to-kill first: the gate's tests are collected once (not per
    mutant), its parametrised cases narrowed to those whose result reaches the module (the conformance checks, the
    pin and hypothesis files' cases over every control: `_keep_case`), and ordered: the tests that killed earlier
    mutants of the module (``killers``, from the ``--log``), the test files that import it directly and its own
    conformance cases, then the rest. With ``-x`` a killed mutant stops at its first failure. If collection fails,
    the runs of `gate_tests` unchanged."""
    runs = gate["runs"]
    conformance = [r for r in runs if r and r[0] == "checks/test_conformance.py"]
    others = [a for r in runs if r not in conformance for a in r]
    found = _collect((["checks/test_conformance.py"] if conformance else []) + others, root)
    if found is None:
        return runs
    keep = []
    for node in found:
        if node.startswith("checks/test_conformance.py::"):
            # ...[<id>], ...[<id>-<case>], and a declared pin's ...[<pin>-<id>] (test_declared_pins_hold_on_their_sides)
            if any(f"[{i}]" in node or f"[{i}-" in node or f"-{i}]" in node for i in gate["ids"]):
                keep.append(node)
        elif _keep_case(node, gate):
            keep.append(node)
    # a parameter id pytest could not find again from the command line (one with "::") runs its whole function
    keep = list(dict.fromkeys(n if "::" not in n.partition("[")[2] else n.partition("[")[0] for n in keep))

    def rank(node: str) -> int:
        path = node.split("::")[0]
        if node in killers:
            return 0
        if path in gate["direct"] or any(i in node for i in gate["own"]):
            return 1
        return 2 if path.startswith("checks/") else 3  # tests/: unit tests, reports, fuzz sweeps: last
    return [sorted(keep, key=rank)] if keep else []


# -- running ----------------------------------------------------------------------------------------------
_RUNNING: list = []  # the pytest process of the mutant being run (a SIGTERM ends it too)


def _terminate(*_):
    for proc in list(_RUNNING):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    sys.exit(143)  # SystemExit: the `finally` of run_mutant restores the module


_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+::\S*?(?:\[.*?\])?)(?: - .*)?$", re.M)


def run_mutant(path: Path, source: str, mutant: Mutant, runs: list[list[str]], timeout: float,
               killers: list[str] | None = None) -> str:
    """'killed', 'survived', 'timeout' or 'error' (pytest could not run the tests it was given: not a kill); the file
    is restored before returning (or raising). The tests that failed are appended to ``killers``."""
    base = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", "--suite", "ci"]
    env = {**os.environ, "THEOREMS_MUTANT": "1", "CI": "true"}
    deadline = time.monotonic() + timeout
    try:
        path.write_text(mutant.apply(source), encoding="utf-8")
        pending = list(runs)
        while pending:
            args = pending.pop(0)
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            proc = subprocess.Popen(base + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    start_new_session=True, env=env)
            _RUNNING.append(proc)
            try:
                out, _ = proc.communicate(timeout=left)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the whole pytest process group, only ours
                proc.communicate()
                return "timeout"
            finally:
                _RUNNING.remove(proc)
            if proc.returncode == 5:  # no test collected: this run decides nothing
                continue
            if proc.returncode == 4 and "not found" in (out or "") and (whole := _whole_files(args)) != args:
                # the mutant made a collected node id vanish (e.g. a check's `applies` predicate now excludes the
                # result, or its registration fails): the default pytest runs whole files, so the gate does too
                pending.insert(0, whole)
                continue
            if proc.returncode in (3, 4):  # an internal or usage error: decides nothing
                return "error"
            if proc.returncode != 0:
                if killers is not None:
                    killers += _FAILED.findall(out or "")
                return "killed"
        return "survived"
    finally:
        path.write_text(source, encoding="utf-8")


def _whole_files(args: list[str]) -> list[str]:
    """``args`` with every node id (``path::test[case]``) replaced by its file, each file once, options kept."""
    return list(dict.fromkeys(a.split("::")[0] if "::" in a and not a.startswith("-") else a for a in args))


def summarise(records: list[dict]) -> str:
    """killed/decided per module and per kind (timeouts are not counted)."""
    rows = []
    for key in ("module", "kind"):
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for r in records:
            t = tally[r[key]]
            if r["outcome"] in ("timeout", "error"):
                t[2] += 1
            else:
                t[1] += 1
                t[0] += r["outcome"] == "killed"
        for name in sorted(tally):
            k, d, to = tally[name]
            rows.append(f"  {key:6} {name:45} {k:3}/{d:<3} killed ({100 * k / max(d, 1):3.0f}%)"
                        + (f", {to} timed out" if to else ""))
    k = sum(r["outcome"] == "killed" for r in records)
    d = sum(r["outcome"] not in ("timeout", "error") for r in records)
    rows.append(f"score: {k}/{d} killed ({100 * k / max(d, 1):.0f}%)")
    return "\n".join(rows)


def relocate(rec: dict, old_source: str, new_source: str) -> Mutant | None:
    """The mutant of a log record (planned on ``old_source``) on the edited ``new_source``: the same change of the
    same code, found by the text of its lines (the nearest identical run of lines to the old position). None when
    that code is gone. This replays a before-sample on the after-code, so a score compares like with like."""
    old = old_source.splitlines()
    new = new_source.splitlines()
    span = old[rec["line"] - 1: rec["end_line"]]
    starts = [i for i in range(len(new) - len(span) + 1) if new[i:i + len(span)] == span]
    if not starts:
        return None
    start = min(starts, key=lambda i: abs(i + 1 - rec["line"])) + 1
    fields = {k: rec[k] for k in ("col", "end_col", "new", "kind", "what")}
    return Mutant(line=start, end_line=start + rec["end_line"] - rec["line"], **fields)


def _log_records(path: Path | None) -> list[dict]:
    if path is None or not path.exists():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    tests: list[str] = []
    if "--" in argv:
        k = argv.index("--")
        argv, tests = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", type=Path, nargs="+")
    ap.add_argument("--max", type=int, default=15, help="mutants per module (a seeded sample)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lines", default="1-100000", help="only mutate lines LO-HI")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds to sample from")
    ap.add_argument("--list", action="store_true", help="list the sampled mutants and stop")
    ap.add_argument("--gate", action="store_true", help="run each module's CI tests (gate_tests) instead of TESTS")
    ap.add_argument("--whole-files", action="store_true",
                    help="with --gate: run gate_tests' invocations as they are (no collection, narrowing, ordering)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant (a timeout is not counted)")
    ap.add_argument("--log", type=Path, help="append one JSON line per mutant here")
    ap.add_argument("--replay", type=Path, help="run the mutants of this --log (of these modules) instead of a sample")
    ap.add_argument("--planned-in", type=Path, default=Path("."),
                    help="with --replay: the tree the logged mutants were planned on (their line numbers)")
    args = ap.parse_args(argv)
    lo, hi = (int(x) for x in args.lines.split("-"))
    kinds = tuple(k for k in args.kinds.split(",") if k)
    plan = []
    graph = None
    for module in args.modules:
        source = module.read_text(encoding="utf-8")
        pool = sites(source, lo, hi, validate=False)  # parsing every mutant is slow: only the sampled ones
        chosen = [m for m in sample(pool, 2 * args.max, args.seed, kinds) if parses(source, m)]
        chosen = sorted(sample(chosen, args.max, args.seed, kinds), key=lambda m: (m.line, m.col, m.new))
        if args.replay:
            old = (args.planned_in / module).read_text(encoding="utf-8")
            logged = [json.loads(x) for x in args.replay.read_text(encoding="utf-8").splitlines() if x.strip()]
            logged = [r for r in logged if r["module"] == str(module)]
            chosen = [m for r in logged if (m := relocate(r, old, source)) is not None]
            if len(chosen) < len(logged):
                print(f"{module}: {len(logged) - len(chosen)} logged mutant(s) on code that is gone", flush=True)
        if args.gate:
            graph = graph or _graph_of(Path("."))
            gate = _gate(module, Path("."), graph)
            runs = gate["runs"]
            if not args.list and not args.whole_files:
                killers = tuple(k for r in _log_records(args.log) if r.get("module") == str(module)
                                for k in r.get("killers", ()))
                runs = gate_items(gate, Path("."), killers)
        else:
            runs = [tests] if tests else []
        counts = {k: sum(m.kind == k for m in pool) for k in KINDS}
        shown = [r if len(r) <= 12 else r[:12] + [f"... {len(r) - 12} more"] for r in runs]
        print(f"{module}: {len(chosen)} of {len(pool)} mutants {counts}; tests: {shown}", flush=True)
        plan.append((module, source, chosen, runs))
    if args.list or not any(runs for *_, runs in plan):
        for module, source, chosen, _ in plan:
            lines = source.splitlines()
            for m in chosen:
                print(f"{module}:{m.line}: [{m.kind}] {m.what} -> {m.new!r}\n    {lines[m.line - 1].strip()}")
        return 0
    # A SIGTERM (a killed job) must still restore the module: turn it into SystemExit so `finally` runs.
    signal.signal(signal.SIGTERM, _terminate)
    records = []
    for module, planned, chosen, runs in plan:
        if not runs:
            print(f"{module}: no tests to run, skipped", flush=True)
            continue
        source = module.read_text(encoding="utf-8")
        if source != planned:  # edited since the plan: its mutants would land on other lines
            print(f"{module}: changed since the mutants were planned, skipped", flush=True)
            continue
        for m in chosen:
            start = time.perf_counter()
            killers: list[str] = []
            outcome = run_mutant(module, source, m, runs, args.timeout, killers)
            rec = {"module": str(module), **asdict(m), "outcome": outcome,
                   "seconds": round(time.perf_counter() - start, 1), "killers": killers}
            records.append(rec)
            line = source.splitlines()[m.line - 1].strip()
            print(f"{outcome.upper():9} {module}:{m.line}: [{m.kind}] {m.what} -> {m.new!r}   "
                  f"({rec['seconds']:.0f}s)\n    {line}", flush=True)
            if args.log:
                with args.log.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(summarise(records), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
