"""The depth sandwich of paper 004's depth results, drawn for the report.

``sandwich_figure(evidence)`` takes the Evidence of ``neural_collapse.theorem_4_3_depth``, ``theorem_4_6``,
``theorem_4_3_transformer`` or ``theorem_4_6_transformer`` (``details["sandwich"]``: rows of depth, lower,
trained, construction, upper, upper_source; ``details["trained"]``: every trained network's objective per depth)
and returns a matplotlib Figure with two log–log panels against depth L:

* left, the objectives: the exact lower bound L*_GUFM (a line), every trained network (small markers), the
  proof's constructed network U(L) (circles) and the certified upper envelope U*(L) (a step line: the least
  objective of any network of depth ≤ L): every optimum L*_L lies between the green line and the envelope;
* right, the excesses over L*_GUFM: the certified U*(L) − L* with its fitted power law, the construction's with the
  proof's predicted rate (drawn through its points' centre), every trained network's, and Lemma 4.1's validity ε₀;
  the depth from which the certified excess is below ε₀ (``details["certified_nc"]``: the NC bound then holds for
  every global optimum of that depth or deeper) is marked by a vertical line on both panels.

Pre-LN instances carry no construction: the figure then shows the lower bound, the trained points and the envelope.
"""

from __future__ import annotations

import math
import textwrap

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

LOWER, TRAINED, BUILT, UPPER, PREDICTED = "#1a9850", "#4575b4", "#d73027", "#000000", "#7f7f7f"


def _rows(evidence) -> list[dict]:
    rows = evidence.details.get("sandwich")
    if not rows:
        raise ValueError(f"{evidence.result_id} carries no depth sandwich (details['sandwich'])")
    return sorted(rows, key=lambda r: r["depth"])


def _points(rows: list[dict], key: str) -> tuple[np.ndarray, np.ndarray]:
    pts = [(r["depth"], r[key]) for r in rows if r.get(key) is not None and math.isfinite(r[key])]
    return (np.array([p[0] for p in pts], float), np.array([p[1] for p in pts], float)) if pts else (
        np.zeros(0), np.zeros(0))


def _all_trained(evidence) -> tuple[np.ndarray, np.ndarray]:
    """Every trained network's objective (all starts), as (depths, values)."""
    xs, ys = [], []
    for L, info in (evidence.details.get("trained") or {}).items():
        for v in info.get("objectives", []):
            if v is not None and math.isfinite(v):
                xs.append(float(L))
                ys.append(float(v))
    return np.array(xs, float), np.array(ys, float)


def sandwich_figure(evidence):
    """Two log–log panels (module docstring); the caller closes the figure."""
    rows = _rows(evidence)
    lower = float(rows[0]["lower"])
    depths = np.array([r["depth"] for r in rows], float)
    xt, yt = _all_trained(evidence)
    xb, yb = _points(rows, "construction")
    xu, yu = _points(rows, "upper")
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.2, 3.4))
    grid = np.geomspace(depths.min(), depths.max(), 64)
    left.plot(grid, np.full_like(grid, lower), "-", color=LOWER, lw=1.4, label="lower: L*_GUFM (exact)")
    if xt.size:
        left.plot(xt, yt, ".", color=TRAINED, ms=4, label="trained (every start)")
        ok = yt > lower
        right.plot(xt[ok], yt[ok] - lower, ".", color=TRAINED, ms=4, label="trained − L*")
    if xb.size:
        left.plot(xb, yb, "o", color=BUILT, ms=4, mfc="none", label="construction U(L) (proof check)")
        _construction_panel(right, evidence, xb, yb - lower)
    if xu.size:
        left.step(xu, yu, where="post", color=UPPER, lw=1.2, label="certified upper U*(L)")
        _certified_panel(right, evidence, xu, yu - lower)
    nc = evidence.details.get("certified_nc") or {}
    eps0 = nc.get("eps0")
    if eps0:
        right.axhline(eps0, color=PREDICTED, lw=0.8, ls=":", label=f"Lemma 4.1's ε₀ = {eps0:.2g}")
    if nc.get("depth") is not None:
        for ax in (left, right):
            ax.axvline(nc["depth"], color=UPPER, lw=0.8, ls="-.")
        left.plot([], [], "-.", color=UPPER, lw=0.8, label=f"certified NC from L = {nc['depth']}")
    left.set_title(f"L*_GUFM ≤ L*_L ≤ U*(L)  ({evidence.result_id.split('.')[-1]})", fontsize=8)
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
            ax.legend(fontsize=6, frameon=False)
    fig.tight_layout()
    return fig


def _certified_panel(ax, evidence, x: np.ndarray, excess: np.ndarray) -> None:
    ok = excess > 0
    ax.step(x[ok], excess[ok], where="post", color=UPPER, lw=1.2, label="U*(L) − L* (certified)")
    fit = evidence.details.get("certified_fit") or {}
    fx = np.asarray(evidence.details.get("certified_depths", []), float)
    if fx.size >= 2 and math.isfinite(fit.get("exponent", math.nan)):
        grid = np.geomspace(fx.min(), fx.max(), 32)
        ax.plot(grid, fit["prefactor"] * grid ** fit["exponent"], "--", color=UPPER, lw=0.8,
                label=f"certified fit α = {fit['exponent']:.3g}")


def _construction_panel(ax, evidence, x: np.ndarray, excess: np.ndarray) -> None:
    ok = excess > 0
    x, excess = x[ok], excess[ok]
    ax.plot(x, excess, "o", color=BUILT, ms=4, mfc="none", label="U(L) − L* (construction)")
    fit = evidence.details.get("construction_excess_fit") or {}
    ref = evidence.details.get("reference_fit") or {}
    title = []
    if x.size >= 2 and math.isfinite(fit.get("exponent", math.nan)):
        title.append(f"construction α = {fit['exponent']:.3g} ± {fit.get('stderr', math.nan):.2g}")
    rx, ry = (np.asarray(evidence.details.get(k, []), float) for k in ("reference_depths", "reference_values"))
    if x.size and rx.size == ry.size and rx.size and (ry > 0).all():
        # the proof's rate r(L) itself (log factors included), scaled through the construction's centre
        scale = float(np.exp(np.log(excess).mean() - np.log(np.interp(x, rx, ry)).mean()))
        ax.plot(rx, scale * ry, "--", color=PREDICTED, lw=1,
                label=f"proof's rate (fitted α = {ref.get('exponent', math.nan):.3g})")
        title.append(f"proof's rate: {evidence.details.get('reference', '')}")
    ax.set_title("\n".join(textwrap.shorten(t, 70) for t in title), fontsize=7)
