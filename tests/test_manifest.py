"""The command line answers from `theorems/manifest.json` without importing torch; the file must say what
the live registry says, or `list` / `show` would show stale statuses."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import theorems
from theorems.__main__ import main
from theorems.core import manifest, registry

REPO = Path(__file__).resolve().parents[1]


def live_infos() -> list:
    return [manifest.info_of(theorems.get(rid)) for rid in theorems.ids()
            if theorems.get(rid).module.startswith(registry.PAPER_PACKAGES)]  # not the tests' fakes


def test_manifest_is_what_the_registry_says():
    recorded = manifest.read()
    assert recorded is not None, f"{manifest.MANIFEST_FILE} is missing or unreadable: run `{manifest.REGENERATE}`"
    differences = manifest.differences(recorded, live_infos())
    assert not differences, (f"{manifest.MANIFEST_FILE.name} is stale; run `{manifest.REGENERATE}` and commit it:\n"
                             + "\n".join(differences))
    assert manifest.MANIFEST_FILE.read_text(encoding="utf-8") == manifest.render(live_infos()), (
        f"{manifest.MANIFEST_FILE.name} is not formatted as written; run `{manifest.REGENERATE}`")


def test_manifest_round_trips_every_parameter():
    infos = live_infos()
    again = manifest.from_json(json.loads(manifest.render(infos)))
    assert again == infos
    kinds = {p.kind for r in again for p in r.params}
    from theorems.core.params import LIST_KINDS, SCALAR_KINDS

    assert kinds <= {*SCALAR_KINDS, *LIST_KINDS}


def test_differences_name_the_result_and_the_status_change():
    infos = live_infos()
    other = next(st for st in theorems.Status if st is not infos[0].status)
    changed = [dataclasses.replace(infos[0], status=other), *infos[2:]]
    lines = manifest.differences(changed, infos)
    assert f"{infos[1].id}: registered, missing from the manifest" in lines
    assert f"{infos[0].id}: status '{other}' -> '{infos[0].status}'" in lines


def test_a_missing_manifest_falls_back_to_the_registry(monkeypatch, tmp_path):
    monkeypatch.setattr(manifest, "MANIFEST_FILE", tmp_path / "none.json")
    assert manifest.read(tmp_path / "none.json") is None
    monkeypatch.setattr(registry, "_loaded", False)  # as in a fresh process
    monkeypatch.setattr(manifest, "read", lambda path=None: None)
    assert [r.id for r in registry.catalog()] == theorems.ids()


def test_manifest_check_command(capsys):
    code = main(["manifest", "--check"])
    out, _ = capsys.readouterr()
    assert code == 0 and "is current" in out, out


COLD = """
import sys, io, contextlib
import theorems
assert "torch" not in sys.modules, "import theorems imported torch"
from theorems.__main__ import main
for argv in (["list"], ["show", "neural_collapse.lemma_4_2"], ["show", "no.such_result"],
             ["check", "neural_collapse.lemma_4_2", "K=abc"], ["check", "neural_collapse.lemma_4_2", "zz=1"],
             ["check", "neural_collapse.lemma_4_2", "loss=hinge"], ["check", "neural_collapse.lemma_4_2", "form=x"],
             ["--help"], ["report", "--help"], ["report", "--out", "x", "--only", "nope.nope"]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(argv)
        except SystemExit:
            pass
heavy = sorted(m for m in ("torch", "numpy", "scipy", "matplotlib", "theorems.neural_collapse") if m in sys.modules)
print(",".join(heavy))
"""


def test_list_show_help_and_user_errors_import_no_torch():
    done = subprocess.run([sys.executable, "-c", COLD], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"imported {done.stdout.strip()} to answer without computing anything"


def test_public_api_loads_lazily_and_works():
    import theorems.core as core

    assert theorems.check is registry.check and theorems.get is registry.get and theorems.ids is registry.ids
    assert core.Context.__name__ == "Context" and "Evidence" in dir(theorems)
    with pytest.raises(AttributeError):
        theorems.no_such_name  # noqa: B018
