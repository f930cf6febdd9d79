"""The checks particular to ``deep_fusion.fusion_trend`` (§Deep Fusion, the commentary after Theorem 2; Introduction
(Theory)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, row_ids
from theorems.core import recording
from theorems.deep_fusion import fusion_trend
from theorems.deep_fusion.fusion import log_gamma_B

FT = fusion_trend.ID


# ------------------------------------------------------------------------------------------------------
# fusion_trend: each sweep's plotted prediction is the commentary's direction
# ------------------------------------------------------------------------------------------------------
def _small_trend(run):
    """A cheap sweep inside the commentary's assumption δ < Δ (its ε and θ claims fail: the two errata)."""
    ev = run("deep_fusion.fusion_trend", instances=2, nus=(2, 3, 4), eps_values=(0.001, 0.003, 0.01),
             angles=(45.0, 60.0, 75.0))
    return recording.expect(ev, recording.FAILS)


EDGES = [
    # fusion_trend: m ≥ 2r
    ("deep_fusion.fusion_trend", None, dict(m=5, r=2), None),
    ("deep_fusion.fusion_trend", None, dict(m=4, r=3), "m ≥ 2r"),
    # fusion_trend: m ≥ 2r at its edge (m = 2r inside, 2r − 1 outside)
    ("deep_fusion.fusion_trend", None, dict(m=4, r=2), None),
    ("deep_fusion.fusion_trend", None, dict(m=3, r=2), "m ≥ 2r"),
    ("deep_fusion.fusion_trend", None, dict(m=4, r=2), None),  # m = 2r
    ("deep_fusion.fusion_trend", None, dict(m=3, r=2), "m ≥ 2r"),
]


# ======================================================================================================
# The trend after Theorem 2
# ======================================================================================================
def test_fusion_trend_formula_directions_match_autograd():
    """The signs of d log γ_B/dε and d log γ_B/dθ at the grid's base point, by torch autograd on the formula
    written out directly, agree with the commentary-step claims (γ_B rises with ε, falls with θ)."""
    def log_gamma(eps, theta, n):
        phi = torch.arccos(1 - eps)
        d, D = torch.sin(phi), torch.cos(math.pi / 2 - theta + phi)
        X = d * torch.exp(n * D * D) + torch.exp(n * (d + d * d))
        base = D * torch.exp(D * D) - n * torch.exp(n * (d + d * d))
        return torch.log(base**2 * torch.exp(d + n * d * d - n * D * D) / (n * n * X + n**3 * X * X))

    eps = torch.tensor(0.01, dtype=torch.float64, requires_grad=True)
    theta = torch.tensor(math.radians(45), dtype=torch.float64, requires_grad=True)
    g_eps, g_theta = torch.autograd.grad(log_gamma(eps, theta, 8.0), (eps, theta))
    assert float(g_eps) > 0 and float(g_theta) < 0
    steps = fusion_trend.formula_steps(theorems.get(FT).defaults)
    assert steps["eps"] > 0 and steps["angle"] > 0 and steps["n"] < 0


def test_fusion_trend_directions_depend_on_the_normalisation_of_W(run):
    unit, frob = run(FT), run(FT, w_norm="frobenius")
    assert unit.claim("logR_slope_vs_n").observed > 0 and unit.claim("logR_slope_vs_eps").observed > 0
    assert unit.claim("logR_slope_vs_angle").observed > 0 > frob.claim("logR_slope_vs_angle").observed


def test_fusion_trend_formula_steps_recomputed():
    """formula_steps' worst steps against the grids written out here with log_gamma_B."""
    p = theorems.get(FT).defaults

    def lg(n, eps, angle):
        phi = math.acos(1 - eps)
        return log_gamma_B(n, math.sin(phi), math.cos(math.radians(90 - angle) + phi))

    by_n = [lg(2 * nu, p["eps"], p["angle_deg"]) for nu in p["nus"]]
    by_e = [lg(2 * p["nu"], e, p["angle_deg"]) for e in p["eps_values"]]
    by_a = [lg(2 * p["nu"], p["eps"], a) for a in p["angles"]]
    steps = fusion_trend.formula_steps(p)
    assert steps["n"] == pytest.approx(max(np.diff(by_n)), rel=1e-12)
    assert steps["eps"] == pytest.approx(max(np.diff(by_e)), rel=1e-12)
    assert steps["angle"] == pytest.approx(max(-np.diff(by_a)), rel=1e-12)


def test_fusion_trend_declarations(run):
    for name, bad in (("nus", (8, 4, 16)), ("eps_values", (0.01, 0.003, 0.03)), ("angles", (60.0, 45.0, 90.0))):
        with pytest.raises(theorems.ParameterError, match=name):
            theorems.check(FT, **{name: bad})  # a sweep must increase
    default = theorems.get(FT).cost(theorems.get(FT).defaults)
    wider = theorems.get(FT).cost({**theorems.get(FT).defaults, "nus": (2, 4, 8, 16, 64)})
    assert wider.elements > default.elements and wider.work > default.work
    ev = run(FT)
    assert all(series["log"] is False for series in ev.details["scaling"])
    assert all(2 < ev.details[f"z_{axis}"] < 1e3 for axis in ("n", "eps", "angle"))  # finite z-scores


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_fusion_trend_names_the_separability_it_assumes(run):
    """A sweep reaching ε = 0.5 (δ ≥ Δ at θ = 45°) is outside the commentary's assumption δ < Δ, and the evidence
    says so; the default sweep is inside it."""
    small = dict(instances=2, nus=(2, 3, 4), angles=(45.0, 60.0, 75.0))
    from theorems.core.errors import HypothesisViolation

    with pytest.raises(HypothesisViolation, match="separable clusters δ < Δ"):
        run("deep_fusion.fusion_trend", eps_values=(0.001, 0.01, 0.5), **small)
    inside = run("deep_fusion.fusion_trend", eps_values=(0.001, 0.003, 0.01), **small)
    assert not inside.violations


