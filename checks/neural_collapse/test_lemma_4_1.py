"""Lemma 4.1 (near-optimal ⇒ near the optima), quantitative for the UFM: NC1, NC3 ≤ C·ε and NC2 ≤ C·√ε (paper 004,
`neural_collapse.lemma_4_1`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.core import recording
from theorems.core.verdict import run_spec
from theorems.neural_collapse import lemma_4_1
from theorems.neural_collapse import lemma_4_1 as L41


@pytest.mark.parametrize("rid, status", [(L41.ID, "verified")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (L41.ID, dict(loss="mse", K=3, d=3), "d ≥ K+1 (MSE)"),
    (L41.ID, dict(const_scale=0.5), "the derived constants"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


# -- Lemma 4.1, quantitative ------------------------------------------------------------------------------
def test_lemma_4_1_exponents_are_sharp_and_the_controls_bite(run):
    ev = run(L41.ID)
    assert ev.holds and ev.details["trained_checked"] >= 3, ev.explain()
    for k, p in (("nc1", 1.0), ("nc2", 0.5), ("nc3", 1.0)):
        assert ev.claim(f"sharpness_{k}").observed == pytest.approx(p, abs=0.05)
    for spec in L41.CONTROLS:  # each breaks the perturbation claims; the wrong constant also every trained one
        bad = run_spec(run, theorems.get(L41.ID), spec)
        failed = {c.name for c in bad.failed_bounds}
        assert {f"{k}_bound_on_perturbations" for k in ("nc1", "nc2", "nc3")} <= failed, bad.explain()
        if "const_scale" in spec:
            assert {f"{k}_bound_on_trained" for k in ("nc1", "nc2", "nc3")} <= failed, bad.explain()


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # Lemma 4.1: where Lemma 4.2's collapsed optimum exists (d ≥ K+1 MSE / K CE)
    ("lemma_4_1", None, dict(d=3, K=4, loss="ce"), "d ≥ K+1 (MSE) / d ≥ K (CE)"),
    ("lemma_4_1", None, dict(d=3, K=3, loss="ce"), None),
    ("lemma_4_1", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE) / d ≥ K (CE)"),
    ("lemma_4_1", None, dict(d=4, K=3, loss="mse"), None),
    ("lemma_4_1", None, dict(const_scale=0.5), "the derived constants and exponents"),
    ("lemma_4_1", None, dict(exponent_shift=0.25), "the derived constants and exponents"),
    # Lemma 4.1's switches off their defaults one at a time
    ("lemma_4_1", None, dict(const_scale=1.0, exponent_shift=0.0), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


# -- lemma_4_1:152: the trained networks start perturbed in W_0, every block and W_L --------------------------------
# monkeypatch, not a Pin: it replaces lemma_4_1.train: code, which a Pin cannot move
def test_lemma_4_1_trained_starts_are_perturbed_in_every_group(monkeypatch):
    """The trained claims judge networks that start off the attaining network in W_0 (frozen: NC1 > 0 then), the
    blocks and W_L; a start left at the optimum in any of them would make 'trained' checks of the optimum itself.
    A spy on the trainer reads the starts; each group must move by ≥ 1e-4 relative in every seed (the smallest
    perturbation scale is 1e-3)."""
    from theorems.core.context import Context
    from theorems.neural_collapse.models import INNER, unpack

    seen = {}

    class Stop(Exception):
        pass

    def spy(spec, theta, *args, **kwargs):
        seen["spec"], seen["theta"] = spec, theta
        raise Stop

    monkeypatch.setattr(lemma_4_1, "train", spy)
    p = dict(K=3, n=2, d=6, lam=0.05, loss="ce", seeds=3, train_iter=1)
    ctx = Context.make(None, seed=0)
    with pytest.raises(Stop):
        lemma_4_1.trained_pairs(p, ctx)
    spec = seen["spec"]
    ctx = Context.make(None, seed=0)  # the same draws up to the attaining network
    from theorems.data.classification import gaussian_mixture

    X0, labels = gaussian_mixture(ctx, 3, 2, 6)
    base = unpack(spec, lemma_4_1.attaining_network(spec, X0, labels, "ce", 0.05, ctx))
    start = unpack(spec, seen["theta"])
    groups = {name: g for name, _, g in spec.layout()}
    moved = [name for name in start if groups[name] == INNER or name in ("WL", "W0")]
    assert {"WL", "W0"} <= set(moved) and any(groups[n] == INNER for n in moved)
    for name in moved:
        for s in range(3):
            rel = float((start[name][s] - base[name][0]).norm() / base[name][0].norm().clamp_min(1.0))
            assert rel >= 1e-4, (name, s, rel)


# -- Lemma 4.1: the derived constants (near_optimal) and the rounding floor --------------------------------------------
# (registered pin, the bound claims it pins): observed/bound of each lies in (1, 10] (the claims have no tolerance:
# the bound is the allowance), so a constant loosened ×10 lets the pin pass
L41_PINS = [
    (dict(const_scale=0.1, allow_violation=True), ("nc1_bound_on_perturbations", "nc3_bound_on_perturbations",
                                                   "nc1_bound_on_trained", "nc3_bound_on_trained")),
    (dict(const_scale=0.02, allow_violation=True), ("nc2_bound_on_perturbations",)),
    (dict(const_scale=2e-4, allow_violation=True), ("nc2_bound_on_trained",)),
    (dict(const_scale=0.005, loss="mse", d=5, allow_violation=True),
     tuple(f"nc{i}_bound_on_{f}" for i in (1, 2, 3) for f in ("perturbations", "trained"))),
]


@pytest.mark.parametrize("pin, claims", L41_PINS, ids=[str(i) for i in range(len(L41_PINS))])
def test_lemma_4_1_constants_pinned_by_registered_pins(run, pin, claims):
    from theorems.core import registry
    from theorems.core.verdict import run_spec
    from theorems.neural_collapse import lemma_4_1 as L

    result = registry.get(L.ID)
    assert pin in [dict(c) for c in result.pins] and pin in [dict(c) for c in result.controls]
    ev = recording.expect(run_spec(run, result, pin), recording.FAILS)
    for name in claims:
        c = ev.claim(name)
        assert c.kind == "bound" and c.bound == 1.0 and 1.0 < c.observed <= 10.0, c


L41_P = dict(loss="ce", K=3, n=2, d=6, lam=0.05, const_scale=1.0, exponent_shift=0.0)  # Lemma 4.1's CE default


def _bounds(eps):
    from theorems.neural_collapse.near_optimal import nc_bounds

    b = nc_bounds("ce", 3, 2, 6, 0.05, eps)
    return {"nc1": b["nc1"], "nc2a": b["nc2"], "nc3": b["nc3"]}


def _size():
    """L* + ρ*√d of the CE default: the size of the largest terms of f − L*."""
    import math

    from theorems.neural_collapse.ufm import closed_form

    opt = closed_form("ce", 3, 6, 0.05)
    return opt.value + opt.row_norm * math.sqrt(6)


@pytest.mark.parametrize("eps_rel, judged_rel, scale, worst", [
    (3e-14, 3e-14, 1.5, 1.5),  # 3 floors above the floor: judged at its own ε (a floor ×10 would excuse it)
    (3e-15, 1e-14, 0.5, 0.5),  # a third of the floor: judged at the floor 1e-14 (a floor ÷10 would fail it)
    (-1e-16, 1e-14, 0.5, 0.5),  # f − L* < 0 by rounding: judged at the floor
])
def test_lemma_4_1_rounding_floor_pinned(eps_rel, judged_rel, scale, worst):
    """EPS_FLOOR_REL = 1e-14 of (L* + ρ*√d): a point above the floor is judged at its own ε, one below at the floor."""
    import torch

    from theorems.neural_collapse import lemma_4_1 as L

    size = _size()
    metrics = {k: torch.tensor([scale * v], dtype=torch.float64) for k, v in _bounds(judged_rel * size).items()}
    got, checked = L._ratios(L41_P, torch.tensor([eps_rel * size], dtype=torch.float64), metrics)
    assert checked == 1 and all(v == pytest.approx(worst, rel=1e-9) for v in got.values()), got


@pytest.mark.parametrize("metric", ["nc1", "nc2a", "nc3"])
def test_lemma_4_1_ratios_take_the_worst_point(metric):
    """The bound claims take the worst point: five points at 0.1 of their bounds and ONE (the middle) at 3× its bound
    on one metric give a worst ratio of 3 on that metric (a min, or a metric left out, would not)."""
    import torch

    from theorems.neural_collapse import lemma_4_1 as L

    eps = [1e-10, 1e-9, 1e-8, 1e-7, 1e-6]
    values = {k: [] for k in ("nc1", "nc2a", "nc3")}
    for i, e in enumerate(eps):
        for k, b in _bounds(e).items():
            values[k].append((3.0 if (i == 2 and k == metric) else 0.1) * b)
    got, checked = L._ratios(L41_P, torch.tensor(eps, dtype=torch.float64),
                             {k: torch.tensor(v, dtype=torch.float64) for k, v in values.items()})
    assert checked == 5
    key = "nc2" if metric == "nc2a" else metric
    assert got[key] == pytest.approx(3.0, rel=1e-9) and all(got[k] == pytest.approx(0.1, rel=1e-9)
                                                             for k in got if k != key), got


def test_lemma_4_1_perturbations_reach_past_the_validity_limit(run):
    """The perturbation scales (10⁻⁷ … 10^−½ of the optimum's size) reach past ε₀, where the bounds stop saying
    anything: the check judges the bounds up to the edge where they bind, not only at tiny ε. Some draws must land
    beyond ε₀ (unjudged) and most inside it."""
    from theorems.neural_collapse import lemma_4_1 as L

    ev = run(L.ID)
    total = 24 * 21  # draws × perturbation scales at the default
    assert total // 2 < ev.details["perturbations_checked"] < total, ev.details["perturbations_checked"]


def _claim(ev, name):
    return next(c for c in ev.claims if c.name == name)


def test_lemma_4_1_smallest_lambda_judges_rounding_at_the_rounding_level():
    # λ at the low end of its domain: L* = 2.3e-5 but the logits are ~9, so f − L* of points within rounding of
    # the optimum comes out ±3e-16, far above the old floor 1e-13·L* = 2.3e-18: such points were judged at an ε
    # below their own rounding and failed NC1 ≤ C₁ε by 5×. The statement holds for every λ > 0.
    from theorems.neural_collapse.lemma_4_1 import eps_floor

    assert eps_floor("ce", 3, 6, 1e-6) > 1e-15  # above the observed rounding of f − L* (±7e-16 at λ = 1e-6)
    # ... and not so high that genuine points are judged at the floor: at the default λ the perturbations of scale
    # ≥ 4.5e-7 have ε ≥ 1.7e-13 (measured) and must be judged at their own ε (the old floor was 1.2e-14)
    assert eps_floor("ce", 3, 6, 0.05) < 1e-13
    ev = theorems.check("neural_collapse.lemma_4_1", lam=1e-6)
    for k in ("nc1", "nc2", "nc3"):
        assert _claim(ev, f"{k}_bound_on_perturbations").passed, k
    assert ev.details["perturbations_checked"] > 300  # the floor does not empty the check
