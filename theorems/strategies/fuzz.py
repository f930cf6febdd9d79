"""The suite fuzzes itself: bad calls of `theorems.check`, generated from the `Param` declarations.

:func:`bad_calls` draws keyword sets that no instance can be built from (a value of the wrong type, a NaN or
an infinity, a number outside its declared domain, a list out of order, an unknown name, choice or form, a
non-boolean ``allow_violation``, a device that is not a string, a seed the generators do not take); each
must be refused with a typed error before the result computes anything. :func:`edge_calls` draws parameter
sets *inside* the declared domains but at their edges and outside the ranges the suite usually samples,
run as negative controls (``allow_violation=True``): running is allowed there, but a raw exception, a hang,
or ``holds=True`` on a non-finite number is a defect. ``checks/test_conformance.py`` runs both for every
registered result; ``tools/fuzz.py`` runs a large campaign in worker processes with memory and time limits.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from ..core.params import SEED_HIGH, Param

_WRONG_TYPE = {
    int: ["three", 2.5, True, None, [1]],
    float: ["0.5", None, True, [0.5]],
    str: [3, None, 1.5, ["a"]],
    bool: ["yes", 1, 0, None, "false"],
}


def bad_values(p: Param) -> list[Any]:
    """Values of ``p`` that its declaration refuses (every one must give a ParameterError)."""
    out: list[Any] = list(_WRONG_TYPE[p.element]) if not p.is_list else [3, None, "x,y" if p.numeric else 7]
    if p.is_list and p.length[0] > 0:
        out.append("")  # an empty list, where the declaration needs at least one value
    if p.is_list:
        out.append(tuple(p.default) * (p.length[1] // max(len(p.default), 1) + 1))  # too long
        if p.increasing and len(p.default) >= 2:
            out.append(tuple(reversed(p.default)))
        if p.numeric:
            out.append((math.nan,) + tuple(p.default[1:]) if p.element is float else ("1.5",))
    if p.element is float and p.finite:
        out += [math.nan, math.inf, -math.inf]
    if p.element is float and not p.is_list:
        out.append(10**400)  # an int beyond float range (float() raises OverflowError): a ParameterError too
    if p.choices is not None and p.element is str:
        out += ["", "no_such_choice", p.choices[0].upper() + "_"]
    if p.numeric and not p.is_list:
        step = 1 if p.element is int else max(1e-9, 1e-6 * abs(p.low or p.high or 1))
        if p.low is not None:
            out += [p.element(p.low - step), p.element(p.low) - 10**9]
        if p.high is not None:
            out += [p.element(p.high + step), p.element(p.high) * 10**6 + 10**9, 10**30 if p.element is int else 1e300]
    if p.name == "seed":
        out += [-1, SEED_HIGH + 1, 2**64]
    return out


def bad_calls(result: Any) -> st.SearchStrategy[tuple[dict[str, Any], str]]:
    """(keyword arguments of `theorems.check`, what is wrong) pairs, each with exactly one defect."""
    return st.sampled_from(bad_call_choices(result))


BAD_FORMS = ["", "printed", "AS_PRINTED", 3, "corrected "]
BAD_SWITCHES = ["false", "true", 1, 0, None, "yes"]
BAD_DEVICES = [3, 1.5, ["cpu"]]


def bad_call_choices(result: Any) -> list[tuple[dict[str, Any], str]]:
    """Every bad call :func:`bad_calls` can draw, as a plain list (``tools/fuzz.py`` draws from it)."""
    out = [({"no_such_parameter": 1}, "an unknown parameter")]
    out += [({"form": f}, f"form={f!r}") for f in BAD_FORMS]
    out += [({"allow_violation": a}, f"allow_violation={a!r}") for a in BAD_SWITCHES]
    out += [({"device": d}, f"device={d!r}") for d in BAD_DEVICES]
    out += [({p.name: v}, f"{p.name}={v!r}") for p in result.params for v in bad_values(p)]
    return out


def edge_values(p: Param) -> list[Any]:
    """In-domain values at the edges of ``p``'s domain and just outside its usual sample range."""
    return _edges(p)


def _edges(p: Param) -> list[Any]:
    """In-domain values at the edges of ``p``'s domain and just outside its usual sample range."""
    if p.choices is not None:
        return list(p.choices)
    if p.element is bool:
        return [False, True]
    if not p.numeric or p.is_list:
        return [p.default]
    out = [p.default]
    lo = p.low if p.low is not None else (p.sample[0] if p.sample else p.default) - 1
    out.append(p.element(lo))
    if p.element is float:
        out += [p.element(lo) + 1e-12, 0.0 if (p.low is None or p.low <= 0) and (p.high is None or p.high >= 0)
                else p.low]
    if p.sample is not None and len(p.sample) == 2:
        out += [p.sample[0], p.sample[1]]
    return [v for v in out if (p.low is None or v >= p.low) and (p.high is None or v <= p.high)]


def edge_calls(result: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Parameter sets inside the declared domains, one or two parameters moved to an edge (the others at
    their defaults): run with ``allow_violation=True``, they must end in an Evidence or a typed error."""
    names = [p for p in result.params if len(_edges(p)) > 1]
    if not names:
        return st.just({})
    one = st.sampled_from(names).flatmap(lambda p: st.sampled_from(_edges(p)).map(lambda v, n=p.name: {n: v}))
    return st.lists(one, min_size=1, max_size=2).map(lambda parts: {k: v for d in parts for k, v in d.items()})
