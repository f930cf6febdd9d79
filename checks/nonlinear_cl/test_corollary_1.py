"""The checks particular to ``nonlinear_cl.corollary_1`` (Section 2, Corollary 1 (after Lemma 2, eq. 4)): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_named_iff, row_ids, short_row_ids
from theorems import HypothesisViolation
from theorems.core.errors import IdentityFailure
from theorems.nonlinear_cl import corollary_1

COR1 = "nonlinear_cl.corollary_1"
AP = "as_printed"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # Corollary 1: no augmentation
    (N + "corollary_1", None, dict(aug=1e-9), "no augmentation", True),
    (N + "corollary_1", None, dict(aug=0.0), "no augmentation", False),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.corollary_1', None, dict(aug=10.0), 'no augmentation: p_aug(x|x₀) = δ(x − x₀)'),
]


# -- Corollary 1 -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", ["gaussian", "uniform"])
def test_corollary_1_clt_rate_without_augmentation(run, alpha):
    ev = run(COR1, form=AP, alpha=alpha)
    assert ev.holds, ev.explain()
    assert -0.65 <= ev.claim("error_falls_at_clt_rate").observed <= -0.35
    assert ev.claim("lemma_2_limit_is_corollary_limit").observed <= 1e-12


def test_corollary_1_with_augmentation_the_error_plateaus(run):
    ev = run(COR1, form=AP, aug=0.7, allow_violation=True)
    assert not ev.claim("error_falls_at_clt_rate").passed
    assert ev.claim("error_falls_at_clt_rate").observed > -0.2  # a plateau, not a slower rate
    assert ev.claim("corollary_limit_minus_lemma_2_limit").observed > 0.05
    with pytest.raises(HypothesisViolation, match="no augmentation"):
        theorems.check(COR1, aug=0.7)


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# ---------------------------------------------------------------------------------------------------------------
# Corollary 1: LIMITS_RTOL (the identity Σz²𝕍[g] = Σz²𝕍[𝔼[g|x₀]] without augmentation)
# ---------------------------------------------------------------------------------------------------------------
# monkeypatch, not a Pin: corollary_1.lemma_2.evaluate is a function no parameter or module constant reaches
@pytest.mark.parametrize("gap, holds", [(5e-12, False), (5e-14, True)])
def test_corollary_1_limits_tolerance(monkeypatch, gap, holds):
    """LIMITS_RTOL = 1e-12: the two limits patched 5e-12 apart (5 allowances) fail the identity (inside the hypotheses
    that is the suite's IdentityFailure), 5e-14 apart hold it (LIMITS_RTOL ÷1000 fails that)."""
    real = corollary_1.lemma_2.evaluate

    def fake(p, form, ctx):
        out = real(p, form, ctx)
        out.details["plain_minus_limit_norm"] = gap
        return out

    monkeypatch.setattr(corollary_1.lemma_2, "evaluate", fake)
    params = dict(alpha="uniform", N_min=8, doublings=2, replicates=8, seed=7)
    if not holds:
        with pytest.raises(IdentityFailure, match="lemma_2_limit_is_corollary_limit: 5.0000e-12"):
            theorems.check("nonlinear_cl.corollary_1", **params)
        return
    c = theorems.check("nonlinear_cl.corollary_1", **params).claim("lemma_2_limit_is_corollary_limit")
    assert c.passed and c.observed == gap, c
