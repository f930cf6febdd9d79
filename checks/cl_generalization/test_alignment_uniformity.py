"""Alignment & uniformity: the uniform aligned encoder minimises InfoNCE (certified), but a Barlow Twins minimiser need
not be uniform (paper 003, `cl_generalization.alignment_uniformity`): the checks particular to this result, its hand
cases against independent references, pins and hypothesis edges. What every result passes runs in
checks/test_conformance.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_identity_fails, probe, row_ids
from theorems.cl_generalization import alignment_uniformity as au

AU = au.ID


def test_alignment_uniformity_status_default_and_controls(run):
    assert str(theorems.get(AU).status) == "verified"
    ev = run(AU)
    assert ev.holds
    assert ev.details["infonce_simplex"] == pytest.approx(ev.details["infonce_bound"], rel=1e-12)
    no_simplex, square = (run(AU, **spec) for spec in au.CONTROLS)
    assert [c.name for c in no_simplex.failed_bounds] == ["infonce_lower_bound_attained"]
    assert [c.name for c in square.failed_bounds] == ["bt_minimiser_not_uniform"]
    assert abs(square.details["uniformity_gap"]) < 1e-6  # the square is the uniform 4-point configuration


def test_alignment_uniformity_closed_forms_against_numpy():
    """The simplex bound, the cube's uniformity and its Barlow Twins loss written out with numpy."""
    K, tau = 4, 0.5
    G = np.full((K, K), -1 / (K - 1)) + np.eye(K) * (1 + 1 / (K - 1))
    want = np.mean([-np.log(np.exp(1 / tau) / np.sum(np.exp(G[i] / tau))) for i in range(K)])
    assert au.simplex_bound(K, tau) == pytest.approx(want, rel=1e-13)
    V = np.array(list(itertools.product([-1, 1], repeat=3))) / math.sqrt(3)
    D2 = ((V[:, None] - V[None]) ** 2).sum(-1)
    off = ~np.eye(8, dtype=bool)
    from theorems.core.context import Context

    ctx = Context.make(seed=0)
    C = au.cube(ctx, 3)
    assert float(au.uniformity(C)[0]) == pytest.approx(np.log(np.mean(np.exp(-2 * D2[off]))), rel=1e-13)
    assert float(au.barlow_twins(C)[0]) == pytest.approx(0.0, abs=1e-20)
    # a rotated cube is just as uniform but no longer decorrelated: Barlow Twins sees the rotation
    th = 0.3
    Rz = np.array([[np.cos(th), -np.sin(th), 0], [np.sin(th), np.cos(th), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    rot = C @ C.new_tensor(Rz @ Rx).T
    assert float(au.uniformity(rot)[0]) == pytest.approx(float(au.uniformity(C)[0]), rel=1e-12)


def test_alignment_uniformity_gap_threshold_is_pinned(run):
    """GAP_MIN sits between the square's 0 and the cube's measured gap (0.077)."""
    assert 1e-6 < au.GAP_MIN < 0.07
    assert run(AU).claim("bt_minimiser_not_uniform").observed > 0.07


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # alignment_uniformity: K ≤ d + 1 at its edge in another dimension, the cube from d = 3
    (P + "alignment_uniformity", None, dict(K=6, d=5), None),
    (P + "alignment_uniformity", None, dict(K=7, d=5), "K ≤ d + 1"),
    (P + "alignment_uniformity", None, dict(cube_d=4), None),
    ('cl_generalization.alignment_uniformity', None, dict(K=64), 'perfect uniformity exists (K ≤ d + 1: the regular simplex)'),
    ('cl_generalization.alignment_uniformity', None, dict(cube_d=2), 'the cube is not itself uniform (d ≥ 3)'),
    ("cl_generalization.alignment_uniformity", None, dict(K=4, d=3), None),  # K = d + 1: the regular simplex
    ("cl_generalization.alignment_uniformity", None, dict(K=5, d=3), "K ≤ d + 1"),
    ("cl_generalization.alignment_uniformity", None, dict(cube_d=3), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# -- alignment_uniformity ----------------------------------------------------------------------------------------
# monkeypatch, not a Pin: it replaces AU.simplex_bound: code, which a Pin cannot move
@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_alignment_uniformity_bound_rtol_is_pinned(monkeypatch, bump, passes):
    """BOUND_RTOL (1e-12): the closed-form lower bound lowered by a literal bump (I_τ(simplex) equals it to ~1e-16
    unmoved; the bound is ≈ 0.45 here, so the allowance is 1e-12 absolute). ÷1000 fails the 0.5 side, ×10 passes
    the 3 side."""
    from theorems.cl_generalization import alignment_uniformity as AU

    bound = AU.simplex_bound
    monkeypatch.setattr(AU, "simplex_bound", lambda K, tau: bound(K, tau) - bump)
    c = probe(AU.ID, restarts=1).claim("infonce_lower_bound_attained")
    assert c.kind == "bound" and c.passed is passes, c


# monkeypatch, not a Pin: it replaces AU.uniformity: code, which a Pin cannot move
@pytest.mark.parametrize("bump, passes", [(3e-3, True), (3e-4, False)])
def test_alignment_uniformity_gap_min_is_pinned(monkeypatch, bump, passes):
    """GAP_MIN (1e-3): on the square (cube_d = 2, where the search finds U_t(square) again: |gap| < 1e-7) the
    cube's U_t raised by a literal bump puts the gap at 3·GAP_MIN (passes; ×10 fails it) or 0.3·GAP_MIN (fails;
    ÷10 passes it). Only the cube is a batch of one (restarts = 2 for the searches)."""
    from theorems.cl_generalization import alignment_uniformity as AU

    unif = AU.uniformity

    def moved(F, t=AU.T_UNIF):
        return unif(F, t) + (bump if F.shape[0] == 1 else 0.0)

    monkeypatch.setattr(AU, "uniformity", moved)
    c = probe(AU.ID, cube_d=2, restarts=2, allow_violation=True).claim("bt_minimiser_not_uniform")
    assert c.passed is passes and abs(c.observed - bump) < 1e-6, c


def test_uniformity_is_wang_and_isolas_at_t_2():
    """U_t = log mean_{i≠j} exp(−t‖f_i − f_j‖²) with t = 2: two antipodal points are at squared distance 4, so
    U = −8; the four points of the square (distances² 2, 2, 4 from each point) give log((2e⁻⁴ + e⁻⁸)/3)."""
    import torch

    from theorems.cl_generalization.alignment_uniformity import uniformity

    two = torch.tensor([[[1.0, 0.0], [-1.0, 0.0]]], dtype=torch.float64)
    square = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]], dtype=torch.float64)
    assert float(uniformity(two)[0]) == pytest.approx(-8.0, abs=1e-12)
    assert float(uniformity(square)[0]) == pytest.approx(math.log((2 * math.exp(-4) + math.exp(-8)) / 3), abs=1e-12)


# monkeypatch, not a Pin: it replaces AU.infonce, code that a Pin (a parameter or constant set to a literal) cannot move
def test_alignment_uniformity_search_claim_takes_the_lowest_restart(monkeypatch):
    """Nothing the search finds may beat the exact lower bound (Jensen): one of two restarts reported 1e-6 below it
    must fail the identity, whatever the other restart found."""
    from theorems.cl_generalization import alignment_uniformity as AU

    infonce = AU.infonce

    def moved(F, tau):
        v = infonce(F, tau)
        if F.shape[0] == 2 and not v.requires_grad:
            v = v.clone()
            v[1] = AU.simplex_bound(F.shape[1], tau) - 1e-6
        return v

    monkeypatch.setattr(AU, "infonce", moved)
    assert_identity_fails(AU.ID, "infonce_search_not_below_bound", restarts=2)
