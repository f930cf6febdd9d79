"""Remark 3: a fixed projector u = AΘx still collapses the output (paper 002, `ssl_dynamics.remark_3`): the checks
particular to this result, its hand cases against independent references, pins and hypothesis edges. What every
result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest
import torch

from checks.pinning import assert_hypothesis_edge, assert_refused_naming, excess, row_ids
from checks.probes import evaluate_claims
from theorems import HypothesisViolation
from theorems.core import recording
from theorems.ssl_dynamics import remark_3

P = "ssl_dynamics."


def test_remark_3_fixed_projector(run):
    cx = run(P + "remark_3", form="as_printed", **remark_3.COUNTEREXAMPLE)
    assert cx.details["singular_values_end"][1] > 0.1 and cx.details["eigenvalues_AAt"] == pytest.approx([1.0] * 3)
    generic = run(P + "remark_3")
    assert not generic.claim("components_identical").passed and generic.holds
    given = run(P + "remark_3", eta=generic.details["eta"] / 2)  # a given step size is the one used
    assert given.details["eta"] == generic.details["eta"] / 2 and given.holds


# -- hypotheses named in bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        ("remark_3", remark_3.COUNTEREXAMPLE, "μ₁(AAᵀ) or λ₁(C) simple"),
        ("remark_3", dict(r=1), "r ≥ 2"),
    ],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize("rid, params, hypothesis", [("remark_3", dict(r=4, z=3), "r ≤ z")])
def test_structural_hypotheses_cannot_be_stepped_over(rid, params, hypothesis):
    """No instance can be built outside these, so not even a negative control may run there."""
    assert_refused_naming(P + rid, params, hypothesis, HypothesisViolation, allow_violation=True)


HYPOTHESIS_EDGES = [
    # ssl_dynamics.remark_3
    ("ssl_dynamics.remark_3", None, dict(r=10, z=10), None),
    ("ssl_dynamics.remark_3", None, dict(r=11, z=10), "r ≤ z"),
    ("ssl_dynamics.remark_3", None, dict(r=2), None),
    ("ssl_dynamics.remark_3", None, dict(r=1), "r ≥ 2"),
    ("ssl_dynamics.remark_3", None, dict(C="1,0;0,2", d=2, r=2, z=2), "λ_min(C) < 0"),
    ("ssl_dynamics.remark_3", None, dict(gd_scale=1 + 1e-12), "gradient descent Θ − η∇L"),
    # remark_3: λ_min(C) < 0, strict
    ("ssl_dynamics.remark_3", None, dict(C="0,0;0,2", d=2, r=2, z=2), "λ_min(C) < 0"),
    ("ssl_dynamics.remark_3", None, dict(C="-0.5,0;0,2", d=2, r=2, z=2), None),
    # ssl_dynamics.remark_3 (corrected): with AAᵀ = I the collapse direction needs λ₁(C) simple
    ("ssl_dynamics.remark_3", "corrected", dict(projector="orthonormal", C="-1,0,0;0,-1,0;0,0,0.5", d=3),
     "μ₁(AAᵀ) or λ₁(C) simple"),
    ("ssl_dynamics.remark_3", "corrected", dict(projector="orthonormal", C="-1,0,0;0,-0.9,0;0,0,0.5", d=3), None),
    ("ssl_dynamics.remark_3", "corrected", dict(projector="gaussian", C="-1,0,0;0,-1,0;0,0,0.5", d=3), None),
    # trace_form.symmetric_C_violations (through remark_3): |C − Cᵀ| ≤ 1e-12·max(1, max|C|), literal asymmetries 3×
    # outside and 10× inside; at max|C| = 100 the allowance is 1e-10 (min(1, ·) would flag 3e-11)
    ("ssl_dynamics.remark_3", None, dict(C="-1,3e-12;0,0.5", d=2, r=2, z=2), "C symmetric"),
    ("ssl_dynamics.remark_3", None, dict(C="-1,1e-13;0,0.5", d=2, r=2, z=2), None),
    ("ssl_dynamics.remark_3", None, dict(C="-100,3e-11;0,50", d=2, r=2, z=2), None),
    ("ssl_dynamics.remark_3", None, dict(C="-100,3e-10;0,50", d=2, r=2, z=2), "C symmetric"),
    ("ssl_dynamics.remark_3", None, dict(C="-1,0;0", d=2, r=2, z=2), "C a square real matrix"),
    # instances.common_C_violations: C is d × d
    ("ssl_dynamics.remark_3", None, dict(C="-1,0;0,0.5", d=3, r=2, z=2), "C is d×d"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_remark_3_short_budget_is_not_converged_and_a_settled_ratio_is(run):
    """A budget that ends while σ₂/σ₁ still shrinks is 'not converged' (never a failed claim on a statement the
    suite verifies); the counterexample's σ₂/σ₁ settles at 0.157 and is converged, so it still replays."""
    from theorems.ssl_dynamics import remark_3

    short = recording.expect(run(remark_3.ID, steps=4), recording.NOT_CONVERGED)
    assert short.converged is False
    cx = run(remark_3.ID, form="as_printed", **remark_3.COUNTEREXAMPLE)
    assert cx.converged is True and not cx.holds and cx.details["steps_run"] == 5000
    assert run(remark_3.ID).converged is True and run(remark_3.ID).details["steps_run"] < 5000


