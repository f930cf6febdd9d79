"""Every declared hypothesis check of the second half of paper 001's modules named on BOTH sides of its edge (issue
26, item 9; the rule is in checks/test_pins_001_003.py): a row just outside (the hypothesis named) and a row inside
(nothing named), evaluated on the declared hypotheses alone, before any computation. Dropping a check, flipping its
comparison or moving its constant fails a row; the default of each result is inside every hypothesis."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

NL = "nonlinear_cl."
RESULTS = ("lemma_7", "lemma_8", "lemma_10", "monomial_activation", "table_1", "theorem_1", "theorem_2", "theorem_3",
           "theorem_4", "theorem_5", "theorem_6_remark", "lemma_3", "lemma_4")

EDGES = [
    # theorem_1: q below / above (3 − √5)/2 = 0.381966 on the summation model; the categorical model's atom
    ("theorem_1", None, dict(model="summation", q=0.3819), None),
    ("theorem_1", None, dict(model="summation", q=0.3821), "q < (3 − √5)/2"),
    ("theorem_1", None, dict(model="mixture", q=0.3821), None),  # q is the summation model's parameter only
    ("theorem_1", None, dict(model="categorical"), "ρ(w_*) finite"),
    ("theorem_1", None, dict(rate_scale=1.001), "exact guaranteed rate"),
    ("theorem_1", None, dict(rate_scale=0.999), "exact guaranteed rate"),
    ("theorem_1", None, dict(closed_form_scale=1.001), "exact closed form of D"),
    # theorem_2: the bound at C₀' < C₀ violates ‖x‖ ≤ C₀'; a larger C₀' does not
    ("theorem_2", None, dict(bound_radius_scale=0.999), "‖x‖₂ ≤ C₀"),
    ("theorem_2", None, dict(bound_radius_scale=1.001), None),
    ("theorem_2", None, dict(closed_form_scale=1.001), "exact reference formula"),
    ("theorem_2", None, dict(closed_form_scale=0.999), "exact reference formula"),
    # theorem_3: the three scales, each off 1 either way
    ("theorem_3", None, dict(cap_scale=1.001), "exact cap"),
    ("theorem_3", None, dict(radius_scale=1.001), "exact radius"),
    ("theorem_3", None, dict(rate_bound_scale=1.001), "exact rate γ^t(1 − c₀)"),
    # theorem_4
    ("theorem_4", None, dict(activation="relu"), "linear activation"),
    ("theorem_4", None, dict(top_rank=2), "rank-1 top layer"),
    ("theorem_4", None, dict(critical_start=False), "W* is a critical point"),
    ("theorem_4", None, dict(formula_scale=1.001), "exact formula (14)"),
    ("theorem_4", None, dict(formula_scale=0.999), "exact formula (14)"),
    # theorem_5
    ("theorem_5", None, dict(dependent=True), "conditionally independent"),
    ("theorem_5", None, dict(delta_scale=1.001), "exact δ_k"),
    ("theorem_5", None, dict(delta_scale=0.999), "exact δ_k"),
    # the Remark after Theorem 6: the two laws that break eq. (153), each scale off 1 the other way
    ("theorem_6_remark", None, dict(dist="normal"), "Y_l ~ U[−1, 1]"),
    ("theorem_6_remark", None, dict(dist="comonotone"), "Y_l independent"),
    ("theorem_6_remark", None, dict(bound_scale=0.999), "the modulation bound as stated"),
    # table_1: ζ = 10 and the margin 0 of "better", each off on both sides
    ("table_1", None, dict(zeta=9.9), "ζ = 10"),
    ("table_1", None, dict(zeta=10.1), "ζ = 10"),
    ("table_1", None, dict(margin=0.01), "margin = 0"),  # (the margin is declared ≥ 0)
    # monomial_activation: a shift either way, the constant 1, the formula scale
    ("monomial_activation", None, dict(shift=0.01), "a monomial h = s^p"),
    ("monomial_activation", None, dict(shift=-0.01), "a monomial h = s^p"),
    ("monomial_activation", None, dict(constant="one"), "the global constant 1/p"),
    ("monomial_activation", None, dict(formula_scale=0.999), "exact formulas"),
    ("monomial_activation", None, dict(stop_gradient=False, alpha="infonce"), "α held fixed"),
    # Lemmas 7, 8 and 10 (pi_steps' judged-step switches): the bound off 1, indefinite steps judged
    ("lemma_7", None, dict(bound_scale=1.001), "exact bound μ_t(1 − c_t)"),
    ("lemma_8", None, dict(bound_scale=1.001), "exact bound"),
    ("lemma_8", None, dict(bound_scale=0.999), "exact bound"),
    ("lemma_8", None, dict(include_indefinite=True), "λ_i(t) > 0 for all i"),
    ("lemma_10", None, dict(include_indefinite=True), "λ_i(t) > 0 for all i"),
    ("lemma_10", None, dict(bound_scale=0.999), "exact bound"),
    # common.py (Lemmas 3, 4): Assumption 1's homogeneous activations, α held fixed, the InfoNCE-only switch
    ("lemma_3", None, dict(activation="quadratic"), "homogeneous activation"),
    ("lemma_3", None, dict(activation="linear"), None),
    ("lemma_4", None, dict(activation="relu"), None),
    ("lemma_4", None, dict(stop_gradient=False, alpha="infonce"), "α held fixed"),
    ("lemma_4", None, dict(stop_gradient=False, alpha="random"), "stop_gradient=False needs alpha='infonce'"),
    ("lemma_4", None, dict(formula_scale=0.999), "exact formula (12)"),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(EDGES)])
def test_hypothesis_edge_both_sides(rid, form, params, name):
    assert_hypothesis_edge(NL + rid, form, params, name)


def test_infonce_alpha_may_be_differentiated():
    """stop_gradient=False with InfoNCE's α breaks only 'α held fixed' (the control); the refusal of other α's
    (only InfoNCE's α depends on θ) is not named there."""
    names = _names(NL + "lemma_4", dict(stop_gradient=False, alpha="infonce"))
    assert names and not any("needs alpha='infonce'" in n for n in names), names


@pytest.mark.parametrize("rid", RESULTS)
def test_default_is_inside_every_hypothesis(rid):
    assert_hypothesis_edge(NL + rid, None, {}, None)


def _names(rid, params):
    from theorems.core import registry

    result = registry.get(rid)
    form = result.default_form
    return [v.hypothesis for v in result.hypotheses(registry.validate_structure(result, dict(params), form), form)]


@pytest.mark.parametrize("aug, inside", [(50.0, False), (0.0, True)])
def test_lemma_8_needs_one_judged_step(aug, inside):
    """Lemma 8's hypothesis decided by the evaluation: a batch whose augmentation (std 50 along one direction) makes
    A(w(t)) indefinite on every step of a short run has no step inside it (named), the same batch unaugmented has."""
    import theorems
    from theorems import HypothesisViolation

    params = dict(model="batch", N=8, aug=aug, starts=1, pi_iters=3)
    if inside:
        assert theorems.check(NL + "lemma_8", **params).claim("judged_steps").observed >= 1
    else:
        with pytest.raises(HypothesisViolation, match="on some step"):
            theorems.check(NL + "lemma_8", **params)


@pytest.mark.parametrize("theta0, inside", [(0.245, False), (0.217, True)])
def test_theorem_3_cap_hypothesis_at_its_edge(theta0, inside):
    """Theorem 3's (11), decided by the evaluation with a factor SAFETY = 0.5 of margin: on the tight binding instance
    (θ₀ = 0.217) the estimated sup ω is 0.88·SAFETY·γ (inside); θ₀ = 0.245 puts it at 3.4·SAFETY·γ, which must be
    refused (SAFETY ×10 would accept it; the OUTSIDE_11 control is 360× out and pins nothing)."""
    import theorems
    from theorems import HypothesisViolation

    params = dict(sigma=0.79, radius=3.07, angle=180.0, gamma=0.38, theta0=theta0)
    if inside:
        assert theorems.check(NL + "theorem_3", **params).claim("cap_hypothesis_margin").observed < 1
    else:
        with pytest.raises(HypothesisViolation, match="sup_"):
            theorems.check(NL + "theorem_3", **params)


@pytest.mark.parametrize("form", ["corrected", "as_printed"])
def test_lemma_7_judged_steps_hypothesis_follows_the_form(form):
    """Lemma 7's evaluation-decided hypothesis: on a short run of a strongly augmented batch (indefinite A) no step
    has |λ_i| ≤ |λ₂|, so the corrected form names that condition; the statement as printed (c_t > 0, λ₁ > 0 only)
    judges a step there and names nothing."""
    import theorems
    from theorems import HypothesisViolation

    params = dict(model="batch", N=8, aug=50.0, starts=1, pi_iters=3)
    if form == "corrected":
        with pytest.raises(HypothesisViolation, match=r"\|λ_i\| ≤ \|λ₂\| on some step"):
            theorems.check(NL + "lemma_7", form=form, **params)
    else:
        assert theorems.check(NL + "lemma_7", form=form, **params).claim("judged_steps").observed >= 1
