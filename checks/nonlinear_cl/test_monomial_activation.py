"""The checks particular to ``nonlinear_cl.monomial_activation`` (Section 3, Assumption 1 and eq. (6) (monomial
activations), with Lemma 3): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import (
    assert_default_and_bindings_hold,
    assert_energy_identity_pinned_just_outside,
    assert_hypothesis_edge,
    assert_registered_bindings,
    assert_registered_controls_step_over_and_fail,
    row_ids,
)

MONO = "nonlinear_cl.monomial_activation"
AP = "as_printed"
NL = "nonlinear_cl."


EDGES = [
    # monomial_activation: a shift either way, the constant 1, the formula scale
    (NL + "monomial_activation", None, dict(shift=0.01), "a monomial h = s^p"),
    (NL + "monomial_activation", None, dict(shift=-0.01), "a monomial h = s^p"),
    (NL + "monomial_activation", None, dict(constant="one"), "the global constant 1/p"),
    (NL + "monomial_activation", None, dict(formula_scale=0.999), "exact formulas"),
    (NL + "monomial_activation", None, dict(stop_gradient=False, alpha="infonce"), "α held fixed"),
    ('nonlinear_cl.monomial_activation', None, dict(stop_gradient=False), 'α held fixed (stop-gradient, eq. 2)'),
    ('nonlinear_cl.monomial_activation', None, dict(stop_gradient=False), "stop_gradient=False needs alpha='infonce'"),
    ('nonlinear_cl.monomial_activation', None, dict(formula_scale=0.001), 'exact formulas'),
    ('nonlinear_cl.monomial_activation', None, dict(shift=-10.0), 'a monomial h = s^p'),
    ('nonlinear_cl.monomial_activation', None, dict(constant='one'), "the global constant 1/p of h'(s)s = p·h(s)"),
]


@pytest.mark.parametrize("power", [2, 3, 5, 8])
def test_monomial_holds_with_one_over_p(run, power):
    ev = run(MONO, form=AP, power=power)
    assert ev.holds and ev.details["constant"] == 1 / power, ev.explain()


def test_monomial_without_the_constant_is_off_by_p(run):
    ev = run(MONO, form=AP, constant="one", allow_violation=True)  # p = 3
    assert ev.claim("eq_6_with_constant").observed == pytest.approx(2.0, rel=1e-9)  # p − 1
    assert ev.claim("energy_identity").observed == pytest.approx(8.0, rel=1e-9)  # p² − 1


def test_monomial_non_monomial_breaks_all(run):
    ev = run(MONO, form=AP, shift=1.0, allow_violation=True)
    assert {"eq_6_with_constant", "energy_identity", "riemannian_gradient"} <= {c.name for c in ev.failed_bounds}


def test_monomial_binding_has_a_large_dynamic_range(run):
    ev = run(MONO, form=AP, power=8, scale=3.0)
    assert ev.holds and ev.details["energy_min"] > 1e6, ev.explain()


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_registered_bindings_are_the_documented_ones():
    # where each hypothesis binds, as the module's docstring documents
    assert_registered_bindings("nonlinear_cl.monomial_activation", [dict(power=8, scale=3.0)])


def test_tolerance_pinned_just_outside(run):
    assert_energy_identity_pinned_just_outside(run, "nonlinear_cl.monomial_activation")


def test_registered_controls_are_outside_the_hypotheses_and_fail(run):
    assert_registered_controls_step_over_and_fail(run, "nonlinear_cl.monomial_activation")


def test_default_and_registered_binding_instances_hold(run):
    assert_default_and_bindings_hold(run, "nonlinear_cl.monomial_activation")
