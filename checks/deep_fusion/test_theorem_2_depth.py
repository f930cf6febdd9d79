"""The checks particular to ``deep_fusion.theorem_2_depth`` (§Deep Fusion, Theorem 2 ("each Transformer block"), blocks
stacked): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_identity_pin, row_ids
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.deep_fusion import theorem_2_depth

TD = theorem_2_depth.ID


EDGES = [
    ("deep_fusion.theorem_2_depth", None, dict(m=2, r=2), "subspace dimension r < m"),
    ("deep_fusion.theorem_2_depth", None, dict(K=2, r=2, m=4), None),
    ("deep_fusion.theorem_2_depth", None, dict(K=2, r=2, m=3), "independent subspaces (K·r ≤ m"),
    # theorem_2_depth: the printed claim (step_shift = 0) with row normalisation
    ("deep_fusion.theorem_2_depth", None, dict(step_shift=0.0, normalise=True), None),
    ("deep_fusion.theorem_2_depth", None, dict(step_shift=1e-12), "the printed claim"),
    ("deep_fusion.theorem_2_depth", None, dict(step_shift=-1e-12), "the printed claim"),
    ("deep_fusion.theorem_2_depth", None, dict(normalise=False), "row normalisation"),
]


REFUSALS = [
    ("deep_fusion.theorem_2_depth", dict(K=3, r=8, m=20), "independent subspaces"),
    ("deep_fusion.theorem_2_depth", dict(step_shift=1.0), "the printed claim"),
    ("deep_fusion.theorem_2_depth", dict(normalise=False), "row normalisation"),
]


def test_depth_registered_controls_and_binding(run):
    """The REGISTERED control fails its bound claim (just outside: by < 5 %), the binding instances hold."""
    for spec in theorem_2_depth.RESULT.controls:
        ev = run(TD, **spec)
        c = ev.claim("witness_increases_every_block")
        assert not c.passed and -0.05 < c.slack < 0, c
    for b in theorem_2_depth.RESULT.binding:
        assert run(TD, **b.params).holds, b


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, params, name", REFUSALS)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)


def test_theorem_2_depth_step_min_is_pinned_from_both_sides(run):
    """The default search's worst step is 43.16722664839915 nats: asking for 5e-10 less (a registered pin) fails
    by 5e-10 < STEP_MIN = 1e-9; asking for 5e-9 less passes by 4e-9 (fails with STEP_MIN ×10)."""
    result = registry.get("deep_fusion.theorem_2_depth")
    fail = dict(step_shift=43.16722664789915, allow_violation=True)
    assert fail in [dict(c) for c in result.controls]
    c = recording.expect(run_spec(run, result, fail), recording.FAILS).claim("witness_increases_every_block")
    assert -1e-9 < c.observed - c.bound < 0, c
    ok = recording.expect(run(result.id, step_shift=43.167226643399154, allow_violation=True), recording.HOLDS)
    c = ok.claim("witness_increases_every_block")
    assert c.passed and 1e-9 < c.observed - c.bound < 1e-8, c


# monkeypatch, not a Pin: TD._stack is a function no parameter or module constant reaches
@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_theorem_2_depth_identity_atol_is_pinned(monkeypatch, bump, passes):
    """IDENTITY_ATOL (1e-12): the deviation between normalised softmax(A)X̃ and exp(A)X̃ moved by a literal bump
    (it is ~2e-16 unmoved)."""
    from theorems.deep_fusion import theorem_2_depth as TD

    stack = TD._stack

    def moved(*args):
        logs, identity = stack(*args)
        return logs, identity + bump

    monkeypatch.setattr(TD, "_stack", moved)
    small = dict(instances=2, restarts=1, depth=2)
    assert_identity_pin(TD.ID, "softmax_equals_normalised_exp", passes, **small)


def test_theorem_2_depth_identity_is_the_largest_deviation_over_the_blocks():
    """`_stack`'s identity is the largest deviation over the blocks: without row normalisation softmax(A)X̃ and
    exp(A − max)X̃ differ by the row sums, computed here independently for a 2-block stack."""
    from theorems.deep_fusion.theorem_2_depth import _stack

    g = torch.Generator().manual_seed(0)
    X = torch.randn(1, 4, 3, generator=g, dtype=torch.float64)
    M = torch.randn(3, 3, generator=g, dtype=torch.float64)
    labels = torch.tensor([0, 0, 1, 1])
    _, identity = _stack(X, M, labels, 2, False, False)
    want, Y = 0.0, X
    for _ in range(2):
        A = Y @ M @ Y.transpose(-1, -2)
        agg = torch.softmax(A, -1) @ Y
        want = max(want, float((agg - torch.exp(A - A.amax(-1, keepdim=True)) @ Y).abs().max()))
        Y = agg
    assert want > 1e-3 and identity == pytest.approx(want, rel=1e-12)


def test_theorem_2_depth_credits_each_informative_instance_once(run):
    """`informative_witness_found_by` credits each instance with an informative witness once, to the first
    candidate whose final 𝒮 exceeds 1: the credits sum to the informative instances (all of the default batch)."""
    ev = run("deep_fusion.theorem_2_depth")
    assert sum(ev.details["informative_witness_found_by"].values()) == ev.details["informative_witness_instances"] > 0
