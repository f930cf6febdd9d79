"""The checks particular to ``nonlinear_cl.augmentation_b5`` (Appendix B.5, eqs. (105)-(108): the effect of data
augmentation on local optima): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from checks.pinning import (
    assert_default_and_bindings_hold,
    assert_hypothesis_edge,
    assert_named_iff,
    assert_registered_controls_step_over_and_fail,
    row_ids,
    short_row_ids,
    uncached_probe,
)
from theorems.core import recording
from theorems.nonlinear_cl import augmentation_b5

AP = "as_printed"


# -- App. B.5: augmentation by a rotation group --------------------------------------------------------------------------
B5 = "nonlinear_cl.augmentation_b5"
N = "nonlinear_cl."


def names(ev) -> list[str]:
    return [c.name for c in ev.claims]


_MAXIMISE = augmentation_b5.maximise


def patch_maximiser(monkeypatch, grad=None, rows=None):
    """The real maximiser search, then its gradient norms set to ``grad`` and/or rows replaced by unit vectors."""
    def fake(W0, f, iters=150):
        W, G = _MAXIMISE(W0, f, iters)
        if rows is not None:
            for i, w in rows.items():
                W[i] = torch.tensor(w, dtype=W.dtype, device=W.device)
                G[i] = 0.0
        if grad is not None:
            G = torch.full_like(G, grad)
        return W, G

    monkeypatch.setattr(augmentation_b5, "maximise", fake)


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # App. B.5
    (N + "augmentation_b5", None, dict(orbit_tilt=1e-12), "the orbit direction", True),
    (N + "augmentation_b5", None, dict(orbit_tilt=0.0), "the orbit direction", False),
    (N + "augmentation_b5", None, dict(half_width_deficit=1e-12), "1-D rotation group", True),
    (N + "augmentation_b5", None, dict(augmentation="none"), "1-D rotation group", True),
    (N + "augmentation_b5", None, dict(augmentation="rotation", half_width_deficit=0.0), "1-D rotation group", False),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.augmentation_b5', None, dict(augmentation='none'), 'augmentation by a 1-D rotation group with uniform t (eq. 106)'),
    ('nonlinear_cl.augmentation_b5', None, dict(orbit_tilt=1.0), 'the orbit direction Jw*'),
]


def test_b5_status():
    assert str(theorems.get(B5).status) == "verified"


@pytest.mark.parametrize("params", [dict(), dict(axis_bias=0.5, axis_scale=0.5, seed=1), dict(axis_bias=1.0)])
def test_b5_maximiser_is_a_flat_orbit(run, params):
    ev = run(B5, form=AP, **params)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("orbit_flat_at_maximiser").observed < 1e-7
    assert ev.claim("transverse_curvature").observed < -0.5  # a maximum across the orbit
    assert ev.claim("orbit_speed").observed > 0.5


def test_b5_interval_is_not_a_group_and_keeps_a_strict_maximum(run):
    ev = run(B5, form=AP, half_width_deficit=5 / 6, allow_violation=True)
    assert ev.claim("energy_invariant").observed > 0.1
    assert ev.claim("orbit_flat_at_maximiser").observed > 0.1


@pytest.mark.parametrize("params, claim, low, high", [
    (dict(half_width_deficit=1e-12), "energy_invariant", 1e-12, 1e-10),
    (dict(orbit_tilt=1e-3), "orbit_flat_at_maximiser", 1e-7, 1e-5),
])
def test_b5_tolerances_pinned_just_outside(run, params, claim, low, high):
    c = run(B5, form=AP, allow_violation=True, **params).claim(claim)
    assert not c.passed and low < c.observed < high
    inside = recording.expect(run(B5, form=AP, allow_violation=True, orbit_tilt=1e-4), recording.HOLDS).claim(
        "orbit_flat_at_maximiser")  # inside the tolerance: this instance holds
    assert inside.passed and inside.observed > 1e-9


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: patch_maximiser is a function no parameter or module constant reaches
@pytest.mark.parametrize("grad, judged", [(5e-9, False), (2e-10, True)])
def test_b5_grad_tol_decides_which_maximisers_count(monkeypatch, grad, judged):
    """GRAD_TOL = 1e-9: every start's gradient norm set to 5e-9 (5 tolerances out) leaves no converged maximiser, so
    the orbit claim is not made; 2e-10 (5× inside) is judged and certified converged. ×10 or ÷10 flips one row."""
    patch_maximiser(monkeypatch, grad=grad)
    ev = uncached_probe(B5, starts=2)
    assert ("orbit_flat_at_maximiser" in names(ev)) is judged, ev.explain()
    if judged:
        assert ev.converged is True and ev.claim("gradient_norm").observed == pytest.approx(2e-10)


# monkeypatch, not a Pin: patch_maximiser is a function no parameter or module constant reaches
@pytest.mark.parametrize("speed, judged", [(3e-3, True), (3e-4, False)])
def test_b5_moved_decides_which_maximisers_count(monkeypatch, speed, judged):
    """MOVED = 1e-3: the only candidate a unit w with ‖Jw‖ = ‖w_plane‖ = 3e-3 (3× MOVED) is one the group moves,
    3e-4 is not; MOVED ×10 drops the first, ÷10 keeps the second."""
    w = (speed, 0.0, math.sqrt(1 - speed**2))
    patch_maximiser(monkeypatch, rows={0: w, 1: w})
    ev = uncached_probe(B5, starts=2)
    assert ("orbit_speed" in names(ev)) is judged, ev.explain()
    if judged:
        assert ev.claim("orbit_speed").observed == pytest.approx(speed, rel=1e-9)


# monkeypatch, not a Pin: patch_maximiser is a function no parameter or module constant reaches
def test_b5_the_best_maximiser_is_the_one_with_the_largest_energy(monkeypatch):
    """Start 1 replaced by a near-axis w (‖Jw‖ = 3e-3, lower ℰ than the true maximiser of start 0): the claim is
    judged at start 0's maximiser (orbit speed 0.83), never at the worse candidate."""
    patch_maximiser(monkeypatch, rows={1: (3e-3, 0.0, math.sqrt(1 - 9e-6))})
    ev = uncached_probe(B5, starts=2)
    assert ev.claim("orbit_speed").observed > 0.5, ev.explain()


def test_registered_controls_are_outside_the_hypotheses_and_fail(run):
    assert_registered_controls_step_over_and_fail(run, "nonlinear_cl.augmentation_b5")


def test_default_and_registered_binding_instances_hold(run):
    assert_default_and_bindings_hold(run, "nonlinear_cl.augmentation_b5")