def test_fusion_trend_formula_step_is_the_worst_step():
    """formula_steps reports the *largest* step against each stated direction: along this ε grid log γ_B rises by
    two different amounts (the erratum), and the worst step is the larger one, recomputed here from log γ_B."""
    import math

    from theorems.deep_fusion import fusion_trend as FT
    from theorems.deep_fusion.fusion import log_gamma_B

    p = dict(nus=(2, 4, 8), eps_values=(0.001, 0.01, 0.03), angles=(30.0, 45.0, 60.0), nu=4, eps=0.01, angle_deg=45.0)
    steps = FT.formula_steps(p)

    def lg(eps):
        phi = math.acos(1 - eps)
        return log_gamma_B(8, math.sin(phi), math.cos(math.pi / 4 + phi))

    by_eps = [lg(e) for e in p["eps_values"]]
    rises = [b - a for a, b in zip(by_eps, by_eps[1:], strict=False)]
    assert steps["eps"] == max(rises)


def test_fusion_trend_series_predict_the_commentarys_directions(run):
    """The commentary after Theorem 2: the ratio decays as the sequence lengthens (log n: slope ≤ 0), fusion is
    more obvious with smaller noise (log ε: ≤ 0) and with a larger inter-cluster distance (θ: ≥ 0). Literal
    ranges per axis: a flipped sign test would draw the opposite prediction beside the data."""
    ev = _small_trend(run)
    got = {s["x_name"]: s["predicted"] for s in ev.details["scaling"]}
    assert got == {"log n": [None, 0.0], "log ε": [None, 0.0], "θ (degrees)": [0.0, None]}, got


def test_fusion_trend_commentary_claims_read_the_stated_directions(run):
    """Each commentary claim is 'largest step against the stated direction ≤ 0' (literal bound 0): the n sweep
    holds (γ_B falls with n everywhere on the grid: the largest step is < 0), the ε and θ sweeps fail (the two
    errata), each with the worst step of its axis as the observed number."""
    ev = _small_trend(run)
    want = {"commentary_gamma_B_falls_with_n": ("n", True), "commentary_gamma_B_rises_as_noise_falls": ("eps", False),
            "commentary_gamma_B_rises_with_separation": ("angle", False)}
    for name, (axis, passes) in want.items():
        c = ev.claim(name)
        assert (c.relation, c.bound, c.passed) == ("<=", 0.0, passes), c
        assert c.observed == ev.details[f"formula_worst_step_{axis}"] and (c.observed < 0) is passes, c


# ------------------------------------------------------------------------------------------------------
# fusion_trend: the slope's z-score and the worst step along every axis
# ------------------------------------------------------------------------------------------------------
def test_fusion_trend_fit_slope_matches_numpy():
    """Least squares with its standard error, in numpy: a small se (< 1) must give a finite z."""
    from theorems.deep_fusion.fusion_trend import fit_slope

    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    y = np.array([0.1, 1.0, 2.2, 2.9, 4.05])
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    se = math.sqrt((resid @ resid) / (len(x) - 2) / ((x - x.mean()) @ (x - x.mean())))
    got_b, got_z = fit_slope(torch.tensor(x), torch.tensor(y))
    assert se < 1 and got_b == pytest.approx(b, rel=1e-12) and got_z == pytest.approx(b / se, rel=1e-10)
    assert fit_slope(torch.tensor(x), torch.tensor(2 * x))[1] == math.inf  # an exact line: se = 0


def test_fusion_trend_formula_steps_are_the_worst_steps_on_every_axis():
    """formula_steps' n and θ entries are the largest step against the stated direction (recomputed here from
    log γ_B; the ε entry: checks/deep_fusion/test_fusion_trend.py), on grids where the steps differ."""
    from theorems.deep_fusion import fusion_trend as FT
    from theorems.deep_fusion.fusion import log_gamma_B

    p = dict(nus=(2, 4, 8), eps_values=(0.001, 0.01, 0.03), angles=(30.0, 45.0, 80.0), nu=4, eps=0.01, angle_deg=45.0)

    def lg(n, eps, angle):
        phi = math.acos(1 - eps)
        return log_gamma_B(n, math.sin(phi), math.cos(math.pi / 2 - math.radians(angle) + phi))

    by_n = [lg(2 * nu, 0.01, 45.0) for nu in p["nus"]]
    by_angle = [lg(8, 0.01, a) for a in p["angles"]]
    n_steps = [b - a for a, b in zip(by_n, by_n[1:], strict=False)]
    angle_steps = [a - b for a, b in zip(by_angle, by_angle[1:], strict=False)]
    assert len(set(n_steps)) == 2 and len(set(angle_steps)) == 2
    steps = FT.formula_steps(p)
    assert steps["n"] == max(n_steps) and steps["angle"] == max(angle_steps)
