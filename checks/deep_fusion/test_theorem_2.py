"""The checks particular to ``deep_fusion.theorem_2`` (§Deep Fusion, Theorem 2, and its proof in Appendix B): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, probe, row_ids
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.context import Context
from theorems.deep_fusion import algorithm_1, fusion, theorem_2

T2 = theorem_2.ID
A1 = algorithm_1.ID


# ======================================================================================================
# Appendix B's next-layer steps (Theorem 2)
# ======================================================================================================
def _direct_steps(Xt, W, labels, d, D, sizes):
    """B4, B5 and B7 slacks of the first instance in numpy, without the row scaling of `appendix_b_steps`
    (direct exp(A); fine at the small n used here): an independent computation of the same steps."""
    X, Wn, lab = Xt[0].numpy(), W[0].numpy(), labels.numpy()
    n = len(lab)
    nu = np.array(sizes, dtype=float)[lab]
    same = lab[:, None] == lab[None, :]
    A = X @ Wn @ Wn.T @ X.T
    Xp = np.exp(A) @ X  # App. B's literal aggregation
    XpW = Xp @ Wn
    la = nu * D**2
    lb = np.where(same, -np.inf, (nu[:, None] + nu[None, :]) * d + (n - nu[:, None] - nu[None, :]) * d**2).max(1)
    dp = np.exp(la) * nu * d + np.exp(lb) * (n - nu)
    Dp = np.exp(la) * nu * D - np.exp(lb) * (n - nu)
    b4u = ((dp[:, None] - XpW) / np.abs(dp[:, None]))[~same].min()
    b4l = ((XpW - Dp[:, None]) / np.abs(Dp[:, None]))[same].min()
    G = XpW @ XpW.T
    lb5 = nu[:, None] * Dp[:, None] ** 2 * np.ones((1, n))
    b5s = ((G - lb5) / np.abs(lb5))[same].min()
    b7 = (n * D**2 - d - n * d**2) - (A[same].min() - A[~same].max())
    return {"B4_offblock_upper": b4u, "B4_inblock_lower": b4l, "B5_same_lower": b5s,
            "B7_previous_sharpness_upper": b7}


T2ID = "deep_fusion.theorem_2"


# ------------------------------------------------------------------------------------------------------
# Theorem 2's entry claims take the worst instance (and hold on the default batch)
# ------------------------------------------------------------------------------------------------------
def _entry_inputs():
    from theorems.core.context import Context
    from theorems.data.subspaces import effective_eps
    from theorems.metrics.cluster_integrity import margin_of_w

    ctx = Context.make(seed=0)
    p = {**registry.get(T2ID).defaults, "instances": 3, "w_scale": 1.0}
    clean, Xt, W, _ = fusion.instance(ctx, p)
    d, D = fusion.delta_Delta(effective_eps(clean.X, Xt).clamp_min(0), margin_of_w(clean.X, clean.labels, W))
    XW = Xt @ W
    return XW, XW @ XW.transpose(-1, -2), clean.labels, clean.nu, d, D


NAMES = ("B1_offblock_at_most_delta", "B1_inblock_at_least_Delta", "eq8_cross_upper_bound",
         "eq7_corrected_lower_bound", "eq7_printed_lower_bound")


EDGES = [
    ("deep_fusion.theorem_2", None, dict(K=2, r=2, m=4), None),
    ("deep_fusion.theorem_2", None, dict(K=2, r=2, m=3), "independent subspaces (K·r ≤ m"),
    # theorem_2
    ("deep_fusion.theorem_2", None, dict(signs="arbitrary", K=2, r=2, m=4), "sign-consistent clusters"),
    ("deep_fusion.theorem_2", None, dict(gamma_factor=1.0, constant_scale=1.0), None),
    ("deep_fusion.theorem_2", None, dict(gamma_factor=1.0 - 1e-12), "exact γ_B"),
    ("deep_fusion.theorem_2", None, dict(constant_scale=1.0 - 1e-12), "exact constants δ, Δ"),
    ("deep_fusion.theorem_2", None, dict(constant_scale=1.0 + 1e-12), "exact constants δ, Δ"),
    ("deep_fusion.theorem_2", None, dict(gamma_factor=1.0 + 1e-12), "exact γ_B"),
    ("deep_fusion.theorem_2", None, dict(signs="arbitrary"), "sign-consistent clusters"),
]


REFUSALS = [
    ("deep_fusion.theorem_2", dict(signs="arbitrary"), "sign-consistent clusters"),
    ("deep_fusion.theorem_2", dict(constant_scale=2.0), "exact constants"),
    ("deep_fusion.theorem_2", dict(gamma_factor=2.0), "exact γ_B"),
    ("deep_fusion.theorem_2", dict(K=3, r=8, m=20), "independent subspaces"),
]


@pytest.mark.parametrize("normalisation", ["none", "unit_columns"])
def test_theorem_2_witnesses_exist_where_the_proofs_W_fails(run, normalisation):
    """Non-separable data (δ > Δ): the proof's W falls short of γ_B (App. B erratum), other W reach it."""
    ev = run(T2, instance="nonseparable", instances=8, normalisation=normalisation)
    assert not ev.claim("appendix_B_W_reaches_gamma_B").passed
    assert ev.details["proof_W_log10_R_over_gamma_B_min"] < -0.05
    assert ev.holds and ev.details["log10_gamma_B_max"] > 0  # γ_B > 1 there, reached anyway


