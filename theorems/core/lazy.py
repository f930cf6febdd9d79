"""Names of a package that load on first use (PEP 562 module ``__getattr__``), so that ``import theorems`` and
the command line's ``list`` / ``show`` do not import torch or numpy."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


def lazy_names(namespace: dict, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the module whose globals are ``namespace``: ``where`` maps each public
    name to the module (absolute) that defines it; the first lookup imports it and caches it as a plain
    attribute."""

    def __getattr__(name: str) -> Any:
        try:
            module = where[name]
        except KeyError:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