# monkeypatch, not a Pin: it replaces R._gd, code that a Pin (a parameter or constant set to a literal) cannot move
def test_remark_3_gd_identity_takes_the_worst_step_and_pins_gd_rtol(monkeypatch):
    """Default instance: ONE recorded step Θ_{k+1} (the first) scaled by 1 + 3e-9 (a literal) leaves it 3e-9
    relative from Θ_k − η∇L: 3 GD_RTOLs out, while every other step is at rounding (GD_RTOL loosened ×10 lets it
    pass; a best-step aggregation would too). The trajectory itself is unchanged (only the record is moved)."""
    from theorems.ssl_dynamics import remark_3 as R

    exact = R._gd

    def one_off(*args):
        before, after, steps, seen = exact(*args)
        after = after.clone()
        after[0] = after[0] * (1 + 3e-9)
        return before, after, steps, seen

    monkeypatch.setattr(R, "_gd", one_off)
    c = evaluate_claims(R.ID)["gd_is_gradient_descent"]
    assert not c.passed and 2.5 < excess(c) < 3.5, (c.observed, c.allowance)


# monkeypatch, not a Pin: it replaces R._gd, code that a Pin (a parameter or constant set to a literal) cannot move
def test_remark_3_collapse_claim_pins_rank_one_tol(monkeypatch):
    """Default instance: the last iterate Θ moved (within the row space A reaches: A has full row rank, so
    A·pinv(A) = I) so that σ₂/σ₁ of the output AΘ is 3e-6 (a literal), 3 RANK_ONE_TOLs out: the collapse claim
    fails (RANK_ONE_TOL ×10 passes it); 3e-7 is inside. No registered control sits near this tolerance (the
    counterexample misses it by six orders)."""
    from theorems.ssl_dynamics import remark_3 as R

    exact = R._gd

    def run(ratio):
        def moved(Theta0, A, *rest):
            before, after, steps, seen = exact(Theta0, A, *rest)
            U = A @ after[-1]
            P, S, Qh = torch.linalg.svd(U, full_matrices=False)
            S = S.clone()
            S[1] = ratio * S[0]
            S[2:] = 0.0
            after = after.clone()
            after[-1] = after[-1] + torch.linalg.pinv(A) @ (P @ torch.diag(S) @ Qh - U)
            return before, after, steps, seen

        monkeypatch.setattr(R, "_gd", moved)
        return evaluate_claims(R.ID)["output_collapses"]

    c = run(3e-6)
    assert not c.passed and 2.5 < excess(c) < 3.5, (c.observed, c.allowance)
    assert run(3e-7).passed


# monkeypatch, not a Pin: it replaces R.projector: code, which a Pin cannot move
def test_remark_3_identical_components_pins_identical_rtol(monkeypatch):
    """The binding instance (orthonormal projector, AAᵀ = I to rounding): one row of A scaled by 1 + 3e-12 (a
    literal) puts ‖AAᵀ − cI‖/‖AAᵀ‖ at 2.8e-12 (r = 3: the diagonal 1 + 6e-12, 1, 1 around c = 1 + 2e-12), 2.8
    IDENTICAL_RTOLs out: the proof step fails (×10 passes it); 1 + 3e-13 is inside."""
    from theorems.ssl_dynamics import remark_3 as R

    exact = R.projector

    def run(scale):
        def scaled(ctx, p):
            A = exact(ctx, p).clone()
            A[0] *= scale
            return A

        monkeypatch.setattr(R, "projector", scaled)
        return evaluate_claims(R.ID, **R.BINDING)["components_identical"]

    c = run(1 + 3e-12)
    assert not c.passed and 2.3 < excess(c) < 3.3, (c.observed, c.allowance)
    assert run(1 + 3e-13).passed
