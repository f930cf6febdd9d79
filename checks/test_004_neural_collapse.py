"""CI gate for paper 004 (Súkeník, Lampert, Mondelli): Lemma 4.2, the UFM optima.

Status asserted: ``verified-corrected``. The corrected statement holds on hypothesis-generated instances,
the printed one has a concrete counterexample (MSE at d = K) and a wrong constant (the MSE row norm),
and every assertion is shown to fail on a negative control (d = K−1 for CE, λ = 0, a wrong constant).
"""

from __future__ import annotations

import functools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import theorems
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse.lemma_4_2 import ID, NC2_TOL
from theorems.neural_collapse.ufm import closed_form, mse_signed_simplex_value, printed_mse_row_norm
from theorems.strategies import ufm_params

# How far a counterexample must sit from the printed claim to count: far outside every tolerance.
COUNTEREXAMPLE_MARGIN = 1.05
# NC2 of the wrong variant at an optimum is 1/√K exactly; the optimiser's certificate gives ~1e-7.
REFERENCE_RTOL = 1e-5


@functools.lru_cache(maxsize=None)
def _cached(restarts: int, items: tuple) -> theorems.Evidence:
    return theorems.check(ID, restarts=restarts, **dict(items))


def run(suite, **params) -> theorems.Evidence:
    """One instance at the suite's restarts; fixed instances shared by several checks run once."""
    return _cached(suite.restarts, tuple(sorted(params.items())))


def test_registered_with_the_status_the_suite_asserts():
    result = theorems.get(ID)
    assert ID in theorems.ids()
    assert str(result.status) == "verified-corrected"
    assert result.default_form == "corrected"
    assert result.correction and result.correction_reason


# -- the corrected statement holds ---------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("loss", ["mse", "ce"])
@given(data=st.data())
def test_corrected_lemma_holds_on_generated_instances(loss, suite, data):
    params = data.draw(ufm_params(loss=loss), label="params")
    ev = run(suite, **params)
    assert ev.converged, ev.explain()
    assert ev.holds, ev.explain()
    assert 0.0 < ev.tightness <= 1.0 + 1e-7, ev.explain()


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_default_instance_holds_and_shows_the_other_nc2_reference(loss):
    ev = theorems.check(ID, loss=loss)
    assert ev.holds and ev.converged, ev.explain()
    # Independent structure check: at the MSE optimum the Gram is orthogonal, so NC2A = 1/√K; at the CE
    # optimum it is a simplex ETF, so NC2B = 1/√K (digest §5.1 item 4).
    other = "nc2a" if loss == "mse" else "nc2b"
    assert ev.details[f"best_{other}"] == pytest.approx(1 / math.sqrt(ev.params["K"]), rel=REFERENCE_RTOL)
    json.dumps(ev.to_dict(), allow_nan=False)


def test_printed_ce_statement_holds_at_d_equal_K():
    ev = theorems.check(ID, loss="ce", K=4, d=4, form="as_printed")
    assert ev.holds, ev.explain()


# -- the printed statement is false: counterexample and wrong constant ----------------------------------
@pytest.mark.parametrize("K", [3, 4, 5])
def test_printed_mse_statement_fails_at_d_equal_K(K, suite):
    ev = run(suite, loss="mse", K=K, d=K, lam=0.05, form="as_printed")
    assert ev.converged, ev.explain()
    assert not ev.holds
    nc2b = ev.claim("optimum_collapsed_nc2b")
    assert not nc2b.passed and nc2b.observed == pytest.approx(1 / math.sqrt(K), rel=REFERENCE_RTOL)
    assert not ev.claim("best_run_reaches_closed_form").passed
    assert ev.observed >= COUNTEREXAMPLE_MARGIN * ev.bound
    # The optimiser's best is the global optimum the digest derives independently: a signed simplex.
    assert ev.observed == pytest.approx(mse_signed_simplex_value(K, K, 0.05), rel=1e-8)
    # ... and the corrected form refuses d = K for MSE, naming the hypothesis.
    with pytest.raises(HypothesisViolation, match=r"d ≥ K\+1"):
        theorems.check(ID, loss="mse", K=K, d=K)


def test_printed_mse_row_norm_is_wrong_and_corrected_one_holds(suite):
    printed = run(suite, loss="mse", form="as_printed")
    corrected = run(suite, loss="mse")
    K, d, lam = 4, 6, 0.05
    assert corrected.claim("row_norm").passed
    wrong = printed.claim("row_norm_as_printed")
    assert not wrong.passed and not printed.holds
    z_star, z_printed = closed_form("mse", K, d, lam).row_norm, printed_mse_row_norm(K, d, lam)
    assert wrong.observed == pytest.approx(abs(z_star - z_printed) / z_printed, rel=1e-5)
    # The collapse part of the printed statement holds at d ≥ K+1: only the constant is wrong.
    assert all(c.passed for c in printed.claims if c.name.startswith("optimum_collapsed"))
    assert not printed.claim("converse_minimiser_is_c_star").passed


# -- negative controls: the same assertions fail outside the hypotheses -------------------------------------
def test_control_ce_below_simplex_dimension(suite):
    ev = run(suite, loss="ce", K=4, d=3, allow_violation=True)
    assert ev.converged and not ev.holds
    assert not ev.claim("best_run_reaches_closed_form").passed
    assert ev.observed >= COUNTEREXAMPLE_MARGIN * ev.bound
    assert ev.claim("optimum_collapsed_nc2a").observed >= 0.3
    assert ev.claim("no_start_beats_closed_form").passed  # the lower bound itself holds for any d


