"""Proof of Thm 4.3, phase-1 one-sample mover (eq. 14): the properties the proof uses hold; two proof errata (paper
004, `neural_collapse.errata_a9`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.core import recording
from theorems.core.verdict import run_spec
from theorems.neural_collapse import errata as ER

A9 = ER.ID_A9


@pytest.mark.parametrize("rid, status", [(A9, "verified")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (A9, dict(m=0.6), "m=0.6 is not valid"),
    (A9, dict(step_scale=2.0), "exact construction constants"),
    (A9, dict(others_at="inside"), "margin"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


# -- proof steps of Theorem 4.3 ------------------------------------------------------------------------------
def test_phase1_mover_numbers(run):
    ev = run(A9)
    assert ev.holds, ev.explain()
    # The printed angle is 2x the exact one (factor 2 inside the arcsin), independent of the formula used.
    assert ev.details["printed_formula_first"] / ev.details["angle_moved_first"] == pytest.approx(2.0, rel=1e-3)
    left = ev.claim("phase1_reaches_stopping_point")
    assert left.kind == "proof_step" and 0.05 < left.observed < 0.5  # ≈ e^{-2} of β⁰ is left
    assert ev.details["phase1_remaining_fraction_constant"] <= 1e-12


@pytest.mark.parametrize("spec, breaks", [
    (ER.A9_CONTROLS[0], ["lands_on_target", "weight_norm_is_alpha", "angle_lower_bound"]),
    (ER.A9_CONTROLS[1], ["lands_on_target", "weight_norm_is_alpha"]),  # EXACT_RTOL
    (ER.A9_CONTROLS[2], ["angle_formula_exact"]),  # ANGLE_RTOL
    (ER.A9_CONTROLS[3], ["others_untouched"]),
])
def test_phase1_controls_break_what_they_should(spec, breaks, run):
    ev = run_spec(run, theorems.get(A9), spec)
    for name in breaks:
        assert not ev.claim(name).passed, ev.explain()


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # Appendix A's proof steps
    ("errata_a9", None, dict(step_scale=1.001), "exact construction constants"),
    ("errata_a9", None, dict(others_at="inside"), "margin: other samples"),
    ("errata_a9", None, dict(others_at="boundary"), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


# -- Appendix A, phase 1 (errata_a9) --------------------------------------------------------------------------------
# Evaluated with others_at='inside' (the margin control: a declared violation), so that a failing identity is
# recorded rather than raised; the claims below do not depend on the other samples.
INSIDE = dict(others_at="inside", allow_violation=True)


def _a9(**kw):
    import theorems
    from theorems.neural_collapse import errata as E

    return recording.expect(theorems.check(E.ID_A9, **INSIDE, **kw), recording.FAILS)  # others_untouched fails


# monkeypatch, not a Pin: it replaces E._phase1, code that a Pin (a parameter or constant set to a literal) cannot move
@pytest.mark.parametrize("left, holds", [(3e-6, False), (3e-7, True)])
def test_errata_a9_reach_tolerance_pinned_by_a_patched_remaining_angle(monkeypatch, left, holds):
    """Both phase-1 claims judge the remaining angle / β⁰ at REACH_RTOL = 1e-6: a phase 1 patched to leave 3e-6 of β⁰
    fails them, 3e-7 passes them."""
    from theorems.neural_collapse import errata as E

    monkeypatch.setattr(E, "_phase1", lambda *a, adaptive, **k: left)
    ev = _a9()
    for name in ("phase1_reaches_stopping_point", "phase1_constant_step_reaches"):
        assert ev.claim(name).passed is holds, ev.claim(name)


# monkeypatch, not a Pin: it replaces E.mover, code that a Pin (a parameter or constant set to a literal) cannot move
@pytest.mark.parametrize("scale, failing", [(1 + 1e-5, ("lands_on_target", "weight_norm_is_alpha",
                                                        "angle_formula_exact")),
                                            (0.4, ("angle_lower_bound",))])
def test_errata_a9_claims_judge_every_instance(monkeypatch, scale, failing):
    """The mover's claims take the worst of the batched instances: ONE instance's (W, b) scaled (the others exact)
    fails them; a claim that took the best instance would pass."""
    from theorems.neural_collapse import errata as E

    before = _a9(L1=1)
    assert all(before.claim(name).passed for name in failing)
    exact = E.mover

    def first_instance_off(x, u, alpha, m, scale_=1.0):
        W, b, target = exact(x, u, alpha, m, scale_)
        W, b = W.clone(), b.clone()
        W[0], b[0] = W[0] * scale, b[0] * scale
        return W, b, target

    monkeypatch.setattr(E, "mover", first_instance_off)
    ev = _a9(L1=1)  # phase 1 is not judged here (it calls the mover too)
    assert all(not ev.claim(name).passed for name in failing), [str(ev.claim(n)) for n in failing]


def _claim(ev, name):
    return next(c for c in ev.claims if c.name == name)


def test_errata_a9_smallest_alpha_keeps_weight_norm_exact():
    # α at the low end of its domain: the chord direction was computed as (x̃ − x)/‖x̃ − x‖, losing ~ε/θ of
    # relative accuracy (‖W‖_F − α)/α ≈ 6.6e-11 > EXACT_RTOL); the closed-form chord keeps it at rounding.
    for alpha in (1e-6, 1.000001e-6, 0.2):  # both ends of the domain
        ev = theorems.check("neural_collapse.errata_a9", alpha=alpha)
        for name in ("lands_on_target", "weight_norm_is_alpha", "angle_lower_bound", "others_untouched",
                     "angle_formula_exact", "phase1_constant_step_reaches"):
            assert _claim(ev, name).passed, (alpha, name)
        assert _claim(ev, "weight_norm_is_alpha").observed < 1e-14 and _claim(ev, "lands_on_target").observed < 1e-14
