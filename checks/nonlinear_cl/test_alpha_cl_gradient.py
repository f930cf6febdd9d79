"""The checks particular to ``nonlinear_cl.alpha_cl_gradient`` (Section 2, eqs. (1)–(3) (the α-CL correspondence,
Theorem 1 of Tian (2022); used in Appendix C.1)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
)

ACL = "nonlinear_cl.alpha_cl_gradient"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # α-CL gradient (§2): ε = 0, α_ii = 0, c = 2N²
    (N + "alpha_cl_gradient", None, dict(eps=1e-9), "ε = 0", True),
    (N + "alpha_cl_gradient", None, dict(eps=0.0), "ε = 0", False),
    (N + "alpha_cl_gradient", None, dict(alpha_diag=True), "α_ii = 0", True),
    (N + "alpha_cl_gradient", None, dict(alpha_diag=False), "α_ii = 0", False),
    (N + "alpha_cl_gradient", None, dict(energy_scale=1 + 1e-12), "c = 2N²", True),
    (N + "alpha_cl_gradient", None, dict(energy_scale=1 - 1e-12), "c = 2N²", True),
    (N + "alpha_cl_gradient", None, dict(energy_scale=1.0), "c = 2N²", False),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.alpha_cl_gradient', None, dict(eps=1000.0), 'ε = 0'),
    ('nonlinear_cl.alpha_cl_gradient', None, dict(alpha_diag=True), 'α_ii = 0 (the sum in eq. 1 excludes j = i)'),
    ('nonlinear_cl.alpha_cl_gradient', None, dict(energy_scale=0.001), 'c = 2N²'),
]


# -- α-CL correspondence ---------------------------------------------------------------------------------------------
def test_alpha_cl_gradient_extends_to_eps_with_the_eps_in_alpha(run):
    ev = run(ACL, eps=0.5, allow_violation=True)
    assert not ev.claim("gradient_matches_energy").passed  # the printed α (no ε term)
    assert ev.claim("eps_generalisation").observed < 1e-12  # α with ε·e^{−d_i²/τ} in its denominator


def test_alpha_cl_gradient_tolerance_is_pinned(run):
    assert not run(ACL, energy_scale=1 + 1e-9, allow_violation=True).holds  # 10× RTOL
    assert run(ACL, tau=0.001).details["max_alpha_row_mean"] > 0.95  # the binding instance is nearly one-hot


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.alpha_cl_gradient")
