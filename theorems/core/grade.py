"""How strong a piece of evidence is: the grade of a claim, and the rigorous enclosures that earn the top one.

Grades, strongest first (``GRADES``):

* ``rigorous``: an enclosure in ball/interval arithmetic, or exact rational arithmetic, shows the claim's relation
  fails (or holds): the interval lies wholly on one side of the bound;
* ``certified``: float64 with an a-posteriori certificate (LP duality, a convex reformulation's dual bound, a
  second-order optimality certificate);
* ``statistical``: seeds or draws, with the standard error and the number of standard errors beyond the bound;
* ``numerical``: anything else (a float64 evaluation with a tolerance).

An :class:`Enclosure` is what a rigorous re-evaluation records: an interval ``[lo, hi]`` (decimal strings, rounded
outward) that contains the exact value of the claim's observed quantity, the bound it is compared with, and a
``replay`` spec (``{"function": "package.module:name", "point": {...}}``) from which the enclosure is recomputed
without torch. Replay functions register with :func:`replay`; they take the recorded point (a JSON dict) and
return an :class:`Enclosure`.

``import theorems.core.grade`` imports neither torch nor numpy.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

GRADES = ("rigorous", "certified", "statistical", "numerical")


@dataclass(frozen=True)
class Enclosure:
    """The exact value of a claim's observed quantity lies in ``[lo, hi]``; compared with ``bound`` by ``relation``."""

    lo: str
    hi: str
    bound: str
    relation: str
    method: str
    replay: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.relation not in ("<=", ">=", "=="):
            raise ValueError(f"enclosure: relation {self.relation!r} is not one of <=, >=, ==")
        if Fraction(self.lo) > Fraction(self.hi):
            raise ValueError(f"enclosure: lo {self.lo} > hi {self.hi}")

    def decides(self) -> str | None:
        """``'fails'`` when the whole interval violates the relation, ``'holds'`` when the whole interval satisfies
        it, ``None`` when the interval straddles the bound (no rigorous decision). Exact rational comparison."""
        lo, hi, b = Fraction(self.lo), Fraction(self.hi), Fraction(self.bound)
        if self.relation == "<=":
            return "holds" if hi <= b else "fails" if lo > b else None
        if self.relation == ">=":
            return "holds" if lo >= b else "fails" if hi < b else None
        return "holds" if lo == hi == b else "fails" if (hi < b or lo > b) else None

    def to_dict(self) -> dict[str, Any]:
        return {"lo": self.lo, "hi": self.hi, "bound": self.bound, "relation": self.relation,
                "method": self.method, "replay": dict(self.replay)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Enclosure":
        return cls(str(data["lo"]), str(data["hi"]), str(data["bound"]), str(data["relation"]), str(data["method"]),
                   dict(data.get("replay", {})))


# (result id, claim name) -> replay function(point) -> Enclosure
REPLAYS: dict[tuple[str, str], Callable[[dict[str, Any]], Enclosure]] = {}


def replay(result_id: str, claim: str) -> Callable[[Callable[[dict[str, Any]], Enclosure]],
                                                 Callable[[dict[str, Any]], Enclosure]]:
    """Register ``fn(point) -> Enclosure`` as the rigorous re-evaluation of ``claim`` of ``result_id``."""
    def register(fn: Callable[[dict[str, Any]], Enclosure]) -> Callable[[dict[str, Any]], Enclosure]:
        key = (result_id, claim)
        if key in REPLAYS and REPLAYS[key] is not fn:
            raise ValueError(f"replay for {result_id} claim {claim!r} registered twice")
        REPLAYS[key] = fn
        return fn
    return register


def rerun(enclosure: Enclosure) -> Enclosure:
    """Recompute an enclosure from its own replay spec alone (no torch): the check a reader of evidence.json runs."""
    spec = enclosure.replay
    if "function" not in spec or "point" not in spec:
        raise ValueError(f"enclosure has no replay spec (function, point): {spec!r}")
    module, _, name = str(spec["function"]).partition(":")
    return getattr(importlib.import_module(module), name)(dict(spec["point"]))
