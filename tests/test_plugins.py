"""Plugins (issue 30): a theorem of one's own, scaffolded by ``python -m theorems new``, registered through
``$THEOREMS_PLUGINS`` or the entry-point group ``theorems.results``, treated like a built-in result, and refused
at load time, with a message naming the plugin and the fix, when it would clash with a built-in id, carries
another prefix, declares no negative control; a claim without a kind is refused when it is returned."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import theorems
from theorems import scaffold
from theorems.__main__ import EXIT_HOLDS, EXIT_USAGE, main
from theorems.core import registry
from theorems.core.errors import ParameterError, PluginError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def plugin_dir(monkeypatch, tmp_path):
    """A clean plugin state (the built-in papers loaded, no plugin yet) with ``tmp_path`` on sys.path; the
    registry, the plugins and the modules imported are restored afterwards."""
    registry.ids()
    saved = dict(registry._REGISTRY)
    modules = set(sys.modules)
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.setattr(registry, "_PLUGINS", {})
    monkeypatch.delenv(registry.ENV_PLUGINS, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def scaffolded(where: Path, target: str, edit=None) -> Path:
    """The package ``new`` writes for ``target``, under ``where``, its result module edited by ``edit``."""
    pkg, result = target.split(".")
    out = scaffold.write(target, where / f"{pkg}_src")
    if edit is not None:
        path = out / pkg / f"{result}.py"
        text = path.read_text(encoding="utf-8")
        new = edit(text)
        assert new != text, "the edit changed nothing"
        path.write_text(new, encoding="utf-8")
    return out


def use(monkeypatch, package_dir: Path, modules: str) -> None:
    monkeypatch.syspath_prepend(str(package_dir))
    monkeypatch.setenv(registry.ENV_PLUGINS, modules)


# -- loading and treating a plugin like a built-in ----------------------------------------------------------
def test_a_scaffolded_plugin_is_treated_like_a_built_in_result(plugin_dir, monkeypatch, capsys):
    use(monkeypatch, scaffolded(plugin_dir, "mythms.norms"), "mythms")
    ids = theorems.ids()
    builtin = [i for i in ids if registry.is_builtin(theorems.get(i))]
    assert ids.index("mythms.norms") > ids.index(builtin[-1]) and "neural_collapse.lemma_4_2" in builtin
    assert "mythms" in registry.plugins()  # beside any plugin installed in this environment
    ev = theorems.check("mythms.norms")
    assert ev.holds and ev.tightness == pytest.approx(1.0), ev.explain()
    assert not theorems.check("mythms.norms", bound_scale=1 - 1e-9, allow_violation=True).holds
    assert main(["show", "mythms.norms"]) == EXIT_HOLDS
    shown = capsys.readouterr().out
    assert "Effort" in shown and "draws" in shown.split("Effort")[1].split("Control")[0]
    assert "bound_scale" in shown.split("Control switches")[1]
    assert main(["list"]) == EXIT_HOLDS and "mythms.norms" in capsys.readouterr().out


def test_the_catalog_adds_plugins_to_the_manifest_without_loading_the_papers(plugin_dir, monkeypatch):
    use(monkeypatch, scaffolded(plugin_dir, "mythms.norms"), "mythms")
    monkeypatch.setattr(registry, "_loaded", False)  # as in a fresh `python -m theorems list`
    infos = registry.catalog()
    assert [i.id for i in infos] == theorems.ids() and "mythms.norms" in [i.id for i in infos]
    assert registry.info("mythms.norms").status == "verified"


def test_an_installed_entry_point_is_found(plugin_dir, monkeypatch):
    """The entry-point route, with the metadata pip writes for ``pip install`` (a .dist-info beside the code)."""
    package = scaffolded(plugin_dir, "epthms.norms")
    info = package / "epthms-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: epthms\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[theorems.results]\nepthms = epthms\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(package))
    found = [p for p in registry.discover_plugins() if p.prefix == "epthms"]
    assert found and found[0].module == "epthms" and "entry point" in found[0].source
    assert "epthms.norms" in theorems.ids()


# -- refused at load time, with a message that says what to change -------------------------------------------
def test_a_plugin_that_would_shadow_a_built_in_id_is_refused(plugin_dir, monkeypatch):
    edit = lambda text: text.replace('RESULT_ID = "clash.norms"', 'RESULT_ID = "neural_collapse.lemma_4_2"')
    use(monkeypatch, scaffolded(plugin_dir, "clash.norms", edit), "clash")
    builtin = registry._REGISTRY["neural_collapse.lemma_4_2"]
    with pytest.raises(PluginError, match=r"plugin 'clash'.*neural_collapse\.lemma_4_2.*never shadow a built-in"):
        theorems.ids()
    assert theorems.get("neural_collapse.lemma_4_2") is builtin
    with pytest.raises(PluginError):  # the same error again, not a half-loaded registry
        theorems.ids()


def test_a_plugin_named_after_a_built_in_package_is_refused(plugin_dir, monkeypatch):
    monkeypatch.setenv(registry.ENV_PLUGINS, "neural_collapse")
    with pytest.raises(PluginError, match="prefix of a built-in paper package"):
        theorems.ids()


def test_a_plugin_id_must_carry_the_plugin_prefix(plugin_dir, monkeypatch):
    edit = lambda text: text.replace('RESULT_ID = "prefixed.norms"', 'RESULT_ID = "someone_else.norms"')
    use(monkeypatch, scaffolded(plugin_dir, "prefixed.norms", edit), "prefixed")
    with pytest.raises(PluginError, match=r"'someone_else\.norms'.*must be 'prefixed\.norms'"):
        theorems.ids()


def test_two_plugins_registering_one_id_are_refused(plugin_dir, monkeypatch):
    first = scaffolded(plugin_dir, "twice.norms")
    use(monkeypatch, first, "twice")
    theorems.ids()
    # Another module (not the plugin's) registering the same id: the registry names both modules.
    from dataclasses import replace

    with pytest.raises(PluginError, match=r"'twice\.norms' registered twice: by twice\.norms and by other\.module"):
        registry.register(replace(theorems.get("twice.norms"), module="other.module"))


def test_a_result_without_a_negative_control_is_refused(plugin_dir, monkeypatch):
    edit = lambda text: text.replace("    controls=(BOUND_PINNED, dict(bound_scale=0.5, allow_violation=True)),\n", "")
    use(monkeypatch, scaffolded(plugin_dir, "nocontrol.norms", edit), "nocontrol")
    with pytest.raises(PluginError, match=r"'nocontrol\.norms'.*declares no negative control"):
        theorems.ids()


def test_a_result_without_quantifiers_is_refused(plugin_dir, monkeypatch):
    edit = lambda text: text.replace('    logic=Logic(for_all="n ≥ 1 and x ∈ ℝⁿ"),\n', "")
    use(monkeypatch, scaffolded(plugin_dir, "nologic.norms", edit), "nologic")
    with pytest.raises(PluginError, match="declares no quantifiers"):
        theorems.ids()


def test_a_plugin_that_cannot_be_imported_says_which(plugin_dir, monkeypatch):
    monkeypatch.setenv(registry.ENV_PLUGINS, "no_such_plugin_module")
    with pytest.raises(PluginError, match=r"'no_such_plugin_module'.*cannot be loaded.*ModuleNotFoundError"):
        theorems.ids()
    assert main(["list"]) == EXIT_USAGE  # one 'error:' line, not a traceback


def test_a_claim_without_a_kind_is_refused(plugin_dir, monkeypatch):
    edit = lambda text: text.replace('claims = [Claim.at_most("l2_at_most_l1", worst, p["bound_scale"] * 1.0,',
                                     'claims = [("l2_at_most_l1", worst, p["bound_scale"] * 1.0)] or [Claim.at_most(')
    use(monkeypatch, scaffolded(plugin_dir, "kindless.norms", edit), "kindless")
    with pytest.raises(PluginError, match=r"kindless\.norms.*not a theorems\.core\.evidence\.Claim with a kind"):
        theorems.check("kindless.norms")


# -- the scaffold ---------------------------------------------------------------------------------------------
def test_the_scaffold_writes_every_part_with_todos(tmp_path):
    out = scaffold.write("mine.theorem_1", tmp_path / "pkg")
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == ["README.md", "checks/mine/test_theorem_1.py", "mine/__init__.py", "mine/paper.py",
                       "mine/theorem_1.py", "pyproject.toml"]
    pyproject = (out / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points."theorems.results"]\nmine = "mine"' in pyproject
    module = (out / "mine" / "theorem_1.py").read_text(encoding="utf-8")
    for part in ("statement=", "logic=Logic(", "Param(", 'role="effort"', 'role="control"', "def evaluate",
                 "controls=", "binding=", "TODO"):
        assert part in module, part


@pytest.mark.parametrize("target, message", [
    ("nodot", "expected PKG.RESULT"), ("Mine.theorem", "lower-case"), ("mine.class", "not one"),
    ("neural_collapse.mine", "package of the suite itself"), ("theorems.mine", "package of the suite itself"),
])
def test_the_scaffold_refuses_a_bad_name(tmp_path, target, message, capsys):
    with pytest.raises(ParameterError, match=message):
        scaffold.write(target, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert main(["new", target, "--out", str(tmp_path / "out")]) == EXIT_USAGE


def test_the_scaffold_never_writes_into_a_folder_in_use(tmp_path, capsys):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine", encoding="utf-8")
    assert main(["new", "mine.theorem_1", "--out", str(tmp_path / "used")]) == EXIT_USAGE
    assert "not empty" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["keep.txt"]
    assert main(["new", "mine.theorem_1", "--out", str(tmp_path / "fresh")]) == EXIT_HOLDS
    assert (tmp_path / "fresh" / "mine" / "theorem_1.py").is_file()


# -- typed errors for what the fuzz campaign found (audit, item 8) --------------------------------------------
@pytest.mark.parametrize("bad", [3, None, 2.5, ["neural_collapse.lemma_4_2"], ("a", "b")])
def test_an_id_that_is_not_a_string_is_a_parameter_error(bad):
    for call in (theorems.check, theorems.get, registry.info):
        with pytest.raises(ParameterError, match=r"result id .* is not valid: expected a string") as err:
            call(bad)
        assert err.value.name == "id"


def test_an_integer_beyond_float_range_is_a_parameter_error_naming_the_parameter():
    with pytest.raises(ParameterError, match=r"lam=1000.* expected a real number of float range") as err:
        theorems.check("neural_collapse.lemma_4_2", lam=10**400)
    assert err.value.name == "lam"
    with pytest.raises(ParameterError) as err:  # inside a list of reals too
        theorems.check("deep_fusion.theorem_2", nus=(0.1, 10**400))
    assert err.value.name == "nus"


def test_roles_are_declared_or_inferred():
    from theorems.core.params import Param

    with pytest.raises(ValueError, match="role 'knob'"):
        Param("x", int, 1, "x", role="knob")
    assert Param("restarts", int, 8, "starts", low=1, high=9).purpose == "effort"
    assert Param("bound_scale", float, 1.0, "scale").purpose == "control"
    assert Param("steps", int, 8, "steps", low=1, high=9, sample=(1, 9)).purpose == "theorem"  # drawn: the instance
    assert Param("n", int, 8, "size", low=1, high=9, role="effort").purpose == "effort"


def test_register_refuses_what_is_not_a_result_or_has_no_prefix(plugin_dir, monkeypatch):
    use(monkeypatch, scaffolded(plugin_dir, "shape.norms"), "shape")
    result = theorems.get("shape.norms")
    from dataclasses import replace

    with pytest.raises(PluginError, match="takes a theorems.core.result.Result"):
        registry.register({"id": "shape.dict"})
    for bad in ("nodot", "shape.", ".norms"):
        with pytest.raises(PluginError, match="an id is 'PREFIX.NAME'"):
            registry.register(replace(result, id=bad))
    assert registry.register(replace(result, id="shape.sub.norms")).id == "shape.sub.norms"  # deeper names are fine


def test_list_and_show_of_a_scaffolded_plugin_import_no_torch(tmp_path):
    """The scaffold (and the example) import torch and numpy where they compute, as the built-in papers' metadata
    does not need them: `list` and `show` stay instant with plugins installed."""
    import os
    import subprocess

    out = scaffold.write("light.norms", tmp_path / "light")
    probe = ("import sys, theorems.__main__ as m; m.main(['list']); m.main(['show', 'light.norms']); "
             "print(','.join(x for x in ('torch', 'numpy') if x in sys.modules), file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(out), str(ROOT), str(ROOT / "examples" / "weyl")]),
           "THEOREMS_PLUGINS": "light,weyl"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "light.norms" in done.stdout and "weyl.eigenvalue_inequality" in done.stdout, \
        done.stderr
    assert done.stderr.strip() == "", f"imported {done.stderr.strip()} to list and show"


def test_a_misspelt_control_is_refused(plugin_dir, monkeypatch):
    edit = lambda text: text.replace("dict(bound_scale=0.5, allow_violation=True)",
                                     "dict(bound_scael=0.5, allow_violation=True)")
    use(monkeypatch, scaffolded(plugin_dir, "typo.norms", edit), "typo")
    with pytest.raises(PluginError, match=r"'typo\.norms'.*control .* undeclared parameters \['bound_scael'\]"):
        theorems.ids()
