"""Lemma 2: the entries of a Haar semi-orthonormal matrix are O(log h/√h) with probability → 1 (paper 002,
`ssl_dynamics.lemma_2`): the checks particular to this result, its hand cases against independent references, pins
and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, excess, probe, row_ids
from checks.probes import evaluate_claims
from theorems import HypothesisViolation
from theorems.ssl_dynamics import lemma_2

# -- Lemma 2: the exceedance check is decided where ε_h < 1 only ---------------------------------------------------
L2 = "ssl_dynamics.lemma_2"


def test_lemma_2_vacuous_widths_are_not_judged():
    """The coordinate frame exceeds on every draw (K_h = draws). At widths 10 and 30 ε_h ≥ 1 (witness L = 1): that
    used to pass the bound; now such a sweep is outside the check's domain, and run anyway it asserts nothing."""
    with pytest.raises(theorems.HypothesisViolation, match="a width with ε_h < 1"):
        theorems.check(L2, widths=(10, 30))
    ev = theorems.check(L2, widths=(10, 30), law="coordinate", allow_violation=True)
    assert ev.details["exceedances"] == [64, 64] and ev.details["informative_widths"] == []
    assert ev.claim("exceedance_consistent_with_epsilon").kind == "measurement" and not ev.holds


def test_lemma_2_coordinate_frame_fails_where_epsilon_is_below_one():
    """Widths 30 and 100 (ε_30 ≥ 1, ε_100 = 0.34): the coordinate frame is judged at h = 100 alone and fails there."""
    ev = theorems.check(L2, widths=(30, 100), law="coordinate", allow_violation=True)
    assert ev.details["informative_widths"] == [100]
    c = ev.claim("exceedance_consistent_with_epsilon")
    assert c.kind == "bound" and not c.passed
    # P(Bin(64, ε_100) ≥ 64) = ε_100^64, by hand
    assert c.observed == pytest.approx(ev.details["epsilon"][1] ** 64, rel=1e-9)


NAMED_VIOLATIONS = [("ssl_dynamics.lemma_2", dict(widths=(10, 30)), "a width with ε_h < 1")]


@pytest.mark.parametrize("rid, params, hypothesis", NAMED_VIOLATIONS, ids=row_ids(NAMED_VIOLATIONS))
def test_check_names_the_violated_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, theorems.HypothesisViolation)


# -- Lemma 2: the p-value threshold pinned from both sides by literal draw counts --------------------------------
def test_lemma_2_pvalue_threshold_is_pinned():
    """The coordinate frame exceeds on every draw, so at h = 100 (ε_100 = 0.344, d = 3, L = 1, s = ½) the tail is
    ε^draws: 13 draws give 9.5e-7, just below PVALUE_MIN = 1e-6 (rejected); 8 draws give 1.9e-4 (8 draws cannot
    reject it at that level)."""
    rejected = theorems.check(L2, widths=(100,), law="coordinate", draws=13, allow_violation=True)
    kept = theorems.check(L2, widths=(100,), law="coordinate", draws=8, allow_violation=True)
    c13, c8 = (ev.claim("exceedance_consistent_with_epsilon") for ev in (rejected, kept))
    assert c13.observed == pytest.approx(rejected.details["epsilon"][0] ** 13, rel=1e-9) and not c13.passed
    assert c8.observed == pytest.approx(kept.details["epsilon"][0] ** 8, rel=1e-9) and c8.passed
    assert 1e-7 < c13.observed < 1e-6 < 1e-4 < c8.observed < 1e-3


def test_lemma_2_truth_at_the_largest_width():
    ev = theorems.check(L2)
    h, d = 1000, 3  # the default sweep's largest width and d
    assert ev.claim("truth_at_largest_width").observed == pytest.approx(math.sqrt(2 * math.log(h * d)) / math.log(h),
                                                                        rel=1e-12)


def test_lemma_2_d_above_the_smallest_width_names_it():
    with pytest.raises(theorems.HypothesisViolation, match="smallest width 30"):
        theorems.check(L2, d=40)


P = "ssl_dynamics."


# -- Lemma 2 --------------------------------------------------------------------------------------------------
def test_lemma_2_printed_tail_bound_fails_at_small_width():
    # h = 2, t = 1: the exact P(max(|X₁|, |X₂|) ≥ log 2) against the printed (2/√(2π))e^{−log²2/2}.
    a = math.log(2)
    exact = 1 - (1 - math.erfc(a / math.sqrt(2))) ** 2
    printed = 2 * math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    assert exact == pytest.approx(0.738, abs=1e-3) and printed == pytest.approx(0.628, abs=1e-3)
    ev = theorems.check(P + "lemma_2", **lemma_2.ERRATUM_TAIL)
    assert ev.claim("gaussian_tail_step").observed == pytest.approx(exact - printed, rel=1e-9)


