"""The arithmetic the rigorous replays share: exact rationals from recorded numbers, Arb balls, outward-rounded
decimal strings, and the construction of an :class:`~theorems.core.grade.Enclosure` whose decision is checked.

Recorded numbers become exact rationals: a float (a JSON number) is the binary64 value it denotes, exactly
(``Fraction(float)``); a string is read as the decimal it spells (``"0.05"`` is 1/20). Balls are ``flint.arb`` at
``PREC`` bits; their endpoints are exact binary numbers (``arb.lower()`` / ``arb.upper()`` round outward), turned
into decimal strings rounded outward again (down for ``lo``, up for ``hi``), so the strings enclose the ball.

No torch, no numpy: a reader of evidence.json re-runs these with python-flint alone.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

import flint
from flint import arb, fmpq

from ..core.grade import Enclosure, replay

PREC = 256  # bits: the recorded points are binary64, so 256 bits leave ~200 bits of room for cancellation
DIGITS = 20  # significant decimal digits of an enclosure's endpoints (more where the decision needs them)


class NotDecided(ValueError):
    """A replay whose point does not satisfy the statement's hypotheses rigorously (the ball straddles a
    hypothesis), or whose enclosure does not decide: the counterexample is then not rigorous."""


def exact(x: Any) -> Fraction:
    """The exact rational a recorded number denotes: a float's binary64 value, a string's decimal, an int."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise NotDecided(f"non-finite recorded number {x!r}")
        return Fraction(x)
    if isinstance(x, str):
        if x.strip().lower() in ("inf", "-inf", "+inf", "nan", "infinity", "-infinity"):
            raise NotDecided(f"non-finite recorded number {x!r}")  # evidence.json writes them as strings
        return Fraction(x)
    raise TypeError(f"not a recorded number: {x!r}")


def q(x: Any) -> fmpq:
    f = exact(x)
    return fmpq(f.numerator, f.denominator)


def ball(x: Any) -> arb:
    """An exact ball (radius 0 where PREC bits hold it; a float always fits) of a recorded number or a Fraction."""
    if isinstance(x, arb):
        return x
    return arb(q(x))


def with_prec(fn: Callable) -> Callable:
    """Run ``fn`` at PREC bits (flint's precision is global: set and restored around the call)."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        old = flint.ctx.prec
        flint.ctx.prec = PREC
        try:
            return fn(*args, **kwargs)
        finally:
            flint.ctx.prec = old
    return wrapped


def _arf(a: arb) -> Fraction:
    man, exp = a.man_exp()
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def bounds(x: Any) -> tuple[Fraction, Fraction]:
    """[lower, upper] as exact rationals: a ball's endpoints, a rational twice, or a pair (its lower's lower end, its
    upper's upper end: an interval given by its two ends)."""
    if isinstance(x, tuple):
        return bounds(x[0])[0], bounds(x[1])[1]
    if isinstance(x, arb):
        if not x.is_finite():
            raise NotDecided(f"the ball {x} is not finite")
        return _arf(x.lower()), _arf(x.upper())
    f = exact(x)
    return f, f


def decimal(f: Fraction, up: bool, digits: int = DIGITS) -> str:
    """A decimal string with ``digits`` significant digits, rounded down (``up`` False) or up: Fraction(s) ≤ f
    (resp. ≥ f), equal when f fits."""
    if f == 0:
        return "0"
    mag = math.floor(math.log10(abs(float(f)))) if abs(float(f)) > 0 else -400
    k = digits - 1 - mag
    scaled = f * (Fraction(10) ** k)
    n = math.ceil(scaled) if up else math.floor(scaled)
    s = str(Decimal(n).scaleb(-k).normalize())
    assert (Fraction(s) >= f) if up else (Fraction(s) <= f), (s, f, up)
    return s


def _decision(lo: Fraction, hi: Fraction, blo: Fraction, bhi: Fraction, relation: str) -> tuple[str | None, Fraction]:
    """('fails' | 'holds' | None, the bound endpoint that decides it)."""
    if relation == "<=":
        if lo > bhi:
            return "fails", bhi
        if hi <= blo:
            return "holds", blo
    elif relation == ">=":
        if hi < blo:
            return "fails", blo
        if lo >= bhi:
            return "holds", bhi
    elif relation == "==":
        if lo > bhi:
            return "fails", bhi
        if hi < blo:
            return "fails", blo
        if lo == hi == blo == bhi:
            return "holds", blo
    else:
        raise ValueError(f"relation {relation!r}")
    return None, (blo + bhi) / 2


