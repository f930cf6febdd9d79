"""Collect ``bench_*.py`` files in this folder as test modules.

The project's pytest configuration keeps the default ``python_files`` (``test_*.py``), so without this
hook ``pytest benchmarks/`` would find nothing; naming a file explicitly works either way. The
benchmarks are not part of the default run (``testpaths`` is ``checks`` and ``tests``).
"""

from __future__ import annotations

import pytest


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".py" and file_path.name.startswith("bench_") and not parent.session.isinitpath(file_path):
        return pytest.Module.from_parent(parent, path=file_path)
    return None
