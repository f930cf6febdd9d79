"""The import graph of ``theorems/`` has no circle (issue 40): no module imports, at the top or inside a function,
a module that imports it back, directly or through others. Imports under ``if TYPE_CHECKING:`` are annotations only
and do not count; importing a submodule (``from . import x``) is an arrow to the submodule, not to its package."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in sorted((root / "theorems").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None) == "TYPE_CHECKING"


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports, resolved to absolute names."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                out.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = package[:len(package) - child.level + 1] if child.level else []
                target = ".".join([*base, *([child.module] if child.module else [])])
                out.update(f"{target}.{a.name}" if f"{target}.{a.name}" in known else target for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in out if m in known and m != name}


def cycles(root: Path) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    known = modules(root)
    graph = {name: imports(name, path, known) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:  # recursion depth is bounded by the longest import chain (tens)
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(found)


def test_no_module_of_theorems_imports_one_that_imports_it_back():
    assert cycles(ROOT) == [], f"import circles in theorems/: {cycles(ROOT)}"


def test_the_circle_finder_finds_circles(tmp_path):
    """A function-level relative import (the form of the old evidence ↔ magnitude circle) and a circle of three are
    found; a TYPE_CHECKING import and a package importing its own submodule are not circles."""
    core = tmp_path / "theorems" / "core"
    core.mkdir(parents=True)
    (tmp_path / "theorems" / "__init__.py").write_text("from . import core\n")
    (core / "__init__.py").write_text("from . import a\n")
    (core / "a.py").write_text("from . import numbers\ndef f():\n    from .b import g\n")
    (core / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import h\n"
                               "def g():\n    from .a import f\n")
    (core / "c.py").write_text("from .b import g\n")
    (core / "numbers.py").write_text("from . import c\n")
    assert cycles(tmp_path) == [["theorems.core.a", "theorems.core.b", "theorems.core.c", "theorems.core.numbers"]]
    (core / "b.py").write_text("def g():\n    pass\n")
    assert cycles(tmp_path) == []
