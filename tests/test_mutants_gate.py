"""The gate of tools/mutants.py (`gate_tests`): which tests a mutant of a module is run against. A paper's test files
are discovered (a new file counts without editing the tool), every id a module registers is found whatever constant
holds it, and a test is selected when it names the module or one of its ids, in its body, its decorators or its name.
Each case here was missed by the hand-kept lists and the ``^ID = `` lookup this replaces."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_modules import load_tool

ROOT = Path(__file__).resolve().parents[1]
# The module of tests/test_mutants_tool.py, on its worker (one xdist group): the repository's import graph, which
# every real gate here reads, is built once per process and module (about 3 s), not twice.
mutants = load_tool("mutants", "mutants_tool")
pytestmark = pytest.mark.xdist_group("mutants")

MODULE = '''"""A result module whose ids are held by constants of other names than ID, and one written inline."""
LEMMA_2 = "neural_collapse.lemma_9"
THEOREM_4 = "neural_collapse.theorem_9"
RESULT_A = register(Result(id=LEMMA_2, paper=PAPER))
RESULT_B = register(Result(id=THEOREM_4, paper=PAPER))
INLINE = register(Result(
    id="neural_collapse.inline_9", paper=PAPER))
'''

TESTS = '''import pytest
from theorems.neural_collapse import fake_mod as FM
from theorems.neural_collapse.fake_mod import RESULT_A

A, OTHER = FM.LEMMA_2, "neural_collapse.somewhere_else"


def _helper():
    return check(A)


def test_lemma_9_by_its_name():
    assert 1


def test_theorem_9x_alone():
    assert 1


@pytest.mark.parametrize("rid", ["neural_collapse.inline_9"])
def test_by_a_parametrized_id(rid):
    assert rid


def test_by_the_module_alias():
    assert FM


def test_by_a_tuple_constant():
    assert A


def test_by_a_helper():
    assert _helper()


def test_by_an_imported_name():
    assert RESULT_A


def test_by_the_other_constant_only():
    assert OTHER


def test_unrelated():
    assert 1


def test_a_bare_word_is_not_the_module():
    assert "the fake_mod word and a theorem_9x"


def test_by_a_local_import():
    from theorems.neural_collapse import fake_mod
    assert fake_mod


def test_by_a_quoted_short_id(rid):
    assert rid == P + "theorem_9"
'''

SELECTED = {"test_lemma_9_by_its_name", "test_by_a_parametrized_id", "test_by_the_module_alias",
            "test_by_a_tuple_constant", "test_by_a_helper", "test_by_an_imported_name", "test_by_a_local_import",
            "test_by_a_quoted_short_id"}


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "theorems" / "neural_collapse").mkdir(parents=True)
    (tmp_path / "theorems" / "neural_collapse" / "fake_mod.py").write_text(MODULE, encoding="utf-8")
    for d in ("checks", "tests"):
        (tmp_path / d).mkdir()
    (tmp_path / "checks" / "test_brand_new_file.py").write_text(TESTS, encoding="utf-8")
    (tmp_path / "tests" / "test_other_paper.py").write_text("def test_x():\n    check('deep_fusion.fake_mod')\n",
                                                            encoding="utf-8")
    (tmp_path / "tests" / "test_tool.py").write_text("import mutants\n\n\ndef test_gate():\n"
                                                     "    mutants.gate_tests('theorems/neural_collapse/fake_mod.py')\n",
                                                     encoding="utf-8")
    (tmp_path / "checks" / "test_pins_004_someone.py").write_text("def test_pin():\n    pass\n", encoding="utf-8")
    return tmp_path


def test_ids_are_read_from_every_result_whatever_constant_holds_them():
    assert mutants.registered_ids(MODULE) == ["neural_collapse.lemma_9", "neural_collapse.theorem_9",
                                              "neural_collapse.inline_9"]
    real = {p: mutants.registered_ids((ROOT / p).read_text(encoding="utf-8")) for p in (
        "theorems/cl_generalization/barlow_twins.py", "theorems/nonlinear_cl/examples.py",
        "theorems/neural_collapse/errata.py", "theorems/neural_collapse/depth_trend.py")}
    assert real == {
        "theorems/cl_generalization/barlow_twins.py": ["cl_generalization.lemma_2", "cl_generalization.theorem_4"],
        "theorems/nonlinear_cl/examples.py": ["nonlinear_cl.categorical_model", "nonlinear_cl.summation_model",
                                              "nonlinear_cl.linear_vs_relu"],
        "theorems/neural_collapse/errata.py": ["neural_collapse.errata_a9", "neural_collapse.errata_a12"],
        "theorems/neural_collapse/depth_trend.py": ["neural_collapse.theorem_4_3_depth", "neural_collapse.theorem_4_6"],
    }


def test_a_new_test_file_counts_and_its_tests_are_selected_by_what_they_name(tmp_path):
    root = _tree(tmp_path)
    runs = mutants.gate_tests(Path("theorems/neural_collapse/fake_mod.py"), root)
    assert runs[0] == ["checks/test_conformance.py", "-k", "neural_collapse.lemma_9] or neural_collapse.theorem_9] "
                       "or neural_collapse.inline_9]"]
    chosen = {node.split("::")[1] for node in runs[1] if "::" in node}
    assert chosen == SELECTED
    # a pin file's test is chosen like any other: this one names nothing (it used to run whole)
    assert not [n for n in runs[1] if "test_pins_004_someone" in n]
    assert not [n for n in runs[1] if "test_other_paper" in n or "test_tool" in n]  # another paper, the tool's tests


def test_paper_test_files_are_discovered_not_listed(tmp_path):
    root = _tree(tmp_path)
    assert mutants.paper_test_files("neural_collapse", root) == ["checks/test_brand_new_file.py"]
    assert mutants.paper_test_files("deep_fusion", root) == ["tests/test_other_paper.py"]


def test_a_short_id_in_a_test_name_stops_at_a_digit(tmp_path):
    path = tmp_path / "test_names.py"
    path.write_text("def test_theorem_4_bound():\n    pass\n\n\ndef test_theorem_4_3_depth():\n    pass\n",
                    encoding="utf-8")
    nodes = mutants._tests_naming(path, ("cl_generalization.theorem_4",), ("theorem_4",))
    assert [n.split("::")[1] for n in nodes] == ["test_theorem_4_bound"]


def test_the_real_gate_of_paper_004_and_of_a_module_with_several_ids():
    lemma = mutants.gate_tests(Path("theorems/neural_collapse/lemma_4_2.py"), ROOT)
    # its own id first, then those of the results that import it (dimension_conditions)
    assert lemma[0][:2] == ["checks/test_conformance.py", "-k"] and lemma[0][2].startswith("neural_collapse.lemma_4_2]")
    assert any(n.startswith("checks/neural_collapse/test_lemma_4_2.py::") for n in lemma[1])
    barlow = mutants.gate_tests(Path("theorems/cl_generalization/barlow_twins.py"), ROOT)
    assert barlow[0] == ["checks/test_conformance.py", "-k", "cl_generalization.lemma_2] or cl_generalization.theorem_4]"]
    trend = mutants.gate_tests(Path("theorems/neural_collapse/depth_trend.py"), ROOT)
    assert any(n.startswith("checks/neural_collapse/test_depth_trend.py::") for n in trend[1])  # via `DT.ID_43`


SWITCHES = '''RESULT = register(Result(id="x.y", params=(
    Param("n", int, 3, "a size", low=1, high=9),
    Param("bound_scale", float, 1.0, "multiplies the bound (negative control)", "1", low=0.0, high=10.0,
          breaks="exact bound"),
    Param("inert", float, 1.0, "no switch", breaks=""),
)))
SHARED = replace(P, breaks=f"exact formula {FORMULA}")
'''


def test_a_switch_declared_with_breaks_is_a_hypothesis_mutant_run_against_its_gate():
    """A ``Param(breaks=...)`` switch records its violation itself: dropping ``breaks`` is the mutant that used to
    be ``out.append(Violation(...))`` made a ``pass``, and the converted modules' gates still run the paper's
    hypothesis-edge files that kill it."""
    found = [m for m in mutants.sites(SWITCHES) if m.what == "breaks dropped"]
    assert [(m.line, m.kind) for m in found] == [(4, "hypothesis"), (7, "hypothesis")]
    mutated = found[0].apply(SWITCHES)
    assert 'breaks="exact bound"' not in mutated and mutated.count('breaks=""') == 2
    toy = Path("theorems/neural_collapse/toy_1d.py")
    assert sum(m.what == "breaks dropped" for m in mutants.sites((ROOT / toy).read_text(encoding="utf-8"))) == 2
    gate = mutants.gate_tests(toy, ROOT)
    assert gate[0] == ["checks/test_conformance.py", "-k", "neural_collapse.toy_1d]"]
    assert any(n.startswith("checks/neural_collapse/test_toy_1d.py::test_hypothesis_edge_is_named") for n in gate[1])


HELPER = '''"""Package machinery: no result of its own."""
SCALE = 3.0
'''
RESULT = '''from .helper_mod import SCALE
from theorems.core import Claim

ID = "neural_collapse.uses_helper"
RESULT = register(Result(id=ID, paper=PAPER))
'''
HAND_TABLES = '''from theorems.neural_collapse import uses_helper as U

TABLE = {"x": U.SCALE}
'''
THROUGH = '''import pytest
import theorems
from checks.hand_tables import TABLE
from theorems.neural_collapse.uses_helper import SCALE as S
from theorems.core import registry

P = "neural_collapse."


def test_through_a_table_of_a_checks_helper():
    assert TABLE


def test_through_an_alias():
    assert S


def test_by_id_through_the_registry():
    assert registry.get("neural_collapse.uses_helper")


@pytest.mark.parametrize("rid", ["uses_helper", "other_result"])
def test_by_a_short_id(rid):
    theorems.check(P + rid)


@pytest.mark.parametrize("rid", [r for r in registry.ids() if r.startswith(P)])
def test_every_result_of_the_paper(rid):
    theorems.check(rid)


def test_unrelated():
    assert theorems
'''


def _machinery_tree(tmp_path: Path) -> Path:
    pkg = tmp_path / "theorems" / "neural_collapse"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import uses_helper, other  # noqa\n", encoding="utf-8")
    (pkg / "helper_mod.py").write_text(HELPER, encoding="utf-8")
    (pkg / "uses_helper.py").write_text(RESULT, encoding="utf-8")
    (pkg / "other.py").write_text('ID = "neural_collapse.other_result"\nR = register(Result(id=ID))\n', encoding="utf-8")
    for d in ("checks", "tests"):
        (tmp_path / d).mkdir()
    (tmp_path / "checks" / "hand_tables.py").write_text(HAND_TABLES, encoding="utf-8")
    (tmp_path / "checks" / "test_through.py").write_text(THROUGH, encoding="utf-8")
    (tmp_path / "tests" / "test_other.py").write_text("from theorems.neural_collapse import other\n\n\n"
                                                      "def test_other():\n    assert other\n", encoding="utf-8")
    return tmp_path


def test_a_module_reached_only_through_an_alias_or_a_table_is_gated_by_the_tests_that_use_them(tmp_path):
    """helper_mod has no id; uses_helper imports it (``from .helper_mod import``), checks/hand_tables.py imports
    uses_helper by an alias, and the tests reach it through that table, through an alias of a name, through the
    result's id (whole or short) and through the registry: each of them is in helper_mod's gate, the unrelated
    test and the other result's tests are not."""
    root = _machinery_tree(tmp_path)
    graph = mutants.ImportGraph(root)
    assert graph.reaching("theorems.neural_collapse.helper_mod") == {
        "theorems.neural_collapse.helper_mod", "theorems.neural_collapse.uses_helper", "checks.hand_tables",
        "checks.test_through"}  # not through the package's __init__, which imports every result
    runs = mutants.gate_tests(Path("theorems/neural_collapse/helper_mod.py"), root)
    assert runs[0] == ["checks/test_conformance.py", "-k", "neural_collapse.uses_helper]"]
    assert {n.split("::")[1] for n in runs[1]} == {
        "test_through_a_table_of_a_checks_helper", "test_through_an_alias", "test_by_id_through_the_registry",
        "test_by_a_short_id", "test_every_result_of_the_paper"}


