"""Tolerances of paper 004 pinned by REGISTERED controls (issue 26, item 9).

A tolerance is pinned when a registered negative control fails its claim by more than the allowance and by at most
10 allowances: the tolerance loosened ×10 (or ×1000) lets that control pass, tightened ÷10 (or ÷1000) its failure is
more than 10 allowances, so either mutant fails a row here. Each row names the control by its literal parameters
(never built from the constant it pins, which would move with it) and the test finds it among ``Result.controls``:
the registered control is what is checked, not a copy kept by a test or a report. Each row is one cheap evaluate.
"""

from __future__ import annotations

import pytest
import torch

from checks.pinning import assert_registered_pin
from theorems.core import recording
from theorems.core.errors import IdentityFailure

NC = "neural_collapse."
ATTAINING = dict(attaining=True, K=3, n=2, d0=6, d=4, loss="ce", L=3)

# (result id, the registered control, the claims it pins, the claim kinds allowed)
PINS = [
    # RTOL = 1e-10 on the 1-D toy's closed form, from both sides (3 allowances)
    ("toy_1d", dict(bound_scale=1 + 3e-10, allow_violation=True), ("optimiser_not_below_closed_form",), ("bound",)),
    ("toy_1d", dict(bound_scale=1 - 3e-10, allow_violation=True), ("optimiser_reaches_closed_form",), ("bound",)),
    # EXP_TOL = 0.07 from outside: the hypothesis L ≫ a dropped tilts the exponent to −1.118
    ("toy_1d", dict(depths=(2, 8, 32, 128), allow_violation=True), ("cost_vanishes_at_rate_1_over_L",), ("bound",)),
    # the deep UFM remark: LOWER_RTOL = 1e-10 on the attaining copy, REACH_RTOL = 1e-7 on the trained networks
    ("deep_ufm_remark", dict(bound_scale=1 + 3e-10, allow_violation=True), ("deep_ufm_above_shallow_optimum",),
     ("bound",)),
    ("deep_ufm_remark", dict(bound_scale=1 - 3e-7, allow_violation=True), ("trained_reaches_shallow_optimum",),
     ("bound",)),
    # Theorem 4.3's lower bound where it binds (the attaining network): LOWER_RTOL = 1e-10
    ("theorem_4_3", dict(ATTAINING, bound_scale=1 + 3e-10, allow_violation=True), ("attaining_net_above_gufm_optimum",),
     ("bound",)),
    # Appendix A's phase-1 mover: EXACT_RTOL = 1e-12 on the landing point, ANGLE_RTOL = 1e-6 on the exact angle
    ("errata_a9", dict(step_scale=1 + 1e-9, allow_violation=True), ("lands_on_target",), ("bound",)),
    ("errata_a9", dict(step_scale=1 + 1e-5, allow_violation=True), ("angle_formula_exact",), ("identity",)),
]


@pytest.mark.parametrize("rid, control, claims, kinds", PINS, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(PINS)])
def test_registered_control_pins_the_tolerance(run, rid, control, claims, kinds):
    assert_registered_pin(run, NC + rid, control, claims, kinds=kinds)


# Lemma 4.2 (PIN = CE, K = 3, n = 2, d = 4): every tolerance of the corrected statement
PIN_42 = dict(loss="ce", K=3, n=2, d=4)
PINS_42 = [
    (dict(PIN_42, closed_form_scale=1 + 3e-10, row_norm_scale=1 + 3e-4, allow_violation=True),
     ("no_start_beats_closed_form", "row_norm")),  # LOWER_RTOL, ROW_NORM_RTOL
    (dict(PIN_42, closed_form_scale=1 - 3e-7, allow_violation=True), ("best_run_reaches_closed_form",)),  # REACH_RTOL
    (dict(PIN_42, perturb=3e-3, allow_violation=True),
     ("optimum_collapsed_nc1", "optimum_collapsed_nc2a", "optimum_collapsed_nc3")),  # NC1_TOL, NC2_TOL, NC3_TOL
    (dict(PIN_42, row_norm_scale=1 + 3e-6, allow_violation=True), ("converse_minimiser_is_c_star",)),  # CONVERSE_C
    (dict(PIN_42, closed_form_scale=1 + 1e-9, row_norm_scale=1 + 1e-5, perturb=5e-3, allow_violation=True),
     ("converse_attains_at_unique_c",)),  # CONVERSE_VALUE_RTOL
]


@pytest.mark.parametrize("control, claims", PINS_42, ids=[str(i) for i in range(len(PINS_42))])
def test_lemma_4_2_tolerances_are_pinned_by_registered_controls(run, control, claims):
    assert_registered_pin(run, NC + "lemma_4_2", control, claims)


@pytest.mark.parametrize("claim, scale", [("optimiser_reaches_closed_form", 1 - 3e-10),
                                          ("optimiser_not_below_closed_form", 1 + 3e-10)])
def test_toy_1d_closed_form_claims_judge_every_depth(monkeypatch, claim, scale):
    """The closed-form claims take the worst depth: a closed form off by 3 allowances at ONE depth (the deepest) fails
    them, whatever the other depths do (a claim that took the best depth would pass)."""
    import theorems
    from theorems.neural_collapse import toy_1d as T1

    exact = T1.closed_form
    deepest = 64

    def one_depth_off(a, L, layers):
        value, w = exact(a, L, layers)
        return (value * scale if L == deepest else value), w

    monkeypatch.setattr(T1, "closed_form", one_depth_off)
    ev = recording.expect(theorems.check(T1.ID, depths=(16, 32, deepest)), recording.FAILS)  # a patched closed form
    assert [c.name for c in ev.failed_bounds] == [claim], ev.explain()


def test_theorem_4_3_reduction_identity_judges_every_network(monkeypatch):
    """The reduction identity takes the worst network: one network's GUFM part off by 1e-6 relative fails it (a
    claim that took the best network would pass on the others, which are exact)."""
    import theorems
    from theorems.neural_collapse import theorem_4_3 as T

    exact = T.ufm_objective

    def first_network_off(*args, **kwargs):
        value = exact(*args, **kwargs)
        return value * torch.cat([torch.full_like(value[:1], 1 + 1e-6), torch.ones_like(value[1:])])

    monkeypatch.setattr(T, "ufm_objective", first_network_off)
    with pytest.raises(IdentityFailure, match="reduction_identity"):  # inside the hypotheses: a bug of the suite
        theorems.check(T.ID, loss="ce")
