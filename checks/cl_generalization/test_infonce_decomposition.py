"""InfoNCE = L₁ + L₂; linear loss L' = L₁ + λ‖E f‖² is InfoNCE at τ → ∞ (paper 003,
`cl_generalization.infonce_decomposition`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import dataclasses
import math

import pytest

from checks.pinning import (
    assert_claim_fails,
    assert_hypothesis_edge,
    assert_refused_naming,
    row_ids,
    second_call_changed,
)
from theorems import HypothesisViolation, ParameterError

INFONCE = "cl_generalization.infonce_decomposition"
L2 = "cl_generalization.lemma_2"


# -- InfoNCE ------------------------------------------------------------------------------------------------
def test_infonce_identities_fail_off_their_hypotheses(run):
    assert run(INFONCE).claim("decomposition").passed
    off = run(INFONCE, normalize=False, allow_violation=True)
    assert not off.claim("decomposition").passed  # −f₁ᵀf₂ = ½‖f₁ − f₂‖² − 1 needs ‖f‖ = 1
    assert not run(INFONCE, limit_coef=1.0, allow_violation=True).claim("temperature_limit_rate").passed


def test_infonce_claims_take_the_worst_seed_and_temperature(run):
    ev = run(INFONCE, harness="style_content", encoder="infonce", d=4, seeds=2, steps=20)
    assert ev.claim("L2_at_least_log2").observed == min(ev.details["per_seed_L2"])
    assert len(set(ev.details["per_seed_L2"])) == 2
    default = run(INFONCE)
    assert default.claim("temperature_limit_from_above").observed == min(default.details["tau_scaled_gap"].values())
    assert default.claim("temperature_limit_rate").observed == max(default.details["rate_ratio"].values())
    # the tolerances, pinned: a misprint of 1e-8 in L₁'s constant fails both printed equations
    shifted = run(INFONCE, split_shift=1e-8, allow_violation=True)
    assert not shifted.claim("decomposition").passed and not shifted.claim("linear_loss_identity").passed


L1 = "cl_generalization.lemma_1"


# -- the paper's own preconditions and the declared domains -------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [(INFONCE, dict(normalize=False), "‖f‖ ≡ r")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize(
    "rid, params, name",
    [(INFONCE, dict(sizes="6"), "sizes")],
)
def test_structural_input_is_refused_by_the_declarations(rid, params, name):
    assert_refused_naming(rid, params, name, ParameterError)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # infonce_decomposition: its four switches just off their defaults
    (P + "infonce_decomposition", None, dict(r=1.001), "‖f‖ = 1"),
    (P + "infonce_decomposition", None, dict(limit_coef=0.5 + 1e-9), "limit ½L'"),
    (P + "infonce_decomposition", None, dict(split_shift=1e-9), "L₁ = ½E‖f₁ − f₂‖² − 1"),
    (P + "infonce_decomposition", None, dict(r=1.0, limit_coef=0.5, split_shift=0.0, pairing="iid"), None),
    ('cl_generalization.infonce_decomposition', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.infonce_decomposition', None, dict(normalize=False), '‖f‖ ≡ r (features on the sphere)'),
    ('cl_generalization.infonce_decomposition', None, dict(r=0.001), '‖f‖ = 1'),
    ('cl_generalization.infonce_decomposition', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.infonce_decomposition', None, dict(limit_coef=-10.0), "limit ½L'"),
    ('cl_generalization.infonce_decomposition', None, dict(split_shift=-10.0), 'L₁ = ½E‖f₁ − f₂‖² − 1'),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_infonce_rate_on_collapsed_features_is_zero_not_a_division_by_zero(run):
    """Merged classes without noise embed every view to one point: s⁺ = s⁻ everywhere, so E(s⁺ − s⁻)² = 0 and the
    gap τ(L_τ − log 2) − ½L' is 0 too; the rate ratio is then 0 by convention (the claim holds with nothing to
    divide), never 0/0."""
    ev = run("cl_generalization.infonce_decomposition", harness="sphere", encoder="identity", mode="merged",
             noise=0.0, view_noise=0.0, sizes=[3, 3])
    assert ev.holds and ev.details["mean_squared_score_gap"] == 0.0, ev.explain()
    assert ev.claim("temperature_limit_rate").observed == 0.0, ev.explain()


# -- infonce_decomposition and alignment_uniformity: the claims over seeds / restarts take the worst one ------------
def _infonce_two_seeds(monkeypatch, change):
    import torch

    from theorems.cl_generalization import infonce as IN

    build = IN.build

    def twice(p, ctx):
        inst = build(p, ctx)
        return dataclasses.replace(inst, F=torch.cat([inst.F, inst.F]), F0=torch.cat([inst.F0, inst.F0]))

    monkeypatch.setattr(IN, "build", twice)
    return second_call_changed(monkeypatch, IN, "terms", change)


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
@pytest.mark.parametrize("claim, change, raises", [
    ("decomposition", lambda r: {**r, "L": r["L1"] + r["L2"] + 1e-8}, False),
    ("linear_loss_identity", lambda r: {**r, "Lp": r["Lp_split"] + 1e-8}, False),
    ("temperature_limit_from_above", lambda r: {**r, "lim": r["lim"][:1] + [(r["lim"][1][0], -1e-8)] + r["lim"][2:]},
     False),
    ("temperature_limit_rate", lambda r: {**r, "lim": r["lim"][:1] + [(r["lim"][1][0], 1.0)] + r["lim"][2:]}, False),
    ("L2_at_least_log2", lambda r: {**r, "L2": math.log(2) * (1 - 1e-8)}, True),
])
def test_infonce_claims_take_the_worst_seed(monkeypatch, claim, change, raises):
    """Two copies of the instance's encoder, the second one's terms moved a literal amount past the claim (at one
    τ of four for the limit claims): the claim over seeds (and τ) fails."""
    from theorems.cl_generalization import infonce as IN

    calls = _infonce_two_seeds(monkeypatch, change)
    assert_claim_fails(IN.ID, claim, raises)
    assert len(calls) == 2