def test_theorem_2_vacuity_is_the_scale(run):
    """Without a normalisation the search exceeds γ_B by far more than e^20; with unit columns only by a finite
    margin: the flag changes what is shown."""
    free, unit = run(T2), run(T2, normalisation="unit_columns")
    assert free.details["vacuous"] is True and unit.details["vacuous"] is False
    assert free.details["witness_log10_margin_min"] > unit.details["witness_log10_margin_min"]


def test_theorem_2_unit_columns_reach_gamma_B_without_separating(run):
    """Non-separable batch, unit columns: the winning witness starts from a first-layer log-sharpness far below
    0 and stays below 0 after the block — γ_B is reached because the first layer separates nothing; on some
    instances no γ_B-reaching candidate of the search separates (vacuous there)."""
    ev = run(T2, instance="nonseparable", normalisation="unit_columns")
    assert ev.claim("witness_reaches_gamma_B").passed
    assert ev.claim("winner_log_sharpness_before_max").observed < -10
    assert ev.claim("winner_log_sharpness_after_max").observed < 0
    assert ev.claim("separating_witness_fraction").observed < 1 and ev.details["vacuous"] is True
    # the split is the ratio: after − before of the winner is ≥ log γ_B + margin ≥ the search's ratio
    assert ev.details["winner_log_sharpness_after_min"] > ev.details["winner_log_sharpness_before_min"]


@pytest.mark.parametrize("params", [dict(instances=2), dict(theorem_2.B4_INSTANCE, instances=1),
                                    dict(instance="eq7_counterexample", instances=1)])
def test_appendix_b_steps_match_a_direct_numpy_computation(params):
    from theorems.data.subspaces import effective_eps
    from theorems.metrics.cluster_integrity import margin_of_w

    ctx = Context.make(seed=0)
    p = {**theorems.get(T2).defaults, **params, "w_scale": 1.0}
    clean, Xt, W, _ = fusion.instance(ctx, p)
    d, D = fusion.delta_Delta(effective_eps(clean.X, Xt).clamp_min(0), margin_of_w(clean.X, clean.labels, W))
    got = fusion.appendix_b_steps(Xt, W, clean.labels, d, D, clean.sizes)
    want = _direct_steps(Xt, W, clean.labels, float(d[0]), float(D[0]), clean.sizes)
    for name, value in want.items():
        assert float(got[name][0]) == pytest.approx(value, rel=1e-8, abs=1e-10), name


def test_theorem_2_literal_aggregation_is_even_more_vacuous(run):
    """App. B's exp(A)X̃ (no normalisation) lets the next logits grow like e^{2 max A}: the search's margin
    over γ_B is far larger than with unit rows, already with unit columns."""
    norm, lit = run(T2, normalisation="unit_columns"), run(T2, aggregation="unnormalised", normalisation="unit_columns")
    assert lit.holds and lit.claim("witness_reaches_gamma_B").observed > 10 * norm.claim(
        "witness_reaches_gamma_B").observed


