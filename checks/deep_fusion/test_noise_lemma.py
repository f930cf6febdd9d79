"""The checks particular to ``deep_fusion.noise_lemma`` (§Deep Fusion, the bounds 1) and 2) after eq. (6) (reused in
Appendix B)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from checks.pinning import assert_hypothesis_edge, row_ids
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.deep_fusion import noise_lemma, theorem_2
from theorems.deep_fusion.fusion import base_B6, log_gamma_B, log_gamma_O

NL = noise_lemma.ID
T2 = theorem_2.ID


# Hand-formula references are float64 expressions of a few terms: agreement to this is exact arithmetic.
REF_RTOL = 1e-9


EDGES = [
    ("deep_fusion.noise_lemma", None, dict(m=3, r=3), "subspace dimension r < m"),
    ("deep_fusion.noise_lemma", None, dict(m=3, r=2), None),
    # noise_lemma: θ = φ exactly is inside both θ checks, in either mode
    ("deep_fusion.noise_lemma", None, dict(mode="adversarial", theta_scale=1.0), None),
    ("deep_fusion.noise_lemma", None, dict(mode="random", theta_scale=0.5), None),
    ("deep_fusion.noise_lemma", None, dict(noisy_norm=1.0), None),
    # noise_lemma: eq. (6) allows rotations up to φ = arccos(1 − ε), not beyond
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0 + 1e-12), "x_iᵀx̃_i ≥ 1 − ε (eq. 6)"),
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0), None),
    ("deep_fusion.noise_lemma", None, dict(noisy_norm=1.0 + 1e-12), "unit-norm noisy samples"),
    ("deep_fusion.noise_lemma", None, dict(mode="adversarial", theta_scale=1.0 - 1e-12), "extremal construction"),
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0), None),
    ("deep_fusion.noise_lemma", None, dict(theta_scale=1.0 + 1e-12), "x_iᵀx̃_i ≥ 1 − ε"),
    ("deep_fusion.noise_lemma", None, dict(mode="adversarial", theta_scale=1.0 - 1e-12), "extremal construction"),
    ("deep_fusion.noise_lemma", None, dict(noisy_norm=1.0 + 1e-12), "unit-norm noisy samples"),
]


@pytest.mark.parametrize("eps", [0.0, 0.01, 0.1, 0.29, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("rho", [0.05, 0.3, 0.7, 0.95, 1.0])
def test_noise_lemma_closed_angular_forms_and_separability(eps, rho):
    """δ = sin φ, Δ = cos(ψ+φ); δ < Δ ⇔ ρ > 2(1−ε)δ with ε < 1 − 1/√2."""
    d, D = noise_lemma.delta_of(eps), noise_lemma.Delta_of(eps, rho)
    sd, cD = noise_lemma.angular_forms(eps, rho)
    assert d == pytest.approx(sd, abs=1e-12) and D == pytest.approx(cD, abs=1e-12)
    if abs(D - d) > 1e-9:
        assert (d < D) == noise_lemma.separable(eps, rho)


def test_noise_lemma_case_2_under_definition_1_margin(run):
    """Definition 1 allows x_iᵀu = −ρ': then x̃ᵀu ≤ −ρ·cos φ + sin φ... far below Δ (hand bound), while the
    corrected |x̃ᵀu| ≥ Δ holds on the same instance."""
    ev = run(NL, margin_sign="negative", form="as_printed")
    eps, rho = 0.05, 0.7
    c = ev.claim("case2_lower_bound")
    assert not c.passed and c.bound == pytest.approx(noise_lemma.Delta_of(eps, rho) - noise_lemma.BOUND_ATOL)
    phi = math.acos(1 - eps)
    assert c.observed <= -rho * math.cos(phi) + math.sin(phi) + 1e-12  # |eᵀu| ≤ 1
    assert run(NL, margin_sign="negative").holds


def test_noise_lemma_bounds_are_attained(run):
    ev = run(NL, mode="adversarial")
    assert ev.holds and ev.tightness == pytest.approx(1.0, abs=1e-10)  # 1 − allowance/scale (atol 1e-12)
    assert ev.claim("case2_lower_bound").observed == pytest.approx(noise_lemma.Delta_of(0.05, 0.7), abs=1e-12)


def test_noise_lemma_adversarial_search_moves_to_the_bound(run):
    ev = run(NL, adversarial_steps=40)
    assert ev.details["adversarial_end_slack"] < 0.1 * ev.details["adversarial_start_slack"]


# ======================================================================================================
# Theorem 2
# ======================================================================================================
def test_theorem_2_eq7_erratum_numbers(run):
    """x̃₁,₂ = u₁ rotated by ±φ, ν = (2, 6): A₁₂ computed by hand (numpy, in the plane) is below ν₁Δ² but
    above the corrected ν₁Δ² − (n−ν₁)δ²."""
    ev = run(T2, instance="eq7_counterexample", instances=1)
    assert not ev.claim("eq7_printed_lower_bound").passed and ev.claim("eq7_corrected_lower_bound").passed
    eps, phi, a = 0.05, math.acos(0.95), math.radians(60)
    v1, v2 = np.array([math.sin(a), -math.cos(a)]), np.array([0.0, 1.0])
    x1, x2 = np.array([math.cos(phi), math.sin(phi)]), np.array([math.cos(phi), -math.sin(phi)])
    A12 = 2 * (x1 @ v1) * (x2 @ v1) + 6 * (x1 @ v2) * (x2 @ v2)
    d, D = noise_lemma.delta_of(eps), noise_lemma.Delta_of(eps, v1 @ np.array([1.0, 0.0]))
    assert ev.details["A12_first"] == pytest.approx(A12, rel=REF_RTOL)
    assert 2 * D**2 - 6 * d**2 <= A12 < 2 * D**2


def test_theorem_2_gamma_B_below_one_on_the_separable_region():
    """γ_B < 1 wherever δ < Δ (grid over n, ε, ρ), so the factor never certifies an increase."""
    worst = -math.inf
    for n in (2, 3, 4, 5, 8, 16, 64, 256, 2048):
        for eps in np.linspace(1e-4, 0.29, 30):
            for rho in np.linspace(0.01, 1.0, 40):
                d, D = noise_lemma.delta_of(eps), noise_lemma.Delta_of(eps, rho)
                if d < D:
                    worst = max(worst, log_gamma_B(n, d, D))
    assert worst < 0 and math.exp(worst) < 0.7


def test_theorem_2_appendix_b_algebra():
    for n, d, D in [(3, 0.2, 0.5), (64, 0.05, 0.9)]:  # exponent identity of B10
        assert n * (2 * d + 3 * d * d - D * D) + d - 2 * n * (d + d * d) == pytest.approx(n * (d * d - D * D) + d)
    for n in range(3, 40):  # B6 squares a negative number for every n ≥ 3
        for d in np.linspace(0, 1, 11):
            for D in np.linspace(0, 1, 11):
                assert base_B6(n, d, D) < 0
    d, D = noise_lemma.delta_of(0.05), noise_lemma.Delta_of(0.05, 0.7)  # γ_B/γ_O → 1 when Δ² < δ+δ²
    assert D * D < d + d * d and abs(log_gamma_B(512, d, D) - log_gamma_O(512, d, D)) < 1e-3
    d, D = noise_lemma.delta_of(0.01), noise_lemma.Delta_of(0.01, 0.95)  # → 0 exponentially when Δ² > δ+δ²
    gaps = [log_gamma_B(n, d, D) - log_gamma_O(n, d, D) for n in (16, 64, 128)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < math.log(1e-50)
    nu, n, d, D = 1, 2, 0.9, 0.1  # B7's last step needs (ν_i+ν_j)(1−δ) ≥ 1
    assert nu * D * D - 2 * d > n * D * D - d - n * d * d


def test_noise_lemma_claims_take_the_worst_instance(run):
    """The case-1 claim is the maximum over the batch (the worst instance), not a typical one: it equals the
    recorded max ratio·δ, and random noise leaves room (max ratio < 1) that the adversarial search removes in
    both cases."""
    ev = run(NL)
    delta = noise_lemma.delta_of(0.05)
    assert ev.claim("case1_upper_bound").observed == pytest.approx(ev.details["case1_max_ratio"] * delta, rel=1e-12)
    Delta = noise_lemma.Delta_of(0.05, 0.7)
    assert ev.claim("case2_lower_bound").observed == pytest.approx(ev.details["case2_min_minus_Delta"] + Delta,
                                                                   rel=1e-12)
    adv = run(NL, adversarial_steps=40)
    assert ev.details["case1_max_ratio"] < adv.details["case1_max_ratio"] <= 1 + 1e-12
    assert adv.details["case2_min_minus_Delta"] < ev.details["case2_min_minus_Delta"]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


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


# ------------------------------------------------------------------------------------------------------
# The noise lemma
# ------------------------------------------------------------------------------------------------------
def test_noise_lemma_slack_is_relative_to_the_larger_magnitude():
    """slack() = min of (δ − max c1)/max(|max c1|, δ) and (min c2 − Δ)/max(|min c2|, |Δ|), on literal numbers."""
    from theorems.deep_fusion.noise_lemma import slack

    c1, c2 = torch.tensor([0.2, 0.3], dtype=torch.float64), torch.tensor([0.9, 1.0], dtype=torch.float64)
    assert slack(c1, c2, 0.35, 0.45) == pytest.approx(0.05 / 0.35, rel=1e-12)  # case 1 the tighter
    assert slack(c1, c2, 0.25, 0.45) == pytest.approx(-0.05 / 0.3, rel=1e-12)  # max c1 beyond δ
    assert slack(c1, c2, 0.6, 0.85) == pytest.approx(0.05 / 0.9, rel=1e-12)  # case 2 the tighter


def test_noise_lemma_search_runs_only_when_asked(run):
    """adversarial_steps = 0 (the default) measures the drawn noise: no search, so no search slacks recorded."""
    ev = run("deep_fusion.noise_lemma", instances=4)
    assert ev.params["adversarial_steps"] == 0 and "adversarial_start_slack" not in ev.details


def test_noise_lemma_noisy_norm_control_scales_the_attained_bound(run):
    """The registered control ‖x̃‖ = 1.5 on the extremal construction: |x̃ᵀu| = 1.5δ exactly (case 1 fails by half
    of δ), so the control is the norm, not a rounding."""
    rid = "deep_fusion.noise_lemma"
    control = dict(mode="adversarial", noisy_norm=1.5, allow_violation=True)
    assert control in [dict(c) for c in registry.get(rid).controls]

    ev = recording.expect(run_spec(run, registry.get(rid), control), recording.FAILS)
    c = ev.claim("case1_upper_bound")
    assert not c.passed and c.observed == pytest.approx(1.5 * c.bound, rel=1e-12), c
