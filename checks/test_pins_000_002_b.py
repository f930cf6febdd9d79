"""More tolerances of papers 000 and 002 pinned by REGISTERED controls (issue 26, item 9; see
checks/test_pins_000_002.py for the rule). These pins are not bound claims failing by 1–10 allowances but
certificates and thresholds: each test names its control by literal parameters, finds it among
``Result.controls`` and checks what a loosened or tightened constant would change."""


from __future__ import annotations


import pytest
from checks.pinning import excess
from theorems.core import recording, registry
from theorems.core.verdict import run_spec


def registered(rid: str, control: dict):
    result = registry.get(rid)
    assert control in [dict(c) for c in result.controls], f"{rid}: {control} is not a registered control"
    return result


# (result id, the registered control, the bound claims it pins, what the control may end as)
PINS_B = [
    ("ssl_dynamics.remark_3",
     dict(projector="orthonormal", C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, steps=1460), ("output_collapses",),
     recording.NOT_CONVERGED),
    ("ssl_dynamics.proposition_1", dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05, steps=1380),
     ("collapsed_to_rank_one",), recording.NOT_CONVERGED),
    ("ssl_dynamics.proposition_1", dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05, steps=740),
     ("rows_align_with_v1",), recording.NOT_CONVERGED),
    ("ssl_dynamics.theorem_3", dict(T=9.7), ("limit",), recording.NOT_CONVERGED),
    ("ssl_dynamics.proposition_3", dict(max_iter=24), ("rank_at_optimum",), recording.NOT_CONVERGED),
]


@pytest.mark.parametrize("rid, control, claims, outcome", PINS_B, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(PINS_B)])
def test_registered_control_pins_the_tolerance_b(run, rid, control, claims, outcome):
    result = registered(rid, control)
    ev = recording.expect(run_spec(run, result, control), outcome)
    if outcome == recording.NOT_CONVERGED:
        assert ev.converged is False
    for name in claims:
        c = ev.claim(name)
        assert c.kind in ("bound", "proof_step") and c.allowance > 0, c  # a proof step decides an erratum
        assert 1.0 < excess(c) <= 10.0, f"{rid}: {name} is {excess(c):.3g} allowances outside on {control}"


def test_remark_3_short_budget_is_not_converged_and_a_settled_ratio_is(run):
    """A budget that ends while σ₂/σ₁ still shrinks is 'not converged' (never a failed claim on a statement the
    suite verifies); the counterexample's σ₂/σ₁ settles at 0.157 and is converged, so it still replays."""
    from theorems.ssl_dynamics import remark_3

    short = recording.expect(run(remark_3.ID, steps=4), recording.NOT_CONVERGED)
    assert short.converged is False
    cx = run(remark_3.ID, form="as_printed", **remark_3.COUNTEREXAMPLE)
    assert cx.converged is True and not cx.holds and cx.details["steps_run"] == 5000
    assert run(remark_3.ID).converged is True and run(remark_3.ID).details["steps_run"] < 5000


# Hypothesis checks of papers 000 and 002 that no row of checks/test_hypotheses_000_002.py named, each at its edge
# (one row on each side where the check is a comparison): same test, more rows.
CASES_B = [
    ("ssl_dynamics.proposition_1", None, dict(h=3, z=3), None),  # h = z
    ("ssl_dynamics.proposition_1", None, dict(h=2, z=3), "h ≥ z"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta_two_layer=0.4999), None),  # 2η₂·1 < 1
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta_two_layer=0.5), "η₂ < 1/(2 max|λ(C)|)"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta=0.9999), None),  # 1 − 2η·0.5 > 0
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta=1.0), "η < 1/(2λ_max)"),
    ("ssl_dynamics.proposition_1", None, dict(closed_form_factor=2.2), "exact closed form"),
]


@pytest.mark.parametrize("rid, form, params, name", CASES_B, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(CASES_B)])
def test_hypothesis_edge_is_named_b(rid, form, params, name):
    from checks.test_hypotheses_000_002 import test_hypothesis_edge_is_named

    test_hypothesis_edge_is_named(rid, form, params, name)


def test_proposition_1_linear_run_stops_at_the_first_step_past_its_cap(run):
    """η = 10: Θ grows ×81 a step. The run stops at the first step past ‖Θ‖ = 1e100·‖Θ₀‖ (literal: float64's
    1e308 must hold the squares of the norms), so the growth lies in (1e100, 81·1e100]: as far as the cap allows."""
    ev = run("ssl_dynamics.proposition_1", eta=10.0, allow_violation=True)
    assert 1e100 < ev.details["norm_growth"] <= 81 * 1e100 * (1 + 1e-9)
