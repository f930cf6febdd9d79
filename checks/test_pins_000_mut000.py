"""Tolerances of paper 000 pinned by REGISTERED controls just outside them, and the thresholds that a passing
instance pins from the other side (issue 26, item 9; rule of checks/test_pins_000_002.py). Each control is named
by literal parameters (never built from the constant it pins) and found among ``Result.controls``; a threshold
without an allowance is pinned by a literal margin in nats or in ρ, on a registered instance where one exists."""

from __future__ import annotations

import pytest
import torch

from checks.pinning import assert_identity_pin, assert_registered_pin, probe
from theorems.core import recording, registry
from theorems.core.verdict import run_spec

# (result id, the registered control, the claims it pins, their kind)
PINS = [
    # RANGE_ATOL: ρ_k = 1 on orthogonal single samples; rows of norm 1 + 3e-12 (definition_1.PINS)
    ("deep_fusion.definition_1", dict(K=2, r=1, nu=1, imbalance=0, m=2, arrangement="angle", angle_deg=90.0,
                                      row_norm=1.000000000003, allow_violation=True),
     ("rho_in_unit_interval",), ("identity",)),
    # BOUND_RTOL: A scaled by (1 ∓ 2e-9)² on the default instance (theorem_1.PINS)
    ("deep_fusion.theorem_1", dict(w_scale=0.999999998, allow_violation=True), ("same_cluster_lower_bound",),
     ("identity",)),
    ("deep_fusion.theorem_1", dict(w_scale=1.000000002, allow_violation=True), ("bound_attained",), ("identity",)),
    # UNIT_ATOL: column norms 1 + 3e-12
    ("deep_fusion.theorem_1", dict(w_scale=1.000000000003, allow_violation=True), ("unit_columns",), ("identity",)),
    # ATTAIN_ATOL: the noise angle 1e-11 past φ moves both attained values ~3 ATTAIN_ATOLs (BOUND_ATOL: test_pins_000_002)
    ("deep_fusion.noise_lemma", dict(mode="adversarial", theta_scale=1 + 1e-11, allow_violation=True),
     ("case1_attained", "case2_attained"), ("identity",)),
]


@pytest.mark.parametrize("rid, control, claims, kinds", PINS, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(PINS)])
def test_registered_control_pins_the_tolerance_mut000(run, rid, control, claims, kinds):
    assert_registered_pin(run, rid, control, claims, kinds)


def test_theorem_1_pins_leave_the_other_claims_alone(run):
    """Each w_scale pin fails only the identities it pins (and unit_columns, which any w_scale ≠ 1 breaks): the
    bound claims hold, so the pin tests the tolerance, not the statement."""
    result = registry.get("deep_fusion.theorem_1")
    for ws in (0.999999998, 1.000000002, 1.000000000003):
        ev = run_spec(run, result, dict(w_scale=ws, allow_violation=True))
        assert all(c.passed for c in ev.claims if c.kind == "bound"), ev.explain()
        assert ev.claim("cross_entries_zero").passed


def test_definition_1_rho_min_sits_between_a_zero_and_a_tiny_positive_margin(run):
    """RHO_MIN = 1e-14 separates a sample on 𝒰_1 (ρ_1 computes as ≈ 4e-17: the registered control fails) from one
    at distance 4e-14 (ρ_1 ≈ 4e-14: the registered binding instance holds). ×10 fails the binding, ÷1000 passes the
    control. The range claim is an identity (a test of the code), never evidence (issue 26, item 7)."""
    result = registry.get("deep_fusion.definition_1")
    assert dict(instance="intersecting", offset=5e-14) in [dict(b.params) for b in result.binding]
    near = run_spec(run, result, dict(instance="intersecting", offset=5e-14))
    c = near.claim("rho_positive")
    assert near.holds and c.passed and 1e-14 < c.observed < 1e-13, c
    zero = recording.expect(run_spec(run, result, dict(instance="intersecting", allow_violation=True)),
                            recording.FAILS)
    c0 = zero.claim("rho_positive")
    assert not c0.passed and c0.observed < 1e-15, c0
    assert near.claim("rho_in_unit_interval").kind == "identity"


