"""`Param(breaks=...)`: a negative control's switch whose violation the suite records itself."""
import pytest

from theorems.core.params import CONTROL, Param
from theorems.core.registry import get, ids, validate
from theorems.core.result import Outcome, Result, Violation


def _result(own=lambda p, form: []):
    return Result(id="t.switch", paper="000", evaluate=lambda p, form, ctx: Outcome(), hypotheses=own, params=(
        Param("n", int, 3, "a size", low=1, high=10),
        Param("bound_scale", float, 1.0, "multiplies the bound (≠ 1: wrong constant)", breaks="exact bound"),
    ))


def test_a_switch_off_its_default_is_a_violation_named_after_it():
    r = _result()
    assert r.hypotheses({"n": 3, "bound_scale": 1.0}, "as-printed") == []
    (v,) = r.hypotheses({"n": 3, "bound_scale": 2.0}, "as-printed")
    assert v.hypothesis == "exact bound" and v.names == ("bound_scale",) and "2.0" in v.message


def test_the_modules_own_violations_come_first_and_are_kept():
    own = Violation("n odd", "n must be odd", ("n",))
    r = _result(lambda p, form: [own] if p["n"] % 2 == 0 else [])
    assert [v.hypothesis for v in r.hypotheses({"n": 4, "bound_scale": 0.5}, "as-printed")] == ["n odd", "exact bound"]


def test_a_switch_is_a_control_and_cannot_be_declared_otherwise():
    assert Param("s", float, 1.0, "a switch", breaks="h").purpose == CONTROL
    with pytest.raises(ValueError, match="control"):
        Param("s", float, 1.0, "a switch", breaks="h", role="theorem")


def _off(p: Param):
    """A value of the switch inside its structural domain other than the default."""
    if p.kind is bool:
        return not p.default
    for off in (p.default * 2, p.default / 2, p.default + 1, p.default - 1, 0.5, 1):
        off = p.kind(off)
        if off != p.default and (p.low is None or off >= p.low) and (p.high is None or off <= p.high):
            return off
    raise AssertionError(f"no value of {p.name} off its default {p.default!r}")


def test_every_registered_switch_is_a_violation_off_its_default():
    switches = [(r, p) for r in map(get, ids()) for p in r.params if p.breaks]
    assert switches, "no result declares a Param(breaks=...) switch"
    for r, p in switches:
        off = _off(p)
        assert not any(p.name in v.names for v in validate(r, {}, r.default_form)[1]), (r.id, p.name)
        assert p.breaks in [v.hypothesis for v in validate(r, {p.name: off}, r.default_form)[1]], (r.id, p.name)


def test_show_names_what_the_switch_breaks_and_the_manifest_keeps_it():
    from theorems.core.manifest import _param_from_json, _param_to_json
    p = Param("bound_scale", float, 1.0, "multiplies the bound (≠ 1: wrong constant)", "= 1", breaks="exact bound")
    assert p.describe().endswith("any other value breaks: exact bound")
    assert _param_from_json(_param_to_json(p)) == p


def test_a_copy_of_a_result_records_each_switch_once():
    """dataclasses.replace re-runs Result.__post_init__ on the wrapped hypotheses: the switch must not be added
    twice (conformance.py copies results this way)."""
    import dataclasses

    r = dataclasses.replace(dataclasses.replace(_result()))
    assert [v.hypothesis for v in r.hypotheses({"n": 3, "bound_scale": 2.0}, "as-printed")] == ["exact bound"]
