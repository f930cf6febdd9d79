"""The fuzz sweep of issue 26, item 8 (``tools/fuzz.py --sweep``): its plan reaches every declared domain edge,
lengths 1, budgets at both ends, ints beyond float range and non-string ids; its classification turns a failing
verdict on valid input into a named defect, never a silent "fails"; and the defects it found stay fixed."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pytest

import theorems
from theorems.core.errors import ParameterError, ResourceLimit, UnknownResult
from theorems.core.evidence import Claim
from theorems.core.result import Status
from tool_modules import load_tool

ROOT = Path(__file__).resolve().parents[1]
fuzz = load_tool("fuzz", "fuzz_tool")


def test_domain_edges_reach_both_ends_lengths_one_and_every_choice():
    res = theorems.get("cl_generalization.theorem_2")
    by = {p.name: p for p in res.params}
    assert fuzz.domain_edges(by["adversarial_steps"]) == [2000]  # 0 is the default: both budget ends covered
    assert set(fuzz.domain_edges(by["max_deltas"])) == {1, 64}
    assert set(fuzz.domain_edges(by["rho_mutation"])) == set(by["rho_mutation"].choices) - {"none"}
    sizes = by["sizes"]
    edges = fuzz.domain_edges(sizes)
    assert any(sizes.low in v for v in edges) and any(sizes.high in v for v in edges)
    lemma = {p.name: p for p in theorems.get("ssl_dynamics.theorem_3").params}["lams"]
    assert any(len(v) == 1 for v in fuzz.domain_edges(lemma))  # a list of length 1 where the domain allows it
    for p in res.params:  # every edge is inside the declared domain
        for v in fuzz.domain_edges(p):
            p.coerce(v, res.id)


def test_the_plan_holds_bad_ids_huge_ints_for_every_numeric_parameter_and_every_result():
    plan = fuzz.sweep_plan(only="cl_generalization.")
    bad_ids = [rid for kind, rid, _ in plan if kind == "bad" and rid not in theorems.ids()]
    for rid in (3, None, 2.5, b"cl_generalization.theorem_2", ["cl_generalization.theorem_2"], ""):
        assert rid in bad_ids
    for rid in theorems.ids():
        if not rid.startswith("cl_generalization."):
            continue
        assert ("default", rid, {}) in plan
        for p in theorems.get(rid).params:
            if p.numeric:
                assert any(k == "bad" and r == rid and p.name in kw and kw[p.name] in (fuzz.HUGE, [fuzz.HUGE])
                           for k, r, kw in plan)


@pytest.mark.parametrize("rid", [3, None, 2.5, b"x", ["cl_generalization.theorem_2"], "", "no_such.result"])
def test_non_string_and_unknown_ids_are_typed_errors(rid):
    with pytest.raises((ParameterError, UnknownResult)):
        theorems.check(rid)


@pytest.mark.parametrize("rid", ["cl_generalization.theorem_2", "cl_generalization.theorem_3",
                                 "deep_fusion.trained_attention"])
def test_an_int_beyond_float_range_names_its_parameter(rid):
    for p in theorems.get(rid).params:
        if not p.numeric:
            continue
        with pytest.raises(ParameterError) as err:
            theorems.check(rid, **{p.name: [fuzz.HUGE] if p.is_list else fuzz.HUGE})
        assert err.value.name == p.name and "characters)" in str(err.value)  # not printed in full


def _ev(*, passed, converged=True, violations=(), form=None, status=Status.VERIFIED):
    res = SimpleNamespace(default_form=form or "as_printed", status=status)
    claim = Claim.at_most("b", 2.0 if not passed else 0.5, 1.0)
    ev = SimpleNamespace(converged=converged, violations=list(violations), form=form or "as_printed",
                         failed_bounds=[] if passed else [claim])
    return ev, res


def test_a_failing_verdict_on_valid_input_is_a_defect_not_a_silent_fails():
    assert fuzz.classify(*_ev(passed=False))[0] == "silent fails"
    assert "silent fails" in fuzz.DEFECTS
    assert fuzz.classify(*_ev(passed=False, converged=False))[0] == "not converged"
    assert fuzz.classify(*_ev(passed=False, violations=["a control"]))[0] == "evidence"
    assert fuzz.classify(*_ev(passed=False, status=Status.REFUTED))[0] == "evidence"
    assert fuzz.classify(*_ev(passed=True))[0] == "evidence"


def test_the_trained_depth_sweep_at_its_budget_ceiling_is_refused():
    with pytest.raises(ResourceLimit):
        theorems.check("neural_collapse.theorem_4_3_depth", train_iter=100_000)


def test_theorem_3_off_the_sphere_is_finite():
    """Found by the sweep: r = 1000 (a control) made the printed RHS exp(…)=inf, and the claim held on it."""
    ev = theorems.check("cl_generalization.theorem_3", r=1000.0, allow_violation=True)
    assert math.isfinite(ev.bound) and math.isfinite(ev.observed)
    base = theorems.check("cl_generalization.theorem_3")
    assert math.isclose(base.bound, 5.6012717069750995, rel_tol=1e-12)  # the log-space RHS is the same number
