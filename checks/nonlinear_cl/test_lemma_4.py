"""The checks particular to ``nonlinear_cl.lemma_4`` (Section 4.1, Lemma 4, eq. (12) (proof in Appendix C.1)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    hypotheses_named,
    row_ids,
    short_row_ids,
)

L4 = "nonlinear_cl.lemma_4"
N = "nonlinear_cl."


EDGES = [
    ("nonlinear_cl.lemma_4", None, dict(formula_scale=1.001), "exact formula (12)"),
    ("nonlinear_cl.lemma_4", None, dict(activation="leaky"), None),
    (N + "lemma_4", None, dict(activation="relu"), None),
    (N + "lemma_4", None, dict(stop_gradient=False, alpha="infonce"), "α held fixed"),
    (N + "lemma_4", None, dict(stop_gradient=False, alpha="random"), "stop_gradient=False needs alpha='infonce'"),
    (N + "lemma_4", None, dict(formula_scale=0.999), "exact formula (12)"),
    ('nonlinear_cl.lemma_4', None, dict(activation='quadratic'), "homogeneous activation h(x) = h'(x)x (Assumption 1)"),
    ('nonlinear_cl.lemma_4', None, dict(stop_gradient=False), 'α held fixed (stop-gradient, eq. 2)'),
    ('nonlinear_cl.lemma_4', None, dict(stop_gradient=False), "stop_gradient=False needs alpha='infonce'"),
    ('nonlinear_cl.lemma_4', None, dict(formula_scale=0.001), 'exact formula (12)'),
]


# (result, form, params, hypothesis (a substring of its name), named?)
EDGE_NAMES = [
    (N + "lemma_4", None, dict(activation="tanh"), "homogeneous activation", True),
    (N + "lemma_4", None, dict(activation="leaky"), "homogeneous activation", False),
    (N + "lemma_4", None, dict(formula_scale=1 - 1e-12), "exact formula (12)", True),
    (N + "lemma_4", None, dict(formula_scale=1.0), "exact formula (12)", False),
]


# -- Lemma 4 ------------------------------------------------------------------------------------------------------------
def test_lemma_4_quadratic_activation_doubles_the_w_formula(run):
    ev = run(L4, activation="quadratic", allow_violation=True)
    assert ev.claim("W_gradient").observed == pytest.approx(1.0, rel=1e-9)  # ‖2g − g‖/‖g‖: h'(s)s = 2h
    assert ev.claim("V_gradient").passed  # V̇ = V C_α[f₁] needs no homogeneity


def test_lemma_4_binding_instance_has_exact_kinks(run):
    ev = run(L4, kinks=True)
    assert ev.holds and ev.details["zero_preactivations"] > 0


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, form, params, name, present", EDGE_NAMES, ids=short_row_ids(EDGE_NAMES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


def test_infonce_alpha_may_be_differentiated():
    """stop_gradient=False with InfoNCE's α breaks only 'α held fixed' (the control); the refusal of other α's
    (only InfoNCE's α depends on θ) is not named there."""
    names = hypotheses_named(N + "lemma_4", None, dict(stop_gradient=False, alpha="infonce"))
    assert names and not any("needs alpha='infonce'" in n for n in names), names


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.lemma_4")
