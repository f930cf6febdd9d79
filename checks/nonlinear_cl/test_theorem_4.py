"""The checks particular to ``nonlinear_cl.theorem_4`` (Section 4.1, Theorem 4 (proof in Appendix C.4)): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import (
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_out_of_domain_refused,
    assert_registered_bindings,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
)
from theorems.core import recording, registry
from theorems.core.verdict import run_spec

T4 = "nonlinear_cl.theorem_4"
NL = "nonlinear_cl."


EDGES = [
    ("nonlinear_cl.theorem_4", None, dict(top_rank=2), "rank-1 top layer S = ssᵀ"),
    # theorem_4
    (NL + "theorem_4", None, dict(activation="relu"), "linear activation"),
    (NL + "theorem_4", None, dict(top_rank=2), "rank-1 top layer"),
    (NL + "theorem_4", None, dict(critical_start=False), "W* is a critical point"),
    (NL + "theorem_4", None, dict(formula_scale=1.001), "exact formula (14)"),
    (NL + "theorem_4", None, dict(formula_scale=0.999), "exact formula (14)"),
    ('nonlinear_cl.theorem_4', None, dict(activation='relu'), 'linear activation'),
    ('nonlinear_cl.theorem_4', None, dict(top_rank=16), 'rank-1 top layer S = ssᵀ'),
    ('nonlinear_cl.theorem_4', None, dict(critical_start=False), 'part (2): W* is a critical point'),
    ('nonlinear_cl.theorem_4', None, dict(formula_scale=0.001), 'exact formula (14)'),
]


# -- Theorem 4 ----------------------------------------------------------------------------------------------------------
def test_theorem_4_swap_path_of_the_proof_is_not_critical_but_the_statement_holds(run):
    ev = run(T4)
    assert ev.holds
    assert not ev.claim("swap_path_critical").passed and ev.claim("swap_path_critical").observed > 1e-3
    assert ev.details["grad_at_W_star"] <= 1e-12 * ev.details["grad_scale"]  # W* itself is critical


def test_theorem_4_controls(run):
    assert not run(T4, formula_scale=1 + 1e-9, allow_violation=True).claim("gradient_formula").passed  # 10 × RTOL
    assert not run(T4, critical_start=False, allow_violation=True).claim("identical_weights_path_critical").passed
    assert not run(T4, activation="relu", allow_violation=True).claim("colinear_within_rf").passed


def test_theorem_4_near_zero_s_km(run):
    ev = run(T4, s_small=1e-3)
    assert ev.holds and abs(ev.details["s_11"]) < 1e-3


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# -- Theorem 4: co-linearity is judged at the worst RF ---------------------------------------------------------------
# monkeypatch, not a Pin: T.grad is a function no parameter or module constant reaches
def test_theorem_4_colinearity_takes_the_worst_rf(monkeypatch):
    """Part (1)'s gradient block of ONE RF (k = 1) replaced by a rank-2 block with σ₂/σ₁ = 3e-10 (3 allowances of
    RTOL = 1e-10), RF 0 left as computed (σ₂/σ₁ ~ 1e-16): colinear_within_rf must fail at 3e-10 (the best RF would
    pass; RTOL ×10 would too)."""
    from theorems.nonlinear_cl import theorem_4 as T

    real, calls = T.grad, []

    def one_rf_off(*args, **kw):
        g = real(*args, **kw)
        calls.append(1)
        if len(calls) == 1:
            g = g.clone()
            g[1] = 0.0
            g[1, 0, 0], g[1, 1, 1] = 1.0, 3e-10
        return g

    monkeypatch.setattr(T, "grad", one_rf_off)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched gradient
    c = ev.claim("colinear_within_rf")
    assert not c.passed and c.observed == pytest.approx(3e-10, rel=1e-6), c


@pytest.mark.parametrize("control", [dict(activation="relu", allow_violation=True),
                                     dict(top_rank=3, allow_violation=True)])
def test_theorem_4_part_two_only_on_its_hypotheses(run, control):
    """Part (2) is stated for linear h and S = ssᵀ: the registered controls off either hypothesis judge part (1) only
    (``and`` turned ``or`` would walk part (2) on them)."""
    from theorems.nonlinear_cl import theorem_4 as T

    result = registry.get(T.ID)
    assert control in [dict(c) for c in result.controls]
    ev = recording.expect(run_spec(run, result, control), recording.FAILS)
    assert {c.name for c in ev.claims} == {"colinear_within_rf", "gradient_formula"}, [c.name for c in ev.claims]


def test_theorem_4_default_walks_part_two(run):
    """Inside both hypotheses (linear h, top_rank = 1, the default) part (2)'s two paths are judged."""
    ev = run("nonlinear_cl.theorem_4")
    assert {c.name for c in ev.claims} == {"colinear_within_rf", "gradient_formula", "identical_weights_path_critical",
                                           "swap_path_critical"}, [c.name for c in ev.claims]


# monkeypatch, not a Pin: T.grad is a function no parameter or module constant reaches
def test_theorem_4_identical_weights_path_is_judged_at_its_worst_point(monkeypatch):
    """Part (2) walks W(c) = (1 − c)W* + cW^id at c = 0, 0.2, …, 1 and claims every gradient vanishes: the gradient at
    ONE point (c = 0.4) patched by +1 in every entry must fail the claim (the best point, min for max, would pass)."""
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_4 as T

    real, calls = T.grad, []

    def one_point_off(*args, **kw):
        g = real(*args, **kw)
        calls.append(1)
        return g + 1.0 if len(calls) == 4 else g  # the 4th gradient of the run: part (1)'s, then c = 0, 0.2, 0.4

    monkeypatch.setattr(T, "grad", one_point_off)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched gradient
    c = ev.claim("identical_weights_path_critical")
    assert not c.passed and c.observed > 1e-6, c


def test_registered_bindings_are_the_documented_ones():
    # where each hypothesis binds, as the module's docstring documents
    assert_registered_bindings("nonlinear_cl.theorem_4", [dict(s_small=1e-3)])


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.theorem_4")


def test_values_outside_the_domain_are_refused_with_the_parameter_named():
    assert_out_of_domain_refused("nonlinear_cl.theorem_4", dict(s_small=1.5))  # the out-of-domain value is the last one


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.theorem_4", dict(top_rank=2), "rank-1 top layer")
