"""A fake rigorous replay for the fake theorem of `fakes.py` (x² ≤ c·x): exact rational arithmetic on the recorded
point, the way `theorems.rigorous` re-evaluates a real counterexample in ball arithmetic. ``WIDEN`` widens the
enclosure (a mutation: an enclosure that straddles the bound must not be rigorous)."""

from __future__ import annotations

from fractions import Fraction

from theorems.core.grade import Enclosure

WIDEN = Fraction(0)


def square_below_line(point: dict) -> Enclosure:
    """x² exactly, against c·x exactly (the claim's tolerance only helps a passing claim, so the exact bound decides
    a failure the same way; the instances tested are far from the edge)."""
    x, c = Fraction(point["details"]["x"]), Fraction(point["details"]["c"])
    value = x * x
    return Enclosure(str(value - WIDEN), str(value + WIDEN), str(c * x), "<=", "exact rational",
                     {"function": f"{__name__}:square_below_line", "point": point})
