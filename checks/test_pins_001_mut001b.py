"""More tolerances of paper 001 pinned by REGISTERED controls (issue 26, item 9; the rule is in
checks/test_pins_001_003.py). Each row names the control by its literal parameters, finds it among
``Result.controls`` and asks that it lie 1–10 allowances outside each named claim: the tolerance loosened ×10 lets
it pass, tightened ÷10 puts it more than 10 allowances out. Every instance is small (one cheap evaluation each)."""

from __future__ import annotations

import pytest

from checks.pinning import assert_registered_pin

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
    # RATE_RTOL of examples.py: the fitted flow rate against the closed-form gap
    ("nonlinear_cl.summation_model", dict(M=2, q=0.2, closed_form_scale=1.03, allow_violation=True),
     ("flow_rate_equals_gap",)),
]


@pytest.mark.parametrize("rid, control, claims", PINS, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(PINS)])
def test_registered_control_pins_the_tolerance(run, rid, control, claims):
    assert_registered_pin(run, rid, control, claims, kinds=("bound", "identity", "proof_step"))
