"""House-keeping of issue 30: the hypothesis strategies and the paper modules depend on each other one way only.
A result module imports its strategy (lazily, in ``Result.strategy``); a strategy module reads what it needs of a
result from the registry (its declarations), never by importing a module that imports the strategies back."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "theorems"

# Formulas a strategy needs (binding_cosine, gapped spectra, Lemma 2's ε_h) live in theorems.data, which imports no
# strategy.
KNOWN_LOOPS: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function, resolved to an absolute name."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join([*base, *([node.module] if node.module else [])])
            out.add(name)
            out |= {f"{name}.{a.name}" for a in node.names}
    return out


def loops() -> set[tuple[str, str]]:
    found = set()
    for strategy in sorted((PACKAGE / "strategies").glob("*.py")):
        for target in imports(strategy):
            path = ROOT.joinpath(*target.split(".")).with_suffix(".py")
            if not target.startswith("theorems.") or target.startswith(("theorems.core", "theorems.strategies")) \
                    or not path.exists():
                continue
            if any(i.startswith("theorems.strategies") for i in imports(path)):
                found.add((module_name(strategy), target))
    return found


def test_strategies_import_no_module_that_imports_them_back():
    assert loops() <= KNOWN_LOOPS, f"import loops between strategies and result modules: {loops() - KNOWN_LOOPS}"


def test_the_loop_finder_finds_a_loop(tmp_path, monkeypatch):
    """The finder sees a function-level relative import (the form both loops had), in a tree made for the test."""
    assert "theorems.strategies.cl_generalization" in imports(PACKAGE / "cl_generalization" / "theorem_2.py")
    (tmp_path / "theorems" / "strategies").mkdir(parents=True)
    (tmp_path / "theorems" / "paper").mkdir()
    (tmp_path / "theorems" / "strategies" / "paper.py").write_text("def s():\n    from ..paper.result import f\n")
    (tmp_path / "theorems" / "paper" / "result.py").write_text("def f():\n    from ..strategies.paper import s\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "theorems")
    assert loops() == {("theorems.strategies.paper", "theorems.paper.result")}


PAPER_PACKAGES = ("deep_fusion", "nonlinear_cl", "ssl_dynamics", "cl_generalization", "neural_collapse")


def test_strategies_import_no_paper_package():
    """The strategies read a result through the registry (its declarations) and take shared formulas from
    ``theorems.data`` (spectra, finite populations, Haar matrices): no import of a paper package, at the top or inside
    a function, so the layering has one direction (issue 40)."""
    upward = {(module_name(s), t) for s in sorted((PACKAGE / "strategies").glob("*.py")) for t in imports(s)
              if t.split(".")[:2] in [["theorems", p] for p in PAPER_PACKAGES]}
    assert not upward, upward