def test_theorem_2_registered_control_is_just_outside(run):
    """The REGISTERED control asks for a factor a little above what the search reaches: it fails by < 5 nats."""
    for spec in theorem_2.RESULT.controls:
        c = run(T2, **spec).claim("witness_reaches_gamma_B")
        assert not c.passed and -5.0 < c.observed < 0.0, c


def test_theorem_2_every_registered_proof_erratum_replays(run):
    """Each REGISTERED erratum's proof_step claim fails on its instance (the worst slack over the batch is taken)."""
    from theorems.core.verdict import proof_erratum_problem

    for erratum in theorem_2.RESULT.proof_errata:
        assert proof_erratum_problem(theorem_2.RESULT, erratum, run) is None, erratum.step


def test_theorem_2_default_steps_are_finite_and_gamma_B_certifies_no_increase(run):
    ev = run(T2)
    for name in ("B1_offblock_at_most_delta", "B1_inblock_at_least_Delta", "eq8_cross_upper_bound"):
        c = ev.claim(name)
        assert c.passed and math.isfinite(c.observed), c  # the worst entry over the batch, not a masked one
    assert ev.details["separable_instances"] == ev.details["instances"]  # ε = 0.01: every instance has δ < Δ
    assert ev.claim("log_gamma_B_max_separable").observed < 0  # γ_B < 1 there: the factor certifies no increase


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, params, name", REFUSALS)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)


def test_theorem_2_every_instance_is_credited_to_the_candidate_that_first_reached_gamma_B(run):
    """`witness_found_by` (what the page shows of the search) credits each instance once, to the first candidate
    reaching γ_B: on the default batch every instance reaches it (margin ≥ 0), so the credits sum to the batch."""
    ev = run("deep_fusion.theorem_2")
    assert ev.claim("witness_reaches_gamma_B").passed
    assert sum(ev.details["witness_found_by"].values()) == ev.details["instances"]


# monkeypatch, not a Pin: T2.appendix_b_steps is a function no parameter or module constant reaches
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


def test_theorem_2_vacuity_needs_twenty_nats(run):
    """VACUITY_NATS (20): γ_B multiplied by 1e30 (69.08 nats) leaves the default search a margin of ≈ 11.8 nats: γ_B
    is still reached (holds) but not exceeded by e^20, so this instance is not vacuous (÷10 would call it so)."""
    ev = run("deep_fusion.theorem_2", gamma_factor=1e30, allow_violation=True)
    margin = ev.claim("witness_reaches_gamma_B").observed
    assert ev.claim("witness_reaches_gamma_B").passed and 2.0 < margin < 20.0, margin
    assert ev.details["vacuous"] is False
    assert run("deep_fusion.theorem_2").details["vacuous"] is True


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


def test_theorem_2_b4_erratum_shows_its_number(run):
    """The (B4) erratum says the real aggregation gives x̃′_iᵀw_l = 2.6·δ′ on its instance: the registered instance
    (r = 1, m = 4, ν = 12, ε = 0.002, noise toward the other cluster) reproduces it (relative slack 1 − 2.6)."""
    result = registry.get("deep_fusion.theorem_2")
    (erratum,) = [e for e in result.proof_errata if e.claim == "B4_offblock_upper"]
    assert "2.6·δ′" in erratum.why
    c = run(result.id, form=erratum.form, **erratum.params).claim("B4_offblock_upper")
    assert round(1.0 - c.observed, 1) == 2.6, c


