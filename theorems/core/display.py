"""How an Evidence finds its pictures without the library importing the report package.

The dependency runs one way: the report builder (the top-level ``reports`` package) imports the library,
never the reverse. A renderer is found by name through the entry-point group ``theorems.renderers``
(``html``: the notebook table, ``figure``: a matplotlib Figure), declared in ``pyproject.toml`` by the
package that provides it, or registered at run time with :func:`register`. Where none is installed, the
notebook display falls back to the plain-text summary.
"""

from __future__ import annotations

from typing import Any, Callable

GROUP = "theorems.renderers"
_RENDERERS: dict[str, Callable[[Any], Any]] = {}


def register(kind: str, renderer: Callable[[Any], Any]) -> None:
    """Make ``renderer(evidence)`` the one used for ``kind`` ('html' or 'figure')."""
    _RENDERERS[kind] = renderer


def renderer(kind: str) -> Callable[[Any], Any] | None:
    """The renderer for ``kind``: a registered one, else the installed entry point, else None."""
    if kind not in _RENDERERS:
        from importlib.metadata import entry_points

        for ep in entry_points(group=GROUP, name=kind):
            _RENDERERS[kind] = ep.load()
            break
    return _RENDERERS.get(kind)
