"""Issue 26 on paper 002: valid input never gives a silent 'fails' (theorem_3 with one eigenvalue, short horizons),
the lemma_2 exceedance check decided only where ε_h < 1, theorem_1 at K = 1, and a fuzz of every declared domain
edge, list length 1 and budget end for the paper-002 results owned here.

References are independent closed forms: for d = 1, (10) is q̇ = −4λq(1 − q²), so u = q² solves the logistic
u̇ = −8λu(1 − u): u(t) = u₀e^{−8λt}/(1 − u₀ + u₀e^{−8λt}).
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems.core import recording
from theorems.core.verdict import counterexample_problem

T3 = "ssl_dynamics.theorem_3"


@pytest.mark.parametrize("lam, sign", [(-1.0, 1), (-1.0, -1), (2.0, 1), (0.7, -1)])
def test_theorem_3_single_eigenvalue_matches_the_logistic_solution(lam, sign):
    T = 0.3
    ev = recording.expect(theorems.check(T3, lams=str(lam), e1_sign=sign, T=T, starts=2, allow_violation=True),
                          recording.NOT_CONVERGED)  # T = 0.3: a horizon too short to settle
    q0 = 0.5 * sign
    u0 = q0**2
    e = math.exp(-8 * lam * T)
    q_ref = math.copysign(math.sqrt(u0 * e / (1 - u0 + u0 * e)), q0)
    assert ev.details["q_T"][0] == pytest.approx(q_ref, rel=1e-8)
    assert ev.details["q_T_all"][1][0] == pytest.approx(q_ref, rel=1e-8)  # the starts are not mixed


@pytest.mark.parametrize("lams", ["-1", "2", "-0.05", "0.05"])
def test_theorem_3_single_eigenvalue_holds_at_the_full_horizon(run, lams):
    ev = run(T3, lams=lams)
    assert ev.converged and ev.holds, ev.explain()


@pytest.mark.parametrize("params", [dict(T=0.5), dict(T=0.5, lams="0.5,1,2,3"),
                                    dict(lams="-1,-0.3,0.5,2", start="network", h=10, T=1.0)])
def test_theorem_3_short_horizon_is_not_converged_and_never_a_counterexample(run, params):
    ev = recording.expect(run(T3, **params), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.details["settled"] and not ev.holds
    with recording.expecting(recording.NOT_CONVERGED):  # the printed form's replay of the same short run
        why = counterexample_problem(theorems.get(T3), {**params}, lambda rid, **kw: run(rid, **kw))
    assert why is not None and "did not converge" in why


def test_theorem_3_horizon_is_pinned_by_literals():
    """Default spectrum (-1, -0.3, 0.5, 2): the slow rate is min(8·1, 2·0.7) = 1.4, the horizon 30/1.4 = 21.43. A
    horizon of 21.4 is too short (not converged, although q̇(21.4) is small), 21.5 is long enough."""
    short = recording.expect(theorems.check(T3, T=21.4), recording.NOT_CONVERGED)
    assert short.converged is False and not short.details["horizon_long_enough"] and short.details["settled"]
    enough = theorems.check(T3, T=21.5)
    assert enough.converged and enough.holds, enough.explain()


def test_theorem_3_settled_guard_bites():
    """The settled guard on a run far from any stationary point: at T = 0.5, ‖q̇‖ = 1.08."""
    ev = recording.expect(theorems.check(T3, T=0.5), recording.NOT_CONVERGED)
    assert not ev.details["settled"] and ev.details["final_speed"] > 1.0


def test_counterexamples_of_theorem_3_are_settled(run):
    for cx in theorems.get(T3).counterexamples:
        ev = run(T3, form="as_printed", **cx)
        assert ev.converged and ev.details["settled"], ev.explain()


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


# -- every hypothesis of the results touched here is named by a test -----------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    ("ssl_dynamics.theorem_3", dict(lams="-1,0,2"), "no zero eigenvalue"),
    ("ssl_dynamics.theorem_3", dict(lams="0.5,1,2,3", q0_norm=1.0), "‖q₀‖ < 1"),
    ("ssl_dynamics.theorem_3", dict(lams="0.5,1,2,3", start="network", h=4), "‖q₀‖ < 1"),
    ("ssl_dynamics.remark_2", dict(coupling_at=0.5), "coupling measured at the trained weights"),
    ("ssl_dynamics.remark_2", dict(expansion_scale=1.0003), "the expansion InfoNCE(0)"),
    ("ssl_dynamics.remark_2", dict(spectrum=(1.0, 0.0, 0.0), z=2), "anchors spanning at least two directions"),
    ("ssl_dynamics.lemma_2", dict(widths=(10, 30)), "a width with ε_h < 1"),
    ("ssl_dynamics.theorem_1", dict(w1="aligned"), "Haar"),
    ("ssl_dynamics.theorem_1", dict(K=2.0), "the witness K = 1"),
])
def test_each_hypothesis_is_named(rid, params, hypothesis):
    with pytest.raises(theorems.HypothesisViolation) as err:
        theorems.check(rid, **params)
    assert hypothesis in str(err.value)


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


def test_theorem_3_limit_is_the_worst_start(run):
    """The limit claim is taken at the worst of the starts (the statement is ∀ q₀): recomputed from the final states,
    whose distances to −e₁ differ from start to start."""
    ev = run(T3, e1_sign=-1)
    dists = [math.dist(q, [-1.0] + [0.0] * (len(q) - 1)) for q in ev.details["q_T_all"]]
    assert min(dists) < max(dists)
    assert ev.claim("limit").observed == pytest.approx(max(dists), rel=1e-9)
