"""Tolerances of papers 000 and 002 pinned by REGISTERED controls just outside them (issue 26, item 9).

A tolerance is pinned when some registered negative control fails its claim by more than the allowance and by at
most 10 allowances: then the tolerance loosened ×10 (or ×1000) lets that control pass, and tightened ÷10 the
control's failure is more than 10 allowances, so either mutant fails this test. Each row names the control by its
literal parameters (never built from the constant it pins, which would move with it) and the test finds it among
``Result.controls``: the registered control is what is checked, not a copy of it kept by a test or a report.
"""


from __future__ import annotations


import pytest
from checks.pinning import assert_registered_pin


# (result id, the registered control, the bound claims it pins)
PINS = [
    ("ssl_dynamics.lemma_1", dict(kernel_scale=1 + 1e-10, allow_violation=True), ("diagonal_equals_kernel",)),
    ("ssl_dynamics.proposition_2", dict(bound_scale=1 + 3e-6, allow_violation=True),
     ("best_reaches_closed_form", "nonlinear_inner_minimum")),
    ("ssl_dynamics.proposition_2", dict(bound_scale=1 - 3e-10, allow_violation=True),
     ("no_start_below_closed_form", "nonlinear_no_start_below")),
    ("ssl_dynamics.proposition_3", dict(bound_scale=1 + 3e-6, allow_violation=True),
     tuple(f"problem_{j}_reaches_Lstar" for j in (1, 2, 3, 4))),
    ("ssl_dynamics.proposition_3", dict(bound_scale=1 - 3e-10, allow_violation=True),
     tuple(f"problem_{j}_not_below_Lstar" for j in (1, 2, 3, 4))),
    ("ssl_dynamics.theorem_2", dict(init_perturb=3e-8, allow_violation=True), ("trajectory_matches_ode9",)),
    ("ssl_dynamics.theorem_2", dict(init_perturb=1e-8, allow_violation=True), ("width_independent",)),
    ("ssl_dynamics.theorem_2", dict(init_perturb=2e-10, allow_violation=True), ("velocity_matches_ode9",)),
    ("ssl_dynamics.figure_3", dict(T=6.0, allow_violation=True), ("same_final_loss",)),
    ("ssl_dynamics.figure_3", dict(T=9.0, allow_violation=True), ("same_final_outputs",)),
    ("ssl_dynamics.figure_3", dict(step_sign=1.0, allow_violation=True), ("riemannian_gd_first_order",)),
    ("ssl_dynamics.expected_c", dict(formula_scale=1.01, allow_violation=True), ("expectation",)),
    ("ssl_dynamics.new_data_point", dict(time_scale=1 + 2e-8, allow_violation=True), ("ode_predicts_new_points",)),
    ("ssl_dynamics.new_data_point", dict(T=8.0, allow_violation=True), ("limit_on_new_points",)),
    ("ssl_dynamics.remark_1", dict(coupling=2e-11, allow_violation=True), ("joint_equals_independent",)),
    ("ssl_dynamics.example_1", dict(steps=100), ("orthogonal_reaches_the_minimum",)),
    ("ssl_dynamics.example_1", dict(steps=130), ("fixed_point_independent_of_init",)),
]


@pytest.mark.parametrize("rid, control, claims", PINS, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(PINS)])
def test_registered_control_pins_the_tolerance(run, rid, control, claims):
    assert_registered_pin(run, rid, control, claims)
