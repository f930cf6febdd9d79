"""Proposition 1: unconstrained SSL dynamics collapse to one dimension (paper 002, `ssl_dynamics.proposition_1`): the
checks particular to this result, its hand cases against independent references, pins and hypothesis edges. What
every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, excess, row_ids
from checks.probes import claims_of, evaluate_claims, evaluate_outcome
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.errors import ParameterError


# 3. proposition_1 eta = 1e-9: 5000 steps move Θ by ~1e-5, nowhere near the limit direction; the run said
# nothing about convergence and failed the collapse claims.
def test_proposition_1_too_short_a_horizon_is_not_converged():
    ev = theorems.check("ssl_dynamics.proposition_1", eta=1e-9, allow_violation=True)
    assert ev.converged is False and ev.details["horizon_resolves_collapse"] is False, ev.explain()
    two = theorems.check("ssl_dynamics.proposition_1", C="-1,0;0,0.5", d=2, z=2, eta=1e-9, steps=1000)
    assert two.converged is False  # one distinct eigenvalue above λ₁ is still a horizon to resolve
    scalar = theorems.check("ssl_dynamics.proposition_1", C="-1,0;0,-1", d=2, z=2, form="as_printed",
                            allow_violation=True)
    assert scalar.converged is True  # C ∝ I: the direction never moves, nothing to resolve


def test_proposition_1_repeated_eigenvalue_still_converges_and_fails():
    # the counterexample must stay a converged failure (the horizon criterion does not depend on the claims)
    ev = theorems.check("ssl_dynamics.proposition_1", C="-1,0,0;0,-1,0;0,0,0.5", d=3, form="as_printed")
    assert ev.converged is True and not ev.holds and claims_of(ev)["collapsed_to_rank_one"].observed > 0.5
    # a gap of 1e-10 below is_simple's resolution is a repeated eigenvalue too: the horizon is judged on λ₃ = 0.5
    near = theorems.check("ssl_dynamics.proposition_1", C="-1,0,0;0,-0.9999999999,0;0,0,0.5", d=3,
                          form="as_printed")
    assert near.converged is True and near.details["horizon_resolves_collapse"] is True


# 4. proposition_1 flow_time = 1000: e^{−2λ₁T} overflowed to inf and the identity read NaN (IdentityFailure).
@pytest.mark.parametrize("flow_time", [1000.0, 400.0])
def test_proposition_1_long_flow_time_identity_holds(flow_time):
    ev = theorems.check("ssl_dynamics.proposition_1", flow_time=flow_time)
    flow = claims_of(ev)["flow_matches_exponential"]
    assert math.isfinite(flow.observed) and flow.passed and ev.holds, ev.explain()


def test_proposition_1_long_flow_time_wrong_constant_still_fails_the_identity():
    ev = theorems.check("ssl_dynamics.proposition_1", flow_time=1000.0, closed_form_factor=2.2, allow_violation=True)
    flow = claims_of(ev)["flow_matches_exponential"]
    assert math.isfinite(flow.observed) and flow.observed > 0.1


# Found by re-running the sweep on the four results after the fixes above (tools/fuzz.py --sweep --only ...):
# proposition_1's 2-layer blow-up with too small a budget, or too large a step; theorem_2 with a failed integration.
@pytest.mark.parametrize("params", [dict(max_steps=1), dict(eta_two_layer=1e-12)])
def test_proposition_1_two_layer_budget_too_short_is_not_converged(params):
    ev = theorems.check("ssl_dynamics.proposition_1", **params)
    assert ev.converged is False and not ev.violations, ev.explain()


def test_proposition_1_two_layer_overshooting_step_is_outside_the_hypotheses():
    ev = theorems.check("ssl_dynamics.proposition_1", eta_two_layer=10.0, allow_violation=True)
    assert any("η₂" in str(v) for v in ev.violations), ev.explain()
    ok = theorems.check("ssl_dynamics.proposition_1", eta_two_layer=0.115)  # 2·η₂·max|λ| = 0.94 < 1: inside
    assert not ok.violations and ok.holds


def test_proposition_1_fast_divergence_stops_before_overflow():
    # eta = 10: Θ grows ×81 a step; the iterates overflowed to inf and the GD identities read NaN (IdentityFailure)
    ev = theorems.check("ssl_dynamics.proposition_1", eta=10.0, allow_violation=True)
    c = claims_of(ev)
    assert math.isfinite(c["gd_is_gradient_descent"].observed) and c["gd_matches_closed_form"].passed
    assert ev.details["norm_growth"] < 1e110 and ev.holds


P = "ssl_dynamics."


# -- Proposition 1 ----------------------------------------------------------------------------------------
def test_proposition_1_repeated_eigenvalue_keeps_two_dimensions(run):
    ev = run(P + "proposition_1", form="as_printed", C="-1,0,0;0,-1,0;0,0,0.5", d=3)
    assert ev.claim("collapsed_to_rank_one").observed > 0.1 and ev.details["predicted_log_ratio_slope"] == 0.0
    assert ev.claim("gd_matches_closed_form").passed  # the dynamics are the identical ones; only the collapse fails
    assert ev.details["norm_growth"] > 1e6  # and Θ diverges: no fixed point


def test_proposition_1_moons_and_noncontrastive(run):
    assert run(P + "proposition_1", data="moons", d=2, z=2, n=200).holds
    assert run(P + "proposition_1", loss="noncontrastive").holds


def test_proposition_1_printed_noncontrastive_sign_is_wrong(run):
    # With the printed C̃ = +Σxx⁺ᵀ, GD on loss (2) does not follow Θ₀(I − 2ηC)^k, and nothing blows up.
    ev = run(P + "proposition_1", loss="noncontrastive", nc_sign=1.0, max_steps=1000, allow_violation=True)
    assert not ev.claim("gd_matches_closed_form").passed and not ev.claim("two_layer_blows_up").passed


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("proposition_1", dict(C="-1,2;0,1", d=2), "C symmetric"),
        ("proposition_1", dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3), "λ₁(C) simple"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, name", [("proposition_1", dict(eta=0.0), "eta")])
def test_structural_domains_are_parameter_errors(rid, params, name):
    with pytest.raises(theorems.ParameterError, match=name):
        theorems.check(P + rid, **params)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.proposition_1
    ("ssl_dynamics.proposition_1", None, dict(closed_form_factor=2.5), "exact closed form"),
    ("ssl_dynamics.proposition_1", None, dict(C="1,0;0,2", d=2, z=2), "λ_min(C) < 0"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0", d=2, z=2), None),  # λ_min < 0, λ_max = 0: any η
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.02), "η < 1/(2λ_max)"),  # 1 − 2ηλ = 0
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.019), None),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3, z=2), "simple"),
    ("ssl_dynamics.proposition_1", "as_printed", dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3, z=2), None),
    # instances.common_C_violations: half moons need d = 2 only when no explicit C overrides the data
    ("ssl_dynamics.proposition_1", None, dict(data="moons", d=3, C="-1,0,0;0,-0.9,0;0,0,0.5"), None),
    ("ssl_dynamics.proposition_1", None, dict(data="moons", d=3), "d = 2 for half moons"),
    # trace_form.symmetric_C_violations: an asymmetry at rounding level relative to C's scale is symmetric
    ("ssl_dynamics.proposition_1", None, dict(C="-1000,1e-10;0,500", d=2, eta=1e-4, eta_two_layer=1e-4), None),
    ("ssl_dynamics.proposition_1", None, dict(C="-1000,1e-8;0,500", d=2, eta=1e-4, eta_two_layer=1e-4),
     "C symmetric"),
    # proposition_1: h ≥ z, and the 2-layer step 2η₂ max|λ| < 1 (C = diag(−1, 25): η₂ = 0.02 is the edge)
    ("ssl_dynamics.proposition_1", None, dict(h=2, z=2), None),
    ("ssl_dynamics.proposition_1", None, dict(h=1, z=2), "h ≥ z"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.01, eta_two_layer=0.02), "η₂ <"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.01, eta_two_layer=0.019), None),
    ("ssl_dynamics.proposition_1", None, dict(h=3, z=3), None),  # h = z
    ("ssl_dynamics.proposition_1", None, dict(h=2, z=3), "h ≥ z"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta_two_layer=0.4999), None),  # 2η₂·1 < 1
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta_two_layer=0.5), "η₂ < 1/(2 max|λ(C)|)"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta=0.9999), None),  # 1 − 2η·0.5 > 0
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0.5", d=2, eta=1.0), "η < 1/(2λ_max)"),
    ("ssl_dynamics.proposition_1", None, dict(closed_form_factor=2.2), "exact closed form"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_anchor_ceiling_is_the_declared_max_n():
    """The anchors' ceiling MAX_N = 20 000 (instances.py: a resource ceiling of a 2-core machine) is the domain edge:
    20 000 anchors are accepted, 20 001 refused before any computation."""
    result = registry.get("ssl_dynamics.proposition_1")
    registry.validate_structure(result, dict(n=20_000), result.default_form)
    with pytest.raises(ParameterError, match="n"):
        registry.validate_structure(result, dict(n=20_001), result.default_form)


def test_proposition_1_linear_run_stops_at_the_first_step_past_its_cap(run):
    """η = 10: Θ grows ×81 a step. The run stops at the first step past ‖Θ‖ = 1e100·‖Θ₀‖ (literal: float64's
    1e308 must hold the squares of the norms), so the growth lies in (1e100, 81·1e100]: as far as the cap allows."""
    ev = run("ssl_dynamics.proposition_1", eta=10.0, allow_violation=True)
    assert 1e100 < ev.details["norm_growth"] <= 81 * 1e100 * (1 + 1e-9)


def test_proposition_1_rate_where_a_factor_vanishes_ends_cleanly(run):
    """η = 1/(2λ₂) (C = diag(−1, 0.5), a control past the step condition): the second factor 1 − 2ηλ₂ is 0, the
    predicted log-ratio −inf (a math domain error once); on the default instance the fitted collapse rate is the
    predicted one (a measurement whose relative error is ~1e-8, not inf)."""
    ev = recording.expect(run("ssl_dynamics.proposition_1", C="-1,0;0,0.5", d=2, eta=1.0, allow_violation=True),
                          *recording.OUTCOMES)
    assert ev.details["predicted_log_ratio_slope"] == -math.inf
    assert run("ssl_dynamics.proposition_1").claim("collapse_rate").observed < 1e-3


# monkeypatch, not a Pin: it replaces torch.linalg.svd: code, which a Pin cannot move
def test_proposition_1_two_layer_rank_takes_the_worst_seed(monkeypatch):
    """Default instance: ONE seed's P at blow-up read with σ₂/σ₁ = 4e-4 (a literal; the others have collapsed to
    ~1e-6) fails 'max over seeds of σ₂/σ₁ at blow-up' by 4 TWO_LAYER_RANK_TOLs (×10 passes; max → min over the
    seeds would too)."""
    from theorems.ssl_dynamics import proposition_1 as R

    exact = torch.linalg.svd

    def one_off(A, *args, **kw):
        U, S, Vh = exact(A, *args, **kw)
        if A.ndim == 3 and A.shape[0] == 4:  # the seeds' P at blow-up (the only batched svd of the evaluate)
            S = S.clone()
            S[1, 1] = 4e-4 * S[1, 0]
        return U, S, Vh

    c = evaluate_claims(R.ID)["two_layer_rank_one"]
    assert c.passed
    monkeypatch.setattr(torch.linalg, "svd", one_off)
    c = evaluate_claims(R.ID)["two_layer_rank_one"]
    assert not c.passed and 3.5 < excess(c) < 4.5, (c.observed, c.allowance)


# -- proposition_1: the two-layer blow-up is judged at the last seed to blow up ----------------------------------
# monkeypatch, not a Pin: it replaces R._two_layer: code, which a Pin cannot move
def test_proposition_1_blow_up_takes_the_slowest_seed(monkeypatch):
    """One seed of four recorded as blowing up only at the last step of the budget (its index = max_steps): the
    claim 'every seed blows up within the budget' reads (max_steps + 1)/max_steps > 1 and fails; the first seed to
    blow up (a min over seeds) would pass."""
    from theorems.ssl_dynamics import proposition_1 as R

    exact = R._two_layer

    def late(*args):
        stop, blown, ratio, align = exact(*args)
        stop = stop.clone()
        stop[2] = args[-1]  # max_steps
        return stop, blown, ratio, align

    monkeypatch.setattr(R, "_two_layer", late)
    _, c = evaluate_outcome(R.ID)
    assert not c["two_layer_blows_up"].passed and c["two_layer_blows_up"].observed == (5000 + 1) / 5000
