"""The checks particular to ``nonlinear_cl.lemma_8`` (Appendix G, Lemma 8 (used in the proof of Theorem 3, Appendix
B.4)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge, row_ids

NL = "nonlinear_cl."


EDGES = [
    (NL + "lemma_8", None, dict(bound_scale=1.001), "exact bound"),
    (NL + "lemma_8", None, dict(bound_scale=0.999), "exact bound"),
    (NL + "lemma_8", None, dict(include_indefinite=True), "λ_i(t) > 0 for all i"),
    ('nonlinear_cl.lemma_8', None, dict(include_indefinite=True), 'λ_i(t) > 0 for all i'),
    ("nonlinear_cl.lemma_8", None, dict(bound_scale=0.5), "exact bound"),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("aug, inside", [(50.0, False), (0.0, True)])
def test_lemma_8_needs_one_judged_step(aug, inside):
    """Lemma 8's hypothesis decided by the evaluation: a batch whose augmentation (std 50 along one direction) makes
    A(w(t)) indefinite on every step of a short run has no step inside it (named), the same batch unaugmented has."""
    import theorems
    from theorems import HypothesisViolation

    params = dict(model="batch", N=8, aug=aug, starts=1, pi_iters=3)
    if inside:
        assert theorems.check(NL + "lemma_8", **params).claim("judged_steps").observed >= 1
    else:
        with pytest.raises(HypothesisViolation, match="on some step"):
            theorems.check(NL + "lemma_8", **params)
