"""The checks every registered result must pass run here on every result the run registers: they are written
once, in the package (`theorems.conformance`), so that anyone's results can be held to them too (``pytest
--theorems-conformance PKG``, `theorems.pytest_plugin`). This file adds what is particular to the built-in
papers: the edge calls that the fuzz campaign (tools/fuzz.py) once found ending in a raw exception.
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems.core import recording
from theorems import HypothesisViolation, ParameterError
from theorems.conformance import *  # noqa: F401,F403  (the checks, and the pytest_generate_tests that feeds them)
from theorems.conformance import _hang_guard
from theorems.core.evidence import Evidence

# Calls at the edges that tools/fuzz.py found ending in a raw exception (each fixed in the result's module); they
# must now end cleanly, like every edge call above.
FUZZ_FINDINGS = [
    ("nonlinear_cl.lemma_2", dict(N_min=4, doublings=2, replicates=8, tau=0.001)),  # α underflows: L = 0
    ("neural_collapse.theorem_4_3", dict(lam=0.0, seeds=1)),  # L*_GUFM = 0: a ratio to zero
    ("neural_collapse.theorem_4_3_depth", dict(d=3, depths=(19, 37))),  # no construction below d = 4
    ("ssl_dynamics.theorem_2", dict(h=2)),  # the violation names a derived d
    ("deep_fusion.theorem_2", dict(constant_scale=1e-6)),  # γ_ν overflowed math.exp
    ("ssl_dynamics.remark_3", dict(r=1)),  # one singular value
    ("ssl_dynamics.figure_3", dict(T=1e-12)),  # a horizon of no steps
    ("nonlinear_cl.theorem_6", dict(inits=10, c_max=-9.99)),  # fewer starts than the ODE check takes
    ("neural_collapse.dimension_conditions", dict(K=3, d=2)),  # no tangent directions at d = 2
]


@pytest.mark.parametrize("result_id, params", FUZZ_FINDINGS, ids=[f"{r}-{sorted(p)}" for r, p in FUZZ_FINDINGS])
def test_edge_calls_the_fuzz_campaign_found_end_cleanly(result_id, params):
    with _hang_guard(120, f"{result_id} {params}"):
        try:
            with recording.expecting(*recording.OUTCOMES):  # an edge call must end cleanly, whatever its verdict
                ev = theorems.check(result_id, allow_violation=True, **params)
        except (ParameterError, HypothesisViolation):
            return
    assert isinstance(ev, Evidence)
    if ev.holds:
        assert all(math.isfinite(x) for x in (ev.observed, ev.bound)), ev.explain()




def test_every_check_of_the_package_runs_here():
    """The star import above brings every check of `theorems.conformance` into this module (a check added there
    and hidden from it by a leading underscore or an __all__ would silently not run in CI)."""
    import theorems.conformance as conformance

    checks = [name for name in vars(conformance) if name.startswith("test_")]
    assert checks and all(name in globals() for name in checks)


# -- known findings of issue 39 that other branches fix (each an expected failure with its reason, never a skip) ----
# The other-seeds check (theorems.conformance.test_other_seeds_hold_or_do_not_converge) lists here the seeds of the
# default instance that are known to fail, per result, with the numbers measured when they were found; a listed seed
# that holds again fails the check (remove it), and an unlisted failing seed fails it, so nothing else is masked.
# Measured with the ci suite (2026-12-07); the thorough suite's other seeds are 1-20, the ci suite's 1-4.
KNOWN_SEED_FAILURES = {
    # certified_excess_target: the certified excess at depth 37 is 1.81 %, 1.75 %, 2.17 % of L*_GUFM on seeds 1, 3, 4
    # against the 1 % asked (1.1-5.8 % on the others listed)
    "neural_collapse.theorem_4_3_depth": ((1, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17),
                                          "issue 39 item 1 (robust depth sandwiches), not fixed on this branch: "
                                          "certified_excess_target fails"),
    # certified_excess_target: 1.34 % of L* on seed 2 against 1 % (1.05-4.4 % on the others listed); on seed 6 the
    # rate claims fail instead (certified_excess_rate, certified_excess_local_slopes)
    "neural_collapse.theorem_4_6": ((2, 5, 6, 8, 9, 12, 13, 14, 15, 16, 18, 19),
                                    "issue 39 item 1 (robust depth sandwiches), not fixed on this branch: "
                                    "certified_excess_target fails"),
    # nc1_flat_in_depth on seed 16 (observed -0.557): Figure 2's reading is re-decided by issue 39 item 4
    "neural_collapse.figure_2": ((16,), "issue 39 item 4 (Figure 2 under objective (11)), not fixed on this branch: "
                                        "nc1_flat_in_depth fails"),
}
# The control audit (theorems.conformance.test_every_control_fails_a_bound_claim): results whose registered controls
# are known not to be what they say, and why.
KNOWN_CONTROL_FAILURES = {
    # loss=mse last_bias=True holds (trained networks stay 2.6-3.8x above L*); only the identity reduction_identity,
    # which a bias breaks by definition, fails there
    "neural_collapse.theorem_4_3": "issue 39 item 5 (the last_bias control is no bound control), not fixed on this "
                                   "branch",
}


@pytest.fixture
def known_seed_failures():
    return KNOWN_SEED_FAILURES


@pytest.fixture
def known_control_failures():
    return KNOWN_CONTROL_FAILURES
