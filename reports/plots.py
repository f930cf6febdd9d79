"""Tightness figures for the report, rendered to inline SVG so that the page needs no other file.

One figure is a strip plot: one row per group of instances, one marker per instance at its tightness
(x in [0, 1], 1 = the bound is attained). Colour *and* marker shape give the outcome, so the figure
still reads in greyscale and for colour-blind readers.
"""

from __future__ import annotations

import io
import math
import re
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # no display, and no GUI toolkit to import

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

from theorems.core.evidence import Evidence  # noqa: E402

HOLDS, FAILS, NOT_CONVERGED = "holds", "fails", "not converged"
# outcome -> (colour, marker); the colours are ColorBrewer's RdYlGn ends and an orange.
OUTCOME_STYLE = {
    HOLDS: ("#1a9850", "o"),
    FAILS: ("#d73027", "X"),
    NOT_CONVERGED: ("#f08c00", "s"),
}
CONTROL_ROW = "negative control"
# (outcome, is a negative control) -> legend label, in legend order.
_LEGEND = {
    **{(name, False): name for name in OUTCOME_STYLE},
    **{(name, True): f"{name} ({CONTROL_ROW})" for name in OUTCOME_STYLE},
}
# Deterministic jitter, so that the same evidence gives the same page.
_JITTER_SEED = 0
_JITTER_HALF_WIDTH = 0.22
_NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


def outcome_of(evidence: Evidence) -> str:
    """'not converged' outranks 'fails': an unconverged optimiser says nothing about the bound."""
    if evidence.converged is False:
        return NOT_CONVERGED
    return HOLDS if evidence.holds else FAILS


def row_of(evidence: Evidence) -> str:
    """Negative controls get their own row: they are meant to fail, and mixing them in would hide that."""
    return CONTROL_ROW if evidence.violations else evidence.form.replace("_", " ")


def tightness_svg(rows: Sequence[tuple[str, Sequence[Evidence]]], *, salt: str) -> str:
    """A strip plot of the tightness of each row's evidence, as an ``<svg>`` element (no XML prolog).

    ``salt`` prefixes every id inside the SVG: several inline SVGs share one HTML document, where ids
    must be unique, and matplotlib writes the same ids ('figure_1', clip paths of equal axes) in each.
    """
    rng = np.random.default_rng(_JITTER_SEED)
    unplotted = clipped = 0
    # fonttype 'none' keeps labels as text (small, searchable); hashsalt fixes the otherwise random ids.
    with plt.rc_context({"svg.hashsalt": "theorems", "svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(7.0, 0.9 + 0.42 * len(rows)))
        try:
            for y, (_, evidences) in enumerate(rows):
                for (name, control), label in _LEGEND.items():
                    colour, marker = OUTCOME_STYLE[name]
                    tight = [e.tightness for e in evidences
                             if outcome_of(e) == name and bool(e.violations) == control]
                    finite = np.array([t for t in tight if t is not None and math.isfinite(t)], dtype=float)
                    unplotted += len(tight) - finite.size
                    if not finite.size:
                        continue
                    clipped += int(np.count_nonzero((finite < 0) | (finite > 1)))
                    ax.scatter(
                        np.clip(finite, 0.0, 1.0),
                        y + rng.uniform(-_JITTER_HALF_WIDTH, _JITTER_HALF_WIDTH, finite.size),
                        marker=marker, s=36, alpha=0.85, label=label, zorder=3,
                        # hollow markers for negative controls, so they stand out in any row
                        facecolors="none" if control else colour, edgecolors=colour if control else "white",
                        linewidths=1.1 if control else 0.6,
                    )
            _decorate(ax, [label for label, _ in rows], _notes(unplotted, clipped))
            buf = io.StringIO()
            # No metadata: a date would make equal reports differ, and the RDF block only adds links.
            fig.savefig(buf, format="svg", bbox_inches="tight", metadata=_NO_METADATA)
        finally:
            plt.close(fig)
    svg = buf.getvalue()
    return _namespace_ids(svg[svg.index("<svg"):], salt)


def _namespace_ids(svg: str, salt: str) -> str:
    """Prefix each id and each reference to one (``url(#id)``, ``href="#id"``) with ``salt``."""
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", salt) + "-"
    svg = re.sub(r'\bid="', f'id="{prefix}', svg)
    svg = re.sub(r"url\(#", f"url(#{prefix}", svg)
    return re.sub(r'href="#', f'href="#{prefix}', svg)


def _decorate(ax, labels: list[str], note: str) -> None:
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # first row on top
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("tightness (1 = bound attained)")
    ax.axvline(1.0, color="#888888", lw=0.8, ls=":", zorder=1)
    ax.grid(axis="x", color="#e6e6e6", zorder=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    # One legend entry per outcome, however many rows drew it, in a fixed order.
    drawn = {h.get_label(): h for h in ax.collections}
    names = [label for label in _LEGEND.values() if label in drawn]
    if names:
        ax.legend([drawn[n] for n in names], names, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if note:
        ax.annotate(note, xy=(0, 0), xycoords="axes fraction", xytext=(0, -30), textcoords="offset points",
                    fontsize=8, color="#555555", va="top")


def _notes(unplotted: int, clipped: int) -> str:
    notes = []
    if unplotted:
        notes.append(f"{unplotted} instance(s) without a tightness value not drawn")
    if clipped:
        notes.append(f"{clipped} value(s) outside [0, 1] drawn at the edge")
    return "; ".join(notes)
