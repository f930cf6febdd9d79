"""Theorem 1: linear and nonlinear networks are close at a Haar-random orthonormal initialisation (paper 002,
`ssl_dynamics.theorem_1`): the checks particular to this result, its hand cases against independent references, pins
and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from checks.probes import evaluate_outcome, signed_excess
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.ssl_dynamics import theorem_1

# -- Theorem 1 at K = 1: where the bound bites ----------------------------------------------------------------------
T1 = "ssl_dynamics.theorem_1"


def test_theorem_1_bites_only_where_an_aligned_W1_breaks_it(run):
    from theorems.ssl_dynamics import theorem_1

    haar = run(T1, **theorem_1.BINDING_RANDOM)
    aligned = run(T1, **theorem_1.ALIGNED_CONTROL)
    assert haar.holds and not aligned.claim("bound_holds_every_draw").passed
    assert aligned.observed == pytest.approx(abs(math.tanh(2.0) - 2.0), rel=1e-12)  # |tanh‖x‖ − ‖x‖|, ‖x‖ = 2
    # Where the bound is implied for every orthonormal W₁ (eq. (13); the default instance until issue 26's item 7,
    # now BINDING_RANDOM itself) even the aligned W₁ holds: an identity in effect there.
    implied = theorem_1.IMPLIED_EVERYWHERE
    default_aligned = recording.expect(run(T1, **implied, w1="aligned", allow_violation=True), recording.HOLDS)
    assert run(T1, **implied).details["bound_implied_for_every_W1"]
    assert default_aligned.claim("bound_holds_every_draw").passed
    assert run(T1).params == run(T1, **theorem_1.BINDING_RANDOM).params  # the default bites


def test_theorem_1_aligned_law_is_a_named_hypothesis():
    with pytest.raises(theorems.HypothesisViolation, match="Haar"):
        theorems.check(T1, w1="aligned")


def test_theorem_1_another_witness_is_a_named_hypothesis():
    """K = 1e-12 fails on Haar draws: a finding about that K, not about ∃K: declared, never a silent 'fails'."""
    with pytest.raises(theorems.HypothesisViolation, match="the witness K = 1"):
        theorems.check(T1, K=1e-12)
    assert not theorems.check(T1, K=1e-12, allow_violation=True).holds


NAMED_VIOLATIONS = [
    ("ssl_dynamics.theorem_1", dict(w1="aligned"), "Haar"),
    ("ssl_dynamics.theorem_1", dict(K=2.0), "the witness K = 1"),
]


@pytest.mark.parametrize("rid, params, hypothesis", NAMED_VIOLATIONS, ids=row_ids(NAMED_VIOLATIONS))
def test_check_names_the_violated_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, theorems.HypothesisViolation)


P = "ssl_dynamics."


# -- Theorem 1 --------------------------------------------------------------------------------------------
def test_theorem_1_random_W1_is_what_the_bound_needs(run):
    ev = run(P + "theorem_1", **theorem_1.BINDING_RANDOM)
    assert ev.holds and ev.details["bound_implied_for_every_W1"] is False
    # The measure-zero W₁x = ‖x‖e₁ would break the bound here: |tanh 2 − 2| = 1.036 > 0.894.
    assert ev.details["adversarial_gap"] == pytest.approx(abs(math.tanh(2.0) - 2.0), rel=1e-12)
    assert ev.details["adversarial_gap"] > ev.bound
    assert ev.bound == pytest.approx(4 / (3 * math.sqrt(3)) * 4 * math.log(3e5) ** 2 / math.sqrt(3e5), rel=1e-12)


def test_theorem_1_proof_constant_and_d_invariance(run):
    ev = run(P + "theorem_1")
    assert ev.claim("proof_constant_chain").passed
    assert ev.details["K_proof_over_K_needed"] > 100  # the chain (13)-(14) with Lemma 2's L leaves that much slack
    wide = run(P + "theorem_1", d=20, h=500, draws=400)
    assert wide.claim("d_invariance_ks_pvalue").observed > 0.01 and abs(wide.details["d_median_ratio"] - 1) < 0.2


def test_theorem_1_width_one_has_a_zero_bound(run):
    ev = run(P + "theorem_1", h=1, d=1, z=1, allow_violation=True)
    assert ev.bound == 0.0 and ev.observed == pytest.approx(abs(math.tanh(2.0) - 2.0), rel=1e-12)


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("theorem_1", dict(h=1, z=2), "h ≥ z"),
        ("theorem_1", dict(h=2, d=1, z=1), "h ≥ 3"),
        ("theorem_1", dict(activation="sigmoid"), "φ(0) = 0"),
        ("theorem_1", dict(activation="relu"), "φ'(0) = 1"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, hypothesis", [("theorem_1", dict(h=2, d=3), "h ≥ d")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.theorem_1 (h ≥ H_MIN = 3: log h ≥ 1)
    ("ssl_dynamics.theorem_1", None, dict(h=3), None),
    ("ssl_dynamics.theorem_1", None, dict(h=2, d=2, z=2), "h ≥ 3"),
    ("ssl_dynamics.theorem_1", None, dict(K=2.0), "the witness K = 1"),
    ("ssl_dynamics.theorem_1", None, dict(w1="aligned"), "Haar"),
    # theorem_1: h ≥ z (W₂ ∈ St(h, z)) and h ≥ d (W₁ ∈ St(h, d)), at h = 3 (the smallest asymptotic width)
    ("ssl_dynamics.theorem_1", None, dict(h=3, d=3, z=3), None),
    ("ssl_dynamics.theorem_1", None, dict(h=3, d=1, z=4), "h ≥ z"),
    ("ssl_dynamics.theorem_1", None, dict(h=3, d=4, z=1), "h ≥ d"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_1_relu_control_pins_its_constant(run):
    """relu has no finite c = sup|φ''|; CONTROL_C's c = 1 makes its bound finite. On the binding instance the
    worst-W₂ gap (1.42) lies in (bound, 10·bound] (1.22 bounds): c loosened ×10 lets the control pass, ÷10 puts
    it 12 bounds out."""
    control = dict(h=300_000, d=1, w2="worst", draws=16, activation="relu", allow_violation=True)
    result = registry.get("ssl_dynamics.theorem_1")
    assert control in [dict(c) for c in result.pins]
    c = recording.expect(run_spec(run, result, control), recording.FAILS).claim("bound_holds_every_draw")
    assert c.bound < c.observed <= 10 * c.bound, c


def test_theorem_1_proof_chain_is_finite_from_width_two(run):
    """Lemma 2's L = max|W₁ᵢⱼ|√h/log h is finite for every h ≥ 2 (log 2 > 0): the chain's excess is a number on
    the registered h = 2 control, inf only at h = 1."""
    control = dict(h=2, d=1, z=1, r=0.1, activation="softplus2", w2="worst", allow_violation=True)
    result = registry.get("ssl_dynamics.theorem_1")
    assert control in [dict(c) for c in result.controls]
    ev = recording.expect(run_spec(run, result, control), *recording.OUTCOMES)
    assert math.isfinite(ev.claim("proof_constant_chain").observed)
    assert math.isfinite(ev.claim("K_proof").observed)


# -- theorem_1: every claim takes the worst Haar draw; the proof-step slack; the control constants ----------------
def _one_draw(monkeypatch, R, i, new_gap):
    """theorem_1.gaps with draw ``i``'s gap replaced by ``new_gap(gap, enorm, a4, w1max)`` (a float)."""
    exact = R.gaps

    def patched(*args):
        gap, enorm, a4, w1max = exact(*args)
        gap = gap.clone()
        gap[i] = new_gap(gap, enorm, a4, w1max)
        return gap, enorm, a4, w1max

    monkeypatch.setattr(R, "gaps", patched)


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_theorem_1_claims_take_the_worst_draw_and_pin_the_proof_step_slack(monkeypatch):
    """On the default (binding) instance, d = 1, h = 3·10⁵, ‖x‖ = 2, tanh (c = 4/(3√3)), the worst W₂ (gap = ‖ε‖):
    one draw's gap set to ‖ε‖ + 3e-12 fails eq. (13)'s step by 3 DETERMINISTIC_SLACKs; to the proof's chain
    (L²/2)c‖x‖²d log²h/√h = ½c‖x‖²d√h·max|W₁ᵢⱼ|² (written out here) + 3e-12 fails the chain step by 3; to 1.5× the
    bound fails the bound. The other 3 of 4 draws hold each claim, so a best-draw aggregation would pass."""
    import math

    from theorems.ssl_dynamics import theorem_1 as R

    h, d, r, c = 300_000, 1, 2.0, 4 / (3 * math.sqrt(3))
    _one_draw(monkeypatch, R, 2, lambda g, e, a4, w: float(e[2]) + 3e-12)
    _, cl = evaluate_outcome(R.ID, draws=4)
    assert not cl["taylor_step_13"].passed and 1.0 < signed_excess(cl["taylor_step_13"]) <= 10.0, cl["taylor_step_13"]
    assert cl["proof_constant_chain"].passed and cl["bound_holds_every_draw"].passed
    monkeypatch.undo()
    _one_draw(monkeypatch, R, 2, lambda g, e, a4, w: 0.5 * c * r**2 * d * math.sqrt(h) * float(w[2]) ** 2 + 3e-12)
    _, cl = evaluate_outcome(R.ID, draws=4)
    assert not cl["proof_constant_chain"].passed and 1.0 < signed_excess(cl["proof_constant_chain"]) <= 10.0
    assert cl["bound_holds_every_draw"].passed
    monkeypatch.undo()
    bound = c * r**2 * d * math.log(h) ** 2 / math.sqrt(h)
    _one_draw(monkeypatch, R, 2, lambda g, e, a4, w: 1.5 * bound)
    _, cl = evaluate_outcome(R.ID, draws=4)
    assert not cl["bound_holds_every_draw"].passed
    assert cl["bound_holds_every_draw"].observed == 1.5 * bound


