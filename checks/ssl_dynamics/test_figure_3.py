"""Figure 3: GD with projection (11) and the discretised ODE (12) reach the same loss and outputs (paper 002,
`ssl_dynamics.figure_3`): the checks particular to this result, its hand cases against independent references, pins
and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, assert_registered_pin, row_ids
from checks.probes import computed_once, evaluate_outcome, one_entry_off, signed_excess
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.ssl_dynamics import figure_3

P = "ssl_dynamics."


# -- Figure 3 ---------------------------------------------------------------------------------------------
def test_figure_3_projections_against_ode_12(run):
    ev = run(P + "figure_3")
    # Riemannian GD is a first-order discretisation of (9), like (12): halving η halves the gap. The polar-projected
    # GD discretises the Stiefel flow instead: its gap to (12) is larger and does not halve.
    assert all(1.6 <= r <= 2.4 for r in ev.details["ratio_riemannian"])
    assert ev.claim("gap_ratio_projected").observed < 1.6
    assert ev.claim("max_output_gap_projected").observed > 10 * ev.claim("max_output_gap_riemannian").observed
    # Both reach the smallest eigenvalue of C (Theorem 3, z = 1).
    lam0 = ev.details["eigenvalues"][0]
    assert max(abs(v - lam0) for v in ev.details["final_loss_projected"]) < 1e-9 * abs(lam0)


def test_figure_3_qr_projection_is_biased_independently_of_eta(run):
    a = run(P + "figure_3", projection="qr", allow_violation=True)
    b = run(P + "figure_3", projection="qr", eta=0.005, allow_violation=True)
    lam0 = a.details["eigenvalues"][0]
    bias_a = max(v - lam0 for v in a.details["final_loss_projected"])
    bias_b = max(v - lam0 for v in b.details["final_loss_projected"])
    assert bias_a > 1e-3 * abs(lam0) and abs(bias_a - bias_b) < 0.05 * bias_a


def test_figure_3_printed_sign_is_ascent(run):
    ev = run(P + "figure_3", step_sign=1.0, allow_violation=True)
    # W + η∇L climbs: with both eigenvalues of C negative the largest loss, 0, is at q = 0: the outputs vanish.
    assert max(ev.details["eigenvalues"]) < 0 and max(abs(v) for v in ev.details["final_loss_projected"]) < 1e-6


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("figure_3", dict(projection="qr"), "projection onto WᵀW = I"),
        ("figure_3", dict(step_sign=1.0), "descent step"),
        ("figure_3", dict(T=3.0), "T long enough"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, name", [("figure_3", dict(widths="100,10"), "widths")])
def test_structural_domains_are_parameter_errors(rid, params, name):
    with pytest.raises(theorems.ParameterError, match=name):
        theorems.check(P + rid, **params)


@pytest.mark.parametrize("rid, params, hypothesis", [("figure_3", dict(widths=(1, 10, 100)), "h ≥ max(d, z)")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


def test_figure_3_step_size_is_judged_at_the_largest_eigenvalue():
    # The 2η runs must be stable for the largest |λ|: η 1% above 1/(16|λ|_max) is outside.
    from theorems.ssl_dynamics.instances import spectrum_of

    base = {p.name: p.default for p in figure_3.RESULT.params}
    lam = spectrum_of(base)
    eta = 1.01 / (16 * max(abs(lam[0]), abs(lam[-1])))
    assert 16 * eta * min(abs(lam[0]), abs(lam[-1])) < 1  # a check at the smaller |λ| would let it through
    with pytest.raises(HypothesisViolation, match="the 2η runs are stable"):
        theorems.check(P + "figure_3", eta=eta)


def test_figure_3_horizon_is_judged_at_the_widest_width():
    # The horizon grows with log h: T = 9.8 is enough for h = 10 (9.52) and not for h = 1000 (10.13).
    with pytest.raises(HypothesisViolation, match="T long enough"):
        theorems.check(P + "figure_3", T=9.8)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.figure_3 (half moons: d = 2, z = 1)
    ("ssl_dynamics.figure_3", None, dict(widths=(2, 10, 100)), None),
    ("ssl_dynamics.figure_3", None, dict(widths=(1, 10, 100)), "h ≥ max(d, z)"),
    ("ssl_dynamics.figure_3", None, dict(step_sign=1.0), "a descent step"),
    ("ssl_dynamics.figure_3", None, dict(projection="qr"), "projection onto WᵀW = I"),
    ("ssl_dynamics.figure_3", None, dict(ode_start_perturb=0.1), "(12) started at the network's q₀"),
    # figure_3: 2η·8·max|λ(C)| < 1 on the default half moons (max|λ| = 0.930): 0.95 and 1.05 of the edge
    ("ssl_dynamics.figure_3", None, dict(eta=0.06386), None),
    ("ssl_dynamics.figure_3", None, dict(eta=0.070582), "the 2η runs are stable"),
    # figure_3: T at least the convergence horizon log(h_max)/(8|λ₁|) + 14/r (half moons, h_max = 1000: 10.16)
    ("ssl_dynamics.figure_3", None, dict(T=10.2), None),
    ("ssl_dynamics.figure_3", None, dict(T=10.1), "T long enough for both runs to converge"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# Not Pin declarations: these pins move the horizon T, a parameter, and Pin takes an UPPER_CASE name for a
# module constant (Pin.is_constant), so they stay rows of this file.
REGISTERED_PINS = [
    ("ssl_dynamics.figure_3", dict(T=6.0, allow_violation=True), ("same_final_loss",)),
    ("ssl_dynamics.figure_3", dict(T=9.0, allow_violation=True), ("same_final_outputs",)),
]


@pytest.mark.parametrize("rid, control, claims", REGISTERED_PINS, ids=row_ids(REGISTERED_PINS))
def test_registered_control_pins_the_tolerance(run, rid, control, claims):
    assert_registered_pin(run, rid, control, claims)


def test_figure_3_default_horizon_is_the_documented_one(run):
    ev = run("ssl_dynamics.figure_3")
    lam0, lam1 = ev.details["eigenvalues"][:2]
    eta, h_max = ev.params["eta"], max(ev.params["widths"])
    T = math.log(h_max) / (8 * abs(lam0)) + 20.0 / min(8 * abs(lam0), 2 * (lam1 - lam0))
    assert ev.details["steps"] == round(T / eta), (ev.details["steps"], T / eta)


def test_figure_3_escape_time_is_measured(run):
    """The escape time t_½ (first time L ≤ λ₁/2) grows like log h at the rate 1/(8|λ₁|) of the linearisation at 0:
    on the registered T = 6 control (every run has escaped by then) the fitted slope is a number within a factor 2
    of it (1.32×), never NaN from a threshold no run reaches (L ≤ λ₁ is reached only in the limit)."""
    control = dict(T=6.0, allow_violation=True)
    result = registry.get("ssl_dynamics.figure_3")
    assert control in [dict(c) for c in result.controls]
    ev = recording.expect(run_spec(run, result, control), *recording.OUTCOMES)
    c = ev.claim("escape_time_slope")
    assert all(math.isfinite(t) for t in ev.details["median_half_time"])
    assert 0.5 < c.observed / c.bound < 2.0, c


# -- figure_3: the reduction identity's tolerance and its worst step --------------------------------------------
F3 = dict(widths=(2, 3, 10), seeds=1, eta=0.02)


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_figure_3_replay_takes_the_worst_step_and_pins_its_tolerance(monkeypatch):
    """One replayed step of one scheme at the widest width off by 3e-10 (3 REPLAY_TOLs; rounding elsewhere ~1e-16):
    the reduction identity fails (loosened ×10 it passes; a best-step aggregation would pass); the other claims do
    not move."""
    from theorems.ssl_dynamics import figure_3 as R

    computed_once(monkeypatch, R, "_runs")
    calls = one_entry_off(monkeypatch, R, "full_width_q", 47, (0, 0, 0), 3e-10)
    out, c = evaluate_outcome(R.ID, **F3)
    assert len(calls) == 80  # 20 steps × 2 schemes × widths 2, 10: call 47 is step 8 of the widest projected run
    assert not c["reduction_exact"].passed and 1.0 < signed_excess(c["reduction_exact"]) <= 10.0, c["reduction_exact"]
    assert c["same_final_outputs"].passed and c["same_final_loss"].passed
    monkeypatch.undo()
    computed_once(monkeypatch, R, "_runs")
    one_entry_off(monkeypatch, R, "full_width_q", 47, (0, 0, 0), 3e-11)
    _, c = evaluate_outcome(R.ID, **F3)
    assert c["reduction_exact"].passed


# monkeypatch, not a Pin: it replaces R._runs, code that a Pin (a parameter or constant set to a literal) cannot move
def test_figure_3_final_claims_take_the_worst_member(monkeypatch):
    """One member (h = 3 at η) of GD with projection moved at the horizon, where q = ±e₁ (λ₁'s coordinate ±1):
    by 3e-6 → the final outputs differ by 3 FINAL_OUTPUT_TOLs; by 1.5e-8 → the final loss by 2·1.5e-8·|q₁₁| = 3e-8,
    3 FINAL_LOSS_RTOLs (×|λ₁|), the outputs by 1.5e-8 (inside). The other members hold, so a best-member
    aggregation would pass."""
    from theorems.ssl_dynamics import figure_3 as R

    computed_once(monkeypatch, R, "_runs")
    cached = R._runs
    for amount, fails in ((3e-6, "same_final_outputs"), (1.5e-8, "same_final_loss")):
        def moved(*a, amount=amount):
            q = dict(cached(*a))
            q["projected"] = q["projected"].copy()
            q["projected"][-1, 1, 0, 0] += amount
            return q

        monkeypatch.setattr(R, "_runs", moved)
        _, c = evaluate_outcome(R.ID, **F3)
        assert not c[fails].passed and 1.0 < signed_excess(c[fails]) <= 10.0, c[fails]
        if fails == "same_final_loss":
            assert c["same_final_outputs"].passed, c["same_final_outputs"]


def test_figure_3_a_given_horizon_is_the_one_run(run):
    """A horizon below 1 (a control, outside the convergence hypothesis) is run as given, T/η steps; 0 alone means
    'the convergence horizon'."""
    from theorems.core import recording

    ev = recording.expect(run("ssl_dynamics.figure_3", T=0.5, allow_violation=True, **F3), *recording.OUTCOMES)
    assert ev.details["steps"] == 25 and ev.details["T"] == 0.5
