"""Shared helpers of the hypothesis strategies: every range comes from the results' `Param` declarations.

:func:`declared_params` is the strategy of a result built from its declarations alone: each parameter with
a ``sample`` range is drawn from it (integers uniformly, reals uniformly or log-uniformly, strings and
booleans from the listed values), every other parameter keeps its default, and a draw that the result's
``hypotheses`` (for the given form) or its resource ceiling reject is filtered out. A result whose
hypotheses tie two parameters together (d ≥ K + 1) narrows one range inside the declared one with
:func:`param`, so that no range is written twice. :func:`valid_for` re-validates what a hand-written
strategy drew, so a strategy can never drift outside what the theorem assumes without a test noticing.
Needs the ``test`` extra (hypothesis).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from ..core.params import Param, acceptable
from ..core.registry import get, validate
from ..core.result import CORRECTED


def valid_for(result_id: str, form: str = CORRECTED):
    """A filter that raises if drawn parameters violate a hypothesis of ``result_id`` (a strategy bug)."""
    result = get(result_id)

    def check(params: dict) -> dict:
        _, violations = validate(result, params, form)
        if violations:
            raise AssertionError(f"strategy drew parameters outside the hypotheses of {result_id}: {violations}")
        return params

    return check


def param(p: Param, lo: Any = None, hi: Any = None) -> st.SearchStrategy:
    """Values of ``p`` from its declared ``sample`` range, narrowed to [lo, hi] where given (a hypothesis
    that ties two parameters together); its default alone where it declares no sample."""
    if p.sample is None:
        return st.just(p.default)
    if not (p.numeric and len(p.sample) == 2) or p.is_list:
        return st.sampled_from(p.sample)
    a, b = p.sample
    a = a if lo is None else max(a, lo)
    b = b if hi is None else min(b, hi)
    if a > b:
        raise ValueError(f"{p.name}: the narrowed range [{lo}, {hi}] misses the declared sample {p.sample}")
    if p.element is int:
        if p.log and a > 0:
            return st.floats(math.log(a), math.log(b)).map(lambda v: min(int(b), max(int(a), round(math.exp(v)))))
        return st.integers(int(a), int(b))
    if p.log:
        return st.floats(math.log(a), math.log(b)).map(lambda v: min(b, max(a, math.exp(v))))
    return st.floats(a, b, allow_nan=False, allow_infinity=False)


def declared_params(result_id: str, form: str | None = None, **fixed: Any) -> st.SearchStrategy:
    """Valid parameter dicts of ``result_id`` drawn from its declarations (see the module docstring).
    ``fixed``: values (or strategies) that replace a parameter's declared draw."""
    result = get(result_id)
    form = form or result.default_form
    parts = {p.name: (fixed[p.name] if isinstance(fixed.get(p.name), st.SearchStrategy)
                      else st.just(fixed[p.name]) if p.name in fixed else param(p))
             for p in result.params}
    return st.fixed_dictionaries(parts).filter(lambda d: acceptable(result, d, form))


def param_of(result_id: str, name: str) -> Param:
    return get(result_id).param(name)
