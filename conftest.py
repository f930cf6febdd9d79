"""pytest configuration of this repository: the suite's options (``--suite``, ``--device``,
``--theorems-conformance``), hooks (hypothesis profiles, the run recording in ``.theorems/last-run.json``, xdist
groups) and fixtures (``run``, ``evaluated``, ``suite``, ``device``) live in the package's pytest plugin,
`theorems.pytest_plugin`, so that anyone's package of theorems gets them too; see its docstring.

The plugin is installed as the ``pytest11`` entry point ``theorems.pytest_plugin``. It is named here as well, for
an environment whose install of the package predates the entry point: pytest registers a plugin once per name,
so the two never load it twice (and never add an option twice). ``theorems = true`` in pyproject.toml switches it
on for every run of this repository.
"""

pytest_plugins = ["theorems.pytest_plugin"]
