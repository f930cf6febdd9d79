"""The mutant generator of tools/mutants.py: its list comes from the syntax tree (every verdict constant and
comparison, each with its operators), its sample is deterministic and puts tolerance and comparison mutants
first, and a mutated file is restored whatever happens to the test run."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from tool_modules import load_tool

ROOT = Path(__file__).resolve().parents[1]
mutants = load_tool("mutants", "mutants_tool")
pytestmark = pytest.mark.xdist_group("mutants")  # with tests/test_mutants_gate.py: one import graph for both

SOURCE = '''"""Docstring: 1.5 < 2 is not code."""
TOL = 1e-9  # ρ: a tolerance after a non-ASCII comment
CONTROLS = (dict(scale=1.5, n=3, allow_violation=True),)


def hypotheses(p):
    out = []
    if p["ρ"] >= 0.5 and not p["x"]:
        out.append(Violation("h", "why", ("ρ",)))
    if p["n"] < 2:
        raise HypothesisViolation(f"n = {max(p['n'], 1)}")
    return out


def evaluate(p, x):
    y = x[3] + max(p["a"], 0.0) + p["b"] ** 2
    return Claim.at_most("b", y, 2.5 * p["c"], "d", atol=TOL), dict(details={"worst": 7.5}) if p is not None else 0


def cost(p):
    return 3.0 * p["n"]


RESULT = register(Result(params=(Param("n", int, 4, low=1, high=9),), binding=(Binding(params=dict(k=7)),)))
'''


def _whats(pool, line):
    return sorted((m.kind, m.what) for m in pool if m.line == line)


def test_every_verdict_constant_and_comparison_is_listed_with_its_operators():
    pool = mutants.sites(SOURCE)
    assert _whats(pool, 2) == sorted(("tolerance", f"1e-9 {op}") for op in ("×10", "×1000", "÷10", "÷1000"))
    assert {m.new for m in pool if m.line == 2} == {"1e-08", "1e-06", "1e-10", "1e-12"}
    assert _whats(pool, 3) == sorted([("control", f"1.5 {op}") for op in ("×10", "×1000", "÷10", "÷1000")]
                                     + [("control", "3 +1"), ("control", "3 -1")])
    line8 = _whats(pool, 8)
    for expected in [("comparison", ">= -> <="), ("comparison", ">= -> >"), ("comparison", "and -> or"),
                     ("comparison", "not dropped"), ("tolerance", "0.5 ×1000")]:
        assert expected in line8
    assert _whats(pool, 9) == [("hypothesis", "Violation dropped")]
    assert ("comparison", "< -> >") in _whats(pool, 10) and ("tolerance", "2 +1") in _whats(pool, 10)
    assert _whats(pool, 11) == [("hypothesis", "raise HypothesisViolation dropped")]
    assert ("comparison", "max -> min") in _whats(pool, 16)
    line17 = _whats(pool, 17)
    assert ("comparison", "at_most -> at_least") in line17 and ("tolerance", "2.5 ÷10") in line17
    assert ("comparison", "is not -> is") in line17
    assert not [m for m in pool if m.what.startswith("7.5")]  # details: what a report shows


def test_what_decides_no_verdict_is_not_mutated():
    pool = mutants.sites(SOURCE)
    lines = {m.line for m in pool}
    assert 1 not in lines  # the docstring
    assert [m.what for m in pool if m.line == 11] == ["raise HypothesisViolation dropped"]  # not the f-string's max
    assert 21 not in lines  # cost()
    assert not [m for m in pool if m.line == 16 and m.what.split()[0] in ("3", "0.0", "2")]  # index, zero, exponent
    assert [m.what for m in pool if m.line == 24] == ["7 +1", "7 -1"]  # the Binding, not the Param declaration


def test_each_mutant_changes_one_site_and_parses():
    pool = mutants.sites(SOURCE)
    assert len(pool) == len({(m.line, m.col, m.new) for m in pool})
    for m in pool:
        mutated = m.apply(SOURCE)
        assert mutated != SOURCE
        ast.parse(mutated)
        old, new = SOURCE.splitlines(), mutated.splitlines()
        changed = [i + 1 for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        assert changed == [m.line], (m, changed)
    flipped = next(m for m in pool if m.what == "at_most -> at_least").apply(SOURCE)
    assert 'Claim.at_least("b", y, 2.5 * p["c"], "d", atol=TOL), dict(' in flipped
    assert "if p is None else 0" in next(m for m in pool if m.what == "is not -> is").apply(SOURCE)
    dropped = next(m for m in pool if m.kind == "hypothesis" and m.line == 11).apply(SOURCE)
    assert "        pass\n" in dropped and "raise" not in dropped


def test_the_sample_is_deterministic_and_covers_tolerance_and_comparison_first():
    pool = mutants.sites(SOURCE)
    a, b = mutants.sample(pool, 6, seed=3), mutants.sample(pool, 6, seed=3)
    assert a == b and len(a) == 6
    kinds = [m.kind for m in a]
    assert kinds.count("tolerance") >= 2 and kinds.count("comparison") >= 2
    # one operator per site before a second one at the same site
    n_sites = len({(m.line, m.col, m.kind) for m in pool if m.kind == "tolerance"})
    toler = [m for m in mutants.sample(pool, len(pool), seed=3, kinds=("tolerance",))]
    assert len(toler) == sum(m.kind == "tolerance" for m in pool)
    first = mutants.sample(pool, n_sites, seed=3, kinds=("tolerance",))
    assert len({(m.line, m.col) for m in first}) == n_sites


def test_a_real_module_yields_every_kind(tmp_path):
    source = (ROOT / "theorems" / "deep_fusion" / "noise_lemma.py").read_text(encoding="utf-8")
    pool = mutants.sites(source)
    assert {m.kind for m in pool} == set(mutants.KINDS)
    assert any(m.what.startswith("1e-12 ") for m in pool)  # BOUND_ATOL
    assert any(m.kind == "control" and m.what.startswith("1.05 ") for m in pool)  # a registered control


@pytest.mark.parametrize("failure", [KeyboardInterrupt, subprocess.TimeoutExpired])
def test_the_file_is_restored_whatever_happens(tmp_path, monkeypatch, failure):
    path = tmp_path / "mod.py"
    path.write_text(SOURCE, encoding="utf-8")
    mutant = mutants.sites(SOURCE)[0]

    class Broken:
        pid = 0

        def __init__(self, *args, **kwargs):
            assert path.read_text(encoding="utf-8") == mutant.apply(SOURCE)  # the mutant is in place meanwhile

        def communicate(self, timeout=None):
            if failure is KeyboardInterrupt or timeout is not None:
                raise failure(*(() if failure is KeyboardInterrupt else ("pytest", 1)))
            return "", ""

    monkeypatch.setattr(mutants.subprocess, "Popen", Broken)
    monkeypatch.setattr(mutants.os, "killpg", lambda *a: None)
    if failure is KeyboardInterrupt:
        with pytest.raises(KeyboardInterrupt):
            mutants.run_mutant(path, SOURCE, mutant, [["x"]], timeout=5)
    else:
        assert mutants.run_mutant(path, SOURCE, mutant, [["x"]], timeout=5) == "timeout"
    assert path.read_text(encoding="utf-8") == SOURCE


def test_a_module_is_run_against_the_tests_its_gate_runs():
    runs = mutants.gate_tests(Path("theorems/deep_fusion/noise_lemma.py"), ROOT)
    assert runs[0] == ["checks/test_conformance.py", "-k", "deep_fusion.noise_lemma]"]
    assert any("test_noise_lemma" in node for node in runs[1])
    shared = mutants.gate_tests(Path("theorems/core/verdict.py"), ROOT)
    assert any(n.startswith("tests/test_verdict.py::") for run in shared for n in run)  # with the others importing it


def test_the_summary_counts_per_module_and_kind():
    records = [dict(module="m", kind="tolerance", outcome="killed"), dict(module="m", kind="tolerance",
                                                                          outcome="survived"),
               dict(module="m", kind="comparison", outcome="timeout")]
    text = mutants.summarise(records)
    assert "score: 1/2 killed (50%)" in text and "1 timed out" in text


def test_a_node_id_the_mutant_makes_vanish_falls_back_to_its_whole_file():
    """A node id collected on the unmutated code can vanish under the mutant (a conformance check whose `applies`
    predicate reads the mutated result): pytest then stops with a usage error, and the gate runs the files whole,
    as the default pytest does, instead of counting an 'error'."""
    args = ["checks/test_conformance.py::test_a[x]", "checks/test_conformance.py::test_b[x]", "-k", "x or y",
            "tests/test_z.py::test_c"]
    assert mutants._whole_files(args) == ["checks/test_conformance.py", "-k", "x or y", "tests/test_z.py"]
    assert mutants._whole_files(mutants._whole_files(args)) == mutants._whole_files(args)  # no second fallback
