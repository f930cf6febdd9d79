"""The results of ``deep_fusion`` together: their checks."""

from __future__ import annotations

import pytest

import theorems
from theorems.deep_fusion import (
    algorithm_1,
    definition_1,
    fusion_trend,
    noise_lemma,
    tables,
    theorem_1,
    theorem_2,
    theorem_2_depth,
    trained_attention,
)

T1, D1, NL, T2, A1, TD, TB, TA, FT = (m.ID for m in (theorem_1, definition_1, noise_lemma, theorem_2, algorithm_1,
                                                     theorem_2_depth, tables, trained_attention, fusion_trend))


def test_registered_statuses():
    want = {T1: "verified-corrected", D1: "verified", NL: "verified-corrected", T2: "vacuous", A1: "open",
            TD: "verified", TB: "refuted", TA: "trend", FT: "open"}
    assert {rid: str(theorems.get(rid).status) for rid in want} == want


# ======================================================================================================
# Theorem 2 over depth, Algorithm 1
# ======================================================================================================
def test_depth_proof_W_decreases_but_witnesses_increase(run):
    ev = run(TD)
    assert ev.details["proof_W_worst_log_sharpness_step"] < 0  # the old 'counterexample': one witness
    assert ev.claim("witness_increases_every_block").passed and ev.details["vacuous"] is False
    # residual reading (default): every instance has a witness that separates (𝒮 ≫ 1), decided over all candidates
    assert ev.claim("informative_witness_fraction").observed == 1.0
    assert ev.claim("witness_final_log_sharpness_min").observed > 100
    # the sharpness stays finite for the proof's W at scale 1: the fitted exponent is the headline (what is plotted)
    assert ev.headline == "sharpness_depth_exponent" and ev.details["scaling"]


def test_depth_no_residual_reading_is_met_by_non_separating_witnesses(run):
    """App. B's simplification: the statement holds, but on some instances no candidate of the whole search
    separates the clusters (the proof's W scaled up only plateaus), so that reading is flagged vacuous."""
    ev = run(TD, residual=False)
    assert ev.holds and ev.details["vacuous"] is True
    assert 0 < ev.claim("informative_witness_fraction").observed < 1
    # on some instance the best final log 𝒮 of every increasing witness is 0 to rounding (a collapsed stack)
    assert ev.claim("witness_final_log_sharpness_min").observed <= 1e-9


def test_depth_scaled_proof_W_overflows_nothing(run):
    """A scaled W drives 𝒮 beyond e^709: the evidence must stay finite (headline falls back to the bound claim)."""
    ev = run(TD, w_scale=16.0)
    assert ev.holds and ev.headline == "witness_increases_every_block"
    assert ev.details["proof_W_worst_log_sharpness_step"] > 0  # with the residual, the scaled proof's W works


def test_depth_identity_needs_the_normalisation(run):
    control = run(TD, normalise=False, restarts=2, allow_violation=True)
    # the rows of softmax(A)X̃ and exp(A − max)X̃ differ by the row sums (≥ 1 each): far more than rounding
    assert not control.claim("softmax_equals_normalised_exp").passed
    assert control.claim("softmax_equals_normalised_exp").observed > 1.0
    # with the normalisation the two agree to rounding, and the tolerance is not loose against that rounding
    c = run(TD).claim("softmax_equals_normalised_exp")
    assert c.observed < 1e-14 and c.atol < 1e4 * max(c.observed, 1e-16)


def test_depth_search_records_which_candidate_first_separates(run):
    """Each informative instance is credited once, to the first candidate that separated it."""
    for params in ({}, dict(residual=False)):
        ev = run(TD, **params)
        assert sum(ev.details["informative_witness_found_by"].values()) == ev.details["informative_witness_instances"]


@pytest.mark.parametrize("result_id", [T1, D1, NL, T2, A1, TD, TB, TA, FT])
@pytest.mark.parametrize("suite_name", ["ci", "thorough"])
def test_report_instances_flag_exactly_the_controls(result_id, suite_name):
    """Every instance the report runs is marked a negative control iff it steps over a hypothesis."""
    from theorems.core.registry import validate
    from theorems.core.suite import get_suite

    result = theorems.get(result_id)
    for form, params, control in result.report_instances(get_suite(suite_name)):
        _, violations = validate(result, params, form)
        assert control == bool(violations), (form, params, control, violations)
