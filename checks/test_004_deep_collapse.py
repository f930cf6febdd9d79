"""CI gate for paper 004 beyond the UFM: deep regularised ResNets and transformers — what is particular to it.

The generic checks (status derived from the evidence, controls break every bound claim, counterexamples and
proof errata replay, worst-case search, bad input, JSON, determinism) run in ``checks/test_conformance.py``.

* ``theorem_4_3`` (verified): step 1 of the proof, objective ≥ L*_GUFM for every θ at every depth, attained by
  the constructed network; each control breaks what it should.
* ``theorem_4_3_depth``, ``theorem_4_6`` (open): the sweep's gap is non-increasing by construction (an
  identity), the NC trends are measurements the wrong-rate control breaks.
* ``dimension_conditions`` (refuted): MSE at d = K fails for every network, by the rank certificate.
* ``errata_a9`` (verified, two proof errata) and ``errata_a12`` (open, two proof errata).
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems import HypothesisViolation
from theorems.core.verdict import run_spec
from theorems.neural_collapse import dimension_conditions as DC
from theorems.neural_collapse import errata as ER
from theorems.neural_collapse import theorem_4_3 as T
from theorems.neural_collapse.rank_certificate import collapse_floor

T43, T43D, T46, DIM = T.ID, "neural_collapse.theorem_4_3_depth", "neural_collapse.theorem_4_6", DC.ID
A9, A12 = ER.ID_A9, ER.ID_A12


@pytest.mark.parametrize("rid, status", [(T43, "verified"), (T43D, "open"), (T46, "open"), (DIM, "refuted"),
                                         (A9, "verified"), (A12, "open")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (T43, dict(d=3), "d ≥ 4 (L-RN1)"),
    (T43, dict(lam=0.0), "λ > 0"),
    (T43, dict(duplicates=1), "Assumption 4.4 (distinct inputs)"),
    (T43, dict(arch="tx1", d=5), "d ≥ 2V+2"),
    (T43, dict(arch="tx1", d=6, C=2), "n distinct contexts per class"),
    (T43, dict(last_bias=True), "no last-layer bias"),
    (T43, dict(ln_gain=2.0), "LayerNorm without affine parameters"),
    (T43, dict(attaining=True), "attaining network"),
    (T43D, dict(depths="5,3"), "depths"),
    (T43D, dict(arch="rn2"), "architecture one of"),
    (T46, dict(regime="constant"), "o(1/log L)"),
    (DIM, dict(loss="mse", K=5, d=4), "d ≥ K (Definition 3.4"),
    (DIM, dict(d=3), "d ≥ 4 (L-RN1)"),
    (A9, dict(m=0.6), "0 < m < 0.5"),
    (A9, dict(step_scale=2.0), "exact construction constants"),
    (A9, dict(others_at="inside"), "margin"),
    (A12, dict(d=7, target="flat"), "d even"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(rid, **params)
    assert hypothesis in str(err.value)


# -- proof steps of Theorem 4.3 ------------------------------------------------------------------------------
def test_phase1_mover_numbers(run):
    ev = run(A9)
    assert ev.holds, ev.explain()
    # The printed angle is 2x the exact one (factor 2 inside the arcsin), independent of the formula used.
    assert ev.details["printed_formula_first"] / ev.details["angle_moved_first"] == pytest.approx(2.0, rel=1e-3)
    left = ev.claim("phase1_reaches_stopping_point")
    assert left.kind == "proof_step" and 0.05 < left.observed < 0.5  # ≈ e^{-2} of β⁰ is left
    assert ev.details["phase1_remaining_fraction_constant"] <= 1e-12


@pytest.mark.parametrize("spec, breaks", [
    (ER.A9_CONTROLS[0], ["lands_on_target", "weight_norm_is_alpha", "angle_lower_bound"]),
    (ER.A9_CONTROLS[1], ["lands_on_target", "weight_norm_is_alpha"]),  # EXACT_RTOL
    (ER.A9_CONTROLS[2], ["angle_formula_exact"]),  # ANGLE_RTOL
    (ER.A9_CONTROLS[3], ["others_untouched"]),
])
def test_phase1_controls_break_what_they_should(spec, breaks, run):
    ev = run_spec(run, theorems.get(A9), spec)
    for name in breaks:
        assert not ev.claim(name).passed, ev.explain()


def test_phase2_mover_proof_errata_and_the_repair(run):
    ev = run(A12)
    assert ev.claim("relu_is_identity").observed > 0.5 and ev.claim("moves_towards_target").observed > 0
    flat = run(A12, target="flat")
    assert all(c.passed for c in flat.claims), flat.explain()  # small-entry targets: both steps hold


# -- Theorem 4.3, step 1 ----------------------------------------------------------------------------------
def test_exact_lower_bound_is_attained_by_the_constructed_network(run):
    ev = run(T43, **T.ATTAINING)
    ratio = ev.claim("attaining_net_above_gufm_optimum").observed
    assert ev.holds and ratio == pytest.approx(1.0, abs=1e-12), ev.explain()
    # Trained networks come closer to the bound than random ones, and stay above it.
    assert 1.0 < ev.details["trained_min_ratio"] < ev.details["random_min_ratio"]


@pytest.mark.parametrize("spec, breaks", [
    (T.CONTROLS[0], ["trained_nets_above_gufm_optimum", "features_on_ln_sphere"]),  # affine LN
    (T.CONTROLS[1], ["reduction_identity"]),  # last-layer bias: the network's objective is not the GUFM's
    (T.CONTROLS[2], ["random_nets_above_gufm_optimum", "trained_nets_above_gufm_optimum"]),
    (T.CONTROLS[3], ["attaining_net_above_gufm_optimum"]),  # pins LOWER_RTOL where the bound binds
])
def test_theorem_4_3_controls_break_what_they_should(spec, breaks, run):
    ev = run_spec(run, theorems.get(T43), spec)
    assert not ev.holds or breaks == ["reduction_identity"]
    for name in breaks:
        assert not ev.claim(name).passed, ev.explain()


def test_identities_are_kinds_not_evidence(run):
    ev = run(T43)
    kinds = {c.name: c.kind for c in ev.claims}
    assert kinds["reduction_identity"] == kinds["features_on_ln_sphere"] == "identity"
    assert kinds["trained_nets_above_gufm_optimum"] == "bound"


# -- depth sweeps: open -------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid", [T43D, T46])
def test_depth_sweep_is_open_and_says_why(rid, run):
    result = theorems.get(rid)
    assert not result.trend_controls and result.status.value == "open"
    assert "cannot tell" in result.open_reason or "passes in the" in result.open_reason
    ev = run(rid)
    claims = {c.name: c for c in ev.claims}
    assert claims["gap_non_increasing"].kind == "identity" and claims["gap_non_increasing"].passed
    assert claims["gap_exponent"].kind == "measurement"
    gaps = ev.details["best_gap_by_depth"]
    assert all(b <= a + 1e-9 * abs(a) + 1e-15 for a, b in zip(gaps, gaps[1:])), gaps
    assert ev.details["min_gap_all_seeds_all_depths"] >= 0  # step 1 of Thm 4.3 on every trained network


@pytest.mark.parametrize("rid", [T43D, T46])
def test_wrong_rate_control_breaks_every_nc_trend(rid, run):
    ev = run_spec(run, theorems.get(rid), theorems.get(rid).controls[0])
    assert {c.name for c in ev.failed_bounds} == {"nc1_falls_with_depth", "nc2_falls_with_depth",
                                                   "nc3_falls_with_depth"}, ev.explain()


def test_theorem_4_6_schedule(run):
    ev = run(T46)
    lams = ev.details["lam_by_depth"]
    assert all(lam_last == lams[0][0] for lam_last, _ in lams)  # λ_L fixed
    assert all(abs(inner * L - lams[0][1] * ev.details["depths"][0]) < 1e-12
               for (_, inner), L in zip(lams, ev.details["depths"]))  # λ(L) = λ0/L


# -- Corollary 4.5 at d = K (MSE) -------------------------------------------------------------------------------
def test_counterexample_fails_for_every_network_by_the_rank_certificate(run):
    cx = DC.COUNTEREXAMPLES[0]
    ev = run(DIM, form="as_printed", **cx)
    assert ev.converged and not ev.holds and not ev.violations, ev.explain()
    assert ev.claim("gufm_optimum_collapsed_nc2b").observed == pytest.approx(0.5, rel=1e-5)  # 1/√K, K = 4
    assert ev.claim("rank_inequality").kind == "identity" and ev.claim("rank_inequality").passed
    # The trained networks' last layers obey the same floor: max(NC2B, NC3) ≥ δ_K at every depth.
    assert ev.details["deep_net_min_of_max_nc2b_nc3"] >= collapse_floor(cx["K"])
    assert ev.details["deep_net_min_over_gufm_optimum"] >= 1 - 1e-10  # step 1 of Thm 4.3 again


@pytest.mark.parametrize("params", [dict(loss="mse", K=3, d=4), dict(loss="ce", K=4, d=4)])
def test_limit_object_is_collapsed_where_the_dimension_suffices(params, run):
    ev = run(DIM, **params)
    assert ev.converged and ev.holds, ev.explain()


def test_ce_at_d_below_K_is_outside_definition_3_4():
    # The earlier CE 'counterexample' (K = 5, d = 4) is outside the paper's own reading: refused, naming Def. 3.4.
    with pytest.raises(HypothesisViolation, match="Definition 3.4"):
        theorems.check(DIM, loss="ce", K=5, d=4)


