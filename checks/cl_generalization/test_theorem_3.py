"""Theorem 3: μ_kᵀμ_ℓ ≤ log(exp{(L₂+τ)/(p_k p_ℓ)} − e^{1−ε}) — always vacuous; per-pair repair (paper 003,
`cl_generalization.theorem_3`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import dataclasses
import math

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_identity_fails,
    assert_identity_pin,
    assert_refused_naming,
    probe,
    row_ids,
)
from theorems import HypothesisViolation, ParameterError
from theorems.cl_generalization.theorem_3 import LOG_16_MINUS_E

T3 = "cl_generalization.theorem_3"


# -- Theorem 3 ----------------------------------------------------------------------------------------------
def test_theorem_3_vacuity_and_repair(run):
    ev = run(T3)
    # two classes of 8: p_kp_ℓ = ¼, so the smallest printed right-hand side at τ = 0 is log(e^{4L₂} − e^{1−ε})
    rhs = math.log(math.exp(4 * ev.details["L2"]) - math.exp(1 - 0.1))
    assert ev.details["printed_rhs_min_tau_0"] == pytest.approx(rhs, rel=1e-12)
    assert ev.holds and ev.details["vacuous"]
    assert ev.claim("rhs_at_least_log_16_minus_e").observed >= LOG_16_MINUS_E > 1.0 >= ev.details["max_norm_product"]
    assert ev.details["repair_informative_pairs"] == ev.details["pairs"]
    assert max(ev.details["repair_bounds"]) < 0


L2 = "cl_generalization.lemma_2"


# -- the paper's own preconditions and the declared domains -------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        (T3, dict(tau=-0.5), "τ ≥ 0"),
        (T3, dict(r=2.0), "‖f‖ = 1"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize(
    "rid, params, name",
    [(T3, dict(eps=0.0), "eps")],
)
def test_structural_input_is_refused_by_the_declarations(rid, params, name):
    assert_refused_naming(rid, params, name, ParameterError)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # instances.instance_hypotheses: m < 2 without the identity view (theorem_3 needs neither identity view nor more)
    (P + "theorem_3", None, dict(m=1, identity_view=False), "m ≥ 2 without the identity view"),
    (P + "theorem_3", None, dict(m=2, identity_view=False), None),
    (P + "theorem_3", None, dict(m=1, identity_view=True), None),
    # the identity encoder only on the sphere harness; a random map on style_content is fine
    (P + "theorem_3", None, dict(encoder="identity", harness="style_content"), "identity encoder only on the sphere"),
    (P + "theorem_3", None, dict(encoder="random", harness="style_content"), None),
    (P + "theorem_3", None, dict(encoder="random", harness="sphere"), None),
    # theorem_3: τ ≥ 0 at its edge, ‖f‖ = 1 just off it
    (P + "theorem_3", None, dict(tau=-1e-9), "τ ≥ 0"),
    (P + "theorem_3", None, dict(tau=1e-9), None),
    (P + "theorem_3", None, dict(r=1.001), "‖f‖ = 1"),
    (P + "theorem_3", None, dict(r=1.0), None),
    (P + "theorem_3", None, dict(repair_scale=1 + 1e-9), "exact T_kℓ"),
    (P + "theorem_3", None, dict(pairing="iid"), None),
    ('cl_generalization.theorem_3', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_3', None, dict(normalize=False), '‖f‖ ≡ r (features on the sphere)'),
    ('cl_generalization.theorem_3', None, dict(r=0.001), '‖f‖ = 1'),
    ('cl_generalization.theorem_3', None, dict(tau=-10.0), 'τ ≥ 0'),
    ('cl_generalization.theorem_3', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.theorem_3', None, dict(repair_scale=0.0), 'exact T_kℓ'),
    ("cl_generalization.theorem_3", None, dict(tau=0.0), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_3_rhs_identity_is_judged_at_the_smallest_printed_rhs(run):
    """With unequal classes (4, 8, 12 points) the printed right-hand side log(e^{L₂/(p_kp_ℓ)} − e^{1−ε}) (τ = 0)
    differs per pair; the identity RHS ≥ log(16 − e) is judged at its smallest value, the pair with the largest
    p_kp_ℓ (recomputed here from L₂ and the class masses)."""
    ev = run("cl_generalization.theorem_3", sizes=[4, 8, 12])
    L2, eps, p = ev.details["L2"], ev.params["eps"], (4 / 24, 8 / 24, 12 / 24)
    rhs = [math.log(math.exp(L2 / (p[k] * p[l])) - math.exp(1 - eps)) for k in range(3) for l in range(3) if k != l]
    observed = ev.claim("rhs_at_least_log_16_minus_e").observed
    assert abs(observed - min(rhs)) < 1e-12 * min(rhs) and max(rhs) > 2 * min(rhs), (observed, rhs)
    # and |μ_kᵀμ_ℓ| ≤ 1 at the largest of the (different) centre products
    dots = [abs(x) for x in ev.details["centre_products"]]
    assert ev.claim("centre_products_at_most_1").observed == max(dots) > min(dots), dots


# -- theorem_3 -----------------------------------------------------------------------------------------------------
# monkeypatch, not a Pin: it replaces P.infonce_point_pairs: code, which a Pin cannot move
@pytest.mark.parametrize("rel, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_3_rtol_pins_the_am_gm_identity(monkeypatch, rel, passes):
    """RTOL (1e-10) on ``L2_at_least_log2``: the pair losses rescaled so that L₂ = log 2·(1 − rel) exactly (a
    literal relative deficit)."""
    from theorems.cl_generalization import population as P
    from theorems.cl_generalization import theorem_3 as T3

    pairs = P.infonce_point_pairs

    def moved(F, w, pairing):
        out = pairs(F, w, pairing)
        return out * (math.log(2) * (1 - rel) / out.mean())

    monkeypatch.setattr(P, "infonce_point_pairs", moved)
    assert_identity_pin(T3.ID, "L2_at_least_log2", passes)


# monkeypatch, not a Pin: it replaces P.class_centres: code, which a Pin cannot move
@pytest.mark.parametrize("rel, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_3_rtol_pins_cauchy_schwarz_on_merged_classes(monkeypatch, rel, passes):
    """RTOL (1e-10) on ``centre_products_at_most_1``: merged classes without noise have μ_0ᵀμ_1 = 1 (binding); the
    centres scaled by √(1 + rel) put it a literal rel above."""
    from theorems.cl_generalization import population as P
    from theorems.cl_generalization import theorem_3 as T3

    centres = P.class_centres
    monkeypatch.setattr(P, "class_centres", lambda *a, **k: centres(*a, **k) * math.sqrt(1 + rel))
    merged = dict(mode="merged", noise=0.0, view_noise=0.0)
    assert_identity_pin(T3.ID, "centre_products_at_most_1", passes, **merged)


# monkeypatch, not a Pin: it replaces T3._log_diff_exp: code, which a Pin cannot move
@pytest.mark.parametrize("bump, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_3_rtol_pins_the_per_pair_repair(monkeypatch, bump, passes):
    """RTOL (1e-10, absolute) on ``per_pair_repair``: merged classes attain it (μ_0ᵀμ_1 − repair ≈ −7e-16); the
    repaired right-hand side (the second log-difference of each encoder) lowered by a literal bump."""
    from theorems.cl_generalization import theorem_3 as T3

    ldiff, calls = T3._log_diff_exp, []

    def moved(a, b):
        calls.append(1)
        return ldiff(a, b) - (bump if len(calls) % 2 == 0 else 0.0)

    monkeypatch.setattr(T3, "_log_diff_exp", moved)
    c = probe(T3.ID, mode="merged", noise=0.0, view_noise=0.0).claim("per_pair_repair")
    assert c.kind == "proof_step" and c.passed is passes, c


def test_theorem_3_reported_slack_is_the_tightest_pair_of_three_classes(run):
    """With three classes the pairs differ: the reported printed-bound slack is the largest μ_kᵀμ_ℓ − RHS over
    the pairs, the printed_bound claim's own."""
    ev = run("cl_generalization.theorem_3", sizes=[8, 8, 8])
    c = ev.claim("printed_bound")
    dots = ev.details["centre_products"]
    assert max(dots) - min(dots) > 1e-3, dots  # the pairs are not all alike
    assert ev.details["printed_bound_slack_max"] == pytest.approx(c.observed - c.bound, abs=1e-12), ev.details