def enclosure(value: Any, bound: Any, relation: str, method: str, function: str, point: Mapping[str, Any], *,
              allowance: Any = 0, require: str | None = "fails") -> Enclosure:
    """The Enclosure of ``value`` (a ball or an exact rational) against ``bound`` (ball or rational) by ``relation``.

    ``allowance`` (≥ 0, the claim's own tolerance) moves the bound the way that makes a failure harder to show
    (``<=``: up, ``>=``: down; ``==`` keeps the bound and asks the interval to miss [b − a, b + a]). The bound
    string is the bound's endpoint on the deciding side, rounded outward, so that ``Enclosure.decides()`` on the
    strings is implied by the exact comparison. ``require``: the decision the replay must reach (``NotDecided``
    otherwise); None accepts either, but an interval that straddles the bound is always NotDecided.
    """
    lo, hi = bounds(value)
    blo, bhi = bounds(bound)
    a = exact(allowance) if not isinstance(allowance, Fraction) else allowance
    if relation == "<=":
        blo, bhi = blo + a, bhi + a
    elif relation == ">=":
        blo, bhi = blo - a, bhi - a
    elif relation == "==" and a:
        if not (lo > bhi + a or hi < blo - a):
            blo, bhi = blo - a, bhi + a  # inside the tolerance band: no rigorous failure
    verdict, b = _decision(lo, hi, blo, bhi, relation)
    for digits in (DIGITS, 30, 45, 70):
        lo_s, hi_s = decimal(lo, up=False, digits=digits), decimal(hi, up=True, digits=digits)
        if verdict == "fails":
            toward_value = (relation == "<=") or (relation == "==" and lo > bhi)
            b_s = decimal(b, up=toward_value, digits=digits)
        elif verdict == "holds":
            b_s = decimal(b, up=(relation == ">="), digits=digits) if b != 0 else "0"
        else:
            b_s = decimal(b, up=False, digits=digits)
        enc = Enclosure(lo_s, hi_s, b_s, relation, method, {"function": function, "point": dict(point)})
        if enc.decides() == verdict:
            break
    else:
        raise NotDecided(f"{function}: decimal strings cannot carry the decision {verdict!r} of [{lo}, {hi}]")
    if verdict is None or (require is not None and verdict != require):
        raise NotDecided(f"{function}: the enclosure [{lo_s}, {hi_s}] vs {relation} {b_s} decides {verdict!r}, "
                         f"not {require!r}")
    return enc


def need(condition: bool, what: str) -> None:
    """A hypothesis of the statement that the point must satisfy rigorously."""
    if not condition:
        raise NotDecided(f"the recorded point does not rigorously satisfy: {what}")


def positive(x: arb) -> bool:
    return bool(x > 0)


def rigorous(result_id: str, claim: str, point_of: Callable[[Mapping[str, Any], Mapping[str, Any]], dict],
             forms: tuple[str, ...] = ("as_printed",)):
    """Register ``fn(point) -> Enclosure`` as the replay of ``claim`` of ``result_id`` (the printed form's claim).

    The registered callable takes either the ``{"params": ..., "details": ...}`` of an Evidence as evidence.json holds
    them (it then builds the minimal point with ``point_of(params, details)``, and returns None where it cannot
    certify the claim) or a point itself (what ``rerun`` passes from an enclosure's replay spec: NotDecided is then
    raised, since that point decided once); ``fn`` runs at PREC bits. Most replays certify *failures* of the printed statement:
    they re-evaluate one recorded point of a claim that is a max (min) over points, which shows a failure but never
    that the claim holds, so they raise NotDecided unless the enclosure shows the failure. An Evidence of a form not
    in ``forms`` (``data['form']`` or ``details['form']``, where either says) raises NotDecided: a claim of the same
    name in the corrected form may measure another quantity."""
    def register(fn: Callable[[dict], Enclosure]) -> Callable[[Mapping[str, Any]], Enclosure]:
        inner = with_prec(fn)

        @functools.wraps(fn)
        def entry(data: Mapping[str, Any]) -> Enclosure | None:
            if "params" in data and "details" in data and "point" not in data:
                # an Evidence (theorems.core.grade.attach_enclosures calls every replay on every Evidence of its
                # result): None where this one cannot certify its claim, so that the claim keeps its own grade
                try:
                    return _from_evidence(data)
                except NotDecided:
                    return None
            return inner(dict(data))  # a point, from an enclosure's replay spec: it decided once, so it must again

        def _from_evidence(data: Mapping[str, Any]) -> Enclosure:
            form = data.get("form", data["details"].get("form", "as_printed"))
            if form not in forms:
                raise NotDecided(f"{result_id}: the replay of {claim!r} re-evaluates the printed form, not {form!r}")
            try:
                point = point_of(data["params"], data["details"])
            except KeyError as err:  # the evidence does not record the point (another instance of the result)
                raise NotDecided(f"{result_id}: the evidence records no replay point for {claim!r} ({err})") from None
            return inner(point)

        entry.result_id, entry.claim = result_id, claim  # type: ignore[attr-defined]
        replay(result_id, claim)(entry)
        return entry
    return register


def fname(fn: Callable) -> str:
    return f"{fn.__module__}:{fn.__name__}"


def mat(rows: Iterable[Iterable[Any]]) -> list[list[Fraction]]:
    return [[exact(x) for x in row] for row in rows]


def parse_matrix(text: str) -> list[list[Fraction]]:
    """'a,b;c,d' (the suite's explicit-matrix parameter) as exact decimals."""
    return [[Fraction(x.strip()) for x in row.split(",")] for row in text.split(";")]
