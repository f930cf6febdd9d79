"""The checks particular to ``nonlinear_cl.figure_1_right`` (Figure 1 (right panel caption), with §3.1 (latent
summation) and Theorem 3): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest
import torch

import theorems
from checks.pinning import (
    assert_default_and_bindings_hold,
    assert_hypothesis_edge,
    assert_named_iff,
    assert_registered_controls_step_over_and_fail,
    row_ids,
    short_row_ids,
    uncached_probe,
)
from theorems import HypothesisViolation

AP = "as_printed"


# -- Figure 1 (right) -----------------------------------------------------------------------------------------------------
F1R = "nonlinear_cl.figure_1_right"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # Figure 1 (right): M ≤ d, eps ≤ λ_gap/2 (q = 0.3: λ_gap = 0.19), q < q*
    (N + "figure_1_right", None, dict(d=4, M=4), "M ≤ d", False),
    (N + "figure_1_right", None, dict(d=3, M=4), "M ≤ d", True),
    (N + "figure_1_right", None, dict(q=0.3, eps=0.0951), "at most half the orthogonal model's gap", True),
    (N + "figure_1_right", None, dict(q=0.3, eps=0.0949), "at most half the orthogonal model's gap", False),
    (N + "figure_1_right", None, dict(q=0.3819, eps=0.0), "q_m < (3 − √5)/2", False),
    (N + "figure_1_right", None, dict(q=0.382, eps=0.0), "q_m < (3 − √5)/2", True),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.figure_1_right', None, dict(d=2), 'M ≤ d (U ∈ ℝ^{d×M} with nearly orthonormal columns)'),
    ('nonlinear_cl.figure_1_right', None, dict(eps=0.5), "‖UᵀU − I‖₂ small: at most half the orthogonal model's gap 1 − 3q + q²"),
    ('nonlinear_cl.figure_1_right', None, dict(q=0.99), 'q_m < (3 − √5)/2 ≈ 0.3820 (u_m an LME in the orthogonal case)'),
    ("nonlinear_cl.figure_1_right", None, dict(M=3, d=3), None),  # M = d
    ("nonlinear_cl.figure_1_right", None, dict(M=4, d=3), "M ≤ d"),
    ("nonlinear_cl.figure_1_right", None, dict(q=0.381, eps=0.0001), None),
    ("nonlinear_cl.figure_1_right", None, dict(q=0.3821, eps=0.0001), "q_m < (3 − √5)/2"),
    ("nonlinear_cl.figure_1_right", None, dict(q=0.2, eps=0.219), None),  # gap/2 = (1 − 0.6 + 0.04)/2 = 0.22
    ("nonlinear_cl.figure_1_right", None, dict(q=0.2, eps=0.221), "‖UᵀU − I‖₂ small"),
]


@pytest.mark.parametrize("eps", [0.02, 0.05, 0.1, 0.2])
def test_figure_1_right_an_lme_is_nearest_each_pattern(run, eps):
    ev = run(F1R, form=AP, eps=eps)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.claim("max_angle_to_own_pattern").observed < eps  # within an angle O(‖UᵀU − I‖) (observed ≈ 0.35·eps)
    assert ev.claim("pi_reaches_best_lme_share").observed == 1.0  # PI from u_m finds the enumerated LME
    assert ev.claim("step_ratio").observed < 1
    assert ev.details["enumeration_residual"] < 1e-12


def test_figure_1_right_enumeration_is_complete_on_a_hand_case():
    """Orthonormal U (eps = 0), M = 2: by symmetry of the atoms the LMEs are ±-free and each u_m is one of them
    (the orthogonal model, q below the threshold): the enumeration returns u_1 and u_2 up to rounding."""
    import torch

    from theorems.data.latents import summation_model
    from theorems.nonlinear_cl.figure_1_right import all_lmes

    U = torch.eye(3, dtype=torch.float64)[:, :2]
    lmes = all_lmes(summation_model(U, torch.tensor([0.2, 0.2], dtype=torch.float64)))
    best = (lmes @ U).max(dim=0).values
    assert torch.allclose(best, torch.ones(2, dtype=torch.float64), atol=1e-12), lmes


def test_figure_1_right_above_the_lme_threshold_no_lme_is_near_its_pattern(run):
    ev = run(F1R, form=AP, q=0.45, allow_violation=True)
    assert ev.converged is True  # exact enumeration: a decided outcome, not a starved optimiser
    assert [c.name for c in ev.failed_bounds] == ["lme_near_each_pattern"]
    assert ev.claim("lme_near_each_pattern").observed < -0.5
    with pytest.raises(HypothesisViolation, match="half the orthogonal model's gap"):
        theorems.check(F1R, eps=0.1, q=0.37)
    with pytest.raises(HypothesisViolation, match="M ≤ d"):
        theorems.check(F1R, M=4, d=3)
    with pytest.raises(HypothesisViolation, match="M ≤ d"):  # not bypassable: U cannot have M > d such columns
        theorems.check(F1R, M=4, d=3, allow_violation=True)


def test_figure_1_right_searched_instance_is_settled_and_keeps_the_status_open(run):
    """The worst-case search's instance: no LME is nearest u_3 (exact), PI from u_3 cycles; the run is settled
    (converged), so a report does not flag it, and the status stays open for the reasons given."""
    result = theorems.get(F1R)
    assert str(result.status) == "open" and result.searched
    ev = run(F1R, form=AP, **result.searched[0])
    assert ev.converged is True and not ev.holds
    scores = ev.details["best_score_per_pattern"]
    assert scores[0] > 0.5 and scores[1] > 0.5 and scores[2] < -0.5
    assert ev.claim("pi_settled_share").observed < 1.0


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: F.approx_orthonormal, F.all_lmes is a function no parameter or module constant reaches
def test_figure_1_right_judges_the_worst_pattern(monkeypatch):
    """'An LME near each pattern' is a min over patterns m: the enumeration patched to drop every LME whose best
    pattern is u_0 leaves u_0 with none near it, and the claim fails (the others still have theirs)."""
    from theorems.nonlinear_cl import figure_1_right as F

    seen = {}
    real_U, real_lmes = F.approx_orthonormal, F.all_lmes

    def fake_U(*a, **k):
        seen["U"] = real_U(*a, **k)
        return seen["U"]

    def fake_lmes(data):
        L = real_lmes(data)
        Un = seen["U"] / seen["U"].norm(dim=0, keepdim=True)
        C = L @ Un
        others = torch.stack([C[:, [j for j in range(C.shape[1]) if j != m]].abs().max(1).values
                              for m in range(C.shape[1])], 1)
        mine = (C - others).argmax(1)  # each LME's best pattern
        return L[mine != 0]

    monkeypatch.setattr(F, "approx_orthonormal", fake_U)
    monkeypatch.setattr(F, "all_lmes", fake_lmes)
    ev = uncached_probe("nonlinear_cl.figure_1_right")
    c = ev.claim("lme_near_each_pattern")
    assert not c.passed and c.observed < 0, c
    assert min(ev.details["best_score_per_pattern"][1:]) > 0  # the other patterns keep an LME near them


def test_registered_controls_are_outside_the_hypotheses_and_fail(run):
    assert_registered_controls_step_over_and_fail(run, "nonlinear_cl.figure_1_right")


def test_default_and_registered_binding_instances_hold(run):
    assert_default_and_bindings_hold(run, "nonlinear_cl.figure_1_right")
