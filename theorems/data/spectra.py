"""Random spectra with gaps: eigenvalues for the symmetric matrices C of paper 002's instances (worst-case
searches, report instances and the hypothesis strategies draw them here, so that a strategy needs no paper module).

The smallest eigenvalue is drawn from ``SPECTRUM_START``, each gap from [gap, ``SPECTRUM_STEP_MAX``]; eigenvalues
within 0.05 of zero are moved off it by 0.1 (a spectrum with a negative smallest eigenvalue and no zero one).
"""

from __future__ import annotations

SPECTRUM_START = (-3.0, -0.3)
SPECTRUM_STEP_MAX = 1.2


def gapped_spectrum(start: float, steps) -> tuple[float, ...]:
    """Sorted eigenvalues start, start + steps[0], …, moved off zero by 0.1 where within 0.05 of it."""
    lam = [start]
    for s in steps:
        lam.append(lam[-1] + s)
    return tuple(sorted(round(v if abs(v) > 0.05 else v + 0.1, 4) for v in lam))


def gapped_spectrum_values(rng, d: int, gap: float = 0.1) -> tuple[float, ...]:
    """A spectrum of ``gapped_spectrum`` drawn with a `random.Random`."""
    return gapped_spectrum(rng.uniform(*SPECTRUM_START), [rng.uniform(gap, SPECTRUM_STEP_MAX) for _ in range(d - 1)])
