"""The checks particular to ``deep_fusion.definition_1`` (§One-Layer Fusion without Noise, Definition 1 (eq. 2)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_identity_pin, row_ids
from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.deep_fusion import definition_1

D1 = definition_1.ID


EDGES = [
    # deep_fusion.definition_1: the exact reference enumerates the out-of-cluster samples (≤ REFERENCE_MAX_N)
    ("deep_fusion.definition_1", None, dict(K=2, nu=10, imbalance=0), None),  # N − ν = 10 = REFERENCE_MAX_N
    ("deep_fusion.definition_1", None, dict(K=2, nu=11, imbalance=0), "out-of-cluster samples"),  # 11
    ("deep_fusion.definition_1", None, dict(row_norm=1.5), "unit-norm rows"),
    ("deep_fusion.definition_1", None, dict(patterns="positive"), "all sign patterns"),
    ("deep_fusion.definition_1", None, dict(instance="intersecting"), "x_i ∉ 𝒰_k"),
    # _common.structural_violations: r < m (m = r is the whole space), every result that builds a union
    ("deep_fusion.definition_1", None, dict(m=2, r=2, K=2, nu=2), "subspace dimension r < m"),
    ("deep_fusion.definition_1", None, dict(m=3, r=2, K=2, nu=2), None),
    # ... arrangement='angle' needs m ≥ 2r (K = 2) or (K+1)r
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=2, r=2, m=4, nu=2), None),
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=2, r=2, m=3, nu=2), "arrangement='angle'"),
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=3, r=1, m=4, nu=2), None),
    ("deep_fusion.definition_1", None, dict(arrangement="angle", K=3, r=1, m=3, nu=2), "arrangement='angle'"),
    # ... arrangement='dependent' needs K ≥ 3 (Definition 1 does not ask for independence)
    ("deep_fusion.definition_1", None, dict(arrangement="dependent", K=3, r=1, m=3, nu=2), None),
    ("deep_fusion.definition_1", None, dict(arrangement="dependent", K=2, r=1, m=3, nu=2), "K ≥ 3"),
    # definition_1: the intersecting instance is inside the hypotheses once its sample leaves 𝒰_1
    ("deep_fusion.definition_1", None, dict(instance="intersecting", offset=1e-3), None),
    ("deep_fusion.definition_1", None, dict(row_norm=1.0), None),
]


REFUSALS = [
    ("deep_fusion.definition_1", dict(row_norm=1.5), "unit-norm rows"),
    ("deep_fusion.definition_1", dict(instance="intersecting"), "x_i ∉ 𝒰_k"),
    ("deep_fusion.definition_1", dict(patterns="positive"), "all sign patterns"),
]


# ======================================================================================================
# Definition 1, noise lemma
# ======================================================================================================
def test_definition_1_offset_sets_the_margin(run):
    """The shared sample at distance 0.8·offset from 𝒰_1 bounds ρ_1 by that distance (a hand bound)."""
    ev = run(D1, instance="intersecting", offset=1e-3)
    assert 0 < ev.details["rho_min"] <= 0.8e-3 * (1 + 1e-9)


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, params, name", REFUSALS)
def test_hypothesis_is_named(rid, params, name):
    with pytest.raises(HypothesisViolation, match=name.replace("(", r"\(").replace(")", r"\)")):
        theorems.check(rid, **params)


def test_the_signed_margin_control_fails_converged(run):
    ev = run("deep_fusion.definition_1", patterns="positive", signs="arbitrary", allow_violation=True)
    assert ev.details["bracket_width_max"] < 1e-12  # the brackets close (GAP_TOL is 1e-10)
    assert ev.converged and not ev.claim("rho_positive").passed, ev.explain()


def test_definition_1_rho_min_sits_between_a_zero_and_a_tiny_positive_margin(run):
    """RHO_MIN = 1e-14 separates a sample on 𝒰_1 (ρ_1 computes as ≈ 4e-17: the registered control fails) from one
    at distance 4e-14 (ρ_1 ≈ 4e-14: the registered binding instance holds). ×10 fails the binding, ÷1000 passes the
    control. The range claim is an identity (a test of the code), never evidence (issue 26, item 7)."""
    result = registry.get("deep_fusion.definition_1")
    assert dict(instance="intersecting", offset=5e-14) in [dict(b.params) for b in result.binding]
    near = run_spec(run, result, dict(instance="intersecting", offset=5e-14))
    c = near.claim("rho_positive")
    assert near.holds and c.passed and 1e-14 < c.observed < 1e-13, c
    zero = recording.expect(run_spec(run, result, dict(instance="intersecting", allow_violation=True)),
                            recording.FAILS)
    c0 = zero.claim("rho_positive")
    assert not c0.passed and c0.observed < 1e-15, c0
    assert near.claim("rho_in_unit_interval").kind == "identity"


# monkeypatch, not a Pin: D1.reference_rho_k is a function no parameter or module constant reaches
@pytest.mark.parametrize("bump, passes", [(0.5e-6, True), (3e-6, False)])
def test_definition_1_reference_atol_is_pinned(monkeypatch, bump, passes):
    """REFERENCE_ATOL (1e-6): the scipy reference of ρ_0 alone moved by a literal bump (the two agree to ~1e-15
    unmoved); the claim is the worst cluster's error, so ρ_1's agreement must not hide it."""
    from theorems.deep_fusion import definition_1 as D1

    ref = D1.reference_rho_k
    monkeypatch.setattr(D1, "reference_rho_k", lambda X, lab, U, k: ref(X, lab, U, k) + (bump if k == 0 else 0.0))
    small = dict(K=2, nu=2, imbalance=0, r=1, m=3, instances=2)
    assert_identity_pin(D1.ID, "matches_reference_solver", passes, **small)


def test_definition_1_binding_is_its_printed_distance(run):
    """The registered binding 'a cluster-2 sample at distance 8e-4 from 𝒰_1': ρ_1 = 8e-4 there (it holds)."""
    from theorems.core.verdict import run_spec

    rid = "deep_fusion.definition_1"
    (b,) = [b for b in registry.get(rid).binding if "distance 8e-4" in b.margin]
    ev = run_spec(run, registry.get(rid), b.params, b.form)
    c = ev.claim("rho_positive")
    assert ev.holds and c.observed == pytest.approx(8e-4, rel=1e-3), c
