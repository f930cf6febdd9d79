"""How the suite prints a number: one formatting for the CLI, ``repr(evidence)``, the errata and pytest's messages.

Shared by `theorems.core.evidence` and `theorems.core.magnitude`, which both print claims; it imports neither (nor
numpy or torch), so the two import it and not each other.
"""

from __future__ import annotations

import math
from typing import Any


def fmt(x: Any) -> str:
    """A float with 6 significant digits (scientific notation outside [1e-3, 1e5)); anything else as ``str``."""
    if isinstance(x, float):
        if x == 0 or not math.isfinite(x):
            return str(x)
        return f"{x:.6g}" if 1e-3 <= abs(x) < 1e5 else f"{x:.4e}"
    return str(x)


def fmt_pair(a: float, b: float) -> tuple[str, str]:
    """Both numbers with just enough digits to tell them apart (at most 17): a passing claim whose two
    sides agree to 1e-9 must not print as '0.016129 ≥ 0.016129'."""
    if not (isinstance(a, float) and isinstance(b, float)) or a == b or not (math.isfinite(a) and math.isfinite(b)):
        return fmt(a), fmt(b)
    for digits in range(6, 18):
        fa, fb = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if fa != fb:
            return (fa, fb) if digits > 6 else (fmt(a), fmt(b))
    return f"{a!r}", f"{b!r}"


def ratio_text(r: float) -> str:
    """``r`` with 3 significant digits, more where 3 would print a failing ratio as exactly 1."""
    for digits in range(3, 18):
        text = f"{r:.{digits}g}"
        if float(text) != 1.0 or r == 1.0:
            return text
    return repr(r)
