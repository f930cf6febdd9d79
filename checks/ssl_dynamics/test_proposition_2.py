"""Proposition 2: Frobenius-norm constraints do not prevent dimension collapse (paper 002,
`ssl_dynamics.proposition_2`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, excess, row_ids
from checks.probes import claims_of, evaluate_claims
from theorems.core import recording, registry
from theorems.core.verdict import run_spec


# 1. proposition_2 c2 = 1e-6: PGD step and certificate were scaled by max(c₁, c₂)²‖C‖, so every start was
# "certified" at a first-order point far from the minimum and the rank/alignment claims judged those points.
def test_proposition_2_tiny_radius_reaches_the_minimum_and_holds():
    ev = theorems.check("ssl_dynamics.proposition_2", c2=1e-6, allow_violation=True)
    assert ev.converged and ev.holds, ev.explain()
    assert ev.details["starts_reaching"] == ev.details["starts_converged"] > 0


def test_proposition_2_without_a_start_at_the_minimum_is_not_converged_and_judges_no_rank():
    # 1 iteration from random starts: no start reaches c₁²c₂²λ_min(C), so nothing may be said about minimisers.
    ev = theorems.check("ssl_dynamics.proposition_2", max_iter=1, allow_violation=True)
    assert ev.converged is False and not ev.holds
    assert "minimiser_rank_one" not in claims_of(ev) and ev.details["starts_reaching"] == 0


P = "ssl_dynamics."


@pytest.mark.parametrize("rid, params, name", [("proposition_2", dict(c1=0.0), "c1")])
def test_structural_domains_are_parameter_errors(rid, params, name):
    with pytest.raises(theorems.ParameterError, match=name):
        theorems.check(P + rid, **params)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.proposition_2
    ("ssl_dynamics.proposition_2", None, dict(C="-0.1,0,0;0,0.5,0;0,0,1", d=3, z=2), None),  # λ₂ > 0: one negative
    ("ssl_dynamics.proposition_2", None, dict(C="0,0,0;0,0.5,0;0,0,1", d=3, z=2), "λ_min(C) < 0"),  # λ_min = 0
    ("ssl_dynamics.proposition_2", None, dict(C="-1,0,0;0,-1,0;0,0,1", d=3, z=2), "λ_min(C) simple"),
    ("ssl_dynamics.proposition_2", None, dict(constraint="spectral"), "Frobenius-norm constraints"),
    ("ssl_dynamics.proposition_2", None, dict(bound_scale=1.5), "exact closed form"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_proposition_2_pin_is_short_of_the_certificate(run):
    """The RANK_TOL pin ends before PGD's certificate: not converged, so it is never a failed 'verified' instance."""
    control = dict(max_iter=32)
    ev = recording.expect(run_spec(run, registry.get("ssl_dynamics.proposition_2"), control), recording.NOT_CONVERGED)
    assert ev.converged is False and ev.details["nonlinear_converged"] == 0
    assert 1.0 < excess(ev.claim("nonlinear_minimiser_rank_one")) <= 10.0


def test_proposition_2_gtol_is_pinned_by_a_short_budget(run):
    """80 PGD iterations leave the best start's projected-gradient residual 2.3 GTOLs above the certificate: not
    converged. GTOL loosened ×10 certifies starts there (the instance converges), tightened ÷10 puts it 23 out."""
    control = dict(max_iter=80)
    ev = recording.expect(run_spec(run, registry.get("ssl_dynamics.proposition_2"), control), recording.NOT_CONVERGED)
    assert ev.converged is False and ev.details["starts_converged"] == 0
    assert 1.0 < ev.details["residual_over_gtol_min"] <= 10.0


def test_proposition_2_width_one_ends_cleanly(run):
    """h = 1 (a declared width): the optimal W₂ has one singular value, its σ₂/σ₁ is 0 by definition."""
    ev = recording.expect(run("ssl_dynamics.proposition_2", h=1), *recording.OUTCOMES)
    assert ev.claim("nonlinear_minimiser_rank_one").observed == 0.0


def test_proposition_2_minimiser_claims_take_the_worst_judged_start(run):
    """The rank and alignment claims are ∀ over the certified minimisers: the worst judged start decides. On the
    registered spectral control the judged starts' alignments spread over 0.23–0.91, so the worst is not any start."""
    control = dict(constraint="spectral", allow_violation=True)
    result = registry.get("ssl_dynamics.proposition_2")
    assert control in [dict(c) for c in result.controls]
    ev = recording.expect(run_spec(run, result, control), *recording.OUTCOMES)
    aligns, ratios = ev.details["judged_alignments"], ev.details["judged_sv_ratios"]
    assert len(aligns) > 1 and max(aligns) - min(aligns) > 0.1
    assert ev.claim("minimiser_along_v1").observed == max(aligns)
    assert ev.claim("minimiser_rank_one").observed == max(ratios)


# monkeypatch, not a Pin: it replaces torch.linalg.svd: code, which a Pin cannot move
def test_proposition_2_alignment_takes_the_worst_minimiser_and_pins_align_tol(monkeypatch):
    """Default instance (eight certified minimisers, all along v₁ to ~1e-15): the top right-singular vector of ONE
    minimiser's P = W₂ᵀW₁ (start 0) turned by θ with 1 − cos θ = 3e-6 (a literal) towards its second one: 'every
    minimiser's output lies along v₁' fails 3 ALIGN_TOLs out (×10 passes it; a best-minimiser aggregation too);
    1 − cos θ = 3e-7 is inside. No registered control sits near ALIGN_TOL."""
    from theorems.ssl_dynamics import proposition_2 as R

    exact = torch.linalg.svd

    def run(gap):
        def turned(A, *args, **kw):
            U, S, Vh = exact(A, *args, **kw)
            if not args and not kw and A.ndim == 3:  # the alignment's svd (the spectral projection passes options)
                c = 1 - gap
                Vh = Vh.clone()
                Vh[0, 0, :] = c * Vh[0, 0, :] + math.sqrt(1 - c * c) * Vh[0, 1, :]
            return U, S, Vh

        monkeypatch.setattr(torch.linalg, "svd", turned)
        c = evaluate_claims(R.ID)["minimiser_along_v1"]
        monkeypatch.undo()
        return c

    c = run(3e-6)
    assert not c.passed and 2.5 < excess(c) < 3.5, (c.observed, c.allowance)
    assert run(3e-7).passed
