"""Running a result's declared tolerance pins (:class:`~theorems.core.result.Pin`), both sides.

`pin_sides` is what ``checks/test_conformance.py`` asserts for every registered ``Pin``; a checks file may call it
too. A side is run through the caller's runner (the ``run`` fixture's cache serves a parameter pin's instances);
a constant pin's sides are fresh evaluations with the module constant set to the literal value for the call and
restored after it, and recorded as patched probes (`theorems.core.recording.patched`: their numbers are not the
instance's).
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any, Callable, Iterator

from . import recording
from .errors import IdentityFailure
from .result import Pin, Result, spec_instance

PASSES, FAILS = "passes", "fails"


def excess(claim: Any) -> float:
    """How many allowances ``observed`` lies beyond ``bound`` (≤ 1 passes)."""
    gap = {"<=": claim.observed - claim.bound, ">=": claim.bound - claim.observed}.get(
        claim.relation, abs(claim.observed - claim.bound))
    return gap / claim.allowance if claim.allowance else float("inf") if gap > 0 else 0.0


def _constant_home(result: Result, pin: Pin) -> tuple[Any, str]:
    module, _, name = pin.name.rpartition(":")
    return importlib.import_module(module or result.module), name


@contextlib.contextmanager
def moved_constant(result: Result, pin: Pin, value: Any) -> Iterator[None]:
    """The pin's module constant set to ``value`` inside the block (and restored, whatever happens)."""
    home, name = _constant_home(result, pin)
    if not hasattr(home, name):
        raise AttributeError(f"{result.id}: pin names {pin.name!r}, which {home.__name__} does not define")
    old = getattr(home, name)
    setattr(home, name, value)
    try:
        with recording.patched(f"{home.__name__}.{name} = {value!r} (a declared pin)"):
            yield
    finally:
        setattr(home, name, old)


def _identity_named(error: IdentityFailure, claims: tuple[str, ...]) -> bool:
    return set(claims) <= {c.name for c in error.claims}


def run_side(run: Callable[..., Any], result: Result, pin: Pin, side: str) -> Any:
    """The Evidence of one side of ``pin`` (``"passes"`` or ``"fails"``), or the IdentityFailure it raised."""
    form, params = spec_instance(pin.spec(side), result.default_form)
    allow = bool(pin.params.get("allow_violation", False))
    outcomes = (recording.HOLDS, recording.FAILS) if side == PASSES else (recording.FAILS, recording.NOT_CONVERGED)
    guard = moved_constant(result, pin, getattr(pin, side)) if pin.is_constant else contextlib.nullcontext()
    with guard, recording.expecting(*outcomes):
        try:
            if pin.is_constant:  # never the cache: the numbers are not the instance's
                import theorems

                return theorems.check(result.id, form=form, allow_violation=allow, **params)
            return run(result.id, form=form, allow_violation=allow, **params)
        except IdentityFailure as error:
            return error


def pin_sides(run: Callable[..., Any], result: Result, pin: Pin) -> None:
    """Assert both sides of ``pin``: each claim passes on the passing side; on the failing side each claim fails
    (the run may end not converged; an identity inside the hypotheses raises IdentityFailure naming it), and with
    ``within`` lies 1 to ``within`` allowances outside."""
    where = f"{result.id} pin {pin.label()} on {dict(pin.params)}"
    if pin.passes is not None:
        ev = run_side(run, result, pin, PASSES)
        assert not isinstance(ev, IdentityFailure), f"{where}: the passing side raised {ev}"
        bad = [c for c in map(ev.claim, pin.claim_names) if not c.passed]
        assert not bad, f"{where}: on the passing side {[c.name for c in bad]} fail\n{ev.explain()}"
    if pin.fails is None:
        return
    if pin.reported:
        assert pin.spec("fails") in [dict(c) for c in result.controls], f"{where}: not among the registered controls"
    ev = run_side(run, result, pin, FAILS)
    if isinstance(ev, IdentityFailure):
        assert _identity_named(ev, pin.claim_names), f"{where}: the failing side raised for other identities: {ev}"
        assert pin.within is None, f"{where}: within= needs an Evidence; the failing side raised {ev}"
        return
    if pin.converged is not None:
        assert ev.converged is pin.converged, f"{where}: the failing side's run converged={ev.converged}"
    for name in pin.claim_names:
        c = ev.claim(name)
        if pin.within is not None:
            assert c.allowance > 0, f"{where}: {name} has no allowance to count in"
            assert 1.0 < excess(c) <= pin.within, f"{where}: {name} is {excess(c):.3g} allowances outside"
        else:  # not converged, with the claim passing, is what a convergence tolerance's pin is for
            assert not c.passed or ev.converged is False, f"{where}: on the failing side {name} passes\n{ev.explain()}"
