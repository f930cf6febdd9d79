"""Audit checks for paper 001 (Theorem 3 and Fig. 8): the REGISTERED binding instances and controls bite.

* Theorem 3: the registered binding instances have A varying by ≥ 1 % on the cap with (11) met on several seeds
  (the hypothesis is decided by the evaluation, so a seed that breaks it raises); Lemma 11's rate no longer judges
  t = 0 (where the ratio is 1 by definition) and its monotone c_t is asserted; every registered control fails a claim.
* Fig. 8: the count is a ReLU-only claim (the caption's h(x) = max(x, 0)): any leak ≠ 0 is outside the hypotheses
  (typed error), and the registered leaky control fails the count only when run as a control.
"""

from __future__ import annotations

import pytest

from theorems import HypothesisViolation
from theorems.core import recording
from theorems.core.registry import get
from theorems.nonlinear_cl import figure_8, theorem_3

T3, F8 = theorem_3.ID, figure_8.ID
ONE_PERCENT = 0.01  # the audit's floor for "A varies on the cap"


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("index", [0, 1])
def test_theorem_3_registered_binding_varies_and_meets_11_on_every_seed(run, index, seed):
    binding = get(T3).binding[index]
    ev = run(T3, seed=seed, **binding.params)  # raises HypothesisViolation where (11) is not met
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("A_variation_on_cap").observed >= ONE_PERCENT
    assert 0.5 < ev.claim("cap_hypothesis_margin").observed <= 1  # binds: within a factor 2 of the edge
    for name in ("rate_bound", "radius_bound", "c_increases"):
        assert ev.claim(name).passed, ev.claim(name)


def test_theorem_3_rate_bound_does_not_judge_t_0(run):
    """t = 0 gives (1 − c₀)/(1 − c₀) = 1 exactly: judged, the claim could only ever observe 1.0."""
    for params in [{}] + [dict(b.params) for b in get(T3).binding]:
        assert run(T3, **params).claim("rate_bound").observed < 1.0


def test_theorem_3_every_registered_control_fails_a_claim(run):
    for spec in get(T3).controls:
        ev = run(T3, **spec)
        assert not ev.holds or ev.failed_claims, spec


def test_theorem_3_monotone_c_fails_outside_11(run):
    spec = [c for c in get(T3).controls if c.get("sigma") == 0.4][0]
    with pytest.raises(HypothesisViolation, match="sup_"):
        run(T3, **{k: v for k, v in spec.items() if k != "allow_violation"})
    ev = run(T3, **spec)
    assert not ev.claim("c_increases").passed and ev.claim("c_increases").observed < -1e-4


@pytest.mark.parametrize("leak", [0.05, 0.2, 1.0])
def test_figure_8_leak_is_outside_the_hypotheses(run, leak):
    with pytest.raises(HypothesisViolation, match="ReLU activation"):
        run(F8, leak=leak)


def test_figure_8_registered_controls_fail_the_count(run):
    for spec in get(F8).controls:
        ev = run(F8, **spec)
        assert spec.get("allow_violation") and not ev.claim("relu_at_least_8_maxima").passed, spec
    small_leak = recording.expect(run(F8, leak=0.05, allow_violation=True), recording.HOLDS)  # recorded: 8 maxima
    assert small_leak.claim("relu_at_least_8_maxima").passed


def test_theorem_3_rate_bound_is_the_worst_iteration(run):
    """rate_bound observes the max over t ≥ 1 of (1 − c_t)/(γ^t(1 − c₀)): recomputed from the recorded 1 − c_t."""
    for params in [dict(b.params) for b in get(T3).binding]:
        ev = run(T3, **params)
        one_minus, gamma = ev.details["one_minus_c_t"], ev.details["gamma"]
        ratios = [one_minus[t] / (gamma ** t * one_minus[0]) for t in range(1, len(one_minus)) if one_minus[t] > 1e-13]
        assert ratios and ev.claim("rate_bound").observed >= max(ratios)
