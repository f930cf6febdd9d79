"""Lemma 4.2: every global optimum of the UFM (CE / MSE) is collapsed, and conversely (paper 004,
`neural_collapse.lemma_4_2`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_registered_pin, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.core import recording
from theorems.core.registry import check
from theorems.neural_collapse import lemma_4_2
from theorems.neural_collapse import lemma_4_2 as L42
from theorems.neural_collapse.rank_certificate import collapse_floor, rank_inequality_slack
from theorems.neural_collapse.ufm import closed_form, mse_signed_simplex_value, printed_mse_row_norm

ID = L42.ID


def test_registered_status_and_what_it_rests_on():
    result = theorems.get(ID)
    assert str(result.status) == "verified-corrected" and result.default_form == "corrected"
    assert result.counterexamples == L42.COUNTEREXAMPLES and result.proof_errata == L42.PROOF_ERRATA
    assert {b.params["loss"] for b in result.binding} == {"mse", "ce"}


# -- the hypotheses each form names ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, form, hypothesis",
    [
        (dict(lam=0.0), "corrected", "λ > 0"),
        (dict(loss="mse", K=4, d=4), "corrected", "d ≥ K+1"),
        (dict(loss="ce", K=4, d=3), "corrected", "d ≥ K (Definition 3.4"),
        (dict(loss="mse", K=4, d=3), "as_printed", "d ≥ K (Definition 3.4"),
        (dict(closed_form_scale=1.1), "corrected", "exact closed-form constant"),
        (dict(row_norm_scale=1.1), "corrected", "exact optimal row norm"),
        (dict(perturb=1e-3), "corrected", "judge the optimiser's points as found"),
    ],
)
def test_bad_input_names_the_hypothesis(params, form, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(ID, form=form, **params)
    assert hypothesis in str(err.value)


@pytest.mark.parametrize("params, name", [(dict(K=1), "K"), (dict(n=0), "n"), (dict(lam=-1.0), "lam"),
                                          (dict(lam=math.nan), "lam"), (dict(perturb=-1.0), "perturb"),
                                          (dict(d=2, K=2), "d")])
def test_structural_violations_are_parameter_errors_even_for_controls(params, name):
    with pytest.raises(ParameterError, match=name):
        theorems.check(ID, allow_violation=True, **params)


# -- controls: each tolerance is pinned by a control ~10× outside it ------------------------------------------
PINNED = [
    (L42.CONTROLS[0], ["best_run_reaches_closed_form", "optimum_collapsed_nc2a"]),  # CE at d = K − 1
    (L42.CONTROLS[1], ["optimum_collapsed_nc1", "optimum_collapsed_nc2b", "optimum_collapsed_nc3"]),  # λ = 0
    # LOWER_RTOL, CONVERSE_VALUE_RTOL, CONVERSE_C_RTOL, NC and row-norm tolerances: scales as in L42.CONTROLS
    (L42.CONTROLS[2], ["no_start_beats_closed_form", "converse_attains_at_unique_c", "converse_minimiser_is_c_star",
                       "optimum_collapsed_nc1", "optimum_collapsed_nc2a", "optimum_collapsed_nc3", "row_norm"]),
    (L42.CONTROLS[3], ["best_run_reaches_closed_form"]),  # REACH_RTOL (scale 1 − 3e-7)
    (L42.CONTROLS[4], ["converse_no_other_c"]),
    (L42.CONTROLS[5], ["converse_noncollapsed_pair_misses"]),
]


@pytest.mark.parametrize("spec, breaks", PINNED, ids=[str(i) for i in range(len(PINNED))])
def test_control_breaks_the_claims_it_pins(spec, breaks, run):
    from theorems.core.verdict import run_spec

    ev = run_spec(run, theorems.get(ID), spec)
    assert ev.converged, ev.explain()
    for name in breaks:
        assert not ev.claim(name).passed, f"{name} survives {spec}\n{ev.explain()}"


def test_pin_instance_holds_without_the_wrong_constants(run):
    ev = run(ID, **L42.PIN)
    assert ev.holds, ev.explain()


def test_every_bound_claim_of_either_loss_is_pinned():
    pinned = {name for _, names in PINNED for name in names}
    for nc2 in ("nc2a", "nc2b"):
        assert f"optimum_collapsed_{nc2}" in pinned
    assert {"no_start_beats_closed_form", "best_run_reaches_closed_form", "row_norm", "converse_attains_at_unique_c",
            "converse_minimiser_is_c_star", "converse_no_other_c", "converse_noncollapsed_pair_misses"} <= pinned


# NC2 of the wrong variant at an optimum is 1/√K exactly; the optimiser's certificate gives ~1e-7.
REFERENCE_RTOL = 1e-5


# -- the corrected statement, where its hypotheses bind --------------------------------------------------
@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_default_instance_shows_the_other_nc2_reference(loss, run):
    ev = run(ID, loss=loss)
    assert ev.holds and ev.converged, ev.explain()
    # Independent structure check: at the MSE optimum the Gram is orthogonal, so NC2A = 1/√K; at the CE
    # optimum it is a simplex ETF, so NC2B = 1/√K.
    # The collapse claims judge the certified starts that reach L* (not a fallback to the best start).
    assert ev.details["starts_reaching_closed_form"] >= 1
    other = "nc2a" if loss == "mse" else "nc2b"
    assert ev.details[f"best_{other}"] == pytest.approx(1 / math.sqrt(ev.params["K"]), rel=REFERENCE_RTOL)


def test_printed_ce_statement_holds_at_d_equal_K(run):
    ev = run(ID, form="as_printed", loss="ce", K=4, d=4)
    assert ev.holds, ev.explain()


# -- the counterexample: MSE at d = K, inside Definition 3.4's d ≥ K ----------------------------------------
def test_counterexample_numbers_against_independent_computation(run):
    cx = L42.COUNTEREXAMPLES[0]
    K, d, lam = cx["K"], cx["d"], cx["lam"]
    ev = run(ID, form="as_printed", **cx)
    assert ev.converged and not ev.holds and not ev.violations, ev.explain()
    nc2b = ev.claim("optimum_collapsed_nc2b")
    assert nc2b.kind == "bound" and not nc2b.passed
    assert nc2b.observed == pytest.approx(1 / math.sqrt(K), rel=REFERENCE_RTOL)
    # The certified optimum is the signed simplex, value ½c/(d+c), c = d/(K−1) + λK (computed apart) ...
    assert ev.observed == pytest.approx(mse_signed_simplex_value(K, d, lam), rel=1e-8)
    # ... 5.8× the collapsed value Kλ/(2(d+Kλ)), which no feasible pair reaches.
    assert ev.observed / (K * lam / (2 * (d + K * lam))) == pytest.approx(5.819, rel=1e-3)
    # Certificate: the rank inequality holds at every start and floors max(NC2B, NC3) at δ_K.
    assert ev.claim("rank_inequality").kind == "identity" and ev.claim("rank_inequality").passed
    import torch  # the claim is the minimum over the starts: at most the best start's own slack

    best = rank_inequality_slack(torch.tensor(ev.details["best_nc2b"], dtype=torch.float64),
                                 torch.tensor(ev.details["best_nc3"], dtype=torch.float64), K)
    assert ev.claim("rank_inequality").observed <= float(best) + 1e-12
    assert max(nc2b.observed, ev.claim("optimum_collapsed_nc3").observed) >= collapse_floor(K)
    assert "rank" in ev.details["no_witness_certificate"]
    with pytest.raises(HypothesisViolation, match=r"d ≥ K\+1"):
        theorems.check(ID, loss="mse", K=K, d=K)


# -- the proof erratum: the printed MSE row norm -------------------------------------------------------------
def test_proof_erratum_printed_row_norm(run):
    printed = run(ID, form="as_printed", loss="mse")
    K, d, lam = 4, 6, 0.05
    wrong = printed.claim("row_norm_as_printed")
    assert wrong.kind == "proof_step" and not wrong.passed
    z_star, z_printed = closed_form("mse", K, d, lam).row_norm, printed_mse_row_norm(K, d, lam)
    assert (z_star, z_printed) == pytest.approx((0.395079, 0.340207), abs=1e-6)
    assert wrong.observed == pytest.approx(abs(z_star - z_printed) / z_printed, rel=1e-5)
    # The statement's bound claims hold at d ≥ K+1: the erratum is not a verdict on the lemma.
    assert printed.holds and not printed.failed_bounds, printed.explain()
    assert run(ID, loss="mse").claim("row_norm").passed


def test_unconverged_optimiser_never_holds():
    # 10 iterations are far too few for MSE (weakly curved direction): no certificate, no verdict.
    ev = recording.expect(theorems.check(ID, loss="mse", max_iter=10), recording.NOT_CONVERGED)
    assert ev.converged is False and not ev.holds
    assert "NOT CONVERGED" in ev.explain()


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # Lemma 4.2 (corrected form by default): d ≥ K (Definition 3.4), d ≥ K+1 for MSE; λ > 0; the falsifying switches
    ("lemma_4_2", None, dict(d=3, K=4, loss="ce"), "d ≥ K (Definition 3.4"),
    ("lemma_4_2", None, dict(d=3, K=3, loss="ce"), None),
    ("lemma_4_2", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE)"),
    ("lemma_4_2", None, dict(d=4, K=3, loss="mse"), None),
    ("lemma_4_2", "as_printed", dict(d=3, K=3, loss="mse"), None),  # the printed lemma asks d ≥ K only
    ("lemma_4_2", None, dict(lam=0.0), "λ > 0"),
    ("lemma_4_2", None, dict(row_norm_scale=1.001), "exact optimal row norm"),
    ("lemma_4_2", None, dict(closed_form_scale=1.001), "exact closed-form constant"),
    ("lemma_4_2", None, dict(perturb=0.001), "judge the optimiser's points as found"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


# Lemma 4.2 (PIN = CE, K = 3, n = 2, d = 4): every tolerance of the corrected statement
PIN_42 = dict(loss="ce", K=3, n=2, d=4)


PINS_42 = [
    (dict(PIN_42, closed_form_scale=1 + 3e-10, row_norm_scale=1 + 3e-4, allow_violation=True),
     ("no_start_beats_closed_form", "row_norm")),  # LOWER_RTOL, ROW_NORM_RTOL
    (dict(PIN_42, closed_form_scale=1 - 3e-7, allow_violation=True), ("best_run_reaches_closed_form",)),  # REACH_RTOL
    (dict(PIN_42, perturb=3e-3, allow_violation=True),
     ("optimum_collapsed_nc1", "optimum_collapsed_nc2a", "optimum_collapsed_nc3")),  # NC1_TOL, NC2_TOL, NC3_TOL
    (dict(PIN_42, row_norm_scale=1 + 3e-6, allow_violation=True), ("converse_minimiser_is_c_star",)),  # CONVERSE_C
    (dict(PIN_42, closed_form_scale=1 + 1e-9, row_norm_scale=1 + 1e-5, perturb=5e-3, allow_violation=True),
     ("converse_attains_at_unique_c",)),  # CONVERSE_VALUE_RTOL
]


@pytest.mark.parametrize("control, claims", PINS_42, ids=[str(i) for i in range(len(PINS_42))])
def test_lemma_4_2_tolerances_are_pinned_by_registered_controls(run, control, claims):
    assert_registered_pin(run, NC + "lemma_4_2", control, claims)


# -- lemma_4_2: REACH_RTOL 1e-7, REACH_ATOL 1e-12, NONCOLLAPSED_MARGIN_RTOL 1e-6 ------------------------------------
L_STAR = closed_form("ce", 3, 4, 0.05).value  # the PIN instance's closed form (an independent computation)


def test_reach_tolerances_are_pinned_by_literal_values():
    assert not lemma_4_2.reach_claim(L_STAR * (1 + 3e-7), L_STAR).passed  # 3 allowances of REACH_RTOL
    assert lemma_4_2.reach_claim(L_STAR * (1 + 3e-8), L_STAR).passed
    # L* = 0 (λ = 0): the absolute floor alone decides
    assert not lemma_4_2.reach_claim(4e-12, 0.0).passed  # 4 allowances of REACH_ATOL
    assert lemma_4_2.reach_claim(3e-13, 0.0).passed


def test_noncollapsed_margin_is_pinned_by_literal_values():
    # the pair must stay above L* by ≥ 1e-6·L*: 3e-7·L* is inside the rounding floor (fails), 4e-6·L* clears it
    assert not lemma_4_2.noncollapsed_claim(L_STAR * (1 + 3e-7), L_STAR).passed
    assert lemma_4_2.noncollapsed_claim(L_STAR * (1 + 4e-6), L_STAR).passed
    assert not lemma_4_2.noncollapsed_claim(3e-19, 0.0).passed  # L* = 0: the floor is 1e-6·REACH_ATOL = 1e-18
    assert lemma_4_2.noncollapsed_claim(4e-18, 0.0).passed


# monkeypatch, not a Pin: it replaces lemma_4_2.reach_claim: code, which a Pin cannot move
def test_lemma_4_2_reach_routes_through_reach_claim(monkeypatch):
    """One PIN solve: the reported best value, moved by a literal 3 allowances of REACH_RTOL above its L*, fails
    the registered claim; evaluate's claim is reach_claim's."""
    ev = check(lemma_4_2.ID, **lemma_4_2.PIN)
    claim = next(c for c in ev.claims if c.name == "best_run_reaches_closed_form")
    assert claim.passed
    assert not lemma_4_2.reach_claim(claim.observed * (1 + 3e-7) + 3e-7 * claim.bound, claim.bound).passed
    calls = []
    monkeypatch.setattr(lemma_4_2, "reach_claim", lambda v, ref: calls.append((v, ref)) or claim)
    check(lemma_4_2.ID, **lemma_4_2.PIN)
    assert calls == [(claim.observed, claim.bound)]


def test_lemma_4_2_converse_is_asked_only_where_lambda_is_positive(run):
    """The converse (a collapsed pair is optimal after exactly one rescaling c*) is Lemma 4.2's for λ > 0: the
    registered λ = 0 control (MSE, zero-loss optima that are not collapsed) judges the optimiser's points only."""
    from theorems.core import registry
    from theorems.core.verdict import run_spec
    from theorems.neural_collapse import lemma_4_2 as L

    control = dict(loss="mse", K=3, n=2, d=6, lam=0.0, allow_violation=True)
    assert control in [dict(c) for c in registry.get(L.ID).controls]
    ev = recording.expect(run_spec(run, registry.get(L.ID), control), recording.FAILS)
    assert not [c.name for c in ev.claims if c.name.startswith("converse")], ev.explain()
