"""More tolerances of paper 001 pinned by REGISTERED controls (issue 26, item 9; the rule is in
checks/test_pins_001_003.py). Each row names the control by its literal parameters, finds it among
``Result.controls`` and asks that it lie 1–10 allowances outside each named claim: the tolerance loosened ×10 lets
it pass, tightened ÷10 puts it more than 10 allowances out. Every instance is small (one cheap evaluation each)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from checks.pinning import assert_registered_pin
from theorems.core import recording, registry
from theorems.nonlinear_cl import figure_8

# (result id, the registered control, the claims it pins)
PINS = [
    # SECULAR_AMPLIFICATION: the Corollary-3 tolerance where λ^bn − max d^bn_k = 1.8e-3 (7.0e-10, not RTOL)
    ("nonlinear_cl.batchnorm", dict(weak_rf=0.002, formula_scale=1 + 2e-9, allow_violation=True),
     ("corollary_3_dynamics",)),
    # RATE_RTOL (Weyl's identity) and FLOW_RTOL (eq. 65's rate) on the summation model, where both are attained
    ("nonlinear_cl.theorem_1", dict(model="summation", d=2, q=0.2, steps=100, rate_scale=1 + 3e-6,
                                    allow_violation=True), ("linearised_rate_at_least_guaranteed",)),
    ("nonlinear_cl.theorem_1", dict(model="summation", d=2, q=0.2, steps=100, rate_scale=1.05, allow_violation=True),
     ("contraction_at_proof_rate",)),
    # DELTA_RTOL and SECULAR_AMPLIFICATION of theorem_5's corrected alternative δ_k (an identity)
    ("nonlinear_cl.theorem_5", dict(delta_scale=1 + 3e-8, allow_violation=True), ("alternative_delta_corrected",)),
    ("nonlinear_cl.theorem_5", dict(weak_rf=0.03, delta_scale=1 + 6e-7, allow_violation=True),
     ("alternative_delta_corrected",)),
    # BNS_RTOL of theorem_5 (a proof step: |⟨s, s_BNS⟩| = 1)
    ("nonlinear_cl.theorem_5", dict(bns_tilt=2.449e-5, allow_violation=True), ("bns_eigenvector",)),
    # RATE_SLACK of theorem_3 (Lemma 11's rate, a proof step): the bound scaled to just below the observed worst ratio
    ("nonlinear_cl.theorem_3", dict(rate_bound_scale=0.386511965, allow_violation=True), ("rate_bound",)),
    # RTOL of lemma_7: its bound and step (184) scaled to just below the binding instance's worst ratios
    ("nonlinear_cl.lemma_7", dict(model="batch", N=24, aug=5.0, seed=1, bound_scale=0.999995146334, form="corrected",
                                  allow_violation=True), ("one_minus_d_bound", "parseval_step_184")),
    # FD_RTOL of theorem_2: ρ by finite differences against the 1-D reference formula
    ("nonlinear_cl.theorem_2", dict(closed_form_scale=1 + 3e-6, form="corrected", allow_violation=True),
     ("fd_matches_exact_formula",)),
    # RATE_RTOL of examples.py: the fitted flow rate against the closed-form gap
    ("nonlinear_cl.summation_model", dict(M=2, q=0.2, closed_form_scale=1.03, allow_violation=True),
     ("flow_rate_equals_gap",)),
]


@pytest.mark.parametrize("rid, control, claims", PINS, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(PINS)])
def test_registered_control_pins_the_tolerance(run, rid, control, claims):
    assert_registered_pin(run, rid, control, claims, kinds=("bound", "identity", "proof_step"))


def test_figure_8_kink_maximum_needs_both_sides():
    """``relu_maxima_at_kinks`` counts a grid maximum as the kink's only if ℰ at the kink is at least ℰ on BOTH
    sides. On the paper's 9 points four of the 18 kink angles have ℰ rising through them (one side above): checked
    against ℰ at a 1e-4 offset, computed here, on every kink where that reference is decisive."""
    ang = torch.tensor(figure_8.point_angles("paper"), dtype=torch.float64)
    X = torch.stack([torch.cos(ang), torch.sin(ang)], 1)
    verdicts, one_sided = [], 0
    for tk in torch.cat([ang + math.pi / 2, ang - math.pi / 2]).tolist():
        ws = torch.tensor([[math.cos(t), math.sin(t)] for t in (tk - 1e-4, tk, tk + 1e-4)], dtype=torch.float64)
        e = figure_8.energy(X, ws, 0.0)
        left, right = float(e[1] - e[0]), float(e[1] - e[2])
        if min(abs(left), abs(right)) < 1e-8:
            continue  # flat to one side at this offset: the reference decides nothing
        one_sided += (left > 0) != (right > 0)
        verdicts.append(figure_8.kink_is_local_max(X, tk, 0.0) == (left > 0 and right > 0))
    assert len(verdicts) >= 16 and all(verdicts) and one_sided >= 3, (verdicts, one_sided)


def test_theorem_2_printed_break_is_where_the_measured_ratio_crosses_one(run):
    """The reported C₀ below which the printed bound fails (4/(9π) on the uniform disk) is where the measured
    ρ_fd/bound, which scales as 1/C₀, equals 1: recomputed from the counterexample C₀ = 0.1."""
    ev = recording.expect(run("nonlinear_cl.theorem_2", form="as_printed", C0=0.1), recording.FAILS)
    crossing = ev.details["rho_fd"] / ev.details["bound"] * 0.1
    assert abs(crossing / ev.details["printed_bound_fails_below_C0_(uniform)"] - 1) < 1e-6


# Results of this paper whose default instance is cheap and carries proof steps: the proof steps that fail there are
# exactly the registered errata (a proof step broken by a wrong constant would not move the statement's verdict)
PROOF_STEPS = ("nonlinear_cl.theorem_1", "nonlinear_cl.theorem_3", "nonlinear_cl.theorem_5", "nonlinear_cl.lemma_7")


@pytest.mark.parametrize("rid", PROOF_STEPS)
def test_default_proof_steps_fail_only_where_an_erratum_is_registered(run, rid):
    result = registry.get(rid)
    ev = run(rid)
    steps = [c for c in ev.claims if c.kind == "proof_step"]
    errata = {e.claim for e in result.proof_errata if not e.params and e.form == result.default_form}
    assert steps and {c.name for c in steps if not c.passed} == errata, ev.explain()


def test_figure_8_exact_lme_enumeration_finds_pm_phi1_when_linear():
    """``interior_lmes`` enumerates the arcs between kinks (the last one wraps around 2π). With the linear
    activation A = C[x] on every arc, so exactly two LMEs exist, at ±φ₁ of the points' covariance (numpy here)."""
    ang = torch.tensor(figure_8.point_angles("paper"), dtype=torch.float64)
    X = torch.stack([torch.cos(ang), torch.sin(ang)], 1)
    found = figure_8.exact_lmes(X, torch.cat([ang + math.pi / 2, ang - math.pi / 2]), 1.0)
    phi = np.linalg.eigh(np.cov(X.numpy().T, bias=True))[1][:, -1]
    t1 = math.atan2(phi[1], phi[0])
    off = sorted(min(abs(math.remainder(t - t1 - s, 2 * math.pi)) for s in (0.0, math.pi)) for t in found)
    assert len(found) == 2 and off[-1] < 1e-9, (found, t1)
    assert figure_8.exact_lmes(X, torch.cat([ang + math.pi / 2, ang - math.pi / 2]), 0.0) == []  # the ReLU curve


def test_figure_8_points_are_the_papers():
    """The data of Fig. 8 as App. E.1 prints it: angles {−4/5, −1/2, −2/5, −1/6, 0, 1/5, 2/5, 3/5, 4/5}·π (the
    count of maxima is a claim about these points only; a moved point can keep 9 maxima)."""
    printed = [-4 / 5, -1 / 2, -2 / 5, -1 / 6, 0, 1 / 5, 2 / 5, 3 / 5, 4 / 5]
    assert figure_8.point_angles("paper") == pytest.approx([a * math.pi for a in printed], rel=0, abs=1e-15)
