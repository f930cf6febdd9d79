"""Probes the per-result check files share (not a test module: nothing here is collected): evaluating a result
without ``theorems.check`` (an identity failing inside the hypotheses would make ``check`` raise), and
monkeypatching one computed quantity of a module by a literal amount, the way a pin moves one entry just past its
tolerance."""

from __future__ import annotations

import dataclasses

import numpy as np

from theorems.core import registry
from theorems.core.context import Context

_CACHE: dict = {}


def evaluate_outcome(rid: str, form: str | None = None, **params):
    """The Outcome of ``rid``'s evaluate on ``params`` (inside the hypotheses) and its claims by name."""
    result = registry.get(rid)
    form = form or result.default_form
    full, violations = registry.validate(result, params, form)
    assert not violations, violations
    out = result.evaluate(full, form, Context.make(None, seed=full.get("seed", 0)))
    return out, {c.name: c for c in out.claims}


def evaluate_claims(rid: str, form: str | None = None, **params):
    """The claims (by name) of ``rid``'s evaluate on ``params`` (inside the hypotheses), without ``check``: an
    identity failing inside the hypotheses would make ``check`` raise."""
    return evaluate_outcome(rid, form, **params)[1]


def claims_of(ev):
    """The claims of an Evidence, by name."""
    return {c.name: c for c in ev.claims}


def registered_control(rid: str, control: dict):
    """The Result ``rid``, after checking that ``control`` is one of its registered controls."""
    result = registry.get(rid)
    assert control in [dict(c) for c in result.controls], f"{rid}: {control} is not a registered control"
    return result


def signed_excess(c) -> float:
    """How many allowances ``observed`` lies above ``bound`` (negative: below)."""
    return (c.observed - c.bound) / c.allowance


def computed_once(monkeypatch, module, name):
    """``module.name`` computed once per test process (the integrations are the cost; every claim is recomputed
    from them on each evaluate). Only for a fixed instance."""
    exact = getattr(module, name)

    def once(*args):
        key = (module.__name__, name)
        if key not in _CACHE:
            _CACHE[key] = exact(*args)
        return _CACHE[key]

    monkeypatch.setattr(module, name, once)


def one_entry_off(monkeypatch, module, name, call, index, amount, relative_to=None):
    """``module.name``'s ``call``-th output (0-based; every call if None) with the entry at ``index`` moved by
    ``amount`` (× the norm of the new point ``relative_to(args, index)`` if given)."""
    exact, calls = getattr(module, name), []

    def patched(*args):
        out = exact(*args)
        calls.append(1)
        if call is None or len(calls) - 1 == call:
            out = np.array(out, copy=True)
            out[index] += amount * (relative_to(args, index) if relative_to else 1.0)
        return out

    monkeypatch.setattr(module, name, patched)
    return calls


def with_global_error(sol, member, value):
    """An ODE solution whose ``member``-th global error estimate is ``value``."""
    err = np.array(sol.global_error, copy=True)
    err[member] = value
    return dataclasses.replace(sol, global_error=err)