def test_control_mse_without_weight_decay_has_noncollapsed_optima(suite):
    ev = run(suite, loss="mse", K=3, n=4, d=10, lam=0.0, allow_violation=True)
    assert not ev.holds
    assert ev.observed <= 1e-10  # zero loss is reached ...
    assert ev.claim("optimum_collapsed_nc1").observed >= 0.1  # ... by points far from collapse
    assert not ev.claim("optimum_collapsed_nc2b").passed


def test_control_ce_without_weight_decay_has_no_minimiser(suite):
    ev = run(suite, loss="ce", lam=0.0, allow_violation=True)
    assert not ev.holds
    assert not ev.claim("best_run_reaches_closed_form").passed  # infimum 0 is not attained
    assert min(ev.details["best_row_norms"]) > 3 * closed_form("ce", 4, 6, 0.05).row_norm


@pytest.mark.parametrize(
    "scale, breaks",
    [
        (1.001, ["no_start_beats_closed_form", "converse_no_other_c"]),
        (0.999, ["best_run_reaches_closed_form", "converse_attains_at_unique_c"]),
        (2.0, ["converse_noncollapsed_pair_misses"]),
    ],
)
def test_control_wrong_constant_in_closed_form(scale, breaks, suite):
    ev = run(suite, loss="ce", closed_form_scale=scale, allow_violation=True)
    assert not ev.holds
    for name in breaks:
        assert not ev.claim(name).passed, ev.explain()


# Every claim the corrected check asserts must fail on at least one of these instances (outside the
# hypotheses, a wrong constant, or the printed statement): a claim no control can break is a defect.
CONTROLS = [
    dict(loss="ce", K=4, d=3, allow_violation=True),
    dict(loss="ce", lam=0.0, allow_violation=True),
    dict(loss="mse", K=3, n=4, d=10, lam=0.0, allow_violation=True),
    dict(loss="mse", K=4, d=4, lam=0.05, form="as_printed"),
    dict(loss="mse", form="as_printed"),
    *(dict(loss=loss, closed_form_scale=scale, allow_violation=True)
      for loss in ("ce", "mse") for scale in (1.001, 0.999, 2.0)),
]


def test_every_claim_has_a_negative_control(suite):
    asserted = {c.name for loss in ("mse", "ce") for c in run(suite, loss=loss).claims}
    broken = {c.name.replace("_as_printed", "") for params in CONTROLS for c in run(suite, **params).failed_claims}
    assert asserted <= broken, f"claims no control breaks: {sorted(asserted - broken)}"


def test_nc2_tolerance_separates_the_counterexample():
    # The tolerance on NC2 must be far below the smallest counterexample value 1/√K at the largest K tried.
    assert NC2_TOL < 0.01 / math.sqrt(10)


# -- bad input --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, hypothesis",
    [
        (dict(K=1), "K ≥ 2"),
        (dict(n=0), "n ≥ 1"),
        (dict(lam=0.0), "λ > 0"),
        (dict(lam=-0.1), "λ ≥ 0"),
        (dict(lam=math.nan), "λ finite"),
        (dict(loss="mse", K=4, d=4), "d ≥ K+1"),
        (dict(loss="ce", K=4, d=3), "d ≥ K"),
        (dict(loss="ce", K=2, d=2), "d ≥ 3"),
        (dict(loss="hinge"), "loss is one of"),
        (dict(K=4.5), "K is an integer"),
        (dict(n="3"), "n is an integer"),
        (dict(K=True), "K is an integer"),
        (dict(closed_form_scale=1.1), "exact closed-form constant"),
    ],
)
def test_bad_input_names_the_hypothesis(params, hypothesis):
    with pytest.raises(HypothesisViolation) as err:
        theorems.check(ID, **params)
    assert hypothesis in str(err.value)
    assert isinstance(err.value, ValueError)


def test_printed_form_allows_d_equal_K_but_not_below():
    with pytest.raises(HypothesisViolation, match="d ≥ K"):
        theorems.check(ID, loss="mse", K=4, d=3, form="as_printed")


@pytest.mark.parametrize("params", [dict(K=1), dict(n=0), dict(lam=-1.0), dict(K=2.5), dict(loss="hinge")])
def test_structural_violations_are_not_bypassable(params):
    with pytest.raises(HypothesisViolation):
        theorems.check(ID, allow_violation=True, **params)


def test_unknown_parameter_and_form():
    with pytest.raises(ParameterError, match="takes no parameter 'lambda'"):
        theorems.check(ID, **{"lambda": 0.1})
    with pytest.raises(ParameterError, match="no form"):
        theorems.check(ID, form="printed")


# -- determinism ------------------------------------------------------------------------------------------
def test_seeded_runs_give_the_same_numbers():
    a = theorems.check(ID, loss="ce", seed=7).to_dict()
    b = theorems.check(ID, loss="ce", seed=7).to_dict()
    for ev in (a, b):
        ev.pop("elapsed_s")
    assert a == b


def test_unconverged_optimiser_never_holds():
    # 30 L-BFGS iterations are far too few for MSE (weakly curved direction, digest A7): no certificate.
    ev = theorems.check(ID, loss="mse", max_iter=30)
    assert ev.converged is False
    assert not ev.holds
    assert "NOT CONVERGED" in ev.explain()


# -- the command line gates a script on the same verdicts --------------------------------------------------
def test_cli_exit_codes_follow_the_verdict():
    import subprocess
    import sys

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "theorems", "check", ID, *args], capture_output=True, text=True)

    assert cli("loss=ce").returncode == 0  # the corrected statement holds
    printed = cli("loss=mse", "K=3", "d=3", "form=as_printed", "--json")
    assert printed.returncode == 1  # the printed MSE statement fails at d = K
    assert json.loads(printed.stdout)["holds"] is False
    refused = cli("loss=mse", "K=3", "d=3")
    assert refused.returncode == 2 and "d ≥ K+1" in refused.stderr and "Traceback" not in refused.stderr
