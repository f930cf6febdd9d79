"""pytest configuration of this repository: the suite's options (``--suite``, ``--device``,
``--theorems-conformance``), hooks (hypothesis profiles, the run recording in ``.theorems/last-run.json``, xdist
groups) and fixtures (``run``, ``evaluated``, ``suite``, ``device``) live in the package's pytest plugin,
`theorems.pytest_plugin`, so that anyone's package of theorems gets them too; see its docstring.

The plugin is installed as the ``pytest11`` entry point ``theorems.pytest_plugin``. This file loads it by that
name where the entry point is missing (an install of the package that predates it), never a second time (pytest
would refuse an option added twice). Not with ``pytest_plugins``: pytest refuses that in a conftest.py that is not
at the root of the run, and this one is not when another project's run collects `theorems.conformance` from an
editable install of this repository. ``theorems = true`` in pyproject.toml switches the plugin on for every run
of this repository.
"""

import gc
import os
import sys

import pytest

PLUGIN = "theorems.pytest_plugin"

# -- bytecode caching -----------------------------------------------------------------------------------------------
# Where PYTHONDONTWRITEBYTECODE is set (this machine, some CI images), every pytest process compiled the package's
# ~37k lines and re-did pytest's assertion rewriting of every test module from source: about half of the CPU of
# a collection (`pytest --collect-only -n 0`: 11 s without .pyc files, 6 s with them). Written here, by the run's
# own processes, they serve the next run, and within this run every subprocess a test starts (report workers,
# inner pytest runs, the README's commands): those inherit the variable, so they read the files and write none.
# Only into __pycache__ folders (ignored by git), and quietly skipped where the checkout is read-only (Python and
# pytest ignore a failed .pyc write). Not in a mutant's run (tools/mutants.py sets THEOREMS_MUTANT): a .pyc
# compiled from a mutated module is keyed by its source's mtime (whole seconds) and size, which the restored
# file can share.
if not os.environ.get("THEOREMS_MUTANT"):
    sys.dont_write_bytecode = False


def pytest_addhooks(pluginmanager):
    if not pluginmanager.has_plugin(PLUGIN) and not pluginmanager.is_blocked(PLUGIN):
        pluginmanager.import_plugin(PLUGIN)


# -- patched probes -----------------------------------------------------------------------------------------------
# A test that changes a module constant or formula with the ``monkeypatch`` fixture and then evaluates computes
# numbers that are not the instance's under the instance's key: `theorems.core.recording` marks what it records then
# as a patched probe, which the run file leaves out (otherwise the page showed whichever probe or real evaluation of
# an instance an xdist worker recorded first). Asked at each record, so a patch made after an evaluation leaves that
# evaluation an instance of the run.
def _monkeypatched(item) -> str:
    mp = getattr(item, "funcargs", {}).get("monkeypatch")
    if mp is None:
        return ""
    try:
        attrs, items = mp._setattr, mp._setitem  # pytest's MonkeyPatch keeps its undo lists under these names
    except AttributeError:
        return "monkeypatch (unknown changes)"  # another pytest: count every test that asked for it as patched
    names = [f"{getattr(obj, '__name__', type(obj).__name__)}.{name}" for obj, name, _ in attrs]
    names += [f"[{name!r}]" for _, name, _ in items]
    return "patched: " + ", ".join(dict.fromkeys(names)) if names else ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    from theorems.core import recording

    with recording.patched(lambda: _monkeypatched(item)):
        yield
    _collect_and_freeze()


# -- garbage collection ---------------------------------------------------------------------------------------------
# A test process holds torch, scipy, the paper modules, every collected item and the `run` cache: Python's full
# (generation 2) collections walked all of it, each time the heap had grown by a quarter, and 20-25% of a worker's
# CPU went there (gc callbacks, checks/test_000_deep_fusion.py + tests/test_report*.py: 3-4 s of 17 s), with two
# more full collections of ~0.25 s each at the end of every pytest process (pytest's unraisable-exception plugin).
# What is alive when collection ends and after each test is moved to the permanent generation (gc.freeze), which
# collections skip; each test's own cyclic garbage is collected first, so nothing a test leaves behind is kept
# (objects still referenced are; they are freed by reference counting as before when released). Until collection
# ends (imports: torch, the paper modules, the test modules) the collector is off: imports leave next to no cyclic
# garbage, and the heap growing from nothing to its full size cost ~1 s of full collections per process.
def _collect_and_freeze() -> None:
    gc.collect()
    gc.freeze()


gc.disable()  # this file is imported before tests/conftest.py, which imports torch


def _collection_done() -> None:
    if not gc.isenabled():
        gc.freeze()  # without a collection first: what imports left unreachable is a few MB, a full pass ~0.3-1 s
        gc.enable()


def pytest_collection_finish(session):
    _collection_done()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtestloop(session):
    _collection_done()  # an xdist controller collects nothing (no pytest_collection_finish), then receives reports
    yield
