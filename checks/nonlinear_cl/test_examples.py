"""``theorems.nonlinear_cl.examples``, shared by several results: its checks."""

from __future__ import annotations

import dataclasses

import pytest

from checks.pinning import uncached_probe
from theorems.nonlinear_cl import examples

CAT = "nonlinear_cl.categorical_model"
SUM = "nonlinear_cl.summation_model"


# ---------------------------------------------------------------------------------------------------------------
# §3 examples: EIG_TOL and the distinct-top-eigenvalue gap of Definition 3 (categorical model, every u_m)
# ---------------------------------------------------------------------------------------------------------------
_CLASSIFY = examples.classify


@pytest.mark.parametrize("rid, params", [(CAT, {}), (SUM, dict(q=0.2))])
def test_closed_form_tolerance_is_pinned(run, rid, params):
    ev = run(rid, allow_violation=True, closed_form_scale=1 + 1e-9, **params)
    assert not ev.claim("closed_form_A_um").passed


# monkeypatch, not a Pin: patch_classified is a function no parameter or module constant reaches
@pytest.mark.parametrize("q, flipped", [(0.2, False), (0.45, True)])
def test_summation_iff_counts_every_pattern(monkeypatch, q, flipped):
    """The iff is judged on every u_m: one u_m's LME flag flipped (u_2 not an LME below the threshold, an LME above
    it) fails 'lme_iff_below_threshold' on that side."""
    patch_classified(monkeypatch, is_lme=flipped)
    c = uncached_probe(examples.SUMMATION_ID, q=q).claim("lme_iff_below_threshold")
    assert not c.passed, c


def patch_classified(monkeypatch, **one):
    """Classify as the module does, then set ONE candidate's (u_2's) field to a literal (gap: relative to |λ₁|)."""
    def fake(A_fn, W, kink_fn=None, **kw):
        cl = _CLASSIFY(A_fn, W, kink_fn, **kw)
        fields = {}
        for k, v in one.items():
            t = getattr(cl, k).clone()
            t[1] = v * cl.lam1[1].abs() if k == "gap" else v
            fields[k] = t
        return dataclasses.replace(cl, **fields)

    monkeypatch.setattr(examples, "classify", fake)


# monkeypatch, not a Pin: patch_classified is a function no parameter or module constant reaches
@pytest.mark.parametrize("field, value, holds", [("top_residual", 5e-10, False), ("top_residual", 2e-11, True),
                                                 ("top_residual", 1e-10, True),  # Definition 3 at the edge: ≤
                                                 ("gap", 5e-8, True), ("gap", 2e-9, False),
                                                 ("gap", 1e-8, False)])  # a tie is no distinct top eigenvalue: >
def test_categorical_definition_3_thresholds_on_one_pattern(monkeypatch, field, value, holds):
    """EIG_TOL = 1e-10 and the gap threshold 1e-8·|λ₁|: one u_m's residual at 5e-10 (5× out) or its gap at 2e-9·|λ₁|
    fails 'every u_m' (the claim counts every pattern: one bad u_m fails it); 2e-11 and 5e-8·|λ₁| (5× in) hold."""
    patch_classified(monkeypatch, **{field: value})
    ev = uncached_probe(examples.CATEGORICAL_ID)
    c = ev.claim("every_u_m_satisfies_definition_3")
    assert c.passed is holds and c.observed == (4 if holds else 3), (c, ev.explain())
