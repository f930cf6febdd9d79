"""The checks particular to ``nonlinear_cl.categorical_model`` (Section 3.1, eq. (8) (computed in Appendix B.1)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import (
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
)
from theorems import HypothesisViolation
from theorems.nonlinear_cl.examples import CAT_BINDING

CAT = "nonlinear_cl.categorical_model"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # §3 examples: the categorical model
    (N + "categorical_model", None, dict(M=6, p_min=1 / 6), "0 ≤ p_min < 1/M", True),
    (N + "categorical_model", None, dict(M=6, p_min=1 / 6 - 1e-9), "0 ≤ p_min < 1/M", False),
    (N + "categorical_model", None, dict(M=4, p_min=0.25 - 1e-9), "0 ≤ p_min < 1/M", False),
    (N + "categorical_model", None, dict(M=4, p_min=0.25 + 1e-9), "0 ≤ p_min < 1/M", True),
    (N + "categorical_model", None, dict(closed_form_scale=1 + 1e-12), "exact closed form (8)", True),
    (N + "categorical_model", None, dict(closed_form_scale=1.0), "exact closed form (8)", False),
    (N + "categorical_model", None, dict(h_prime_at_zero=1e-9), "h'(0) = 0", True),
    (N + "categorical_model", None, dict(h_prime_at_zero=0.0), "h'(0) = 0", False),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.categorical_model', None, dict(h_prime_at_zero=1.0), "h'(0) = 0 (the paper's ReLU convention, B.1)"),
    ('nonlinear_cl.categorical_model', None, dict(p_min=0.5), '0 ≤ p_min < 1/M'),
    ('nonlinear_cl.categorical_model', None, dict(closed_form_scale=0.001), 'exact closed form (8)'),
    ("nonlinear_cl.categorical_model", None, dict(M=4, p_min=0.2499), None),  # p_min < 1/M = 0.25
    ("nonlinear_cl.categorical_model", None, dict(M=4, p_min=0.25), "0 ≤ p_min < 1/M"),
]


@pytest.mark.parametrize("M", [2, 5])
def test_categorical_identity_and_kinks(run, M):
    ev = run(CAT, M=M, seed=M)
    assert ev.holds, ev.explain()
    assert all(ev.details["is_kink"])  # u_m is an LME by Definition 3 but a kink: Theorem 1 does not apply


def test_structural_hypotheses_are_not_bypassable():
    with pytest.raises(HypothesisViolation, match="p_min"):
        theorems.check(CAT, allow_violation=True, M=2, p_min=0.5)


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_categorical_rare_pattern_is_still_an_lme(run):
    ev = run(CAT, **CAT_BINDING)
    assert ev.holds and ev.details["min_p(1-p)"] == pytest.approx(1e-6 * (1 - 1e-6), rel=1e-9)


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.categorical_model")


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.categorical_model", dict(p_min=0.5), "p_min")
