"""The checks particular to ``nonlinear_cl.figure_12`` (App. E.3 (MNIST experiments with 2-layer setting), Figures 12
and 13): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest
import torch

import theorems
from checks.pinning import assert_named_iff, assert_verified_and_controls_fail_outside, short_row_ids, uncached_probe
from theorems import HypothesisViolation

F12 = "nonlinear_cl.figure_12"
AP = "as_printed"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # Figure 12: the printed crop, each of its three numbers; the ratio order
    (N + "figure_12", None, dict(crop_scale_min=0.5 + 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(ratio_low=0.5 - 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(ratio_high=1.5 + 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(ratio_high=1.5 - 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(crop_scale_min=0.5, ratio_low=0.5, ratio_high=1.5), "RandomResizedCrop", False),
    (N + "figure_12", None, dict(ratio_low=1.2, ratio_high=1.1), "ratio_low ≤ ratio_high", True),
    (N + "figure_12", None, dict(ratio_low=1.1, ratio_high=1.1), "ratio_low ≤ ratio_high", False),
]


def test_figure_12_augmentation_smooths_and_the_identity_crop_does_not(run):
    ev = run(F12, form=AP)
    assert ev.details["dataset"] == "digits" and "stand-in" in ev.details["stand_in"]
    rough0 = ev.claim("roughness_at_init").observed
    assert 2.5 < rough0 < 3.5  # i.i.d. filters: ≈ 3 (24 edges · 2σ² / 16σ²)
    assert ev.claim("roughness_with_augmentation").observed < 0.5 * ev.claim("roughness_without_augmentation").observed
    ctl = run(F12, form=AP, crop_scale_min=1.0, ratio_low=1.0, ratio_high=1.0, allow_violation=True)
    assert ctl.claim("roughness_with_augmentation").observed == ctl.claim("roughness_without_augmentation").observed


def test_figure_12_roughness_and_crop_on_hand_cases():
    from theorems.nonlinear_cl.figure_12 import patches, random_resized_crop, roughness

    flat = torch.ones(16, dtype=torch.float64)
    checker = torch.tensor([(-1.0) ** (i + j) for i in range(4) for j in range(4)], dtype=torch.float64)
    assert float(roughness(flat)) == 0.0
    assert float(roughness(checker)) == pytest.approx(24 * 4 / 16)  # every edge differs by 2
    img = torch.arange(64, dtype=torch.float64).view(1, 8, 8)
    assert torch.equal(patches(img)[0, 1], img[0, :4, 4:].flatten())  # RF 1: upper right
    gen = torch.Generator().manual_seed(0)
    same = random_resized_crop(img, gen, 1.0, (1.0, 1.0))
    assert torch.allclose(same, img, atol=1e-12)  # the whole-image crop is the identity
    gen = torch.Generator().manual_seed(0)
    crop = random_resized_crop(img.expand(64, 8, 8).contiguous(), gen, 0.5, (0.5, 1.5))
    assert not torch.allclose(crop, img.expand(64, 8, 8))


def test_figure_12_an_empty_ratio_range_is_refused_even_with_allow_violation():
    with pytest.raises(HypothesisViolation, match="ratio_low ≤ ratio_high"):
        theorems.check(F12, ratio_low=1.5, ratio_high=0.5, allow_violation=True)


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


# monkeypatch, not a Pin: F.train, F.roughness is a function no parameter or module constant reaches
@pytest.mark.parametrize("ratio, holds", [(0.95, False), (0.85, True)])
def test_figure_12_margin_on_a_hand_made_roughness(monkeypatch, ratio, holds):
    """MARGIN = 0.1 ('much weaker': 10 % less roughness): with the trained filters' roughness patched to 1 without
    and ``ratio`` with augmentation, 0.95 fails the claim (MARGIN ÷10 would pass it) and 0.85 holds it (MARGIN ×10
    would fail it). No training: the networks are patched too."""
    from theorems.nonlinear_cl import figure_12 as F

    def fake_train(p, ctx):
        W = torch.zeros(2 * p["seeds"], F.K, p["M"], 16, dtype=torch.float64)
        return {"W": W, "W0": W, "loss": torch.zeros(2 * p["seeds"]), "finite": True}

    def fake_roughness(W):
        out = torch.ones(W.shape[:-1], dtype=torch.float64)
        out[W.shape[0] // 2:] = ratio
        return out

    monkeypatch.setattr(F, "train", fake_train)
    monkeypatch.setattr(F, "roughness", fake_roughness)
    c = uncached_probe("nonlinear_cl.figure_12", seeds=1).claim("augmentation_smooths_filters")
    assert c.passed is holds and c.observed == pytest.approx(ratio) and c.bound == pytest.approx(0.9), c


def test_status_and_registered_controls_fail_outside_the_hypotheses(run):
    assert_verified_and_controls_fail_outside(run, "nonlinear_cl.figure_12")