# ------------------------------------------------------------------------------------------------------
# Theorem 2's instance 'Delta_nonpositive' is what its name says
# ------------------------------------------------------------------------------------------------------
def test_theorem_2_delta_nonpositive_instance_has_a_negative_Delta(run):
    """ε = 0.2, ρ = 0.5: Δ = cos(arccos ρ + arccos(1 − ε)) = 0.4 − 0.6·√0.75 = −0.1196 in closed form, and the
    measured Δ (from ε_eff ≤ ε) stays below −0.1 on every instance: eq. (7), which needs Δ ≥ 0, is left out rather
    than failed, and no instance counts as Δ ≥ 0."""
    f = fusion.FIXED["Delta_nonpositive"]
    closed = f["rho"] * (1 - f["eps"]) - math.sqrt(1 - f["rho"] ** 2) * math.sqrt(1 - (1 - f["eps"]) ** 2)
    assert closed < -0.1, closed
    ev = run(T2ID, instance="Delta_nonpositive", instances=2, restarts=2)
    assert ev.details["Delta_nonneg_instances"] == 0 and ev.details["Delta_first"] < -0.1, ev.details
    # the instance the docstring describes (ε = 0.2, ρ = 0.5, n = 64 in R^3): δ ≤ sin φ = 0.6, Δ ≥ −0.1196
    d = ev.details
    assert (d["n"], d["m"], d["sizes"]) == (64, 3, [32, 32]), d
    assert 0.59 < d["delta_first"] <= 0.6 and -0.1196 <= d["Delta_first"] < -0.11, d
    names = {c.name for c in ev.claims}
    assert not names & {"eq7_printed_lower_bound", "eq7_corrected_lower_bound"}, names
    assert ev.holds and ev.details["separable_instances"] == 0
    # where Δ ≥ 0 the eq. (7) claims are there (the default batch)
    assert {"eq7_printed_lower_bound", "eq7_corrected_lower_bound"} <= {c.name for c in run(T2ID).claims}


def test_theorem_2_entry_claims_hold_on_the_default_batch():
    claims, _ = theorem_2.entry_claims(*_entry_inputs())
    by = {c.name: c for c in claims}
    for name in NAMES:
        assert by[name].passed and by[name].kind == "proof_step", by[name]
    # the default batch is slack, not at the edge: each by more than 1e-3 (so the worst-instance test below moves
    # exactly the one number it patches)
    assert by["B1_offblock_at_most_delta"].observed < -1e-3 and by["eq8_cross_upper_bound"].observed < -1e-3
    assert by["B1_inblock_at_least_Delta"].observed > 1e-3


def test_theorem_2_entry_claims_take_the_worst_instance():
    """Instance 1 of 3 patched to violate each entry bound by 0.01: the claim fails by that 0.01 (a mean or the
    best instance would hide it)."""
    XW, A1, labels, nu, d, D = _entry_inputs()
    n = labels.numel()
    i, l = 0, int((labels != labels[0]).nonzero()[0])  # a cross pair (i, l)
    j = int((labels == labels[0]).nonzero()[1])  # a same pair (i, j), i ≠ j
    cases = {}
    XWo = XW.clone()
    XWo[1, i, l] = d[1] + 0.01
    cases["B1_offblock_at_most_delta"] = (XWo, A1)
    XWi = XW.clone()
    XWi[1, i, j] = D[1] - 0.01  # w_j of x_i's own cluster (one column of W per sample)
    cases["B1_inblock_at_least_Delta"] = (XWi, A1)
    A8 = A1.clone()
    nui, nul = float(nu[i]), float(nu[l])
    A8[1, i, l] = (nui + nul) * d[1] + (n - nui - nul) * d[1] ** 2 + 0.01
    cases["eq8_cross_upper_bound"] = (XW, A8)
    A7 = A1.clone()
    A7[1, i, j] = nui * D[1] ** 2 - (n - nui) * d[1] ** 2 - 0.01
    cases["eq7_corrected_lower_bound"] = (XW, A7)
    A7p = A1.clone()
    A7p[1, i, j] = nui * D[1] ** 2 - 0.01
    cases["eq7_printed_lower_bound"] = (XW, A7p)
    for name, (xw, a) in cases.items():
        claims, _ = theorem_2.entry_claims(xw, a, labels, nu, d, D)
        c = next(c for c in claims if c.name == name)
        assert not c.passed and abs(abs(c.observed) - 0.01) < 1e-9, (name, c)