def test_theorem_2_depth_step_min_is_pinned_from_both_sides(run):
    """The default search's worst step is 43.16722664839915 nats: asking for 5e-10 less (a registered pin) fails
    by 5e-10 < STEP_MIN = 1e-9; asking for 5e-9 less passes by 4e-9 (fails with STEP_MIN ×10)."""
    result = registry.get("deep_fusion.theorem_2_depth")
    fail = dict(step_shift=43.16722664789915, allow_violation=True)
    assert fail in [dict(c) for c in result.controls]
    c = recording.expect(run_spec(run, result, fail), recording.FAILS).claim("witness_increases_every_block")
    assert -1e-9 < c.observed - c.bound < 0, c
    ok = recording.expect(run(result.id, step_shift=43.167226643399154, allow_violation=True), recording.HOLDS)
    c = ok.claim("witness_increases_every_block")
    assert c.passed and 1e-9 < c.observed - c.bound < 1e-8, c


def test_theorem_1_margin_positive_holds_where_the_lp_cannot_decide(run):
    """RHO_MIN (1e-8) ×1000 would call ρ̃ = 2.8e-6 (independent lines at ε_z = 4e-6) a zero margin: the margin
    claim holds there; the instance is undecided only for the LP (not converged), never for the margin."""
    ev = recording.expect(run("deep_fusion.theorem_1", form="corrected", instance="k3_near_dependent", eps_z=4e-6),
                          recording.NOT_CONVERGED)
    c = ev.claim("margin_positive")
    assert c.passed and 1e-6 < c.observed < 1e-5, c


def test_algorithm_1_lower_atol_is_pinned_by_a_registered_control(run):
    """LOWER_ATOL (1e-10): two orthogonal lines with one sample each leave one feasible u⊥, so every run returns
    the exact ρ_k = 1; the reference scaled by 1 − 3e-10 (algorithm_1.PINS) puts the runs three LOWER_ATOLs above
    it."""
    control = dict(K=2, r=1, nu=1, imbalance=0, m=2, arrangement="angle", angle_deg=90.0, exact_scale=0.9999999997,
                   allow_violation=True)
    assert_registered_pin(run, "deep_fusion.algorithm_1", control, ("lower_bound_on_exact_rho",), ("identity",))


# -- identity tolerances with no registered instance near them: the same check with one number of its formula
# moved by a literal amount, 0.5 allowances (still passes) and 3 allowances (fails; an identity failing on an
# instance inside the hypotheses raises IdentityFailure) --------------------------------------------------------




@pytest.mark.parametrize("bump, passes", [(0.5e-6, True), (3e-6, False)])
def test_definition_1_reference_atol_is_pinned(monkeypatch, bump, passes):
    """REFERENCE_ATOL (1e-6): the scipy reference of ρ_0 alone moved by a literal bump (the two agree to ~1e-15
    unmoved); the claim is the worst cluster's error, so ρ_1's agreement must not hide it."""
    from theorems.deep_fusion import definition_1 as D1

    ref = D1.reference_rho_k
    monkeypatch.setattr(D1, "reference_rho_k", lambda X, lab, U, k: ref(X, lab, U, k) + (bump if k == 0 else 0.0))
    small = dict(K=2, nu=2, imbalance=0, r=1, m=3, instances=2)
    assert_identity_pin(D1.ID, "matches_reference_solver", passes, **small)


