"""The checks particular to ``nonlinear_cl.theorem_2`` (Section 3.2, Theorem 2 (proof in Appendix B.3)): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import pytest

from checks.pinning import (
    assert_fails_within_ten_times_the_bound,
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_registered_bindings,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
)
from theorems.core import recording, registry

T2 = "nonlinear_cl.theorem_2"
NL = "nonlinear_cl."


EDGES = [
    # theorem_2: the bound at C₀' < C₀ violates ‖x‖ ≤ C₀'; a larger C₀' does not
    (NL + "theorem_2", None, dict(bound_radius_scale=0.999), "‖x‖₂ ≤ C₀"),
    (NL + "theorem_2", None, dict(bound_radius_scale=1.001), None),
    (NL + "theorem_2", None, dict(closed_form_scale=1.001), "exact reference formula"),
    (NL + "theorem_2", None, dict(closed_form_scale=0.999), "exact reference formula"),
    ('nonlinear_cl.theorem_2', 'as_printed', dict(bound_radius_scale=0.001), '‖x‖₂ ≤ C₀'),
    ('nonlinear_cl.theorem_2', 'as_printed', dict(closed_form_scale=0.001), 'exact reference formula for ρ'),
    ('nonlinear_cl.theorem_2', None, dict(bound_radius_scale=0.001), '‖x‖₂ ≤ C₀'),
    ('nonlinear_cl.theorem_2', None, dict(closed_form_scale=0.001), 'exact reference formula for ρ'),
]


# -- Theorem 2 ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("C0", [0.01, 0.1, 0.14])
def test_theorem_2_printed_bound_fails_by_the_closed_form(run, C0):
    ev = run(T2, C0=C0, form="as_printed")
    assert not ev.holds
    assert ev.observed == pytest.approx((2 * C0 / (3 * math.pi)) ** 2, rel=1e-6)  # uniform disk, exact
    assert ev.observed / ev.bound == pytest.approx(4 / (9 * math.pi * C0), rel=1e-6)


def test_theorem_2_printed_holds_above_the_break_point(run):
    assert run(T2, C0=0.2, form="as_printed").holds


def test_theorem_2_corrected_ratio_is_scale_free(run):
    for C0 in (0.1, 1.0):
        assert run(T2, C0=C0).tightness == pytest.approx(4 / (9 * math.pi), rel=1e-6)
    a, b = run(T2, C0=0.3, profile="bump"), run(T2, C0=30.0, profile="bump")
    assert b.observed / a.observed == pytest.approx(100.0**2, rel=1e-6)  # ρ(s·x) = s²ρ(x)


def test_theorem_2_reference_formula_tolerance_is_pinned(run):
    ev = run(T2, closed_form_scale=1 + 1e-5, allow_violation=True)
    assert not ev.claim("fd_matches_exact_formula").passed


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_2_printed_break_is_where_the_measured_ratio_crosses_one(run):
    """The reported C₀ below which the printed bound fails (4/(9π) on the uniform disk) is where the measured
    ρ_fd/bound, which scales as 1/C₀, equals 1: recomputed from the counterexample C₀ = 0.1."""
    ev = recording.expect(run("nonlinear_cl.theorem_2", form="as_printed", C0=0.1), recording.FAILS)
    crossing = ev.details["rho_fd"] / ev.details["bound"] * 0.1
    assert abs(crossing / ev.details["printed_bound_fails_below_C0_(uniform)"] - 1) < 1e-6


def test_theorem_2_counterexamples_are_the_documented_two(run):
    """Theorem 2's printed bound fails for the uniform disk below C₀ = 4/(9π) ≈ 0.1415: the registered
    counterexamples are C₀ = 0.1 (near that edge: ρ/bound = 0.1415/0.1 ≈ 1.41) and 0.01 (≈ 14), literal values."""
    result = registry.get("nonlinear_cl.theorem_2")
    assert [dict(c) for c in result.counterexamples] == [dict(C0=0.1), dict(C0=0.01)]
    ev = recording.expect(run("nonlinear_cl.theorem_2", form="as_printed", C0=0.1), recording.FAILS)
    c = ev.claim("roughness_below_printed_bound")
    assert c.observed / c.bound == pytest.approx(4 / (9 * math.pi) / 0.1, rel=1e-5), c


def test_registered_instance_fails_within_ten_times_the_bound(run):
    """A bound constant (or a z-threshold) pinned by a registered failing instance whose observed value lies in
    (bound, 10·bound]: the constant loosened ×10 lets it pass."""
    assert_fails_within_ten_times_the_bound(
        run, "nonlinear_cl.theorem_2", "controls", dict(bound_radius_scale=0.5, allow_violation=True),
        ("roughness_below_corrected_bound",))  # 2.3


def test_registered_bindings_are_the_documented_ones():
    # where each hypothesis binds, as the module's docstring documents
    assert_registered_bindings("nonlinear_cl.theorem_2", [dict(C0=1.0), dict(C0=0.1, profile="bump", k=1)])


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.theorem_2")


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.theorem_2", dict(bound_radius_scale=0.5), "‖x‖₂ ≤ C₀")
