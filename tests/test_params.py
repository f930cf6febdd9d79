"""One declaration per parameter (`theorems.core.params`): coercion and domains, lists, the resource
ceilings, the strategies and report draws derived from the declarations, and the self-fuzz machinery,
on hand cases and on the fake results."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theorems
from fakes import FAKE_ID
from theorems import HypothesisViolation, ParameterError
from theorems.core.errors import ResourceLimit
from theorems.core.params import (DEFAULT_MAX_ELEMENTS, ENV_MAX_ELEMENTS, Cost, Param, check_cost, kind_from_name,
                                  declared_instances, kind_name, sample_params, seed_param)


# -- coercion and domains ------------------------------------------------------------------------------
def test_scalars_are_typed_and_inside_their_domain():
    K = Param("K", int, 4, "classes", low=2, high=64)
    assert K.coerce(5) == 5 and type(K.coerce(True + 4)) is int
    for bad in (1, 65, 2.0, "3", True, None, 10**30):
        with pytest.raises(ParameterError, match="K="):
            K.coerce(bad, "r")
    lam = Param("lam", float, 0.1, "weight decay", low=0.0)
    assert lam.coerce(1) == 1.0 and type(lam.coerce(1)) is float
    for bad in (math.nan, math.inf, -math.inf, -1e-300, "0.1", True):
        with pytest.raises(ParameterError, match="lam="):
            lam.coerce(bad, "r")
    anything = Param("shift", float, 0.0, "any real, infinities too", finite=False)
    assert anything.coerce(math.inf) == math.inf
    loss = Param("loss", str, "mse", "loss", choices=("mse", "ce"))
    with pytest.raises(ParameterError, match="one of 'mse', 'ce'"):
        loss.coerce("", "r")


def test_lists_take_lists_tuples_and_comma_text():
    widths = Param("widths", list[int], (10, 100), "widths", low=2, high=5000, increasing=True, length=(2, 8))
    assert widths.coerce([10, 300]) == (10, 300) == widths.coerce("10, 300") == widths.coerce((10, 300))
    for bad, why in (([300, 10], "increasing"), ([10, 10], "increasing"), ([10], "2 to 8"), ("10,x", "comma"),
                     ([10, 1e4], "integer"), ([1, 10], r"\[2, 5000\]"), (7, "a list"), ("", "2 to 8")):
        with pytest.raises(ParameterError, match=why):
            widths.coerce(bad, "r")
    with pytest.raises(ParameterError, match="distinct"):
        Param("xs", list[float], (0.5, 1.0), "x", distinct=True).coerce([1.0, 1.0], "r")


def test_a_declaration_outside_its_own_domain_is_refused_at_import():
    with pytest.raises(ParameterError):
        Param("K", int, 1, "classes", low=2, high=10)
    with pytest.raises(ParameterError):
        Param("K", int, 3, "classes", low=2, high=10, sample=(2, 20))
    with pytest.raises(TypeError):
        Param("K", complex, 1j, "no")


def test_kinds_round_trip_through_their_names():
    for kind in (int, float, str, bool, list[int], list[float], list[str]):
        assert kind_from_name(kind_name(kind)) == kind


def test_words_come_from_the_declaration():
    p = Param("d", int, 6, "feature dimension", valid="d ≥ K", low=3, high=512, sample=(3, 12))
    assert p.domain_text() == "an integer in [3, 512]"
    assert p.describe() == "an integer in [3, 512]; drawn from [3, 12]; hypothesis: d ≥ K"
    assert seed_param().describe().startswith("an integer in [0, ")


# -- drawing ---------------------------------------------------------------------------------------------------
def test_draws_stay_in_the_sample_range():
    rng = random.Random(0)
    lam = Param("lam", float, 0.1, "λ", low=0.0, sample=(1e-3, 1.0), log=True)
    K = Param("K", int, 4, "K", low=2, high=64, sample=(2, 6))
    draws = [lam.draw(rng) for _ in range(500)]
    assert all(1e-3 <= v <= 1.0 for v in draws) and min(draws) < 0.01 < 0.1 < max(draws)  # log-uniform
    assert {K.draw(rng) for _ in range(200)} == {2, 3, 4, 5, 6}
    assert Param("scale", float, 1.0, "a control's constant").draw(rng) == 1.0  # no sample: the default


def test_report_draws_respect_the_hypotheses(fake_results):
    result = theorems.get(FAKE_ID)
    rng = random.Random(1)
    for _ in range(20):
        params = sample_params(result, "corrected", rng)
        assert params is not None and 0 <= params["x"] <= 1 and 1 <= params["n"] <= 10


def test_declared_instances_are_what_the_result_declares(fake_results):
    import dataclasses
    import types

    from theorems.core.result import Binding

    base = theorems.get(FAKE_ID)
    result = dataclasses.replace(
        base, binding=(Binding("x ≤ 1", {"x": 1.0}, "x = 1"), Binding("other form", {"x": 0.5}, "", form="as_printed")),
        controls=({"x": 1.5, "allow_violation": True}, {"form": "as_printed", "x": 0.9}),
        trend_controls=({"n": 7},))
    suite = types.SimpleNamespace(report_examples=3)
    got = list(declared_instances(result, suite, {"n": 2}, draws_seed=5))
    form = result.default_form
    assert got[:4] == [(form, {}, False), (form, {"x": 1.0}, False), ("as_printed", {"x": 0.5}, False),
                       (form, {"n": 2}, False)]
    rng = random.Random(5)
    assert got[4:7] == [(form, sample_params(result, form, rng), False) for _ in range(3)]
    assert got[7:] == [(form, {"x": 1.5}, True), ("as_printed", {"x": 0.9}, True), (form, {"n": 7}, True)]
    assert list(declared_instances(result, suite, draws_seed=5)) != list(declared_instances(result, suite))


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_strategy_is_the_declaration(fake_results, data):
    from theorems.strategies import declared_params

    params = data.draw(declared_params(FAKE_ID))
    assert 0 <= params["x"] <= 1 and 1 <= params["n"] <= 10 and params["loss"] in ("mse", "ce")
    assert params["converges"] is True and params["explode"] is False  # not drawn: kept at the default
    assert theorems.check(FAKE_ID, **params).holds


# -- resources --------------------------------------------------------------------------------------------------
def test_cost_above_the_ceiling_names_it_and_how_to_raise_it(monkeypatch):
    check_cost("r", Cost(elements=DEFAULT_MAX_ELEMENTS, work=1.0), {})
    with pytest.raises(ResourceLimit, match=ENV_MAX_ELEMENTS):
        check_cost("r", Cost(elements=DEFAULT_MAX_ELEMENTS * 1.01, work=1.0), {"n": 10})
    with pytest.raises(ResourceLimit):
        check_cost("r", Cost(elements=math.nan), {})
    monkeypatch.setenv(ENV_MAX_ELEMENTS, str(DEFAULT_MAX_ELEMENTS * 10))
    check_cost("r", Cost(elements=DEFAULT_MAX_ELEMENTS * 1.01, work=1.0), {})
    monkeypatch.setenv(ENV_MAX_ELEMENTS, "lots")
    with pytest.raises(ParameterError, match=ENV_MAX_ELEMENTS):
        check_cost("r", Cost(elements=1.0), {})


def test_check_refuses_an_instance_above_the_ceiling_before_computing(fake_results, monkeypatch):
    import dataclasses

    from theorems.core import registry

    result = theorems.get(FAKE_ID)

    def never(params, form, ctx):
        raise AssertionError("computed")

    huge = dataclasses.replace(result, cost=lambda p: Cost(elements=10.0 ** p["n"]), evaluate=never)
    monkeypatch.setitem(registry._REGISTRY, FAKE_ID, huge)
    with pytest.raises(ResourceLimit, match="tensor elements"):
        theorems.check(FAKE_ID, n=9)
    overflow = dataclasses.replace(huge, cost=lambda p: Cost(elements=10.0 ** (p["n"] * 100)))
    monkeypatch.setitem(registry._REGISTRY, FAKE_ID, overflow)
    with pytest.raises(ResourceLimit, match="cannot even be estimated"):
        theorems.check(FAKE_ID, n=9)


# -- options every check takes -------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(allow_violation="false"), dict(allow_violation=1), dict(form=""),
                                    dict(form="printed"), dict(form=3), dict(device=3), dict(seed=2**64),
                                    dict(seed=-1), dict(x=math.nan)])
def test_options_are_typed(fake_results, kwargs):
    with pytest.raises(ParameterError, match=next(iter(kwargs))):
        theorems.check(FAKE_ID, **kwargs)


def test_a_hypothesis_is_still_a_hypothesis_violation(fake_results):
    with pytest.raises(HypothesisViolation, match="0 ≤ x ≤ 1"):
        theorems.check(FAKE_ID, x=2.0)
    assert not theorems.check(FAKE_ID, x=2.0, allow_violation=True).holds


# -- the self-fuzz ------------------------------------------------------------------------------------------------
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_bad_call_of_the_fuzzer_is_refused(fake_results, data):
    """The generator of checks/test_conformance.py's fuzz, on the fake: every drawn call is refused with a
    typed error that names what is wrong (a generator that drew a valid call would fail here)."""
    from theorems.strategies.fuzz import bad_calls

    kwargs, wrong = data.draw(bad_calls(theorems.get(FAKE_ID)))
    with pytest.raises((ParameterError, HypothesisViolation)) as err:
        theorems.check(FAKE_ID, **kwargs)
    assert next(iter(kwargs)) in str(err.value), wrong


def test_a_non_finite_verdict_is_an_error_of_the_suite(fake_results, monkeypatch):
    import dataclasses

    from theorems.core import registry
    from theorems.core.errors import SuiteError
    from theorems.core.evidence import Claim
    from theorems.core.result import Outcome

    result = theorems.get(FAKE_ID)
    vacuous = dataclasses.replace(result, evaluate=lambda p, f, c: Outcome(
        claims=[Claim.at_most("error_bound", 0.2, math.inf)]))
    monkeypatch.setitem(registry._REGISTRY, FAKE_ID, vacuous)
    with pytest.raises(SuiteError, match="non-finite"):
        theorems.check(FAKE_ID)
    nan = dataclasses.replace(result, evaluate=lambda p, f, c: Outcome(claims=[Claim.at_most("b", math.nan, 1.0)]))
    monkeypatch.setitem(registry._REGISTRY, FAKE_ID, nan)
    assert not theorems.check(FAKE_ID).holds  # a NaN never holds


def test_declarations_are_values_and_flags_default_off():
    import dataclasses

    p = Param("xs", list[float], (0.5, 0.5), "repeats allowed unless distinct")
    assert p.coerce([1.0, 1.0]) == (1.0, 1.0) and p.coerce("2,1") == (2.0, 1.0)  # neither distinct nor increasing
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.low = 0.0
    with pytest.raises(ValueError, match="log-uniform"):
        Param("lam", float, 0.5, "λ", low=0.0, sample=(0.0, 1.0), log=True)


def test_acceptable_is_the_domain_the_hypotheses_and_the_ceiling(fake_results):
    from theorems.core.params import acceptable

    result = theorems.get(FAKE_ID)
    assert acceptable(result, dict(result.defaults), "corrected")
    assert not acceptable(result, {**result.defaults, "x": 2.0}, "corrected")  # a hypothesis
    assert not acceptable(result, {**result.defaults, "n": 0}, "corrected")  # the domain
    import dataclasses

    huge = dataclasses.replace(result, cost=lambda p: Cost(elements=1e30))
    assert not acceptable(huge, dict(result.defaults), "corrected")  # the ceiling
