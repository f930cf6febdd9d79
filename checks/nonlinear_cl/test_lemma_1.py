"""The checks particular to ``nonlinear_cl.lemma_1`` (Section 2, Lemma 1 (proof in Appendix A.1)): its pins, hypothesis
edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
    uncached_probe,
)
from theorems.core import registry

L1 = "nonlinear_cl.lemma_1"
N = "nonlinear_cl."


EDGES = [
    ("nonlinear_cl.lemma_1", None, dict(map_scale=1.001), "the proof's map itself"),
    ("nonlinear_cl.lemma_1", None, dict(psd_shift=1e-12), "α itself (no shift)"),  # any shift > 0
    ('nonlinear_cl.lemma_1', None, dict(sign=1), 'α_ij = exp(−‖g_i − g_j‖²/2τ) (Gaussian α)'),
    ('nonlinear_cl.lemma_1', None, dict(shift='none'), 'g bounded below (y = g − v ≥ 0)'),
    ('nonlinear_cl.lemma_1', None, dict(psd_shift=1.0), 'α itself (no shift)'),
]


# (result, form, params, hypothesis (a substring of its name), named?)
EDGE_NAMES = [
    # Lemma 1
    (N + "lemma_1", None, dict(sign=1), "Gaussian α", True),
    (N + "lemma_1", None, dict(sign=-1), "Gaussian α", False),
    (N + "lemma_1", None, dict(shift="none"), "g bounded below", True),
    (N + "lemma_1", None, dict(shift="min"), "g bounded below", False),
    (N + "lemma_1", None, dict(psd_shift=1e-12), "α itself (no shift)", True),
    (N + "lemma_1", None, dict(psd_shift=0.0), "α itself (no shift)", False),
    (N + "lemma_1", None, dict(map_scale=1 - 1e-12), "the proof's map itself", True),
    (N + "lemma_1", None, dict(map_scale=1.0), "the proof's map itself", False),
]


# -- Lemma 1 ------------------------------------------------------------------------------------------------------------
def test_lemma_1_two_points_have_the_closed_form_spectrum(run):
    # n = 2: α = [[1, a], [a, 1]] with a = exp(∓d²/2τ); λ_min/λ_max = (1 − a)/(1 + a), < 0 exactly when a > 1
    ev = run(L1, n=2, k=1)
    d2 = ev.details["lambda_max"] - 1  # λ_max = 1 + a
    assert ev.claim("gram_psd").observed == pytest.approx((1 - d2) / (1 + d2), rel=1e-12)
    neg = run(L1, n=2, k=1, sign=1, allow_violation=True)
    a = neg.details["lambda_max"] - 1
    assert a > 1 and neg.claim("gram_psd").observed == pytest.approx((1 - a) / (1 + a), rel=1e-12)


def test_lemma_1_psd_edge_and_its_tolerance_pin(run):
    ev = run(L1, near=1e-4)
    assert ev.holds and 0 <= ev.claim("gram_psd").observed < 1e-12  # singular to rounding
    assert not run(L1, near=1e-4, psd_shift=1e-11, allow_violation=True).claim("gram_psd").passed  # 10× PSD_RTOL


def test_lemma_1_without_the_lower_bound_the_map_has_negative_features(run):
    ev = run(L1, shift="none", allow_violation=True)
    assert ev.details["negative_features"] > 0 and ev.claim("feature_map_reproduces_alpha").passed


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, form, params, name, present", EDGE_NAMES, ids=short_row_ids(EDGE_NAMES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


def test_lemma_1_default_is_generic_and_the_binding_singular(run):
    """The default points are distinct (α well conditioned), the registered binding's near-duplicates make α singular
    to rounding: PSD-ness is checked at its edge there, not where it is slack."""
    default = run("nonlinear_cl.lemma_1")
    (binding,) = registry.get("nonlinear_cl.lemma_1").binding
    edge = run("nonlinear_cl.lemma_1", **binding.params)
    ratio = {k: ev.details["lambda_min"] / ev.details["lambda_max"] for k, ev in (("default", default), ("edge", edge))}
    assert default.holds and edge.holds and ratio["default"] > 1e-10 and abs(ratio["edge"]) < 1e-13, ratio


# monkeypatch, not a Pin: lemma_1.gaussian_features is a function no parameter or module constant reaches
def test_lemma_1_features_nonnegative_judges_every_feature(monkeypatch):
    """'features_nonnegative' is a min over all n × C(L + k, k) feature values: one value set to −0.5·max |ϕ| fails
    it at −0.5 (a literal), however many others are positive."""
    from theorems.nonlinear_cl import lemma_1

    real = lemma_1.gaussian_features

    def fake(Y, tau, L):
        Phi = real(Y, tau, L).clone()
        Phi[3, 1] = -0.5 * Phi.abs().max()
        return Phi

    monkeypatch.setattr(lemma_1, "gaussian_features", fake)
    c = uncached_probe("nonlinear_cl.lemma_1", order=8).claim("features_nonnegative")
    assert not c.passed and c.observed == pytest.approx(-0.5), c


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.lemma_1")