# monkeypatch, not a Pin: theorem_2.appendix_b_steps is a function no parameter or module constant reaches
def test_theorem_2_next_layer_claim_is_the_worst_instance(monkeypatch):
    """next_layer_claims reports, per step, the smallest slack over the instances: one instance patched to −0.25
    (the others +1) fails the claim with exactly that slack; NaN instances are left out, not counted as failing."""
    def steps(*args):
        return {"B4_offblock_upper": torch.tensor([1.0, -0.25, 1.0]),
                "B7_previous_sharpness_upper": torch.tensor([math.nan, 2.0, 3.0])}

    monkeypatch.setattr(theorem_2, "appendix_b_steps", steps)
    claims, details = theorem_2.next_layer_claims(None, None, None, None, None, (2, 2))
    by = {c.name: c for c in claims}
    assert by["B4_offblock_upper"].observed == -0.25 and not by["B4_offblock_upper"].passed
    assert by["B7_previous_sharpness_upper"].observed == 2.0 and by["B7_previous_sharpness_upper"].passed
    assert details["B4_offblock_upper_failing_instances"] == 1
    assert details["B7_previous_sharpness_upper_defined_instances"] == 2


# ------------------------------------------------------------------------------------------------------
# Theorem 2's errata say the numbers their registered instances give
# ------------------------------------------------------------------------------------------------------
def test_theorem_2_b8_erratum_counts_are_its_instances(run):
    """(B8)'s erratum: "on 4 of the 6 instances (of 8) where it is defined" (𝒟(S′) is undefined where a
    same-cluster A′ ≤ 0): the registered instance is that batch of 8, and its evidence gives those counts."""
    (e,) = [e for e in registry.get(T2ID).proof_errata if e.claim == "B8_next_sharpness_lower"]
    assert "4 of the 6 instances (of 8)" in e.why
    ev = recording.expect(run(T2ID, form=e.form, **dict(e.params)), *recording.OUTCOMES)
    assert ev.details["instances"] == 8 and ev.details["B8_next_sharpness_lower_defined_instances"] == 6
    assert ev.details["B8_next_sharpness_lower_failing_instances"] == 4
    assert not ev.claim("B8_next_sharpness_lower").passed


def test_theorem_2_eq7_erratum_numbers_are_its_instance(run):
    """eq. (7)'s erratum prints A₁₂ = 0.7200 < ν₁Δ² = 0.8887 and the corrected 0.3037 for ν = (2, 6): the registered
    instance gives those numbers (to the 4 printed digits), and its clusters are (2, 6)."""
    (e,) = [e for e in registry.get(T2ID).proof_errata if e.claim == "eq7_printed_lower_bound"]
    assert "A₁₂ = 0.7200 < ν₁Δ² = 0.8887" in e.why and "= 0.3037 holds" in e.why
    ev = recording.expect(run(T2ID, form=e.form, **dict(e.params)), *recording.OUTCOMES)
    assert ev.details["sizes"] == [2, 6]
    assert abs(ev.details["A12_first"] - 0.7200) < 5e-5
    assert abs(ev.details["eq7_printed_bound_first"] - 0.8887) < 5e-5
    assert abs(ev.details["eq7_corrected_bound_first"] - 0.3037) < 5e-5
    assert not ev.claim("eq7_printed_lower_bound").passed and ev.claim("eq7_corrected_lower_bound").passed
    # γ_ν is recorded only for balanced clusters (the default batch), not for ν = (2, 6)
    assert "log10_gamma_nu_first" not in ev.details and "log10_gamma_nu_first" in run(T2ID).details


# monkeypatch, not a Pin: theorem_2.witness_search is a function no parameter or module constant reaches
def test_theorem_2_witness_claim_is_the_worst_instance(monkeypatch):
    """witness_reaches_gamma_B is the smallest margin over the instances: the search's best ratio on instance 1 of 3
    lowered to log γ_B − 0.5 fails it with margin −0.5 (the other instances exceed γ_B by e^80)."""

    search = theorem_2.witness_search

    def lowered(ctx, p, Xt, W, labels, logB):
        best, found, winner = search(ctx, p, Xt, W, labels, logB)
        best = best.clone()
        best[1] = logB[1] - 0.5
        return best, found, winner

    monkeypatch.setattr(theorem_2, "witness_search", lowered)
    ev = probe(T2ID, instances=3, restarts=2)
    c = ev.claim("witness_reaches_gamma_B")
    assert not c.passed and c.observed == pytest.approx(-0.5, abs=1e-9), c
