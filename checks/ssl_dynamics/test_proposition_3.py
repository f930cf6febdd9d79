"""Proposition 3: operator-norm and orthogonality constraints are equivalent (paper 002, `ssl_dynamics.proposition_3`):
the checks particular to this result, its hand cases against independent references, pins and hypothesis edges. What
every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, excess, row_ids
from checks.probes import evaluate_claims
from theorems import HypothesisViolation
from theorems.core import registry
from theorems.core.context import Context
from theorems.ssl_dynamics import proposition_3
from theorems.ssl_dynamics.trace_form import random_symmetric

P = "ssl_dynamics."


# -- Proposition 3 ----------------------------------------------------------------------------------------
def test_proposition_3_width_counterexample_against_ky_fan(run):
    ev = run(P + "proposition_3", form="as_printed", **proposition_3.COUNTEREXAMPLE)
    lam = np.sort(np.array([-2, -1, 0.5, 1, 2.0]))
    # h = d: W₁CW₁ᵀ has spectrum spec(C) for every feasible W₁; Ky Fan gives (4)'s optimum, the 3 smallest.
    assert ev.details["problem_4_best"] == pytest.approx(lam[:3].sum(), rel=1e-6)
    assert ev.details["problem_2_best"] == pytest.approx(lam[:2].sum(), rel=1e-6)
    assert [c.name for c in ev.failed_bounds] == ["problem_4_matches_problem_2"]
    with pytest.raises(HypothesisViolation, match="width condition"):
        theorems.check(P + "proposition_3", h=5)


def test_proposition_3_norm_flag_changes_problems_1_and_3(run):
    # Frobenius norms turn (1) and (3) into Proposition 2's problem: optimum λ_min = −2 instead of −3.
    ev = run(P + "proposition_3", norm="frobenius", allow_violation=True)
    assert ev.details["problem_1_best"] == pytest.approx(-2.0, rel=1e-6)
    assert ev.details["problem_3_best"] == pytest.approx(-2.0, rel=1e-6)
    assert ev.details["problem_2_best"] == pytest.approx(-3.0, rel=1e-6)


def test_proposition_3_ratio_is_solved_on_its_own():
    ctx = Context.make("cpu", 3)
    C = random_symmetric(ctx, [-2.0, -1.0, 0.5, 1.0, 2.0])
    vals, res, seen = proposition_3.solve_ratio(ctx, C, 8, 3, 4, "spectral", 1e-10)
    assert float(vals.min()) == pytest.approx(-3.0, rel=1e-9) and bool((res <= 1e-10).all())
    assert float(seen.min()) >= -3.0 - 1e-9  # no visited point beats L*


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("proposition_3", dict(h=2, z=3), "h ≥ z"),
        ("proposition_3", dict(norm="frobenius"), "operator norms"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, hypothesis", [("proposition_3", dict(h=2, z=3), "h ≥ z")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.proposition_3
    ("ssl_dynamics.proposition_3", None, dict(spectrum=(1.0, 2.0)), "negative eigenvalue"),
    ("ssl_dynamics.proposition_3", None, dict(spectrum=(-2.0, -1.0, 0.5, 1.0, 2.0), z=3, h=6), None),  # h = d + z − ℓ
    ("ssl_dynamics.proposition_3", None, dict(spectrum=(-2.0, -1.0, 0.5, 1.0, 2.0), z=3, h=5), "width condition"),
    ("ssl_dynamics.proposition_3", None, dict(norm="frobenius"), "operator norms"),
    ("ssl_dynamics.proposition_3", None, dict(bound_scale=1.5), "exact optimum"),
    # proposition_3: the Stiefel widths (h ≥ z, h ≥ d) before the width condition of problem (4)
    ("ssl_dynamics.proposition_3", "as_printed", dict(spectrum=(-2.0, -1.0, 0.5), z=2, h=3), None),
    ("ssl_dynamics.proposition_3", "as_printed", dict(spectrum=(-2.0, -1.0, 0.5), z=2, h=2), "h ≥ d"),
    ("ssl_dynamics.proposition_3", "as_printed", dict(spectrum=(-2.0, 0.5), z=3, h=2), "h ≥ z"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def _prop3_patched(monkeypatch, lower_one_by=0.0, top_sv_by=0.0):
    """proposition_3's (4) solver with ONE start's recorded value moved ``lower_one_by``·|L*| below L*, and the
    largest singular value of W₂ᵀW₁ at every end point scaled by 1 + ``top_sv_by``."""
    from theorems.ssl_dynamics import proposition_3 as R

    exact = R._solve_4

    def patched(ctx, C, h, z, *rest):
        vals, res, it, seen, P = exact(ctx, C, h, z, *rest)
        lam = torch.linalg.eigvalsh(C)
        lstar = float(lam[:min(z, int((lam < 0).sum()))].sum())
        seen = seen.clone()
        seen[1] = lstar - lower_one_by * abs(lstar)
        U, S, Vh = torch.linalg.svd(P, full_matrices=False)
        S = S.clone()
        S[..., 0] *= 1 + top_sv_by
        return vals, res, it, seen, U @ torch.diag_embed(S) @ Vh

    monkeypatch.setattr(R, "_solve_4", patched)
    return R


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_proposition_3_lower_bound_takes_the_lowest_visited_point_and_pins_lower_rtol(monkeypatch):
    """Default instance (corrected): ONE start of (4) recorded 3e-10·|L*| below L* (a literal) fails 'every point
    visited is ≥ L*' by 3 LOWER_RTOLs (×10 passes it; max → min over the visited points would too); 3e-11 below
    is inside."""
    R = _prop3_patched(monkeypatch, lower_one_by=3e-10)
    c = evaluate_claims(R.ID, "corrected")["problem_4_not_below_Lstar"]
    assert not c.passed and 2.5 < excess(c) < 3.5, (c.observed, c.bound, c.allowance)
    monkeypatch.undo()
    R = _prop3_patched(monkeypatch, lower_one_by=3e-11)
    assert evaluate_claims(R.ID, "corrected")["problem_4_not_below_Lstar"].passed


# monkeypatch, not a Pin: it patches through a helper (a computed quantity moved by a literal), which no Pin can move
def test_proposition_3_rank_at_optimum_takes_the_worst_singular_value_and_pins_sv_tol(monkeypatch):
    """Default instance (corrected): the largest singular value of W₂ᵀW₁ at (4)'s optimum scaled by 1 + 3e-4 (a
    literal; the others untouched) is 3 SV_TOLs from 1: the claim fails (SV_TOL ×10 passes it)."""
    R = _prop3_patched(monkeypatch, top_sv_by=3e-4)
    c = evaluate_claims(R.ID, "corrected")["rank_at_optimum"]
    assert not c.passed and 2.5 < excess(c) < 3.5, (c.observed, c.allowance)


# monkeypatch, not a Pin: it replaces R._solve_4, code that a Pin (a parameter or constant set to a literal) cannot move
def test_proposition_3_certificate_pins_gtol(monkeypatch):
    """Default instance (corrected): every start of problem (4) recorded at a residual of 3e-8·‖C‖ (a literal,
    3 GTOLs) leaves (4) uncertified, so the run is not converged (GTOL ×10 would certify it); 3e-9·‖C‖ certifies."""
    from theorems.ssl_dynamics import proposition_3 as R

    exact = R._solve_4
    result = registry.get(R.ID)
    full, _ = registry.validate(result, {}, "corrected")

    def run(value):
        def residual(ctx, C, *rest):
            vals, res, it, seen, P = exact(ctx, C, *rest)
            cnorm = float(torch.linalg.eigvalsh(C).abs().max())
            return vals, torch.full_like(res, value * cnorm), it, seen, P

        monkeypatch.setattr(R, "_solve_4", residual)
        out = result.evaluate(full, "corrected", Context.make(None, seed=full.get("seed", 0)))
        monkeypatch.undo()
        return out

    out = run(3e-8)
    assert out.converged is False and out.details["problem_4_converged"] == 0
    assert run(3e-9).converged is True
