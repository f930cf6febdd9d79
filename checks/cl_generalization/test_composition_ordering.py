"""E3: the sharpest-concentrating composition of augmentations performs best (finite analogue, measured) (paper 003,
`cl_generalization.composition_ordering`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

from checks.cl_generalization.stand_ins import no_training
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, probe, row_ids
from theorems import HypothesisViolation, ParameterError

E3 = "cl_generalization.composition_ordering"


# -- the experiments (measured) ----------------------------------------------------------------------------
def test_composition_ordering_fails_when_a_transformation_destroys_the_class(run):
    from scipy.stats import kendalltau

    ev = run(E3)
    assert ev.details["sharpest"] == "(a, d)"  # the largest nuisance block removed: by construction of the scales
    assert ev.details["concentration_order"][0] == "(a, d)"
    # the recorded correlation, recomputed from the recorded curves (Kendall and Spearman agree in sign here)
    rho = ev.claim("spearman_concentration_vs_error").observed
    tau = kendalltau(ev.details["delta_at_sigma0"], ev.details["mean_test_error"]).statistic
    assert rho > 0 and tau > 0 and abs(rho) >= abs(tau)
    errors = dict(zip(ev.details["compositions"], ev.details["mean_test_error"], strict=True))
    claim = ev.claim("sharpest_is_best")
    assert claim.observed == errors["(a, d)"] and claim.bound == min(v for k, v in errors.items() if k != "(a, d)")
    control = run(E3, destroy="d", allow_violation=True)
    assert control.details["sharpest"] == "(a, d)" and not control.claim("sharpest_is_best").passed


# -- the paper's own preconditions and the declared domains -------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [(E3, dict(destroy="c"), "preserve the class")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


@pytest.mark.parametrize(
    "rid, params, name",
    [(E3, dict(scales=(1.0, 2.0)), "scales")],
)
def test_structural_input_is_refused_by_the_declarations(rid, params, name):
    assert_refused_naming(rid, params, name, ParameterError)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    (P + "composition_ordering", None, dict(destroy="e"), "transformations preserve the class"),
    (P + "composition_ordering", None, dict(destroy="none"), None),
    ('cl_generalization.composition_ordering', None, dict(destroy='b'), 'transformations preserve the class'),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_composition_ordering_runs_the_compositions_the_slide_prints():
    """The slide fixes (a) and composes it with each other transformation: (a, b), (a, c), (a, d), (a, e)."""
    from theorems.cl_generalization.composition_ordering import COMPOSITIONS, _name

    assert [_name(c) for c in COMPOSITIONS] == ["(a, b)", "(a, c)", "(a, d)", "(a, e)"]


# monkeypatch, not a Pin: it replaces CO.measure, code that a Pin (a parameter or constant set to a literal) cannot move
@pytest.mark.parametrize("errs, sharpest_best, rho", [
    ([0.1, 0.3, 0.3, 0.3], True, None),   # the sharpest composition (smallest δ) is the best: holds
    ([0.3, 0.3, 0.3, 0.1], False, None),  # the least concentrated is the best: fails
    ([0.2, 0.2, 0.2, 0.2], True, 0.0),    # every composition alike: a tie holds (≤), no correlation (not NaN)
])
def test_composition_ordering_on_literal_measurements(monkeypatch, errs, sharpest_best, rho):
    """δ(σ₀) = 0.1, 0.2, 0.3, 0.4 for (a, b) … (a, e) and literal mean errors: the claim compares the composition
    with the smallest δ against the best of the others; the correlation is 0 where the errors are all equal."""
    from theorems.cl_generalization import composition_ordering as CO

    def measure(p, ctx):
        return dict(delta=[0.1, 0.2, 0.3, 0.4], test_err=[[e] for e in errs], train_err=[[0.0]] * 4,
                    record=no_training())

    monkeypatch.setattr(CO, "measure", measure)
    ev = probe(CO.ID)
    c = ev.claim("sharpest_is_best")
    assert c.passed is sharpest_best and ev.details["sharpest"] == ev.details["compositions"][0], (c, ev.details)
    if rho is not None:
        assert ev.claim("spearman_concentration_vs_error").observed == rho
