"""The checks particular to ``nonlinear_cl.figure_11`` (App. E.2, 'Non-uniformity ζ and how BatchNorm interacts with
it', Figure 11): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_named_iff, assert_verified_and_controls_fail_outside, short_row_ids
from theorems import HypothesisViolation
from theorems.core import recording

F11 = "nonlinear_cl.figure_11"
AP = "as_printed"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # Figure 11: max ζ ≥ 5, margin 0.05
    (N + "figure_11", None, dict(zetas=(1.0, 4.99)), "max ζ ≥ 5", True),
    (N + "figure_11", None, dict(zetas=(1.0, 5.0)), "max ζ ≥ 5", False),
    (N + "figure_11", None, dict(margin=0.05 + 1e-9), "margin = 0.05", True),
    (N + "figure_11", None, dict(margin=0.05), "margin = 0.05", False),
]


def test_figure_11_gain_grows_with_zeta_and_the_small_zeta_control_fails_for_that_reason(run):
    ev = run(F11, form=AP)
    g2, g10 = ev.claim("bn_gain_zeta_2").observed, ev.claim("bn_gain_zeta_10").observed
    assert g10 > g2 > 0  # BN helps more at ζ = 10
    assert ev.claim("bn_gain_grows_with_zeta").observed == pytest.approx(g10 - g2)
    row = ev.details["table"]["zeta=10 P=3 beta=2"]  # the page's table shows each arm's own scores
    assert sum(row["bn"]) / len(row["bn"]) - sum(row["no_bn"]) / len(row["no_bn"]) == pytest.approx(g10)
    ctl = run(F11, form=AP, zetas=(1.0, 1.5), allow_violation=True)
    assert "bn_gain_grows_with_zeta" in [c.name for c in ctl.failed_bounds]  # the gain does not grow at small ζ
    assert ctl.claim("bn_gain_grows_with_zeta").observed < 0.05
    assert {c.name for c in run(F11, form=AP, margin=0.3, allow_violation=True).failed_bounds} == {
        "bn_better_at_large_zeta", "bn_gain_grows_with_zeta"}


def test_figure_11_paired_runs_share_tasks_and_initialisation():
    """The same call twice gives the same numbers (every (ζ, BN) run restarts from the same generator state), and
    a run whose ζ are all small is outside the claim."""
    # 5 steps: a starved miniature that may come out either way; only its determinism is tested
    from theorems.nonlinear_cl import figure_11

    a = recording.expect(theorems.check(F11, zetas=(2.0, 10.0), steps=5, seeds=1), recording.HOLDS, recording.FAILS)
    saved = dict(figure_11._RUNS)  # the second call trains afresh, not from the process's cache of runs
    figure_11._RUNS.clear()
    b = recording.expect(theorems.check(F11, zetas=(2.0, 10.0), steps=5, seeds=1), recording.HOLDS, recording.FAILS)
    figure_11._RUNS.update(saved)
    assert a.details["table"] == b.details["table"]
    c = recording.expect(theorems.check(F11, zetas=(2.0, 5.0), steps=5, seeds=1, seed=1), recording.HOLDS,
                         recording.FAILS)  # another seed: its own runs, not the cached ones
    assert c.details["table"]["zeta=2 P=3 beta=2"] != a.details["table"]["zeta=2 P=3 beta=2"]
    # ζ_max = 5 reuses the ζ = 2 runs of the call above; trained afresh it gives the same numbers
    shared = recording.expect(theorems.check(F11, zetas=(2.0, 5.0), steps=5, seeds=1), recording.HOLDS,
                              recording.FAILS)
    saved = dict(figure_11._RUNS)
    figure_11._RUNS.clear()
    fresh = recording.expect(theorems.check(F11, zetas=(2.0, 5.0), steps=5, seeds=1), recording.HOLDS,
                             recording.FAILS)
    figure_11._RUNS.update(saved)
    assert shared.details["table"] == fresh.details["table"]
    with pytest.raises(HypothesisViolation, match="large non-uniformity"):
        theorems.check(F11, zetas=(2.0, 3.0), steps=5)


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


# ---------------------------------------------------------------------------------------------------------------
# Figure 11: the gain per ζ on a hand-made table (special points only), and the paper's protocol for the thorough run
# ---------------------------------------------------------------------------------------------------------------
def test_figure_11_gains_and_claims_on_a_hand_made_table():
    """g(ζ) averages χ̄₊(BN) − χ̄₊(no BN) over seeds and the points with P > 1 AND β > 1 only (the non-specialising
    points here have gains 0.3–0.5 larger that would move it); the claims read g at the largest and smallest ζ."""
    from theorems.nonlinear_cl import figure_11 as F

    gain = {2.0: 0.02, 5.0: 0.1, 10.0: 0.3}
    table = {}
    for z, g in gain.items():
        for P, b, extra in ((1, 1, 0.5), (1, 2, 0.4), (3, 1, 0.3), (3, 2, 0.0), (5, 2, 0.0)):
            table[(z, False, P, b)] = [0.4, 0.6]
            table[(z, True, P, b)] = [0.4 + g + extra, 0.6 + g + extra]
    g = F.gains(table)
    assert g == pytest.approx(gain, abs=1e-12)
    claims = {c.name: c for c in F.grid_claims(g, 0.05)}
    assert claims["bn_better_at_large_zeta"].observed == pytest.approx(0.3)
    assert claims["bn_gain_grows_with_zeta"].observed == pytest.approx(0.28)
    assert claims["bn_better_at_large_zeta"].passed and claims["bn_gain_grows_with_zeta"].passed
    small = {c.name: c for c in F.grid_claims({1.0: 0.02, 2.0: 0.06}, 0.05)}
    assert small["bn_better_at_large_zeta"].passed and not small["bn_gain_grows_with_zeta"].passed  # 0.04 < 0.05


def test_figure_11_paper_protocol_is_section_5s():
    """The thorough instance runs §5's protocol (5000 minibatches of 128, 3 repetitions) on Fig. 11's ζ = 2, 5, 10,
    at the grid whose numbers the module's docstring reports (its replay command: Ps=1,3 betas=1,2)."""
    from theorems.nonlinear_cl import figure_11 as F

    assert (F.PAPER_PROTOCOL["steps"], F.PAPER_PROTOCOL["batch"], F.PAPER_PROTOCOL["seeds"]) == (5000, 128, 3)
    assert tuple(F.PAPER_PROTOCOL["zetas"]) == (2.0, 5.0, 10.0)
    assert (tuple(F.PAPER_PROTOCOL["Ps"]), tuple(F.PAPER_PROTOCOL["betas"])) == ((1, 3), (1, 2))
    assert "Ps=1,3 betas=1,2 zetas=2,5,10 seeds=3 steps=5000 batch=128" in " ".join(F.__doc__.split())


def test_status_and_registered_controls_fail_outside_the_hypotheses(run):
    assert_verified_and_controls_fail_outside(run, "nonlinear_cl.figure_11")
