"""More tolerances of papers 000 and 002 pinned by REGISTERED controls (issue 26, item 9; see
checks/test_pins_000_002.py for the rule). These pins are not bound claims failing by 1–10 allowances but
certificates and thresholds: each test names its control by literal parameters, finds it among
``Result.controls`` and checks what a loosened or tightened constant would change."""

from __future__ import annotations

import pytest

from checks.pinning import excess
from theorems.core import recording, registry
from theorems.core.verdict import counterexample_problem, run_spec


def registered(rid: str, control: dict):
    result = registry.get(rid)
    assert control in [dict(c) for c in result.controls], f"{rid}: {control} is not a registered control"
    return result


def test_theorem_1_lp_zero_is_pinned_by_a_witness_just_above_it(run):
    """ε_z = 4e-6: independent lines, a witness exists with t* = ε_z²/4 = 4e-12. The printed claim fails (t* is
    below WITNESS_ATOL) but no "no witness" certificate may be issued: LP_ZERO loosened ×10 would certify one,
    and the control would replay as a counterexample to an existential statement that holds there."""
    control = dict(instance="k3_near_dependent", eps_z=4e-6, form="as_printed")
    result = registered("deep_fusion.theorem_1", control)
    ev = recording.expect(run_spec(run, result, control), recording.NOT_CONVERGED)
    assert not ev.converged and "witness_lp_unresolved" in ev.details
    assert [c.name for c in ev.failed_bounds] == ["witness_exists"]
    upper = ev.details["witness_lp_dual_upper_min"]
    assert 1e-12 < upper <= 1e-11, upper  # literal: 1–10 LP_ZEROs above it
    assert "no_witness_certificate" not in ev.details
    why = counterexample_problem(result, {k: v for k, v in control.items() if k != "form"}, run)
    assert why is not None and "certif" in why


def test_theorem_1_witness_atol_is_pinned_from_below(run):
    """ε_z = 4e-5: t* = 4e-10, between WITNESS_ATOL ÷ 10 and WITNESS_ATOL: the claim fails, uncertified, so the
    instance is not converged (undecided), not a failure."""
    control = dict(instance="k3_near_dependent", eps_z=4e-5, form="as_printed")
    result = registered("deep_fusion.theorem_1", control)
    ev = recording.expect(run_spec(run, result, control), recording.NOT_CONVERGED)
    c = ev.claim("witness_exists")
    assert not ev.converged and not c.passed and 1e-10 < c.observed < 1e-9, c
    assert "no_witness_certificate" not in ev.details


def test_theorem_1_lp_certificate_is_the_dual_bound(run):
    """Below t* ≈ 1e-7 HiGHS returns a point whose exact value is ≈ −ε_z² (negative: it stopped short), so a
    certificate read off the primal value would say "no witness" on independent lines; the dual bound is exact."""
    ev = recording.expect(run("deep_fusion.theorem_1", form="as_printed", instance="k3_near_dependent", eps_z=1e-5),
                          recording.NOT_CONVERGED)
    assert ev.details["witness_lp_min"] < 0 < ev.details["witness_lp_dual_upper_min"]
    assert abs(ev.details["witness_lp_dual_upper_min"] / (1e-5 ** 2 / 4) - 1) < 1e-6
    assert "no_witness_certificate" not in ev.details


# (result id, the registered control, the bound claims it pins, what the control may end as)
PINS_B = [
    ("ssl_dynamics.remark_3",
     dict(projector="orthonormal", C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, steps=1460), ("output_collapses",),
     recording.NOT_CONVERGED),
    ("ssl_dynamics.proposition_1", dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05, steps=1380),
     ("collapsed_to_rank_one",), recording.NOT_CONVERGED),
    ("ssl_dynamics.proposition_1", dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05, steps=740),
     ("rows_align_with_v1",), recording.NOT_CONVERGED),
    ("deep_fusion.theorem_2", dict(gamma_factor=1.383265344659951e+35, allow_violation=True),
     ("witness_reaches_gamma_B",), recording.FAILS),
    ("deep_fusion.theorem_2",
     dict(instance="eq7_counterexample", instances=1, constant_scale=0.9999999990392311, gamma_factor=1e272,
          allow_violation=True),
     ("B1_offblock_at_most_delta", "B1_inblock_at_least_Delta"), recording.FAILS),
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


