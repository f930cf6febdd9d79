"""The checks particular to ``nonlinear_cl.summation_model`` (Section 3.1, eq. (9) (computed in Appendix B.1)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_named_iff,
    assert_out_of_domain_refused,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
)
from theorems.nonlinear_cl import examples
from theorems.nonlinear_cl.examples import SUM_BINDING_ABOVE, SUM_BINDING_BELOW

SUM = "nonlinear_cl.summation_model"
Q_STAR = (3 - math.sqrt(5)) / 2  # written out: the threshold of §3.1, independent of the module's constant
N = "nonlinear_cl."


# (result id, form, params, a fragment of the hypothesis named, or None: inside every hypothesis)
EDGES = [
    # eq. (9)'s threshold (3 − √5)/2 = 0.38196601125: the verifier refuses q within 1e-6 of it (literal distances)
    ("nonlinear_cl.summation_model", None, dict(q=0.381966), "|q − (3 − √5)/2| ≥ 1e-6"),  # 1.1e-8 away
    ("nonlinear_cl.summation_model", None, dict(q=0.3819665), "|q − (3 − √5)/2| ≥ 1e-6"),  # 4.9e-7 away
    ("nonlinear_cl.summation_model", None, dict(q=0.381971), None),  # 5.0e-6 away
    ("nonlinear_cl.summation_model", None, dict(q=0.38196), None),  # 6.0e-6 below
    ('nonlinear_cl.summation_model', None, dict(threshold=0.0), 'the printed threshold (3 − √5)/2'),
    ('nonlinear_cl.summation_model', None, dict(closed_form_scale=0.001), 'exact closed forms (9)'),
]


# (result, form, params, hypothesis (a substring of its name), named?)
EDGE_NAMES = [
    # the summation model: the verifier's exclusion |q − q*| ≥ 1e-6 on both sides of q*, just in and just out
    (N + "summation_model", None, dict(q=Q_STAR + 5e-7), "|q − (3 − √5)/2| ≥ 1e-6", True),
    (N + "summation_model", None, dict(q=Q_STAR - 5e-7), "|q − (3 − √5)/2| ≥ 1e-6", True),
    (N + "summation_model", None, dict(q=Q_STAR + 2e-6), "|q − (3 − √5)/2| ≥ 1e-6", False),
    (N + "summation_model", None, dict(q=Q_STAR - 2e-6), "|q − (3 − √5)/2| ≥ 1e-6", False),
    (N + "summation_model", None, dict(threshold=Q_STAR + 1e-12), "the printed threshold", True),
    (N + "summation_model", None, dict(threshold=Q_STAR), "the printed threshold", False),
    (N + "summation_model", None, dict(closed_form_scale=1 + 1e-12), "exact closed forms (9)", True),
    (N + "summation_model", None, dict(closed_form_scale=1.0), "exact closed forms (9)", False),
]


def test_summation_wrong_threshold_fails_the_iff(run):
    ev = run(SUM, q=0.45, threshold=0.5, allow_violation=True)
    assert not ev.claim("lme_iff_below_threshold").passed and ev.details["signed_gap_u1"] < 0


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, form, params, name, present", EDGE_NAMES, ids=short_row_ids(EDGE_NAMES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


# -- §3 examples -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params, is_lme", [(SUM_BINDING_BELOW, True), (SUM_BINDING_ABOVE, False)])
def test_summation_threshold_on_both_sides_of_it(run, params, is_lme):
    ev = run(SUM, **params)
    assert ev.holds, ev.explain()
    q = params["q"]
    assert ev.details["signed_gap_u1"] == pytest.approx(1 - 3 * q + q * q, abs=1e-12)  # signed gap, eq. (9)
    assert all(ev.details["is_lme"]) is is_lme


def test_the_summation_threshold_is_the_module_constant():
    """The rows above write q* out; the module's constant is the same number (a typo in it fails here)."""
    assert abs(examples.Q_STAR - Q_STAR) <= 1e-15


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.summation_model")


def test_values_outside_the_domain_are_refused_with_the_parameter_named():
    assert_out_of_domain_refused("nonlinear_cl.summation_model", dict(q=0.0))  # the out-of-domain value is the last one


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.summation_model", dict(q=(3 - math.sqrt(5)) / 2), "threshold")