# monkeypatch, not a Pin: the floor is set from an unmoved run's own RHS (a Pin's literal would restate it to 1e-10)
@pytest.mark.parametrize("rel, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_3_rtol_pins_the_log_16_minus_e_floor(monkeypatch, rel, passes):
    """RTOL (1e-10) on ``rhs_at_least_log_16_minus_e``: the floor raised to the default instance's own smallest
    printed RHS times 1 + rel (read off an unmoved run: independent of RTOL)."""
    from theorems.cl_generalization import theorem_3 as T3

    floor = probe(T3.ID).details["printed_rhs_min_tau_0"]
    monkeypatch.setattr(T3, "LOG_16_MINUS_E", floor * (1 + rel))
    assert_identity_pin(T3.ID, "rhs_at_least_log_16_minus_e", passes)


@pytest.mark.parametrize("excess, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_3_rtol_pins_the_weighted_pair_step(excess, passes):
    """RTOL (1e-10, absolute) on ``weighted_pair_le_L2`` (max p_kp_ℓT_kℓ ≤ L₂): T scaled (repair_scale, a control
    switch) so that the largest weighted pair exceeds L₂ by a literal excess; the scale is read off an unmoved
    run (max p_kp_ℓT_kℓ = L₂ + its slack), independently of RTOL."""
    from theorems.cl_generalization import theorem_3 as T3

    ev = probe(T3.ID)
    L2, slack = ev.details["L2"], ev.claim("weighted_pair_le_L2").observed
    scale = (L2 + excess) / (L2 + slack)
    c = probe(T3.ID, repair_scale=scale, allow_violation=True).claim("weighted_pair_le_L2")
    assert c.kind == "proof_step" and c.passed is passes and abs(c.observed - excess) < 1e-11, c


# monkeypatch, not a Pin: it replaces T3.build ...: code, which a Pin cannot move
@pytest.mark.parametrize("claim, name, change", [
    ("L2_at_least_log2", "infonce_point_pairs", lambda out: out * (math.log(2) * (1 - 1e-8) / out.mean())),
    ("centre_products_at_most_1", "class_centres", lambda out: out * 1.01),
])
def test_theorem_3_identities_take_the_worst_seed(monkeypatch, claim, name, change):
    """Two copies of the encoder of merged classes without noise (μ_0ᵀμ_1 = 1), the second one's pair losses or
    centres moved a literal amount past the identity: the identity over seeds fails."""
    import torch

    from theorems.cl_generalization import population as P
    from theorems.cl_generalization import theorem_3 as T3

    build = T3.build

    def twice(p, ctx):
        inst = build(p, ctx)
        return dataclasses.replace(inst, F=torch.cat([inst.F, inst.F]), F0=torch.cat([inst.F0, inst.F0]))

    monkeypatch.setattr(T3, "build", twice)
    original, calls = getattr(P, name), []

    def moved(*a, **k):
        calls.append(1)
        out = original(*a, **k)
        return change(out) if len(calls) == 2 else out

    monkeypatch.setattr(P, name, moved)
    assert_identity_fails(T3.ID, claim, mode="merged", noise=0.0, view_noise=0.0)
    assert len(calls) == 2


# monkeypatch, not a Pin: it replaces P.infonce_point_pairs: code, which a Pin cannot move
def test_theorem_3_floor_is_the_rhs_at_its_extreme_case(monkeypatch):
    """log(16 − e) is the printed right-hand side where it is smallest: L₂ = log 2 (pair losses rescaled to it),
    two balanced classes (p_kp_ℓ = ¼) and ε → 0 (10⁻⁹ here): the smallest RHS meets the floor to 1e-8."""
    from theorems.cl_generalization import population as P
    from theorems.cl_generalization import theorem_3 as T3

    pairs = P.infonce_point_pairs
    monkeypatch.setattr(P, "infonce_point_pairs", lambda *a: pairs(*a) * (math.log(2) / pairs(*a).mean()))
    ev = probe(T3.ID, eps=1e-9)
    assert abs(ev.details["printed_rhs_min_tau_0"] - T3.LOG_16_MINUS_E) < 1e-8, ev.details["printed_rhs_min_tau_0"]
