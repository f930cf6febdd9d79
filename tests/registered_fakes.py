"""The fakes of `fakes.py`, registered when this module is imported, the way a paper module registers its
results. A fresh process (a worker of the report's process pool, a Ray task) knows a result only if
importing its module (``Result.module``) registers it; the fakes of `fakes.py` are built by a function,
so these copies name this module instead."""

from __future__ import annotations

import dataclasses

from fakes import all_fakes
from theorems.core import registry

RESULTS = [dataclasses.replace(result, module=__name__) for result in all_fakes()]


def register_all() -> list[str]:
    return [registry.register(result).id for result in RESULTS]


register_all()
