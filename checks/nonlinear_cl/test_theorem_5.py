"""The checks particular to ``nonlinear_cl.theorem_5`` (Section 4.2, Theorem 5 (proof in Appendix C.3)): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest
import torch

from checks.pinning import (
    assert_default_proof_steps_fail_only_at_errata,
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_out_of_domain_refused,
    assert_report_instances_flag_exactly_the_negative_controls,
    excess,
    row_ids,
)

T5 = "nonlinear_cl.theorem_5"
NL = "nonlinear_cl."
D = torch.float64


# (result id, form, params, a fragment of the hypothesis named, or None: inside every hypothesis)
EDGES = [
    ("nonlinear_cl.theorem_5", None, dict(bns_tilt=1e-6), "exact s_BNS"),
    # theorem_5
    (NL + "theorem_5", None, dict(dependent=True), "conditionally independent"),
    (NL + "theorem_5", None, dict(delta_scale=1.001), "exact δ_k"),
    (NL + "theorem_5", None, dict(delta_scale=0.999), "exact δ_k"),
    ('nonlinear_cl.theorem_5', None, dict(dependent=True), 'Assumption 2(iii): x_k conditionally independent given z'),
    ('nonlinear_cl.theorem_5', None, dict(delta_scale=-1000.0), 'exact δ_k'),
]


# -- Theorem 5 ----------------------------------------------------------------------------------------------------------
def test_theorem_5_alternative_delta_of_the_proof_is_wrong_and_the_corrected_one_right(run):
    ev = run(T5)
    assert ev.holds
    assert not ev.claim("alternative_delta_as_printed").passed
    assert ev.claim("alternative_delta_corrected").passed
    assert ev.details["secular_equation"] == pytest.approx(1.0, abs=1e-12)


def test_theorem_5_delta_nearly_zero(run):
    ev = run(T5, weak_rf=0.01)
    assert ev.holds and 0 <= ev.details["min_delta_over_max"] < 1e-3
    delta, alt = ev.details["delta"], ev.details["delta_alt_printed"]
    assert ev.claim("delta_nonnegative").observed == min(delta)  # the smallest δ_k is the one judged
    worst = max(abs(a - b) for a, b in zip(alt, delta, strict=True)) / max(abs(x) for x in delta)
    assert ev.claim("alternative_delta_as_printed").observed == pytest.approx(worst, rel=1e-12)


def test_theorem_5_tolerances_are_pinned(run):
    # 1 + 1e-9 on δ_k moves eq. (15) by ~6e-11 (≈ 65 × ATOL); 1 + 1e-7 moves the corrected alternative by 1e-7
    # (10 × DELTA_RTOL); δ_k < 0 breaks δ_k ≥ 0
    assert not run(T5, delta_scale=1 + 1e-9, allow_violation=True).claim("theorem_5_equals_lemma_4").passed
    assert not run(T5, delta_scale=1 + 1e-7, allow_violation=True).claim("alternative_delta_corrected").passed
    assert not run(T5, delta_scale=-1.0, allow_violation=True).claim("delta_nonnegative").passed
    assert not run(T5, dependent=True, allow_violation=True).claim("theorem_5_equals_lemma_4").passed


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_5_lemma_5_is_judged_at_its_worst_entry():
    """K = 2 blocks of d = 2: 𝕍[x̃] built exactly as diag_k L_k + p₀p₁ΔΔᵀ, then ONE entry off by 5e-12 (5 × ATOL =
    1e-12): Lemma 5's claim fails by 1–10 allowances (ATOL ×10 passes it; min for max reads 0)."""
    from theorems.nonlinear_cl import theorem_5

    L = torch.tensor([[2.0, 0.3, 0.7, 0.1], [0.3, 1.0, 0.2, 0.4], [0.7, 0.2, 3.0, 0.5], [0.1, 0.4, 0.5, 1.5]], dtype=D)
    Delta = torch.tensor([0.5, -1.0, 0.25, 2.0], dtype=D)
    q0, q1 = 0.25, 0.75
    blocks = torch.block_diag(L[:2, :2], L[2:, 2:])
    V = blocks + q0 * q1 * torch.outer(Delta, Delta)
    assert theorem_5.lemma_5_claim(V, L, q0, q1, Delta, 2, 2).passed
    V[1, 2] += 5e-12
    c = theorem_5.lemma_5_claim(V, L, q0, q1, Delta, 2, 2)
    assert not c.passed and 1.0 < excess(c) <= 10.0, c


def test_theorem_5_delta_is_judged_at_the_smallest_k():
    """δ = (0.5, −1e-3, 2.0): one negative δ_k fails δ_k ≥ 0 (the largest, max for min, would pass)."""
    from theorems.nonlinear_cl import theorem_5

    c = theorem_5.delta_claim(torch.tensor([0.5, -1e-3, 2.0], dtype=D), 0.1)
    assert not c.passed and c.observed == -1e-3, c
    assert theorem_5.delta_claim(torch.tensor([0.5, 0.0, 2.0], dtype=D), 0.1).passed  # δ_k = 0 is allowed


def test_default_proof_steps_fail_only_where_an_erratum_is_registered(run):
    # the default instance is cheap and carries proof steps
    assert_default_proof_steps_fail_only_at_errata(run, "nonlinear_cl.theorem_5")


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.theorem_5")


def test_values_outside_the_domain_are_refused_with_the_parameter_named():
    assert_out_of_domain_refused("nonlinear_cl.theorem_5", dict(weak_rf=0.0))  # the out-of-domain value is the last one


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.theorem_5", dict(dependent=True), "conditionally independent")