def test_parametrised_cases_are_kept_only_where_their_result_reaches_the_module(tmp_path):
    gate = mutants._gate(Path("theorems/neural_collapse/helper_mod.py"), _machinery_tree(tmp_path))
    keep = {n: mutants._keep_case(n, gate) for n in (
        "checks/test_through.py::test_by_a_short_id[uses_helper]",
        "checks/test_through.py::test_by_a_short_id[other_result]",
        "checks/test_through.py::test_every_result_of_the_paper[neural_collapse.uses_helper]",
        "checks/test_through.py::test_every_result_of_the_paper[neural_collapse.other_result]",
        "checks/test_through.py::test_x[size0-1e-3]")}
    assert keep == {"checks/test_through.py::test_by_a_short_id[uses_helper]": True,
                    "checks/test_through.py::test_by_a_short_id[other_result]": False,
                    "checks/test_through.py::test_every_result_of_the_paper[neural_collapse.uses_helper]": True,
                    "checks/test_through.py::test_every_result_of_the_paper[neural_collapse.other_result]": False,
                    "checks/test_through.py::test_x[size0-1e-3]": True}


def test_the_real_gates_find_the_tests_the_file_names_missed():
    """The held-out misses: networks.py:150's "≥ 3 widths" is killed by figure_2's short-id bad-input case,
    fusion.py's functions are used by checks/deep_fusion/test_fusion.py through ``from theorems.deep_fusion.fusion
    import``, and instances.py's tables reach every cl_generalization result that imports them."""
    nets = mutants.gate_tests(Path("theorems/ssl_dynamics/networks.py"), ROOT)
    assert "checks/ssl_dynamics/test_figure_2.py::test_bad_input_names_the_hypothesis" in nets[1]
    fusion = mutants.gate_tests(Path("theorems/deep_fusion/fusion.py"), ROOT)
    assert "checks/deep_fusion/test_fusion.py::test_theorem_2_log_gamma_B_matches_the_direct_formula" in fusion[1]
    inst = mutants.gate_tests(Path("theorems/cl_generalization/instances.py"), ROOT)
    assert "cl_generalization.tables_1_2]" in inst[0][2]


def test_a_declared_pins_conformance_case_stays_in_the_gate_of_its_result(monkeypatch):
    """test_declared_pins_hold_on_their_sides names its cases <pin>-<result id>: the gate keeps the pins of the
    module's own results (a tolerance that only its declared Pin pins is killed there) and no other result's."""
    node = "checks/test_conformance.py::test_declared_pins_hold_on_their_sides[{}]"
    found = [node.format("time_scale=None|1.00000002-ssl_dynamics.new_data_point"),
             node.format("T=None|9.7-ssl_dynamics.theorem_3"),
             "checks/test_conformance.py::test_declares_its_logic[ssl_dynamics.new_data_point]"]
    monkeypatch.setattr(mutants, "_collect", lambda args, root: found)
    gate = dict(runs=[["checks/test_conformance.py", "-k", "ssl_dynamics.new_data_point]"]],
                ids=["ssl_dynamics.new_data_point"], own=["ssl_dynamics.new_data_point"], direct=set())
    (kept,) = mutants.gate_items(gate, ROOT)
    assert sorted(kept) == sorted([found[0], found[2]])
