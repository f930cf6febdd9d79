"""Theorem 4: μ_kᵀμ_ℓ ≤ √((2/(p_kp_ℓ))(L₂ + τ − (d−K)/2)) for Barlow Twins (paper 003, `cl_generalization.theorem_4`):
the checks particular to this result, its hand cases against independent references, pins and hypothesis edges. What
every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

from checks.cl_generalization.stand_ins import barlow_twins_seeds_twice
from checks.pinning import (
    assert_claim_fails,
    assert_hypothesis_edge,
    assert_refused_naming,
    row_ids,
    second_call_changed,
)
from theorems import HypothesisViolation
from theorems.cl_generalization.barlow_twins import BINDING as BT_BINDING

T4 = "cl_generalization.theorem_4"


# -- Barlow Twins -------------------------------------------------------------------------------------------
def test_theorem_4_is_informative_against_cauchy_schwarz_at_d_equal_K(run):
    ev = run(T4, **BT_BINDING)
    assert ev.holds and ev.details["printed_over_norm_product"] < 0.5, ev.explain()
    default = run(T4)  # d = 6 > K = 2: above ‖μ_k‖‖μ_ℓ‖, as every instance built before
    assert default.details["vacuous_vs_cauchy_schwarz"]


def test_theorem_4_sharp_form_is_at_least_sqrt2_tighter(run):
    assert run(T4).details["max_sharp_over_printed"] <= 1 / math.sqrt(2) + 1e-12


@pytest.mark.slow
def test_theorem_4_holds_on_trained_encoders(run):
    ev = run(T4, bt_trained=True, seeds=2, steps=60)
    assert ev.holds, ev.explain()
    assert ev.details["barlow_twins_final_loss"][0] < ev.details["barlow_twins_initial_loss"][0]


# -- the paper's own preconditions and the declared domains -------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [(T4, dict(tau_scale=0.5), "τ ≥")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    (P + "theorem_4", None, dict(tau_scale=1 - 1e-9), "τ ≥ ‖E f₁f₂ᵀ"),
    (P + "theorem_4", None, dict(tau_scale=1.5), None),
    (P + "theorem_4", None, dict(residual_coef=1 + 1e-9), "exact residual d − K"),
    (P + "theorem_4", None, dict(psd_shift=1e-9), "no shift"),
    (P + "theorem_4", None, dict(pairing="distinct"), "positives i.i.d. from A(x)"),
    ("cl_generalization.theorem_4", None, dict(psd_shift=1e-3), "no shift"),
    ("cl_generalization.theorem_4", None, dict(tau_scale=0.999), "τ ≥ ‖E f₁f₂ᵀ"),
    ("cl_generalization.theorem_4", None, dict(tau_scale=1.0), None),
    ('cl_generalization.theorem_4', None, dict(encoder='identity'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_4', None, dict(bt_norm='none'), 'E f_i² = 1 (per-coordinate normalisation)'),
    ('cl_generalization.theorem_4', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.theorem_4', None, dict(tau_scale=0.0), 'τ ≥ ‖E f₁f₂ᵀ − Σ p_k μ_kμ_kᵀ‖_F²'),
    ('cl_generalization.theorem_4', None, dict(residual_coef=-10.0), 'exact residual d − K'),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_4_sharp_step_is_judged_at_its_tightest_pair(run):
    """With K = 3 classes the six ordered pairs k ≠ ℓ give different sharp bounds; the proof step is judged at the
    pair where |μ_kᵀμ_ℓ| − √(((√L₂+√τ)² − (d−K))/(2p_kp_ℓ)) is largest (recomputed here from the per-pair lists)."""
    ev = run("cl_generalization.theorem_4", sizes=[6, 6, 6])
    gaps = [abs(dot) - b for dot, b in zip(ev.details["centre_products"], ev.details["sharp_bounds"], strict=True)]
    assert len(gaps) == 6 and max(gaps) - min(gaps) > 1.0, gaps
    assert ev.claim("sharp_bound").observed == max(gaps), (ev.claim("sharp_bound"), gaps)


# -- Barlow Twins: every claim over seeds takes the worst seed ----------------------------------------------------
# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
@pytest.mark.parametrize("claim, change, raises", [
    ("theorem_4", lambda r: {**r, "dot_tight": r["rhs_tight"] + 0.01, "gap": 0.01}, False),
    ("identity_1", lambda r: {**r, "identity": 3e-10}, True),
    ("C_minus_M_psd", lambda r: {**r, "eig_min": -3e-10}, True),
    ("sharp_bound", lambda r: {**r, "sharp_slack": 3e-9 * r["sharp_scale"]}, False),
])
def test_theorem_4_claims_take_the_worst_seed(monkeypatch, claim, change, raises):
    """Two seeds, the second one's row moved a literal amount past the claim (3 allowances for the tolerances
    RTOL, PSD_ATOL, RTOL·scale): the claim over seeds fails."""
    from theorems.cl_generalization import barlow_twins as B

    barlow_twins_seeds_twice(monkeypatch)
    calls = second_call_changed(monkeypatch, B, "theorem_4_row", change)
    assert_claim_fails(B.THEOREM_4, claim, raises)
    assert len(calls) == 2