def test_theorem_1_identities_allow_for_rounding_on_near_dependent_lines(run):
    """At ε_z = 1e-4 (independent lines, ρ̃ = 7e-5) A_ij/(ν_cρ̃_c²) is exact only to ~1e-7: rounding of A is absolute
    (~n·ε_mach), the bound is 5e-9. A flat 1e-9 raised IdentityFailure ("a bug in the suite") on a valid instance;
    on the default instance the allowance stays BOUND_RTOL."""
    ev = run("deep_fusion.theorem_1", instance="k3_near_dependent", eps_z=1e-4)
    assert ev.holds and 1e-7 < ev.details["identity_rtol"] < 1e-4
    assert run("deep_fusion.theorem_1").details["identity_rtol"] == 1e-9


def _counted_errata():
    import re

    out = []
    for rid in registry.ids():
        if rid.startswith(("deep_fusion.", "ssl_dynamics.")):
            for e in registry.get(rid).proof_errata:
                if m := re.search(r"(\d+) of (\d+) instances", e.why):
                    out.append(pytest.param(rid, e, int(m[1]), int(m[2]), id=f"{rid}-{e.claim}"))
    return out


@pytest.mark.parametrize("rid, erratum, failing, instances", _counted_errata())
def test_an_erratum_says_how_often_its_step_fails_and_the_evidence_agrees(run, rid, erratum, failing, instances):
    """A proof erratum that counts its failures ("3 of 8 instances") is backed by its own instance: a changed
    instance count or a loosened step tolerance that still leaves one failure would replay, and be wrong."""
    ev = run(rid, form=erratum.form, **erratum.params)
    assert ev.details[f"{erratum.claim}_failing_instances"] == failing
    assert ev.details["instances"] == instances


def test_theorem_1_ratio_where_the_bound_is_zero():
    """t = min A_same / (ν_cρ_c²) is 1 where both are 0 and ±inf where only the bound is 0 (ρ = 0: Definition 1 on
    the counterexamples), never a quotient by a clamped zero."""
    import torch

    from theorems.deep_fusion.theorem_1 import _ratio_per_cluster

    labels = torch.tensor([0, 0, 1, 1])
    nu = torch.tensor([2.0, 2.0], dtype=torch.float64)
    for a, want in ((0.0, 1.0), (1e-3, float("inf")), (-1e-3, -float("inf"))):
        A = torch.full((1, 4, 4), a, dtype=torch.float64)
        t, _, _ = _ratio_per_cluster(A, labels, 2, nu, torch.zeros(1, 2, dtype=torch.float64))
        assert t.tolist() == [[want, want]], (a, t)
    t, _, _ = _ratio_per_cluster(torch.full((1, 4, 4), 0.5, dtype=torch.float64), labels, 2, nu,
                                 torch.full((1, 2), 0.5, dtype=torch.float64))
    assert t.tolist() == [[1.0, 1.0]]


# Hypothesis checks of papers 000 and 002 that no row of checks/test_hypotheses_000_002.py named, each at its edge
# (one row on each side where the check is a comparison): same test, more rows.
CASES_B = [
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0), None),
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0 + 1e-12), "x_iᵀx̃_i ≥ 1 − ε"),
    ("deep_fusion.noise_lemma", None, dict(mode="adversarial", theta_scale=1.0 - 1e-12), "extremal construction"),
    ("deep_fusion.noise_lemma", None, dict(noisy_norm=1.0 + 1e-12), "unit-norm noisy samples"),
    ("deep_fusion.theorem_2", None, dict(constant_scale=1.0 + 1e-12), "exact constants δ, Δ"),
    ("deep_fusion.theorem_2", None, dict(gamma_factor=1.0 + 1e-12), "exact γ_B"),
    ("deep_fusion.theorem_2", None, dict(signs="arbitrary"), "sign-consistent clusters"),
    ("deep_fusion.theorem_1", "as_printed", dict(instance="dependent_lines"), None),  # the printed form's counterexample
    ("deep_fusion.theorem_1", "corrected", dict(instance="dependent_lines"), "independent subspaces"),
    ("deep_fusion.definition_2", None, dict(entries="signed"), "positive attention values"),
    ("deep_fusion.definition_2", None, dict(labels="shuffled"), "the labels are the block structure"),
    ("deep_fusion.definition_2", None, dict(criterion="max_over_min"), "the stringency sentence"),
    ("deep_fusion.fusion_trend", None, dict(m=4, r=2), None),  # m = 2r
    ("deep_fusion.fusion_trend", None, dict(m=3, r=2), "m ≥ 2r"),
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


