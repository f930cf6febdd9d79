"""The checks particular to ``nonlinear_cl.figure_4`` (§5.1 and App. E.2: Figures 4, 9, 10 (eqs. 16, 180, 181)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.hand_tables import figure_4_chi
from checks.pinning import assert_hypothesis_refused, assert_named_iff, short_row_ids
from theorems import HypothesisViolation
from theorems.core import registry
from theorems.nonlinear_cl.figure_4 import grid_claims

F4 = "nonlinear_cl.figure_4"
AP = "as_printed"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # Figure 4 (corrected form by default)
    (N + "figure_4", None, dict(activations=("relu",)), "ReLU and linear in the run", True),
    (N + "figure_4", None, dict(activations=("linear", "relu")), "ReLU and linear in the run", False),
    (N + "figure_4", None, dict(Ps=(1,), betas=(2,)), "a regime of Fig. 4", True),
    (N + "figure_4", None, dict(Ps=(1,), betas=(1, 2)), "a regime of Fig. 4", False),
    (N + "figure_4", None, dict(Ps=(2,), betas=(2,)), "a regime of Fig. 4", False),
    (N + "figure_4", None, dict(Ps=(2,), betas=(1,)), "a regime of Fig. 4", True),
    (N + "figure_4", None, dict(shuffle_pairs=True), "share a generator", True),
    (N + "figure_4", None, dict(shuffle_pairs=False), "share a generator", False),
    (N + "figure_4", None, dict(margin=1e-9), "margin = 0.0", True),
    (N + "figure_4", None, dict(margin=0.0), "margin = 0.0", False),
    (N + "figure_4", None, dict(tau=0.1 + 1e-9), "τ = 0.1", True),
    (N + "figure_4", None, dict(tau=0.1), "τ = 0.1", False),
    (N + "figure_4", None, dict(d_out=1), "d_out ≥ 2", True),
    (N + "figure_4", None, dict(d_out=2), "d_out ≥ 2", False),
    (N + "figure_4", None, dict(steps=9), "steps ≥ 10", True),
    (N + "figure_4", None, dict(steps=10), "steps ≥ 10", False),
    (N + "figure_4", "as_printed", dict(steps=9), "steps ≥ 10", False),  # the printed form runs its own protocol
    (N + "figure_4", None, dict(lr=0.02 + 1e-9), "the corrected form: lr 0.02", True),
    (N + "figure_4", None, dict(lr=0.02), "the corrected form: lr 0.02", False),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=5000, batch=128, seeds=3), "the printed protocol", False),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=5000, batch=128, seeds=2), "the printed protocol", True),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=4999, batch=128, seeds=3), "the printed protocol", True),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=5000, batch=127, seeds=3), "the printed protocol", True),
    (N + "figure_4", "as_printed", dict(lr=0.02, steps=5000, batch=128, seeds=3), "the printed protocol", True),
]


def test_figure_4_d_out_is_free_except_one():
    """The paper's account (§4: V only through S = VᵀV, stationary V = v sᵀ for any d_out) singles out no d_out; only
    d_out = 1 is declared, because the protocol's ℓ2 normalisation of a 1-dimensional output has zero gradient."""
    res = theorems.get(F4)
    for form in res.forms:
        for d_out in (2, 3, 20, 50, 256):
            assert not [v for v in res.hypotheses({**res.defaults, "d_out": d_out}, form) if "d_out" in v.names]
        found = [v for v in res.hypotheses({**res.defaults, "d_out": 1}, form) if "d_out" in v.names]
        assert found and found[0].bypassable, form
    with pytest.raises(HypothesisViolation, match="d_out ≥ 2"):
        theorems.check(F4, d_out=1)


# Parametrised by the id, so that the plugin puts them in figure_4's xdist group and they reuse its cached default
# instance and counterexample replay (~40 s) instead of computing them on another worker.
@pytest.mark.parametrize("rid", [F4])
def test_figure_4_d_out_1_trains_nothing(run, rid):
    """The reason of the hypothesis, measured: at d_out = 1 the mean loss hardly moves in the ci miniature (11.17 →
    10.98) while at the default it falls to about a third (3.75 → 1.38)."""
    one = run(rid, d_out=1, allow_violation=True)
    default = run(rid)
    fall = lambda ev: 1 - ev.details["loss_end_mean"] / ev.details["loss_start_mean"]  # noqa: E731
    assert fall(one) < 0.05 < 0.5 < fall(default)