def test_theorem_1_sigmoid_control_constant_is_its_sup_second_derivative():
    """CONTROL_C['sigmoid'] = sup|σ''| = 1/(6√3) (at σ = (3 ± √3)/6), against σ'' by autograd on a fine grid."""
    import torch

    from theorems.ssl_dynamics.theorem_1 import CONTROL_C

    x = torch.linspace(-6, 6, 120_001, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.sigmoid(x).sum(), x, create_graph=True)
    (h2,) = torch.autograd.grad(g.sum(), x)
    assert abs(CONTROL_C["sigmoid"] / float(h2.abs().max()) - 1) < 1e-3


def test_theorem_1_d_invariance_is_measured_against_d_1(run):
    """At d = 3 the gaps are compared with a d = 1 sample (a p-value and a median ratio that are numbers, not the
    placeholders 1); at d = 1 there is nothing to compare."""
    from theorems.ssl_dynamics import theorem_1 as R

    ev = run(R.ID, **R.IMPLIED_EVERYWHERE)
    assert ev.claim("d_invariance_ks_pvalue").observed < 1.0 and ev.details["d_median_ratio"] != 1.0
    one = run(R.ID)
    assert one.claim("d_invariance_ks_pvalue").observed == 1.0 and one.details["d_median_ratio"] == 1.0
