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

What a grade is derived from (`theorems.core.evidence.Claim`, fields after ``atol``; never a grade declared by hand):

* ``Claim.enclosure`` (:class:`Enclosure` or None): ``rigorous`` iff ``enclosure.decides()`` is the claim's float
  verdict ('holds' for a passed claim, 'fails' for a failed one) and the claim records no draws (an enclosure of a
  mean over seeds bounds that sample, not the expectation: such a claim stays statistical). An enclosure that straddles the bound
  (``decides() is None``) earns nothing; one that decides the other way is a :class:`~theorems.core.errors.SuiteError`
  (the float code path is wrong), raised when the claim is built. The enclosure's ``bound`` is the threshold the float
  verdict uses: the claim's bound, moved by its allowance where the claim has a tolerance;
* ``Claim.certificate`` (one of :data:`CERTIFICATES`, "" for none): ``certified`` iff named **and** the evidence's
  convergence supports it (:func:`certificate_supported`: ``lp-duality`` / ``dual-bound`` need an optimiser that did
  not fail to converge; ``second-order`` needs ``Evidence.converged is True`` and a curvature number in the details);
* ``Claim.n_draws`` (int, 0 for none) and ``Claim.stderr`` (float, None for none): ``statistical`` iff
  ``n_draws ≥ 2`` and a finite ``stderr ≥ 0`` are recorded: the observed value is a mean over that many seeds or
  draws, with that standard error; ``Claim.ses_beyond`` is the number of standard errors beyond the bound (> 0 on the
  failing side);
* otherwise ``numerical``.

The grade of an Evidence (``Evidence.grade``) is that of its verdict-deciding claims: for an instance that fails, the
strongest grade among its failed ``bound`` claims (one rigorous failure refutes); for one that holds, the weakest
among its ``bound`` claims; None for an instance that decides nothing (not converged, measurements only).

``import theorems.core.grade`` imports neither torch nor numpy.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

GRADES = ("rigorous", "certified", "statistical", "numerical")
RIGOROUS, CERTIFIED, STATISTICAL, NUMERICAL = GRADES
# The a-posteriori certificates a float64 claim may rest on: LP duality (a dual point bounds the LP's optimum), the dual
# bound of a convex reformulation, a second-order optimality certificate (small gradient and no negative curvature).
CERTIFICATES = ("lp-duality", "dual-bound", "second-order")
# Where an Evidence records its curvature (theorems.optim.curvature's certificates, HVP eigenvalues): a details key that
# matches this is the second-order half of the convergence certificate.
CURVATURE_KEY = re.compile(r"curvature|hessian|min_eig|lam_min")


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


def rank(grade: str) -> int:
    """0 for the strongest grade (rigorous) … 3 for the weakest (numerical)."""
    return GRADES.index(grade)


def strongest(grades: Iterable[str]) -> str | None:
    listed = list(grades)
    return min(listed, key=rank) if listed else None


def weakest(grades: Iterable[str]) -> str | None:
    listed = list(grades)
    return max(listed, key=rank) if listed else None


def certificate_supported(kind: str, converged: bool | None, details: Mapping[str, Any]) -> bool:
    """Whether an Evidence's convergence certificate supports a claim's a-posteriori certificate ``kind``: an LP's
    duality or a dual bound holds whatever the optimiser, unless the evidence failed to converge (then nothing it
    computed decides); a second-order certificate needs the optimiser converged (``converged is True``: small gradient
    and no negative curvature) and its curvature recorded (a details key matching :data:`CURVATURE_KEY` holding a
    finite number)."""
    if kind not in CERTIFICATES or converged is False:
        return False
    if kind != "second-order":
        return True
    return converged is True and any(
        CURVATURE_KEY.search(k) and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        for k, v in details.items())


# (result id, claim name) -> replay function(point) -> Enclosure (or None: nothing to say about this instance)
REPLAYS: dict[tuple[str, str], Callable[[dict[str, Any]], Enclosure]] = {}
# The package whose import registers the rigorous replays; optional (the grades work without it).
REPLAY_PACKAGE = "theorems.rigorous"
_loaded = False


def load_replays() -> None:
    """Import :data:`REPLAY_PACKAGE` once, where it exists, so that its replays are in :data:`REPLAYS`."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    try:
        found = importlib.util.find_spec(REPLAY_PACKAGE) is not None
    except ModuleNotFoundError:  # a parent package missing: nothing to load
        found = False
    if found:
        importlib.import_module(REPLAY_PACKAGE)


def attach_enclosures(evidence: Any) -> Any:
    """``evidence`` with the enclosure of each claim that has a replay registered for (result id, claim name), computed
    from the point ``{"params": ..., "details": ...}`` as evidence.json holds them (``Evidence.to_dict``: plain JSON,
    non-finite numbers as 'inf', '-inf', 'nan'), so that a replay sees what a reader of the file sees; the claims
    without one keep theirs. Building the claim checks the enclosure against the float verdict (SuiteError where
    they disagree). Called by `theorems.check` on every Evidence it makes."""
    load_replays()
    if not any(key[0] == evidence.result_id for key in REPLAYS):
        return evidence
    data = evidence.to_dict()
    point = {"params": data["params"], "details": data["details"]}
    claims, changed = [], False
    for claim in evidence.claims:
        fn = REPLAYS.get((evidence.result_id, claim.name))
        enclosure = fn(point) if fn is not None else None
        if enclosure is not None:
            if not isinstance(enclosure, Enclosure):
                raise TypeError(f"replay of {evidence.result_id} claim {claim.name!r} returned {enclosure!r}, not an "
                                "Enclosure")
            claim, changed = dataclasses.replace(claim, enclosure=enclosure), True
        claims.append(claim)
    return dataclasses.replace(evidence, claims=claims) if changed else evidence


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