def test_figure_4_seed_noise_of_the_decisive_points():
    """``noise``: the standard error over seeds of the per-seed paired differences at the point whose mean decides
    a min-claim, checked on a hand-made table (3 seeds) where another point has the larger spread."""
    from theorems.nonlinear_cl.figure_4 import grid_claims

    relu = {(1, 1): [0.2, 0.3, 0.4], (1, 4): [0.9, 0.9, 0.9], (3, 1): [0.5, 0.5, 0.5], (3, 4): [0.70, 0.80, 0.90],
            (5, 1): [0.4, 0.4, 0.4], (5, 4): [0.60, 0.62, 0.64]}
    linear = {(1, 1): [0.9, 0.9, 0.9], (1, 4): [0.8, 0.8, 0.8], (3, 1): [0.6, 0.6, 0.6], (3, 4): [0.6, 0.6, 0.6],
              (5, 1): [0.6, 0.6, 0.6], (5, 4): [0.59, 0.58, 0.57]}
    table = {(P, b, a, "infonce"): (v[(P, b)], [0.1] * 3, [0.2] * 3) for a, v in (("relu", relu), ("linear", linear))
             for P, b in v}
    claims = {c.name: c for c in grid_claims(table, ((1, 3, 5), (1, 4), ("relu", "linear"), ("infonce",)), 0.0)}
    # relu_beats_linear is decided at P = 5 (0.62 − 0.58 = 0.04 < 0.2 at P = 3): differences 0.01, 0.04, 0.07
    assert claims["relu_beats_linear"].observed == pytest.approx(0.04)
    assert claims["relu_beats_linear_seed_se"].observed == pytest.approx(0.03 / 3 ** 0.5)
    # ReLU's β-gain is decided at P = 5 (0.22 < 0.3 at P = 3, 0.6 at P = 1): per seed 0.20, 0.22, 0.24
    assert claims["relu_gains_from_beta"].observed == pytest.approx(0.22)
    assert claims["relu_gains_from_beta_seed_se"].observed == pytest.approx(0.02 / 3 ** 0.5)
    # linear_less_affected at P = 5: 0.22 − |−0.02|; per seed ReLU's gain minus the size of linear's, with the sign
    # of linear's mean gain (−0.01, −0.02, −0.03): 0.19, 0.20, 0.21 (|·| taken per seed would give 0.21, 0.24, 0.27)
    assert claims["linear_less_affected"].observed == pytest.approx(0.20)
    assert claims["linear_less_affected_seed_se"].observed == pytest.approx(0.01 / 3 ** 0.5)
    axes = ((1, 3, 5), (1, 4), ("relu", "linear"), ("infonce",))
    one = {k: tuple(v[:1] for v in vals) for k, vals in table.items()}
    assert not [c for c in grid_claims(one, axes, 0.0) if c.name.endswith("_seed_se")]  # one seed: no noise estimate
    two = {c.name: c for c in grid_claims({k: tuple(v[:2] for v in vals) for k, vals in table.items()}, axes, 0.0)}
    assert two["relu_beats_linear_seed_se"].observed == pytest.approx(0.015)  # P = 5: 0.01, 0.04


@pytest.mark.parametrize("rid", [F4])
def test_figure_4_counterexample_fails_beyond_seed_noise(run, rid):
    """The registered counterexample (printed protocol, P = 3, β ∈ {2, 5}) is decided by a failure beyond seed noise:
    linear loses more with β than ReLU gains by more than 2 SE (relu_beats_linear at β = 2 alone is a tie)."""
    from theorems.nonlinear_cl import figure_4

    ev = run(rid, form="as_printed", **figure_4.COUNTEREXAMPLE)
    c = ev.claim("linear_less_affected")
    assert c.kind == "bound" and not c.passed and ev.converged
    assert c.observed < -2 * ev.claim("linear_less_affected_seed_se").observed


def test_figure_4_corrected_refuses_untrained_runs():
    with pytest.raises(HypothesisViolation, match="steps"):
        registry.check("nonlinear_cl.figure_4", form="corrected", steps=9)


def test_figure_4_corrected_holds_from_the_floor():
    ev = registry.check("nonlinear_cl.figure_4", form="corrected", steps=10)
    assert ev.holds and ev.converged


# -- Figures 4/9/10 (authors' protocol, ci miniature) ---------------------------------------------------------------------
def test_figure_4_ci_instance_shows_the_contrasts(run):
    ev = run(F4)
    assert ev.holds and ev.converged, ev.explain()
    t = ev.details["table"]
    # P = 1: linear learns the single pattern at β = 1, ReLU does not; P = 3, β = 5: ReLU ahead
    assert min(t["P=1 beta=1 linear infonce"]["chi_plus"]) > 0.9 > 0.5 > max(t["P=1 beta=1 relu infonce"]["chi_plus"])
    assert ev.claim("relu_beta_effect_at_init").observed > 0  # the chance part of the β effect, recorded


