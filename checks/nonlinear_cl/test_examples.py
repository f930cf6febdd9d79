"""``theorems.nonlinear_cl.examples``, shared by several results: its checks."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

import theorems
from theorems.core import recording
from theorems.nonlinear_cl import examples
from theorems.nonlinear_cl.examples import CAT_BINDING, SUM_BINDING_ABOVE, SUM_BINDING_BELOW
from theorems.nonlinear_cl.lme import Classified, LMESearch

CAT = "nonlinear_cl.categorical_model"


SUM = "nonlinear_cl.summation_model"


Q_STAR = (3 - math.sqrt(5)) / 2  # written out: the threshold of §3.1, independent of the module's constant


def probe(rid: str, **params):
    """An uncached run of a module with one input patched, at seed 7 (an instance no other test runs, so the run file
    does not mix the probe with the module's real instance): its outcome, holds or fails, is the probe's purpose."""
    return recording.expect(theorems.check(rid, seed=7, **params), *recording.OUTCOMES)


# ---------------------------------------------------------------------------------------------------------------
# §3 examples: EIG_TOL and the distinct-top-eigenvalue gap of Definition 3 (categorical model, every u_m)
# ---------------------------------------------------------------------------------------------------------------
_CLASSIFY = examples.classify


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


# ---------------------------------------------------------------------------------------------------------------
# linear vs ReLU: ALIGN_TOL (min over starts of |wᵀφ₁|), the pattern counts, and the convergence of both searches
# ---------------------------------------------------------------------------------------------------------------
def fake_search(run_W, lmes, unconverged=0):
    B = run_W.shape[0]
    z = torch.zeros(B, dtype=run_W.dtype, device=run_W.device)
    no, yes = torch.zeros(B, dtype=torch.bool), torch.ones(B, dtype=torch.bool)
    cl = Classified(W=run_W, lam1=z, lam2=z, gap=z, residual=z, top_residual=z,
                    kink_margin=z, is_kink=no, is_lme=yes, converged=yes)
    return LMESearch(run_W=run_W, classified=cl, lmes=lmes, kinks=run_W[:0], n_unconverged=unconverged, iterations=0)


def patch_searches(monkeypatch, deviation=0.0, linear_patterns=1, relu_patterns=2, relu_unconverged=0):
    """No power iteration: the linear search ends every start at φ₁ (computed from A itself) except start 0, tilted
    towards φ₂ so that 1 − |wᵀφ₁| = ``deviation``; the ReLU search reports ``relu_patterns`` patterns."""
    calls = []

    def fake(A_fn, starts, **kw):
        calls.append(kw)
        A = A_fn(starts[:1])[0]
        evecs = torch.linalg.eigh(A).eigenvectors
        phi1, phi2 = evecs[:, -1], evecs[:, -2]
        if len(calls) == 1:
            W = phi1.repeat(len(starts), 1)
            c = 1.0 - deviation
            W[0] = c * phi1 + math.sqrt(max(0.0, 1 - c * c)) * phi2
            return fake_search(W, evecs[:, -linear_patterns:].T.contiguous())
        return fake_search(starts, evecs[:, -relu_patterns:].T.contiguous(), relu_unconverged)

    monkeypatch.setattr(examples, "find_lmes", fake)


# -- §3 examples -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params, is_lme", [(SUM_BINDING_BELOW, True), (SUM_BINDING_ABOVE, False)])
def test_summation_threshold_on_both_sides_of_it(run, params, is_lme):
    ev = run(SUM, **params)
    assert ev.holds, ev.explain()
    q = params["q"]
    assert ev.details["signed_gap_u1"] == pytest.approx(1 - 3 * q + q * q, abs=1e-12)  # signed gap, eq. (9)
    assert all(ev.details["is_lme"]) is is_lme


def test_categorical_rare_pattern_is_still_an_lme(run):
    ev = run(CAT, **CAT_BINDING)
    assert ev.holds and ev.details["min_p(1-p)"] == pytest.approx(1e-6 * (1 - 1e-6), rel=1e-9)


@pytest.mark.parametrize("rid, params", [(CAT, {}), (SUM, dict(q=0.2))])
def test_closed_form_tolerance_is_pinned(run, rid, params):
    ev = run(rid, allow_violation=True, closed_form_scale=1 + 1e-9, **params)
    assert not ev.claim("closed_form_A_um").passed


def test_the_summation_threshold_is_the_module_constant():
    """The rows above write q* out; the module's constant is the same number (a typo in it fails here)."""
    assert abs(examples.Q_STAR - Q_STAR) <= 1e-15


@pytest.mark.parametrize("field, value, holds", [("top_residual", 5e-10, False), ("top_residual", 2e-11, True),
                                                 ("top_residual", 1e-10, True),  # Definition 3 at the edge: ≤
                                                 ("gap", 5e-8, True), ("gap", 2e-9, False),
                                                 ("gap", 1e-8, False)])  # a tie is no distinct top eigenvalue: >
def test_categorical_definition_3_thresholds_on_one_pattern(monkeypatch, field, value, holds):
    """EIG_TOL = 1e-10 and the gap threshold 1e-8·|λ₁|: one u_m's residual at 5e-10 (5× out) or its gap at 2e-9·|λ₁|
    fails 'every u_m' (the claim counts every pattern: one bad u_m fails it); 2e-11 and 5e-8·|λ₁| (5× in) hold."""
    patch_classified(monkeypatch, **{field: value})
    ev = probe(examples.CATEGORICAL_ID)
    c = ev.claim("every_u_m_satisfies_definition_3")
    assert c.passed is holds and c.observed == (4 if holds else 3), (c, ev.explain())


@pytest.mark.parametrize("deviation, holds", [(5e-8, False), (2e-9, True)])
def test_linear_alignment_tolerance_on_one_start(monkeypatch, deviation, holds):
    """ALIGN_TOL = 1e-8: one start of eight 5e-8 short of φ₁ (5 allowances) fails 'all starts reach φ₁'; 2e-9 holds.
    ×10 passes the first, ÷10 fails the second, min → max over starts passes the first."""
    patch_searches(monkeypatch, deviation=deviation)
    ev = probe(examples.LINEAR_VS_RELU_ID, starts=8)
    c = ev.claim("linear_all_starts_reach_phi1")
    assert c.passed is holds, (c, ev.explain())
    assert 1 - c.observed == pytest.approx(deviation, rel=1e-4)


@pytest.mark.parametrize("q, flipped", [(0.2, False), (0.45, True)])
def test_summation_iff_counts_every_pattern(monkeypatch, q, flipped):
    """The iff is judged on every u_m: one u_m's LME flag flipped (u_2 not an LME below the threshold, an LME above
    it) fails 'lme_iff_below_threshold' on that side."""
    patch_classified(monkeypatch, is_lme=flipped)
    c = probe(examples.SUMMATION_ID, q=q).claim("lme_iff_below_threshold")
    assert not c.passed, c
