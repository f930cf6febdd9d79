"""The depth sandwich of paper 004's depth results, drawn for the report.

``sandwich_figure(evidence)`` takes the Evidence of ``neural_collapse.theorem_4_3_depth``, ``theorem_4_6``,
``theorem_4_3_transformer`` or ``theorem_4_6_transformer`` (``details["sandwich"]``: rows of depth, lower,
trained, construction) and returns a matplotlib Figure with two log–log panels against depth L:

* left, the objectives: the exact lower bound L*_GUFM (a line), the trained networks (markers) and the proof's
  constructed network U(L) (markers and line): every optimum L*_L lies between the line and the upper points;
* right, the excesses over L*_GUFM: the construction's U(L) − L* with its fitted power law and the proof's
  predicted rate (the reference's fitted exponent, drawn through the points' centre), and the trained networks'.

Pre-LN instances carry no construction: the figure then shows the lower bound and the trained points only.
"""

from __future__ import annotations

import math
import textwrap

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

LOWER, TRAINED, BUILT, PREDICTED = "#1a9850", "#4575b4", "#d73027", "#7f7f7f"


def _rows(evidence) -> list[dict]:
    rows = evidence.details.get("sandwich")
    if not rows:
        raise ValueError(f"{evidence.result_id} carries no depth sandwich (details['sandwich'])")
    return sorted(rows, key=lambda r: r["depth"])


def _points(rows: list[dict], key: str) -> tuple[np.ndarray, np.ndarray]:
    pts = [(r["depth"], r[key]) for r in rows if r.get(key) is not None and math.isfinite(r[key])]
    return (np.array([p[0] for p in pts], float), np.array([p[1] for p in pts], float)) if pts else (
        np.zeros(0), np.zeros(0))


def sandwich_figure(evidence):
    """Two log–log panels (module docstring); the caller closes the figure."""
    rows = _rows(evidence)
    lower = float(rows[0]["lower"])
    depths = np.array([r["depth"] for r in rows], float)
    xt, yt = _points(rows, "trained")
    xb, yb = _points(rows, "construction")
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.2, 3.2))
    grid = np.geomspace(depths.min(), depths.max(), 64)
    left.plot(grid, np.full_like(grid, lower), "-", color=LOWER, lw=1.4, label="lower: L*_GUFM (exact)")
    if xt.size:
        left.plot(xt, yt, "s", color=TRAINED, ms=5, label="trained (reported)")
        right.plot(xt, yt - lower, "s", color=TRAINED, ms=5, label="trained − L*")
    if xb.size:
        left.plot(xb, yb, "o-", color=BUILT, ms=4, lw=1, label="construction U(L)")
        _excess_panel(right, evidence, xb, yb - lower, lower)
    left.set_title(f"L*_GUFM ≤ L*_L ≤ U(L)  ({evidence.result_id.split('.')[-1]})", fontsize=8)
    left.set_ylabel("objective")
    right.set_ylabel("excess over L*_GUFM")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("depth L")
        ax.grid(color="#e6e6e6", which="both", lw=0.5)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


def _excess_panel(ax, evidence, x: np.ndarray, excess: np.ndarray, lower: float) -> None:
    ok = excess > 0
    x, excess = x[ok], excess[ok]
    ax.plot(x, excess, "o", color=BUILT, ms=4, label="U(L) − L*")
    fit = evidence.details.get("excess_fit") or {}
    ref = evidence.details.get("reference_fit") or {}
    grid = np.geomspace(x.min(), x.max(), 64) if x.size else x
    title = []
    if x.size >= 2 and math.isfinite(fit.get("exponent", math.nan)):
        ax.plot(grid, fit["prefactor"] * grid ** fit["exponent"], "-", color=BUILT, lw=1,
                label=f"fit α = {fit['exponent']:.3g}")
        title.append(f"fitted α = {fit['exponent']:.3g} ± {fit.get('stderr', math.nan):.2g}")
    rx, ry = (np.asarray(evidence.details.get(k, []), float) for k in ("reference_depths", "reference_values"))
    if x.size and rx.size == ry.size and rx.size and (ry > 0).all():
        # the proof's rate r(L) itself (log factors included), scaled through the construction's centre
        scale = float(np.exp(np.log(excess).mean() - np.log(np.interp(x, rx, ry)).mean()))
        ax.plot(rx, scale * ry, "--", color=PREDICTED, lw=1,
                label=f"predicted rate (fitted α = {ref.get('exponent', math.nan):.3g})")
        title.append(f"predicted: {evidence.details.get('reference', '')}")
    ax.set_title("\n".join(textwrap.shorten(t, 70) for t in title), fontsize=7)