def test_theorem_2_every_instance_is_credited_to_the_candidate_that_first_reached_gamma_B(run):
    """`witness_found_by` (what the page shows of the search) credits each instance once, to the first candidate
    reaching γ_B: on the default batch every instance reaches it (margin ≥ 0), so the credits sum to the batch."""
    ev = run("deep_fusion.theorem_2")
    assert ev.claim("witness_reaches_gamma_B").passed
    assert sum(ev.details["witness_found_by"].values()) == ev.details["instances"]


def test_noise_lemma_search_slack_is_the_claims_slack():
    """The adversarial search keeps its end point only if it moved toward the bounds, judged by `slack`: the
    relative slack of the tighter bound, which is what Claim.slack says of the two claims (with no allowance)."""
    import torch

    from theorems.core.evidence import Claim
    from theorems.deep_fusion.noise_lemma import slack

    c1, c2 = torch.tensor([0.1, 0.3, 0.2]), torch.tensor([0.5, 0.9, 0.7])
    for delta, Delta in ((0.35, 0.4), (0.31, 0.45), (0.25, 0.1), (0.5, 0.6), (0.9, 0.45)):
        want = min(Claim.at_most("c1", float(c1.max()), delta).slack, Claim.at_least("c2", float(c2.min()), Delta).slack)
        assert slack(c1, c2, delta, Delta) == pytest.approx(want, rel=1e-6), (delta, Delta)


def test_fusion_log_formulas_at_their_edges():
    """App. B's factors in log space: log 0 is −inf (not an error), and γ_ν is undefined (NaN) where Δ′ ≤ 0, also
    for −1 < Δ′ < 0 (its square would pass for a valid bound): ν = 1, n = 2, δ = 0.1, Δ = 0.01 gives Δ′ = −0.992."""
    import math

    from theorems.deep_fusion import fusion

    assert fusion._log(0.0) == -math.inf and fusion._log(-1.0) == -math.inf and fusion._log(math.e) == 1.0
    assert math.isnan(fusion.log_gamma_nu(1, 2, 0.1, 0.01))
    assert math.isfinite(fusion.log_gamma_nu(2, 4, 0.01, 0.9))
    # and where its denominator 2νδ′ + (n−2ν)δ′² is ≤ 0 (only for n < 2ν, outside the balanced reading): −3.7e-4 here
    assert math.isnan(fusion.log_gamma_nu(3, 4, 0.01, 1.2))


def test_proposition_1_linear_run_stops_at_the_first_step_past_its_cap(run):
    """η = 10: Θ grows ×81 a step. The run stops at the first step past ‖Θ‖ = 1e100·‖Θ₀‖ (literal: float64's
    1e308 must hold the squares of the norms), so the growth lies in (1e100, 81·1e100]: as far as the cap allows."""
    ev = run("ssl_dynamics.proposition_1", eta=10.0, allow_violation=True)
    assert 1e100 < ev.details["norm_growth"] <= 81 * 1e100 * (1 + 1e-9)


def test_theorem_1_eps_z_below_the_lp_resolution_is_refused():
    """ε_z = 2e-6: t* = ε_z²/4 = 1e-12 = LP_ZERO, and the LP would 'certify' that no witness exists on independent
    lines, where one does: the domain stops at 4e-6, before any computation."""
    from theorems.core.errors import ParameterError
    with pytest.raises(ParameterError, match="eps_z"):
        registry.check("deep_fusion.theorem_1", instance="k3_near_dependent", eps_z=2e-6, form="as_printed")
