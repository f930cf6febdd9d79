"""The checks particular to ``nonlinear_cl.theorem_6`` (Section 4.2, Theorem 6 (proof in Appendix C.3)): its pins,
hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest
import torch

import theorems
from checks.pinning import (
    assert_hypothesis_edge,
    assert_hypothesis_refused,
    assert_registered_bindings,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
)
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.verdict import run_spec

T6 = "nonlinear_cl.theorem_6"
T6, REMARK = "nonlinear_cl.theorem_6", "nonlinear_cl.theorem_6_remark"
D = torch.float64


# -- Theorem 6's second-order certificate (CURV_RTOL = 1e-4 of the largest |curvature|) and its saddle escapes ------
# (tests/test_theorem_6_curvature.py checks the same machinery but is not among the mutation gate's files for
# theorem_6: these two rows are the gate's view of it, with their own literals)
def _u(d, *coords):
    y = torch.zeros(1, d, dtype=D)
    y[0, :len(coords)] = torch.tensor(coords, dtype=D)
    return y / y.norm()


EDGES = [
    (T6, None, dict(c_max=0.0), "c_max ≠ 0"),
    (T6, None, dict(c_max=0.96), "|c_max − 1| ≥ 0.05"),  # 0.04 from 1: inside the verifier's exclusion
    (T6, None, dict(c_max=1.04), "|c_max − 1| ≥ 0.05"),
    (T6, None, dict(c_max=0.94), None),  # 0.06 from 1: outside it (and c > 0)
    (T6, None, dict(c_max=1.06), None),
    (T6, None, dict(c_max=0.01), None),  # c > 0, however small
    (T6, None, dict(c_max=-0.01), "c > 0"),
    (T6, None, dict(ode_scale=1.001), "eqs. (147), (150), (151) as printed"),
    ('nonlinear_cl.theorem_6', None, dict(c_max=-10.0), 'c > 0 (positive modulation)'),
    ("nonlinear_cl.theorem_6", None, dict(c_max=0.9), None),
    ("nonlinear_cl.theorem_6", None, dict(c_max=-0.5), "c > 0"),
]


# -- Theorem 6 ----------------------------------------------------------------------------------------------------------
def test_theorem_6_basin_fraction_does_not_depend_on(run):
    # g(y) = y + b adds b·I to A, which P⊥_w removes: the hypothesis g > 0 cannot bind on the sphere
    assert run(T6, b=1.05).details["basin_fraction"] == run(T6).details["basin_fraction"]


def test_theorem_6_negative_modulation_shrinks_the_basin(run):
    ev = run(T6, c_max=-0.5, allow_violation=True)
    assert not ev.claim("basin_grows").passed and not ev.claim("basin_inclusion").passed
    assert not ev.claim("basin_strictly_larger").passed


def test_theorem_6_small_c_still_grows(run):
    ev = run(T6, c_max=0.02)
    assert ev.converged and ev.holds, ev.explain()


# -- Theorem 6's proof steps and the remark after it --------------------------------------------------------------------
def test_theorem_6_one_dimensional_proof_steps_hold_and_the_winner_rule_does_not(run):
    ev = run(T6)
    for name in ("ode_closed_form", "blowup_time", "blowup_time_derivative", "blowup_time_decreasing_in_b"):
        assert ev.claim(name).passed, name
    assert ev.details["winner_rule_agreement"] == pytest.approx(0.938, abs=0.002)


def test_theorem_6_claims_are_the_grid_statistics(run):
    ev = run(T6)
    frac = ev.details["basin_fraction"]
    assert ev.claim("basin_grows").observed == pytest.approx(min(b - a for a, b in zip(frac, frac[1:], strict=False)), abs=1e-12)
    with pytest.raises(HypothesisViolation, match="c_max ≠ 0"):
        theorems.check(T6, c_max=0.0, allow_violation=True)  # no grid at all: not a control


def test_theorem_6_unconverged_flow_never_holds(run):
    # residuals ≈ 1e-4: 100× FLOW_TOL, so the certificate (and the verdict) is withheld
    ev = recording.expect(run(T6, steps=250), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds and 1e-5 < ev.details["max_residual"] < 1e-3
    with pytest.raises(HypothesisViolation, match="c_max − 1"):
        theorems.check(T6, c_max=1.0, allow_violation=True)  # no convergence certificate at c = 1: not a control


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_6_flow_tolerance_is_pinned_on_both_sides(run):
    """FLOW_TOL = 1e-6 (the flow's convergence certificate) between two literal instances: the registered pin (250
    Euler steps) ends at a largest residual in (1e-6, 1e-5] and is not converged, so FLOW_TOL ×10 would certify it;
    300 steps end in (1e-7, 1e-6] and are converged, so FLOW_TOL ÷10 would not certify them."""
    result = registry.get("nonlinear_cl.theorem_6")
    pin = dict(inits=16, steps=250)
    assert pin in [dict(c) for c in result.pin_instances()]
    ev = recording.expect(run_spec(run, result, pin), recording.NOT_CONVERGED)
    assert ev.converged is False and 1e-6 < ev.details["max_residual"] <= 1e-5, ev.details["max_residual"]
    assert ev.details["saddle_end_points"] == 0  # unconverged by the residual alone
    ok = run("nonlinear_cl.theorem_6", inits=16, steps=300)
    assert ok.converged and ok.holds and 1e-7 < ok.details["max_residual"] <= 1e-6, ok.explain()


@pytest.mark.parametrize("c, saddle", [(1.0003, True), (1.00003, False)])
def test_theorem_6_saddle_tolerance_at_u_2(c, saddle):
    """At u₂ with b = (1.5 + c, 1.5, …) the largest tangent curvature is c − 1 against a largest |·| of 1: relative
    3e-4 (3 tolerances: a saddle; CURV_RTOL ×10 misses it) and 3e-5 (0.3: a maximum; CURV_RTOL ÷10 calls it a
    saddle)."""
    from theorems.nonlinear_cl import theorem_6 as T

    b = torch.full((1, 6), 1.5, dtype=D)
    b[0, 0] += c
    curv = T.end_point_curvature(_u(6, 0, 1), b)
    assert bool(curv["saddle"][0]) is saddle, curv["relative_largest"]


def test_theorem_6_saddle_end_point_is_escaped():
    """Two equal positive coordinates (b equal) are an exact stationary point of the flow that is not a maximum: the
    certified flow must step off it (an escape) and end at a maximum with no saddle left."""
    from theorems.nonlinear_cl import theorem_6 as T

    Y0, b = _u(6, 1, 1), torch.full((1, 6), 1.5, dtype=D)
    Y, res, curv, escapes = T.certified_flow(Y0[None], b[None], 0.2, 1000)
    assert escapes >= 1 and not bool(curv["saddle"].any()) and float(res.max()) <= 1e-6, (escapes, curv)


# -- Theorem 6's 1-D proof steps are judged at their worst (y(0), b) pair --------------------------------------------
# monkeypatch, not a Pin: T.target is a function no parameter or module constant reaches
@pytest.mark.parametrize("target, call, claim", [("closed_form", 1, "ode_closed_form"),
                                                 ("blowup_time", 2, "blowup_time")])
def test_theorem_6_ode_steps_take_the_worst_pair(monkeypatch, target, call, claim):
    """ONE (y(0), b) pair's printed form (eq. 147, or eq. 150 where it is compared with the numeric blow-up time)
    scaled by 1 + 5e-8 (5 allowances of ODE_RTOL = 1e-8), every other pair as printed: the claim (a max over the
    pairs) must fail at about 5e-8; the best pair would pass."""
    from theorems.core.context import Context
    from theorems.nonlinear_cl import theorem_6 as T

    real, calls = getattr(T, target), []

    def one_pair_off(*args):
        out = real(*args)
        calls.append(1)
        if len(calls) == call:
            out = out.clone()
            out[0] = out[0] * (1 + 5e-8)
        return out

    monkeypatch.setattr(T, target, one_pair_off)
    Y0 = torch.tensor([[0.6, -0.3, 0.2], [0.1, 0.5, -0.8]], dtype=D)
    b = torch.tensor([[[0.5, 0.5, 0.5]], [[1.5, 0.5, 0.5]]], dtype=D)
    claims, _ = T.one_d_proof_steps(Y0, b, Context.make(seed=0))
    c = [c for c in claims if c.name == claim][0]
    assert not c.passed and 2e-8 < c.observed < 1e-7, c


# -- Theorem 6: the basin claims take the worst c of the grid --------------------------------------------------------
# monkeypatch, not a Pin: T.certified_flow is a function no parameter or module constant reaches
def test_theorem_6_basin_claims_take_the_worst_c(monkeypatch):
    """The flow's end points at ONE modulation of the grid (c = 0.3·c_max) patched: the starts the basin gained there
    and one start of basin(c = 0) are sent to −u₁ instead, the other c left as computed. The basin then shrinks from
    c = 0.1·c_max to 0.3·c_max by one start and loses a start of basin(c = 0): both basin_grows (a min over the grid) and basin_inclusion (a max over
    c) must fail; the best c (max for min, min for max) would pass them."""
    import theorems
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_6 as T

    real = T.certified_flow

    def one_c_off(*args, **kw):
        Y, res, curv, escapes = real(*args, **kw)
        Y = Y.clone()
        in0, in1, in2 = (Y[k, :, 0] > 0.999 for k in range(3))
        off = in2 & ~in1  # the starts the basin gained from 0.1·c_max to 0.3·c_max ...
        off[int((in0 & in1 & in2).nonzero()[0])] = True  # ... and one start of basin(c = 0)
        Y[2, off] = -Y[2, off]
        return Y, res, curv, escapes

    monkeypatch.setattr(T, "certified_flow", one_c_off)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched flow
    grows, incl = ev.claim("basin_grows"), ev.claim("basin_inclusion")
    assert not grows.passed and grows.observed < 0, grows
    assert not incl.passed and incl.observed == 1, incl


def test_theorem_6_winner_rule_counts_only_starts_that_reached_a_u_l():
    """LABEL_COS = 0.999 labels an end point by its largest coordinate: start 0 ends at 0.9995 on its predicted u₁
    (reached, agrees), start 1 at 0.99 on u₁ although u₂ blows up first (not reached: not judged). The share is 1 of
    1; LABEL_COS ÷10 would count start 1 (share 1/2), ×10 nothing (share 0)."""
    from theorems.nonlinear_cl import theorem_6

    Y0 = torch.tensor([[0.8, 0.6, 0.0], [0.6, 0.8, 0.0]], dtype=D)  # larger y_l(0) blows up first (equal b)
    Y = torch.tensor([[[0.9995, 0.0316, 0.0], [0.99, 0.141, 0.0]]], dtype=D)
    b = torch.full((1, 1, 3), 0.1, dtype=D)
    claim, details = theorem_6.winner_step(Y0, Y, b)
    assert claim.passed and claim.observed == 1.0 and details["starts_reaching_some_u_l"] == 1, (claim, details)


def test_theorem_6_ode_pairs_keep_y0_from_0_05():
    """The 1-D proof steps judge the pairs with |y_l(0)| ≥ ODE_Y_MIN = 0.05: of y(0) = 0.06, −0.3 and 0.04 the first
    two (ODE_Y_MIN ×10 drops them, ÷10 adds 0.04), and the proof steps hold on them."""
    from theorems.core.context import Context
    from theorems.nonlinear_cl import theorem_6

    Y0 = torch.tensor([[0.06, -0.3, 0.04]], dtype=D)
    b = torch.full((1, 1, 3), 0.5, dtype=D)
    claims, details = theorem_6.one_d_proof_steps(Y0, b, Context.make(seed=0))
    assert details["ode_pairs"] == 2 and all(c.passed for c in claims), (details, claims)


def test_registered_bindings_are_the_documented_ones():
    # where each hypothesis binds, as the module's docstring documents
    assert_registered_bindings("nonlinear_cl.theorem_6", [dict(c_max=0.02)])


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.theorem_6")


def test_bad_input_names_the_hypothesis():
    assert_hypothesis_refused("nonlinear_cl.theorem_6", dict(c_max=-1.0), "c > 0")