@pytest.mark.parametrize("bump, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_1_cross_rtol_is_pinned(monkeypatch, bump, passes):
    """CROSS_RTOL (1e-10): one cross entry of A (first sample of cluster 0, last of cluster 1) moved by a literal
    bump times max(1, max|A|); the construction's cross entries are ~1e-15 unmoved."""
    from theorems.deep_fusion import theorem_1 as T1

    attention = T1.attention_matrix

    def moved(X, W, kind):
        A = attention(X, W, kind).clone()
        A[..., 0, -1] += bump * A.abs().amax(dim=(-1, -2)).clamp_min(1.0)
        return A

    monkeypatch.setattr(T1, "attention_matrix", moved)
    small = dict(instances=2)
    assert_identity_pin(T1.ID, "cross_entries_zero", passes, **small)


@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_theorem_2_depth_identity_atol_is_pinned(monkeypatch, bump, passes):
    """IDENTITY_ATOL (1e-12): the deviation between normalised softmax(A)X̃ and exp(A)X̃ moved by a literal bump
    (it is ~2e-16 unmoved)."""
    from theorems.deep_fusion import theorem_2_depth as TD

    stack = TD._stack

    def moved(*args):
        logs, identity = stack(*args)
        return logs, identity + bump

    monkeypatch.setattr(TD, "_stack", moved)
    small = dict(instances=2, restarts=1, depth=2)
    assert_identity_pin(TD.ID, "softmax_equals_normalised_exp", passes, **small)


@pytest.mark.parametrize("rel, passes", [(0.5e-12, True), (3e-12, False)])
def test_definition_2_ratio_rtol_is_pinned(monkeypatch, rel, passes):
    """RATIO_RTOL (1e-12): the brute-force infimum scaled by 1 + rel (unscaled it equals min/max exactly: float
    division is monotone). A bound claim: it fails, it does not raise."""
    from theorems.deep_fusion import definition_2 as D2

    brute = D2.brute_force_inf
    monkeypatch.setattr(D2, "brute_force_inf", lambda A, labels: brute(A, labels) * (1 + rel))
    assert probe(D2.ID, instances=2).claim("infimum_is_lowest_same_over_highest_cross").passed is passes


@pytest.mark.parametrize("slack, passes", [(-0.5e-9, True), (-3e-9, False)])
def test_theorem_2_step_rtol_is_pinned(monkeypatch, slack, passes):
    """STEP_RTOL (1e-9): App. B's relative step (B4, off-block) given a literal slack just inside / outside it."""
    from theorems.deep_fusion import theorem_2 as T2

    steps = T2.appendix_b_steps

    def moved(*args):
        out = steps(*args)
        out["B4_offblock_upper"] = torch.full_like(out["B4_offblock_upper"], slack)
        return out

    monkeypatch.setattr(T2, "appendix_b_steps", moved)
    c = probe(T2.ID, instances=2).claim("B4_offblock_upper")
    assert c.kind == "proof_step" and c.passed is passes, c


@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_definition_2_metrics_sharpness_identity_is_pinned(monkeypatch, bump, passes):
    """WORDING_RTOL on ``matches_metrics_sharpness``: theorems.metrics.sharpness's log 𝒮 moved by a literal bump
    (the two agree to ~1e-15 unmoved); an upper bound on the error, so a flipped relation would pass it."""
    from theorems.deep_fusion import definition_2 as D2

    sharp = D2.sharpness

    class Moved:
        def __init__(self, s):
            self.log_value = s.log_value + bump

    monkeypatch.setattr(D2, "sharpness", lambda *a, **k: Moved(sharp(*a, **k)))
    assert_identity_pin(D2.ID, "matches_metrics_sharpness", passes, instances=2)


def test_theorem_2_depth_identity_is_the_largest_deviation_over_the_blocks():
    """`_stack`'s identity is the largest deviation over the blocks: without row normalisation softmax(A)X̃ and
    exp(A − max)X̃ differ by the row sums, computed here independently for a 2-block stack."""
    from theorems.deep_fusion.theorem_2_depth import _stack

    g = torch.Generator().manual_seed(0)
    X = torch.randn(1, 4, 3, generator=g, dtype=torch.float64)
    M = torch.randn(3, 3, generator=g, dtype=torch.float64)
    labels = torch.tensor([0, 0, 1, 1])
    _, identity = _stack(X, M, labels, 2, False, False)
    want, Y = 0.0, X
    for _ in range(2):
        A = Y @ M @ Y.transpose(-1, -2)
        agg = torch.softmax(A, -1) @ Y
        want = max(want, float((agg - torch.exp(A - A.amax(-1, keepdim=True)) @ Y).abs().max()))
        Y = agg
    assert want > 1e-3 and identity == pytest.approx(want, rel=1e-12)


def test_fusion_log_is_the_log_on_the_unit_interval():
    """App. B's factors take logs of numbers in (0, 1) (δ, Δ, products of them): only x ≤ 0 is −inf."""
    import math

    from theorems.deep_fusion import fusion

    for x in (1e-300, 0.01, 0.5, 1.0):
        assert fusion._log(x) == math.log(x)


def test_tables_head_sizes_bound_is_the_printed_three(run):
    """"three head sizes" (the text): the claim's bound is the printed 3 (the tables have 2 per head type)."""
    ev = run("deep_fusion.tables", form="as_printed", claim="head_sizes")
    c = ev.claim("three_head_sizes")
    assert (c.observed, c.bound, c.passed) == (2, 3, False)


def test_fusion_trend_names_the_separability_it_assumes(run):
    """A sweep reaching ε = 0.5 (δ ≥ Δ at θ = 45°) is outside the commentary's assumption δ < Δ, and the evidence
    says so; the default sweep is inside it."""
    small = dict(instances=2, nus=(2, 3, 4), angles=(45.0, 60.0, 75.0))
    from theorems.core.errors import HypothesisViolation

    with pytest.raises(HypothesisViolation, match="separable clusters δ < Δ"):
        run("deep_fusion.fusion_trend", eps_values=(0.001, 0.01, 0.5), **small)
    inside = run("deep_fusion.fusion_trend", eps_values=(0.001, 0.003, 0.01), **small)
    assert not inside.violations


def test_fusion_trend_formula_step_is_the_worst_step():
    """formula_steps reports the *largest* step against each stated direction: along this ε grid log γ_B rises by
    two different amounts (the erratum), and the worst step is the larger one, recomputed here from log γ_B."""
    import math

    from theorems.deep_fusion import fusion_trend as FT
    from theorems.deep_fusion.fusion import log_gamma_B

    p = dict(nus=(2, 4, 8), eps_values=(0.001, 0.01, 0.03), angles=(30.0, 45.0, 60.0), nu=4, eps=0.01, angle_deg=45.0)
    steps = FT.formula_steps(p)

    def lg(eps):
        phi = math.acos(1 - eps)
        return log_gamma_B(8, math.sin(phi), math.cos(math.pi / 4 + phi))

    by_eps = [lg(e) for e in p["eps_values"]]
    rises = [b - a for a, b in zip(by_eps, by_eps[1:])]
    assert steps["eps"] == max(rises)


def test_theorem_2_vacuity_needs_twenty_nats(run):
    """VACUITY_NATS (20): γ_B multiplied by 1e30 (69.08 nats) leaves the default search a margin of ≈ 11.8 nats: γ_B
    is still reached (holds) but not exceeded by e^20, so this instance is not vacuous (÷10 would call it so)."""
    ev = run("deep_fusion.theorem_2", gamma_factor=1e30, allow_violation=True)
    margin = ev.claim("witness_reaches_gamma_B").observed
    assert ev.claim("witness_reaches_gamma_B").passed and 2.0 < margin < 20.0, margin
    assert ev.details["vacuous"] is False
    assert run("deep_fusion.theorem_2").details["vacuous"] is True


def test_definition_2_binding_is_where_the_premise_bites(run):
    """The registered binding (near tie, 𝒮 ≈ 1 + 1e-9) is where the stringency sentence's premise 𝒮 > 1 barely
    holds: the mean separation it must imply is below 1e-9 there (the default batch's is ≈ 0.2)."""
    from theorems.core.verdict import run_spec as spec_run

    result = registry.get("deep_fusion.definition_2")
    (binding,) = result.binding
    ev = spec_run(run, result, binding.params, binding.form)
    c = ev.claim("stricter_than_mean_separation")
    assert ev.holds and 0.0 < c.observed < 1e-9, c


MINE = ("deep_fusion.definition_1", "deep_fusion.definition_2", "deep_fusion.algorithm_1", "deep_fusion.noise_lemma",
        "deep_fusion.tables", "deep_fusion.theorem_1", "deep_fusion.theorem_2", "deep_fusion.theorem_2_depth")


def _registered_controls():
    return [pytest.param(rid, dict(c), id=f"{rid}-{i}") for rid in MINE
            for i, c in enumerate(registry.get(rid).controls)]


@pytest.mark.parametrize("rid, control", _registered_controls())
def test_every_registered_control_fails(run, rid, control):
    """A negative control must fail a claim (a bound, a proof step, or an identity: the controls of a construction's
    identities) that the default instance of its form passes, or, for a tolerance pin, end undecided: a control whose
    numbers moved so
    that it passes is no control, and only the bound claims it alone breaks would notice (issue 26: controls that
    miss their claim). Checked on the REGISTERED controls."""
    result = registry.get(rid)
    ev = recording.expect(run_spec(run, result, control), *recording.OUTCOMES)
    form = control.get("form", result.default_form)
    default = recording.expect(run(rid, form=form), *recording.OUTCOMES)
    already = {c.name for c in default.claims if not c.passed}  # e.g. a proof erratum that fails everywhere
    failed = [c.name for c in ev.claims if c.kind != "measurement" and not c.passed and c.name not in already]
    assert failed or ev.converged is False, ev.explain()


def test_theorem_2_eq7_corrected_slack_is_the_worst_pair(run):
    """eq. (7) corrected is judged on its worst same-cluster pair: on the eq. (7) instance the slack of the pair
    (1, 2), computed by hand in the plane (x̃₁,₂ = u₁ rotated by ±φ, ν = (2, 6)), bounds the claim's value."""
    import math

    import numpy as np

    from theorems.deep_fusion import noise_lemma

    ev = run("deep_fusion.theorem_2", instance="eq7_counterexample", instances=1)
    eps, phi, a = 0.05, math.acos(0.95), math.radians(60)
    v1, v2 = np.array([math.sin(a), -math.cos(a)]), np.array([0.0, 1.0])
    x1, x2 = np.array([math.cos(phi), math.sin(phi)]), np.array([math.cos(phi), -math.sin(phi)])
    A12 = 2 * (x1 @ v1) * (x2 @ v1) + 6 * (x1 @ v2) * (x2 @ v2)
    d, D = noise_lemma.delta_of(eps), noise_lemma.Delta_of(eps, v1 @ np.array([1.0, 0.0]))
    c = ev.claim("eq7_corrected_lower_bound")
    assert c.passed and 0.0 <= c.observed <= A12 - (2 * D**2 - 6 * d**2) + 1e-12, c


def test_theorem_2_depth_credits_each_informative_instance_once(run):
    """`informative_witness_found_by` credits each instance with an informative witness once, to the first
    candidate whose final 𝒮 exceeds 1: the credits sum to the informative instances (all of the default batch)."""
    ev = run("deep_fusion.theorem_2_depth")
    assert sum(ev.details["informative_witness_found_by"].values()) == ev.details["informative_witness_instances"] > 0


def test_theorem_2_b4_erratum_shows_its_number(run):
    """The (B4) erratum says the real aggregation gives x̃′_iᵀw_l = 2.6·δ′ on its instance: the registered instance
    (r = 1, m = 4, ν = 12, ε = 0.002, noise toward the other cluster) reproduces it (relative slack 1 − 2.6)."""
    result = registry.get("deep_fusion.theorem_2")
    (erratum,) = [e for e in result.proof_errata if e.claim == "B4_offblock_upper"]
    assert "2.6·δ′" in erratum.why
    c = run(result.id, form=erratum.form, **erratum.params).claim("B4_offblock_upper")
    assert round(1.0 - c.observed, 1) == 2.6, c


def test_tables_printed_claims_fail_exactly_where_a_counterexample_is_registered(run):
    """On the printed tables (claim='all') every claim holds except those of the registered counterexamples: a
    threshold or relation changed in a claim that holds as printed makes it fail there, and the verdict (refuted by
    the counterexamples anyway) would not notice."""
    result = registry.get("deep_fusion.tables")
    ev = run(result.id, form="as_printed")
    failing = {c.name for c in ev.claims if c.kind != "measurement" and not c.passed}
    registered = {c.name for cx in result.counterexamples for c in run(result.id, form="as_printed", **cx).claims
                  if c.kind != "measurement" and not c.passed}
    assert failing == registered and registered, (failing, registered)
    assert len([c for c in ev.claims if c.kind == "bound"]) > len(registered)
