"""Fitting scaling exponents for ``trend`` results: y ≈ C·x^α on a sweep (width, depth, n, ...).

A trend result asserts that the fitted exponent α lies in a predicted range; the fit reports its own
uncertainty so that the range check can be judged against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PowerLawFit:
    exponent: float  # α in y ≈ C·x^α
    prefactor: float  # C
    stderr: float  # standard error of α from the least-squares fit (nan with fewer than 3 points)
    r2: float  # coefficient of determination of the log-log fit
    n_points: int

    def to_dict(self) -> dict:
        return {"exponent": self.exponent, "prefactor": self.prefactor, "stderr": self.stderr,
                "r2": self.r2, "n_points": self.n_points}


def fit_power_law(x, y) -> PowerLawFit:
    """Least-squares line through (log x, log y). Needs ≥ 2 points with x > 0, y > 0 (else ValueError)."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y differ in length ({x.size} vs {y.size})")
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 2:
        raise ValueError("a power-law fit needs at least two points with positive, finite x and y")
    lx, ly = np.log(x[ok]), np.log(y[ok])
    A = np.stack([lx, np.ones_like(lx)], axis=1)
    (slope, icpt), *_ = np.linalg.lstsq(A, ly, rcond=None)
    resid = ly - A @ np.array([slope, icpt])
    n = lx.size
    ss_tot = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - float((resid**2).sum()) / ss_tot if ss_tot > 0 else 1.0
    sxx = float(((lx - lx.mean()) ** 2).sum())
    stderr = float(np.sqrt((resid**2).sum() / (n - 2) / sxx)) if n > 2 and sxx > 0 else float("nan")
    return PowerLawFit(float(slope), float(np.exp(icpt)), stderr, r2, int(n))


# A trend result's sweep, in the one shape the report and ``Evidence.plot`` draw. Each series lives in
# ``Outcome.details["scaling"]`` (a list): the raw points, the fit (if any) and the predicted exponent
# range, so that a reader sees the fitted slope against the predicted one, not only the number.
SCALING_KEY = "scaling"


def scaling_series(x_name: str, x, y_name: str, y, *, fit: PowerLawFit | dict | None = None,
                   predicted: tuple[float | None, float | None] | None = None, predicted_note: str = "",
                   log: bool = True) -> dict:
    """One series of a sweep for ``details["scaling"]``.

    ``predicted`` is the (low, high) range of the exponent the theory predicts; None on a side means
    unbounded there (e.g. ``(None, 0.0)``: "falls"). ``log=False`` draws linear axes (a sweep whose
    prediction is a direction, not a power law); such a series normally has no fit.
    """
    xs = [float(v) for v in np.asarray(x, dtype=float).ravel()]
    ys = [float(v) for v in np.asarray(y, dtype=float).ravel()]
    if len(xs) != len(ys):
        raise ValueError(f"x and y differ in length ({len(xs)} vs {len(ys)})")
    if isinstance(fit, PowerLawFit):
        fit = fit.to_dict()
    lo, hi = predicted if predicted is not None else (None, None)
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"predicted range ({lo}, {hi}) is empty")
    return {"x_name": x_name, "y_name": y_name, "x": xs, "y": ys, "fit": dict(fit) if fit else None,
            "predicted": None if predicted is None else [lo, hi], "predicted_note": predicted_note, "log": log}


def predicted_text(series: dict) -> str:
    """The predicted range in words: 'α ≤ 0', 'α ∈ [-1.15, -0.85]', or the series' own note."""
    rng = series.get("predicted")
    note = series.get("predicted_note") or ""
    if not rng:
        return note
    lo, hi = rng
    if lo is None and hi is None:
        text = ""
    elif lo is None:
        text = f"α ≤ {hi:g}"
    elif hi is None:
        text = f"α ≥ {lo:g}"
    else:
        text = f"α ∈ [{lo:g}, {hi:g}]"
    return f"{text} ({note})" if text and note else text or note
