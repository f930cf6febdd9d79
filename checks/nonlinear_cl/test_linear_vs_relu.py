"""The checks particular to ``nonlinear_cl.linear_vs_relu`` (Section 3.1 (Fig. 1b) and Section 3.2: linear activation
learns one pattern): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import pytest
import torch

from checks.pinning import (
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
    uncached_probe,
)
from theorems.core import recording
from theorems.nonlinear_cl import examples
from theorems.nonlinear_cl.examples import LIN_BINDING
from theorems.nonlinear_cl.lme import Classified, LMESearch

LIN = "nonlinear_cl.linear_vs_relu"
N = "nonlinear_cl."


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


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # linear vs ReLU
    (N + "linear_vs_relu", None, dict(leak=1.0), "nonlinear (leak < 1)", True),
    (N + "linear_vs_relu", None, dict(leak=0.99), "nonlinear (leak < 1)", False),
    (N + "linear_vs_relu", None, dict(isotropic=True), "distinct top eigenvalue", True),
    (N + "linear_vs_relu", None, dict(isotropic=False), "distinct top eigenvalue", False),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.linear_vs_relu', None, dict(leak=1.0), "the 'ReLU' side is nonlinear (leak < 1)"),
    ('nonlinear_cl.linear_vs_relu', None, dict(isotropic=True), 'distinct top eigenvalue of C_α[x]'),
]


def test_linear_vs_relu_small_eigengap(run):
    ev = run(LIN, **LIN_BINDING)
    assert ev.holds and ev.details["linear_relative_eigengap"] < 0.05


def test_linear_vs_relu_unconverged_run_does_not_hold(run):
    # eigengap 0.02: the linear power iteration runs out of budget (on purpose: the report expects it)
    ev = recording.expect(run(LIN, weight_mix=0.05), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: patch_searches is a function no parameter or module constant reaches
@pytest.mark.parametrize("linear, relu, failing", [(2, 2, "linear_one_pattern"), (1, 1, "relu_several_lmes"),
                                                   (1, 2, None)])
def test_linear_vs_relu_pattern_counts(monkeypatch, linear, relu, failing):
    patch_searches(monkeypatch, linear_patterns=linear, relu_patterns=relu)
    ev = uncached_probe(examples.LINEAR_VS_RELU_ID, starts=8)
    assert [c.name for c in ev.claims if not c.passed] == ([failing] if failing else []), ev.explain()


# monkeypatch, not a Pin: patch_searches is a function no parameter or module constant reaches
def test_linear_vs_relu_one_unconverged_search_is_not_converged(monkeypatch):
    """Both searches must converge: an unconverged ReLU start (the linear search converged) is not converged."""
    patch_searches(monkeypatch, relu_unconverged=1)
    ev = recording.expect(uncached_probe(examples.LINEAR_VS_RELU_ID, starts=8), recording.NOT_CONVERGED)
    assert ev.converged is False


# monkeypatch, not a Pin: patch_searches is a function no parameter or module constant reaches
@pytest.mark.parametrize("deviation, holds", [(5e-8, False), (2e-9, True)])
def test_linear_alignment_tolerance_on_one_start(monkeypatch, deviation, holds):
    """ALIGN_TOL = 1e-8: one start of eight 5e-8 short of φ₁ (5 allowances) fails 'all starts reach φ₁'; 2e-9 holds.
    ×10 passes the first, ÷10 fails the second, min → max over starts passes the first."""
    patch_searches(monkeypatch, deviation=deviation)
    ev = uncached_probe(examples.LINEAR_VS_RELU_ID, starts=8)
    c = ev.claim("linear_all_starts_reach_phi1")
    assert c.passed is holds, (c, ev.explain())
    assert 1 - c.observed == pytest.approx(deviation, rel=1e-4)


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.linear_vs_relu")


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.linear_vs_relu", dict(isotropic=True), "distinct top eigenvalue")