def test_lemma_2_epsilon_vanishes_and_coordinate_frame_fails(run):
    eps = [lemma_2.epsilon(h, 3, 1.0, 0.5) for h in (100, 1000, 10_000)]
    assert eps[0] > eps[1] > eps[2] and eps[2] < 1e-5
    ev = run(P + "lemma_2", law="coordinate", allow_violation=True)
    assert ev.details["exceedances"] == [ev.params["draws"]] * 4


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("lemma_2", dict(law="coordinate"), "Q uniformly random"),
        ("lemma_2", dict(d=40), "d ≤ h"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, name", [("lemma_2", dict(s=1.0), "s")])
def test_structural_domains_are_parameter_errors(rid, params, name):
    with pytest.raises(theorems.ParameterError, match=name):
        theorems.check(P + rid, **params)


@pytest.mark.parametrize("rid, params, hypothesis", [("lemma_2", dict(d=40), "d ≤ h")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


HYPOTHESIS_EDGES = [
    # lemma_2 at h = 100 (ε_100 = 0.344, d = 3, L = 1, s = ½): ε^13 = 9.5e-7 < 1e-6 can be contradicted by 13 draws,
    # ε^12 = 2.8e-6 cannot by 12
    ("ssl_dynamics.lemma_2", None, dict(widths=(100,), draws=13), None),
    ("ssl_dynamics.lemma_2", None, dict(widths=(100,), draws=12), "the draws can contradict"),
    # lemma_2: d ≤ the smallest width; the Haar law
    ("ssl_dynamics.lemma_2", None, dict(d=30, widths=(30, 100, 300)), None),
    ("ssl_dynamics.lemma_2", None, dict(d=31, widths=(30, 100, 300)), "d ≤ h"),
    ("ssl_dynamics.lemma_2", None, dict(law="coordinate"), "Q uniformly random"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


RID = "ssl_dynamics.lemma_2"


WIDTH = 100  # a judged width of the default sweep (30, 100, 300, 1000)


def _one_exceedance(monkeypatch, eps_at_width: float):
    """The default sweep with exactly one of the 64 draws at width WIDTH blown up (max|Q_ij|·√h/log h ≫ L) and
    ε_WIDTH replaced by ``eps_at_width``; the other widths keep their draws (no exceedance there at judged widths)."""
    draws, epsilon = lemma_2._draws, lemma_2.epsilon

    def one_big(ctx, p, h):
        q = draws(ctx, p, h)
        if h == WIDTH:
            q = q.clone()
            q[0] = q[0] * 100.0  # one draw only: K_h = 1
        return q

    monkeypatch.setattr(lemma_2, "_draws", one_big)
    monkeypatch.setattr(lemma_2, "epsilon", lambda h, d, L, s: eps_at_width if h == WIDTH else epsilon(h, d, L, s))
    return probe(RID).claim("exceedance_consistent_with_epsilon")


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_a_single_exceedance_where_epsilon_is_tiny_contradicts_the_bound(monkeypatch):
    # P(Bin(64, 1e-9) ≥ 1) ≈ 6.4e-8, 16× below PVALUE_MIN = 1e-6: the bound is contradicted by one draw.
    claim = _one_exceedance(monkeypatch, 1e-9)
    assert claim.kind == "bound" and not claim.passed and 6.3e-8 < claim.observed < 6.5e-8, claim


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_a_single_exceedance_where_epsilon_allows_it_is_consistent(monkeypatch):
    # P(Bin(64, 1e-6) ≥ 1) ≈ 6.4e-5 ≥ 1e-6: one exceedance is what ε_h allows.
    claim = _one_exceedance(monkeypatch, 1e-6)
    assert claim.passed and 6.3e-5 < claim.observed < 6.5e-5, claim


def test_lemma_2_implication_is_judged_at_the_largest_width_whose_premise_holds():
    """The proof's step 'ΣX²/h ≤ 1 + s ⇒ max|X_i| ≤ t log h' is judged at the largest width where the premise
    (t log h)² ≤ h(1 + s) can hold. At s = 0.5, h = 10: (t log 10)² ≤ 15 ⇔ t ≤ 1.682 (literals on both sides);
    with t = 1.8 only h = 2 qualifies (a premise read as h(2 + s) would admit h = 10)."""
    from theorems.ssl_dynamics.lemma_2 import _tail_steps

    assert _tail_steps([2, 10], 1.6, 0.5)[2] == 10
    assert _tail_steps([2, 10], 1.8, 0.5)[2] == 2


# monkeypatch, not a Pin: it replaces R._tail_steps: code, which a Pin cannot move
def test_lemma_2_tail_step_pins_tail_atol(monkeypatch):
    """The printed tail bound against the exact probability, both closed forms: an excess of 3e-12 (a literal) is
    3 TAIL_ATOLs out and fails the step (×10 passes it); 3e-13 is inside. (The erratum instance misses it by 0.11.)"""
    from theorems.ssl_dynamics import lemma_2 as R

    exact = R._tail_steps

    def run(value):
        monkeypatch.setattr(R, "_tail_steps", lambda *a: (value, *exact(*a)[1:]))
        return evaluate_claims(R.ID)["gaussian_tail_step"]

    c = run(3e-12)
    assert not c.passed and 2.5 < excess(c) < 3.5, (c.observed, c.allowance)
    assert run(3e-13).passed
