"""The checks particular to ``nonlinear_cl.table_1`` (App. E.2, 'Selectively backpropagating μ_k and σ_k² in
BatchNorm', Table 1): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_registered_bindings, row_ids
from theorems.core import recording, registry

TAB1 = "nonlinear_cl.table_1"
AP = "as_printed"
NL = "nonlinear_cl."
D = torch.float64


# one grid point; σ² detached ahead by 0.3 (μ not backpropagated) and 0.1 (μ backpropagated): the mean gain 0.2
TABLE = {(1, 1, False, False): [0.5], (1, 1, False, True): [0.2], (1, 1, True, False): [0.4],
         (1, 1, True, True): [0.3]}


EDGES = [
    # table_1: ζ = 10 and the margin 0 of "better", each off on both sides
    (NL + "table_1", None, dict(zeta=9.9), "ζ = 10"),
    (NL + "table_1", None, dict(zeta=10.1), "ζ = 10"),
    (NL + "table_1", None, dict(margin=0.01), "margin = 0"),  # (the margin is declared ≥ 0)
]


# -- Table 1 (ζ = 10, ci miniature) --------------------------------------------------------------------------------------------
def test_table_1_ci_instance(run):
    ev = run(TAB1, form=AP)
    assert ev.holds, ev.explain()
    row = ev.details["table"]["P=3 beta=2"]
    for mu in ("mu_no", "mu_bp"):  # σ² detached ahead for each seed and μ setting
        assert all(a > b for a, b in zip(row[f"{mu}_var_no"], row[f"{mu}_var_bp"], strict=True))
    assert not run(TAB1, form=AP, margin=0.3, allow_violation=True).holds


def test_table_1_untrained_budget_is_not_converged():
    # lr at the low end of its domain: 150 steps at lr 1e-6 leave every network at its initialisation (loss
    # −4.7 % .. 0, minibatch noise), and the σ² contrast (±5e-4) is a difference of initial scores: the run
    # must say "not converged", not hold or fail. One step is the other end of the budget.
    from theorems.core.evidence import NOT_CONVERGED, outcome_of

    # lr 3e-5 trains a little (the least-trained network's loss falls 4 %, below TRAINED_DROP): still not converged
    for params in (dict(lr=1.000001e-6), dict(steps=1), dict(lr=3e-5)):
        ev = recording.expect(theorems.check("nonlinear_cl.table_1", **params), recording.NOT_CONVERGED)
        assert outcome_of(ev.claims, ev.converged) == NOT_CONVERGED, params
    ev = theorems.check("nonlinear_cl.table_1", lr=1e-4)  # a small lr that trains (loss falls 17 %) is judged
    assert ev.converged is True and ev.holds


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# -- Table 1: the least-trained network decides "trained"; the threshold TRAINED_DROP = 0.1 ------------------------
def test_table_1_loss_drop_is_the_least_trained_network():
    """Relative falls 0.75, 0.2 and 0.25 (the third loss negative: the fall is relative to |loss₀|): the least, 0.2,
    is the run's (max would read 0.75)."""
    from theorems.nonlinear_cl import table_1

    run = SimpleNamespace(losses=torch.tensor([[4.0, 5.0, -2.0], [3.0, 3.0, -2.5], [1.0, 4.0, -2.5]], dtype=D))
    assert table_1.loss_drop(run) == pytest.approx(0.2, rel=1e-12)


# monkeypatch, not a Pin: table_1.run_variants is a function no parameter or module constant reaches
@pytest.mark.parametrize("drop, trained", [(0.3, True), (0.1, True), (0.03, False), (float("nan"), False)])
def test_table_1_trained_threshold(monkeypatch, drop, trained):
    """A least loss fall of 0.3 is a trained run, 0.03 is not (TRAINED_DROP = 0.1 ×10 or ÷10 flips one), NaN never;
    "fell by at least 0.1" includes 0.1 itself."""
    from theorems.nonlinear_cl import table_1

    monkeypatch.setattr(table_1, "run_variants", lambda p, ctx: (TABLE, drop))
    out = table_1.evaluate(dict(margin=0.0), "as_printed", None)
    assert out.converged is trained, (drop, out.converged)
    better = [c for c in out.claims if c.name == "sigma_detached_better"][0]
    assert better.observed == pytest.approx(0.2, rel=1e-12) and better.passed
    share = [c for c in out.claims if c.name == "sigma_detached_ahead_share"][0]
    assert share.observed == 1.0


def test_table_1_better_is_the_mean_gain_against_the_margin():
    """Gains +0.3 and −0.1 (σ² backpropagated ahead at μ bp): the mean +0.1 passes margin 0 and fails the registered
    control's margin 0.3; the share ahead is 1/2; |μ effect| is the largest, 0.1 (at σ² detached: 0.5 vs 0.4)."""
    from theorems.nonlinear_cl import table_1

    table = dict(TABLE)
    table[(1, 1, True, True)] = [0.5]
    better, share, mu = table_1.table_claims(table, 0.0)
    assert better.observed == pytest.approx(0.1, rel=1e-12) and better.passed
    assert share.observed == 0.5
    assert mu.observed == pytest.approx(0.3, rel=1e-12)  # σ² backpropagated: 0.5 vs 0.2
    assert dict(margin=0.3, allow_violation=True) in [dict(c) for c in registry.get(table_1.ID).controls]
    assert not table_1.table_claims(table, 0.3)[0].passed


def test_registered_bindings_are_the_documented_ones():
    # where each hypothesis binds, as the module's docstring documents
    assert_registered_bindings("nonlinear_cl.table_1", [dict(Ps=(1,), betas=(1,))])
