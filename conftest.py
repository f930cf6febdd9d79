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

PLUGIN = "theorems.pytest_plugin"


def pytest_addhooks(pluginmanager):
    if not pluginmanager.has_plugin(PLUGIN) and not pluginmanager.is_blocked(PLUGIN):
        pluginmanager.import_plugin(PLUGIN)
