"""The checks particular to ``deep_fusion.definition_2`` (§Deep Fusion with Noise, Definition 2 and the paragraphs
around it): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_identity_pin, probe, row_ids
from theorems.core import registry
from theorems.deep_fusion import theorem_2 as theorem_2

# ======================================================================================================
# Definition 2
# ======================================================================================================
D2 = "deep_fusion.definition_2"


EDGES = [
    # definition_2, tables: the defaults are inside every hypothesis
    ("deep_fusion.definition_2", None, dict(), None),
    ("deep_fusion.definition_2", None, dict(entries="signed"), "positive attention values"),
    ("deep_fusion.definition_2", None, dict(labels="shuffled"), "the labels are the block structure"),
    ("deep_fusion.definition_2", None, dict(criterion="max_over_min"), "the stringency sentence"),
]


def test_definition_2_status_and_the_failing_sentence(run):
    from theorems.deep_fusion import definition_2

    assert str(theorems.get(D2).status) == "verified-corrected"
    assert run(D2).holds
    printed = run(D2, form="as_printed")
    assert [c.name for c in printed.failed_bounds] == ["distance_wording_is_the_formula"]
    # the reciprocal reading is 1/𝒮, the attention reading max_same/min_diff: both far from 𝒮
    assert min(printed.details["wording_misfit_by_reading"].values()) > 1.0
    assert definition_2.CONTROLS  # each control breaks the claim it is there for
    broken = {spec.get("entries", spec.get("labels", spec.get("criterion"))): {c.name for c in
              run(D2, **spec).failed_bounds} for spec in definition_2.CONTROLS}
    assert "infimum_is_lowest_same_over_highest_cross" in broken["signed"]
    assert "block_diagonal_limit_is_infinite" in broken["shuffled"]
    assert "stricter_than_mean_separation" in broken["max_over_min"]


def test_definition_2_hand_matrix_against_numpy():
    """A 4×4 positive matrix, clusters {0,1}, {2,3}: the brute-force inf of Definition 2 is min same / max cross,
    and the wording's 'max intra / min inter distance' with distance 1/A is its reciprocal."""

    from theorems.deep_fusion.definition_2 import brute_force_inf

    A = np.array([[0.5, 0.3, 0.1, 0.1], [0.2, 0.6, 0.15, 0.05], [0.05, 0.1, 0.45, 0.4], [0.12, 0.08, 0.3, 0.5]])
    lab = np.array([0, 0, 1, 1])
    same = lab[:, None] == lab[None, :]
    want = min(A[same]) / max(A[~same])  # 0.2 / 0.15
    assert want == pytest.approx(4 / 3, rel=1e-15)
    got = float(brute_force_inf(torch.as_tensor(A)[None], torch.as_tensor(lab))[0])
    assert got == pytest.approx(want, rel=1e-15)
    d = 1 / A
    assert max(d[same]) / min(d[~same]) == pytest.approx(1 / want, rel=1e-12)


def test_definition_2_limit_slope_is_one_and_the_binding_instance_bites(run):
    ev = run(D2)
    assert 0.99 < ev.claim("block_diagonal_limit_is_infinite").observed <= 1.0 + 1e-9
    tie = run(D2, instance="near_tie", tie=1e-9)
    assert tie.holds and 0 < tie.claim("stricter_than_mean_separation").observed < 1e-8
    assert ev.details["sharp_matrices"] > 0


def test_definition_2_wording_tolerance_is_pinned_by_the_near_tie(run):
    """At 𝒮 ≈ 1 + 1e-9 every reading of the wording is within ≈ 2e-10 of 𝒮: still a failure at the module's
    relative tolerance (the literal 1e-11 pins it from above), and the claim takes the better reading."""
    ev = run(D2, instance="near_tie", tie=1e-9, form="as_printed")
    claim = ev.claim("distance_wording_is_the_formula")
    assert not claim.passed and 1e-11 < claim.observed < 1e-8
    assert claim.observed == min(ev.details["wording_misfit_by_reading"].values())
    assert ev.claim("mean_separated_but_not_sharp").observed == 0.0  # every near-tie matrix is sharp
    assert run(D2).claim("mean_separated_but_not_sharp").observed > 0.0


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: D2.brute_force_inf is a function no parameter or module constant reaches
@pytest.mark.parametrize("rel, passes", [(0.5e-12, True), (3e-12, False)])
def test_definition_2_ratio_rtol_is_pinned(monkeypatch, rel, passes):
    """RATIO_RTOL (1e-12): the brute-force infimum scaled by 1 + rel (unscaled it equals min/max exactly: float
    division is monotone). A bound claim: it fails, it does not raise."""
    from theorems.deep_fusion import definition_2 as D2

    brute = D2.brute_force_inf
    monkeypatch.setattr(D2, "brute_force_inf", lambda A, labels: brute(A, labels) * (1 + rel))
    assert probe(D2.ID, instances=2).claim("infimum_is_lowest_same_over_highest_cross").passed is passes


# monkeypatch, not a Pin: D2.sharpness is a function no parameter or module constant reaches
@pytest.mark.parametrize("bump, passes", [(0.5e-12, True), (3e-12, False)])
def test_definition_2_metrics_sharpness_identity_is_pinned(monkeypatch, bump, passes):
    """WORDING_RTOL on ``matches_metrics_sharpness``: theorems.metrics.sharpness's log 𝒮 moved by a literal bump
    (the two agree to ~1e-15 unmoved); an upper bound on the error, so a flipped relation would pass it."""
    from theorems.deep_fusion import definition_2 as D2

    sharp = D2.sharpness

    class Moved:
        def __init__(self, s):
            self.log_value = s.log_value + bump

    monkeypatch.setattr(D2, "sharpness", lambda *a, **k: Moved(sharp(*a, **k)))
    assert_identity_pin(D2.ID, "matches_metrics_sharpness", passes, instances=2)


def test_definition_2_binding_is_where_the_premise_bites(run):
    """The registered binding (near tie, 𝒮 ≈ 1 + 1e-9) is where the stringency sentence's premise 𝒮 > 1 barely
    holds: the mean separation it must imply is below 1e-9 there (the default batch's is ≈ 0.2)."""
    from theorems.core.verdict import run_spec as spec_run

    result = registry.get("deep_fusion.definition_2")
    (binding,) = result.binding
    ev = spec_run(run, result, binding.params, binding.form)
    c = ev.claim("stricter_than_mean_separation")
    assert ev.holds and 0.0 < c.observed < 1e-9, c


def test_definition_2_random_batch_straddles_sharpness_one():
    """The default batch's cluster strengths g_b ∈ GAIN = (−2, 4) are drawn so that the premise 𝒮 > 1 of the
    stringency sentence holds on some drawn matrices and fails on others (here 3 of 16 are sharp, the largest
    𝒮 = 3.4): the claim bites on the instances themselves, not only along the block-diagonal path."""
    from theorems.core.context import Context
    from theorems.data.subspaces import labels_from_sizes
    from theorems.deep_fusion import definition_2 as D2

    p = dict(registry.get(D2.ID).defaults)
    labels = labels_from_sizes(D2.cluster_sizes(p["K"], p["nu"]))
    A = D2.attention(D2.logits_batch(Context.make(seed=p["seed"]), p, labels), "positive")
    same = labels[:, None] == labels[None, :]
    ratio = A[:, same].amin(-1) / A[:, ~same].amax(-1)  # 𝒮 = min same / max cross, per matrix
    assert 0 < int((ratio > 1).sum()) < ratio.numel() and 2.0 < float(ratio.max()) < 10.0, ratio
