"""The checks particular to ``nonlinear_cl.batchnorm`` (Appendix D: Definition 5, Lemma 6 (eq. 166), Corollary 3 (eqs.
175–179); App. E.2, Table 1): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge, assert_named_iff, row_ids, short_row_ids
from theorems.core.context import Context
from theorems.core.registry import get, validate
from theorems.nonlinear_cl import batchnorm

# ======================================================================================================================
# BatchNorm (App. D: Def. 5, Lemma 6, Corollary 3). Runs ask for form="as_printed", the key the conformance checks use, so each instance is computed once.
# ======================================================================================================================
BN = "nonlinear_cl.batchnorm"
AP = "as_printed"
N = "nonlinear_cl."


# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # BatchNorm (Lemma 6, Corollary 3)
    (N + "batchnorm", None, dict(activation="tanh"), "Assumption 1", True),
    (N + "batchnorm", None, dict(activation="leaky"), "Assumption 1", False),
    (N + "batchnorm", None, dict(var_backprop=True), "Definition 5", True),
    (N + "batchnorm", None, dict(var_backprop=False), "Definition 5", False),
    (N + "batchnorm", None, dict(bn_stats="per_view"), "eq. (164)", True),
    (N + "batchnorm", None, dict(bn_stats="joint"), "eq. (164)", False),
    (N + "batchnorm", None, dict(l2_normalise=True), "f₂ = V f₁^bn", True),
    (N + "batchnorm", None, dict(l2_normalise=False), "f₂ = V f₁^bn", False),
    (N + "batchnorm", None, dict(dependent=True), "Assumption 2(iii)", True),
    (N + "batchnorm", None, dict(dependent=False), "Assumption 2(iii)", False),
    (N + "batchnorm", None, dict(formula_scale=1 + 1e-12), "exact eqs. (166), (178)", True),
    (N + "batchnorm", None, dict(formula_scale=1 - 1e-12), "exact eqs. (166), (178)", True),
    (N + "batchnorm", None, dict(formula_scale=1.0), "exact eqs. (166), (178)", False),
]


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('nonlinear_cl.batchnorm', None, dict(activation='tanh'), "Assumption 1: h(x) = h'(x)x"),
    ('nonlinear_cl.batchnorm', None, dict(bn_stats='per_view'), 'eq. (164): μ_k, σ_k over all 2N samples'),
    ('nonlinear_cl.batchnorm', None, dict(l2_normalise=True), 'f₂ = V f₁^bn'),
    ('nonlinear_cl.batchnorm', None, dict(var_backprop=True), 'Definition 5: σ² not backpropagated'),
    ('nonlinear_cl.batchnorm', None, dict(dependent=True), 'Assumption 2(iii): x_k conditionally independent given z'),
    ('nonlinear_cl.batchnorm', None, dict(formula_scale=0.5), 'exact eqs. (166), (178)'),
]


# -- BatchNorm -----------------------------------------------------------------------------------------------------------
def test_batchnorm_lemma_6_is_the_def_5_gradient_only(run):
    ev = run(BN, form=AP)
    assert ev.holds, ev.explain()
    assert ev.details["lemma_6_w_rel_err"] < 1e-13
    # eq. (166) is the gradient of mean-backprop BN only: vanilla BN (σ² backpropagated) differs by O(1)
    assert ev.details["vanilla_bn_vs_eq_166"] > 0.1


def test_batchnorm_detaching_mu_is_inert_for_the_stated_loss_not_for_the_authors_code(run):
    ev = run(BN, form=AP)
    assert ev.claim("mean_detach_inert_energy").observed < 1e-13
    assert ev.claim("mean_detach_inert_infonce").observed < 1e-13
    # the released implementation: per-view statistics and ℓ2-normalised outputs each make μ matter
    assert ev.details["mu_detach_change_authors"] > 0.1
    assert ev.details["mu_detach_change_l2_only"] > 0.1
    assert ev.details["mu_detach_change_per_view_only"] > 1e-3


@pytest.mark.parametrize("params, broken", [
    (dict(activation="tanh"), {"lemma_6_w"}),
    (dict(var_backprop=True), {"lemma_6_w"}),
    (dict(bn_stats="per_view"), {"mean_detach_inert_energy"}),
    (dict(l2_normalise=True), {"mean_detach_inert_infonce", "mean_detach_inert_energy"}),
    (dict(dependent=True), {"corollary_3_dynamics", "s_bn_eigenvector"}),
])
def test_batchnorm_each_control_breaks_what_it_targets(run, params, broken):
    ev = run(BN, form=AP, allow_violation=True, **params)
    assert broken <= {c.name for c in ev.failed_bounds}, ev.explain()


def test_batchnorm_tolerance_pinned_just_outside(run):
    ev = run(BN, form=AP, allow_violation=True, formula_scale=1 + 1e-9)
    c = ev.claim("lemma_6_w")
    assert not c.passed and c.observed == pytest.approx(1e-9, rel=1e-3)  # 10× above RTOL = 1e-10
    assert not ev.claim("corollary_3_dynamics").passed


def test_batchnorm_binding_instances(run):
    small = run(BN, form=AP, n_small=True)
    assert small.holds and small.details["min_sigma"] < 0.01 * run(BN, form=AP).details["min_sigma"], small.explain()
    weak = run(BN, form=AP, weak_rf=0.01)
    assert weak.holds and weak.details["lambda_gap_bn"] < 0.05 * weak.details["lambda_bn"], weak.explain()


def test_batchnorm_rf_uniformity_is_not_general(run):
    """App. D: with BN, λ^bn − d^bn_k is 'almost constant across RFs'. Recorded: on the default instance BN makes the
    spread larger (5.5 vs 1.2); where one RF dominates (weak_rf = 0.01) it makes it far smaller (39 vs 1e4)."""
    ev = run(BN, form=AP)
    assert ev.claim("rf_spread_bn").observed > ev.claim("rf_spread_plain").observed
    weak = run(BN, form=AP, weak_rf=0.01)
    assert weak.claim("rf_spread_bn").observed < 0.01 * weak.claim("rf_spread_plain").observed


@pytest.mark.parametrize("rid, form, params, name, present", EDGES, ids=short_row_ids(EDGES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: batchnorm.lemma_6_formula is a function no parameter or module constant reaches
@pytest.mark.parametrize("scale,holds", [(1 + 3e-10, False), (1 + 3e-11, True)])
def test_lemma_6_v_identity_fails_three_allowances_out(monkeypatch, scale, holds):
    formula = batchnorm.lemma_6_formula

    def patched(*args):
        gw, gv = formula(*args)
        gv = gv.clone()
        flat = gv.view(-1)
        flat[int(flat.abs().argmax())] *= scale  # the largest entry: the relative error is exactly scale − 1
        return gw, gv

    monkeypatch.setattr(batchnorm, "lemma_6_formula", patched)
    result = get("nonlinear_cl.batchnorm")
    p, violations = validate(result, {}, result.default_form)
    assert not violations
    claims, _ = batchnorm.lemma_6_claims(p, Context.make(seed=0))
    (c,) = [c for c in claims if c.name == "lemma_6_v"]
    assert c.passed is holds, c