def test_figure_4_controls(run):
    shuffled = run(F4, shuffle_pairs=True, allow_violation=True)
    assert "relu_lowest_chi_minus" in {c.name for c in shuffled.failed_bounds}, shuffled.explain()
    assert shuffled.details["loss_end_mean"] > 2 * run(F4).details["loss_end_mean"]
    wrong = run(F4, margin=0.1, allow_violation=True)
    assert {"relu_beats_linear", "relu_gains_from_beta"} <= {c.name for c in wrong.failed_bounds}
    lead = run(F4, margin=0.7, allow_violation=True)
    assert "linear_beats_relu_at_P1" in {c.name for c in lead.failed_bounds}
    # the miniature records linear's β-drift, the printed length asserts it
    assert run(F4).claim("linear_less_affected").kind == "measurement"


def test_figure_4_needs_a_regime_and_its_forms_their_learning_rates():
    with pytest.raises(HypothesisViolation, match="a regime of Fig. 4"):
        theorems.check(F4, Ps="3", betas="1")
    with pytest.raises(HypothesisViolation, match="printed protocol"):
        theorems.check(F4, form=AP)  # the ci miniature is not the printed protocol
    with pytest.raises(HypothesisViolation, match="lr 0.02"):
        theorems.check(F4, lr=2e-3)
    with pytest.raises(HypothesisViolation, match="ReLU and linear"):
        theorems.check(F4, activations="relu,leaky")


def test_figure_4_temperature_is_a_declared_hypothesis():
    # τ = 10 (the end of the domain) breaks relu_beats_linear in the ci miniature (−0.0065; the fuzz sweep also
    # reported τ ≈ 1e-3 on its instances, which hold at the defaults: 0.12); the figures report τ = 0.1 only (the authors' code; §5 prints none): another τ is outside the
    # statement, declared before any training (the hypotheses alone are evaluated here: no run).
    import pytest

    from theorems.core.errors import HypothesisViolation

    res = theorems.get("nonlinear_cl.figure_4")
    for form in res.forms:
        assert not [v for v in res.hypotheses(dict(res.defaults), form) if "tau" in v.names]
    assert res.defaults["tau"] == 0.1  # the authors' code's temperature (literal)
    for form in res.forms:
        for tau in (10.0, 1.0, 0.01, 0.001000000001, 0.1 + 1e-9):
            found = [v for v in res.hypotheses({**res.defaults, "tau": tau}, form) if "tau" in v.names]
            assert found and found[0].bypassable, (form, tau)
    with pytest.raises(HypothesisViolation, match="tau|τ"):
        theorems.check("nonlinear_cl.figure_4", tau=10)


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


# ---------------------------------------------------------------------------------------------------------------
# Figure 4: every reduction over losses (and points) is decided by the worse loss
# ---------------------------------------------------------------------------------------------------------------
def test_figure_4_claims_take_the_worse_loss():
    """The hand table of tests/test_nonlinear_cl_training.py for InfoNCE, and for the quadratic loss the same with
    ReLU's χ̄₊ lowered by 0.2 at β = 4 and raised by 0.1 at β = 1, its χ̄₋ raised by 0.1: each min/max over losses
    is decided by a different loss than the other reductions (values worked out by hand)."""
    chi, chim = figure_4_chi()
    table = {}
    for (P, b, a), v in chi.items():
        table[(P, b, a, "infonce")] = ([v] * 2, [chim[(P, b, a)]] * 2, [0.2, 0.2])
        q = v + ({4: -0.2, 1: 0.1}[b] if a == "relu" else 0.0)
        qm = chim[(P, b, a)] + (0.1 if a == "relu" else 0.0)
        table[(P, b, a, "quadratic")] = ([q] * 2, [qm] * 2, [0.2, 0.2])
    axes = ((1, 3, 5), (1, 4), ("relu", "linear", "leaky"), ("infonce", "quadratic"))
    claims = {c.name: c for c in grid_claims(table, axes, 0.05)}
    expected = {"relu_beats_linear": -0.1,  # quadratic at P = 5: 0.6 − 0.7
                "homogeneous_beat_linear": 0.05,  # leaky at P = 5, either loss
                "infonce_beats_quadratic_loss": 0.2,
                "relu_lowest_chi_minus": 0.15,  # quadratic at P = 5: 0.35 − 0.2
                "linear_beats_relu_at_P1": 0.55,  # quadratic: 0.95 − 0.4 (InfoNCE: 0.65)
                "linear_chi_at_P1": 0.85,
                "relu_gains_from_beta": 0.1,  # quadratic at P = 5: 0.4 − 0.3 (InfoNCE: 0.4)
                "linear_less_affected": 0.0,  # quadratic at P = 5: 0.1 − |0.1|
                "linear_beta_effect": 0.1}
    for name, value in expected.items():
        assert claims[name].observed == pytest.approx(value, abs=1e-12), (name, claims[name])
    assert not claims["relu_beats_linear"].passed and claims["linear_beats_relu_at_P1"].passed


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.figure_4", dict(Ps="1", betas="5"), "a regime of Fig. 4")
