"""The checks particular to ``nonlinear_cl.figure_8`` (Appendix E.1, Figure 8): its pins, hypothesis edges and hand-
made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import (
    assert_hypothesis_edge,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
)
from theorems import HypothesisViolation
from theorems.core import recording
from theorems.core.registry import get
from theorems.nonlinear_cl import figure_8, theorem_3

T3, F8 = theorem_3.ID, figure_8.ID
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # Figure 8: ReLU, the paper's points
    (N + "figure_8", None, dict(leak=1e-9), "ReLU activation", True),
    (N + "figure_8", None, dict(leak=0.0), "ReLU activation", False),
    (N + "figure_8", None, dict(points="uniform"), "the paper's 9 points", True),
    (N + "figure_8", None, dict(points="paper"), "the paper's 9 points", False),
]


CASES = [
    ("nonlinear_cl.figure_8", dict(leak=0.3), "ReLU activation"),
    ("nonlinear_cl.figure_8", dict(points="uniform"), "the paper's 9 points"),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.figure_8', None, dict(points='uniform'), "the paper's 9 points"),
    ('nonlinear_cl.figure_8', None, dict(leak=1.0), "ReLU activation h(x) = max(x, 0) (Fig. 8's caption)"),
]


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


# -- Fig. 8 ------------------------------------------------------------------------------------------------------------
def test_figure_8_counts_and_where_the_maxima_sit(run):
    ev = run(F8)
    assert ev.holds
    assert len(ev.details["relu_maxima_theta/pi"]) == 9 and all(ev.details["maxima_at_kinks"])
    assert ev.details["exact_lmes_theta/pi"] == []  # recorded: none of the optima is an LME
    assert len(ev.details["linear_maxima_theta/pi"]) == 2


@pytest.mark.parametrize("params, n_maxima", [(dict(points="clusters"), 3), (dict(leak=1.0), 2)])
def test_figure_8_controls_have_few_maxima(run, params, n_maxima):
    ev = run(F8, allow_violation=True, **params)
    assert not ev.claim("relu_at_least_8_maxima").passed and ev.observed == n_maxima


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, params, name", CASES)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_figure_8_kink_maximum_needs_both_sides():
    """``relu_maxima_at_kinks`` counts a grid maximum as the kink's only if ℰ at the kink is at least ℰ on BOTH
    sides. On the paper's 9 points four of the 18 kink angles have ℰ rising through them (one side above): checked
    against ℰ at a 1e-4 offset, computed here, on every kink where that reference is decisive."""
    ang = torch.tensor(figure_8.point_angles("paper"), dtype=torch.float64)
    X = torch.stack([torch.cos(ang), torch.sin(ang)], 1)
    verdicts, one_sided = [], 0
    for tk in torch.cat([ang + math.pi / 2, ang - math.pi / 2]).tolist():
        ws = torch.tensor([[math.cos(t), math.sin(t)] for t in (tk - 1e-4, tk, tk + 1e-4)], dtype=torch.float64)
        e = figure_8.energy(X, ws, 0.0)
        left, right = float(e[1] - e[0]), float(e[1] - e[2])
        if min(abs(left), abs(right)) < 1e-8:
            continue  # flat to one side at this offset: the reference decides nothing
        one_sided += (left > 0) != (right > 0)
        verdicts.append(figure_8.kink_is_local_max(X, tk, 0.0) == (left > 0 and right > 0))
    assert len(verdicts) >= 16 and all(verdicts) and one_sided >= 3, (verdicts, one_sided)


def test_figure_8_exact_lme_enumeration_finds_pm_phi1_when_linear():
    """``interior_lmes`` enumerates the arcs between kinks (the last one wraps around 2π). With the linear
    activation A = C[x] on every arc, so exactly two LMEs exist, at ±φ₁ of the points' covariance (numpy here)."""
    ang = torch.tensor(figure_8.point_angles("paper"), dtype=torch.float64)
    X = torch.stack([torch.cos(ang), torch.sin(ang)], 1)
    found = figure_8.exact_lmes(X, torch.cat([ang + math.pi / 2, ang - math.pi / 2]), 1.0)
    phi = np.linalg.eigh(np.cov(X.numpy().T, bias=True))[1][:, -1]
    t1 = math.atan2(phi[1], phi[0])
    off = sorted(min(abs(math.remainder(t - t1 - s, 2 * math.pi)) for s in (0.0, math.pi)) for t in found)
    assert len(found) == 2 and off[-1] < 1e-9, (found, t1)
    assert figure_8.exact_lmes(X, torch.cat([ang + math.pi / 2, ang - math.pi / 2]), 0.0) == []  # the ReLU curve


def test_figure_8_points_are_the_papers():
    """The data of Fig. 8 as App. E.1 prints it: angles {−4/5, −1/2, −2/5, −1/6, 0, 1/5, 2/5, 3/5, 4/5}·π (the
    count of maxima is a claim about these points only; a moved point can keep 9 maxima)."""
    printed = [-4 / 5, -1 / 2, -2 / 5, -1 / 6, 0, 1 / 5, 2 / 5, 3 / 5, 4 / 5]
    assert figure_8.point_angles("paper") == pytest.approx([a * math.pi for a in printed], rel=0, abs=1e-15)


def test_figure_8_kink_is_a_maximum_where_the_sampled_energy_says():
    """kink_is_local_max at every kink of the paper's 9 points (w ⊥ x_i) against ℰ sampled at tk ± 1e-6: the kinks
    where ℰ rises on one side only are not maxima (an 'either side' test would count them)."""
    from theorems.nonlinear_cl import figure_8

    th = torch.tensor(figure_8.point_angles("paper"), dtype=torch.float64)
    X = torch.stack([th.cos(), th.sin()], 1)
    one_sided = 0
    for tk in [float(t) + s * math.pi / 2 for t in th for s in (1, -1)]:
        ws = torch.tensor([[math.cos(t), math.sin(t)] for t in (tk - 1e-6, tk, tk + 1e-6)], dtype=torch.float64)
        e = figure_8.energy(X, ws, 0.0).tolist()
        truth = e[1] >= e[0] and e[1] >= e[2]
        one_sided += (e[1] >= e[0]) != (e[1] >= e[2])
        assert figure_8.kink_is_local_max(X, tk, 0.0) is truth, tk
    assert one_sided > 0


@pytest.mark.parametrize("amp, maxima", [(2.5e-9, 3), (1e-10, 0)])
def test_figure_8_flat_tolerance(amp, maxima):
    """FLAT_RTOL = 1e-9: ℰ = 1 + amp·cos 3θ varies by 2·amp relative; 5e-9 has its 3 strict maxima, 2e-10 is flat."""
    from theorems.nonlinear_cl import figure_8

    th = torch.arange(3600, dtype=torch.float64) * (2 * math.pi / 3600)
    assert len(figure_8.local_maxima(1 + amp * torch.cos(3 * th))) == maxima


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.figure_8")
