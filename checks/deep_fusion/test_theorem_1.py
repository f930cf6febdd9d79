"""The checks particular to ``deep_fusion.theorem_1`` (§One-Layer Fusion without Noise, Theorem 1 (eqs. 3–5)): its
pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, assert_identity_pin, probe, row_ids
from theorems.core import recording, registry
from theorems.core.context import Context
from theorems.core.verdict import counterexample_problem, run_spec
from theorems.deep_fusion import theorem_1
from theorems.deep_fusion._witness import block_diagonal_lp

T1 = theorem_1.ID


# Hand-formula references are float64 expressions of a few terms: agreement to this is exact arithmetic.
REF_RTOL = 1e-9


def registered(rid: str, control: dict):
    result = registry.get(rid)
    assert control in [dict(c) for c in result.controls], f"{rid}: {control} is not a registered control"
    return result


# ------------------------------------------------------------------------------------------------------
# Theorem 1: the proof-margin step's bound 1 from both sides, and the registered pin / binding numbers
# ------------------------------------------------------------------------------------------------------
T1ID = "deep_fusion.theorem_1"


EDGES = [
    # deep_fusion.theorem_1
    ("deep_fusion.theorem_1", "as_printed", dict(K=3, r=2, m=5, nu=2, imbalance=0), None),  # (K−1)r = 4 < 5
    ("deep_fusion.theorem_1", "as_printed", dict(K=3, r=2, m=4, nu=2, imbalance=0), "(𝒦−1)r < m"),  # = m
    ("deep_fusion.theorem_1", None, dict(w_scale=2.0), "unit-norm columns of W"),
    ("deep_fusion.theorem_1", None, dict(attention="softmax"), "A = XWWᵀXᵀ"),
    ("deep_fusion.theorem_1", None, dict(signs="arbitrary"), "sign-consistent clusters"),
    # _common.independence_violation (corrected Theorem 1, Theorem 2 and its depth version): K·r ≤ m
    ("deep_fusion.theorem_1", "corrected", dict(K=2, r=2, m=4), None),
    ("deep_fusion.theorem_1", "corrected", dict(K=2, r=2, m=3), "independent subspaces (K·r ≤ m"),
    ("deep_fusion.theorem_1", "corrected", dict(arrangement="dependent", K=3, r=1, m=3), "independent subspaces (𝒰_c"),
    ("deep_fusion.theorem_1", "corrected", dict(arrangement="angle", K=2, r=2, m=4), None),
    # theorem_1: the printed form has no sign or independence hypothesis (its counterexamples live there)
    ("deep_fusion.theorem_1", "as_printed", dict(signs="arbitrary"), None),
    ("deep_fusion.theorem_1", "corrected", dict(instance="antipodal"), "sign-consistent clusters"),
    ("deep_fusion.theorem_1", "corrected", dict(instance="k3_near_dependent"), None),
    ("deep_fusion.theorem_1", None, dict(attention="scaled"), "A = XWWᵀXᵀ"),
    ("deep_fusion.theorem_1", None, dict(w_scale=1.0), None),
    # theorem_1 (as printed): the exact Definition-1 ρ enumerates sign patterns of ≤ 12 out-of-cluster samples
    ("deep_fusion.theorem_1", "as_printed", dict(K=2, nu=12, imbalance=0), None),  # N − ν = 12
    ("deep_fusion.theorem_1", "as_printed", dict(K=2, nu=13, imbalance=0), "out-of-cluster samples"),  # 13
    # theorem_1 (corrected): the bilinear A of the statement
    ("deep_fusion.theorem_1", "corrected", dict(attention="bilinear"), None),
    ("deep_fusion.theorem_1", "as_printed", dict(instance="dependent_lines"), None),  # the printed form's counterexample
    ("deep_fusion.theorem_1", "corrected", dict(instance="dependent_lines"), "independent subspaces"),
]


# ======================================================================================================
# Theorem 1
# ======================================================================================================
def test_theorem_1_paper_example_every_nonzero_entry_is_2rho2():
    """n = m = 4, x₁ = x₂ = u₁, x₃ = x₄ = u₂: ρ = sin∠(u₁, u₂) and every within-cluster entry is 2ρ² (eq. 3)."""
    ctx = Context.make(seed=0)
    inst = theorem_1.instance_batch(ctx, {**theorems.get(T1).defaults, "instance": "paper_example"})
    con = theorem_1.construct_w(inst.X, inst.labels, inst.bases)
    A = theorem_1.attention_matrix(inst.X, con.W, "bilinear")
    u1, u2 = inst.X[:, 0].numpy(), inst.X[:, 2].numpy()
    rho = np.sqrt(1 - np.einsum("bi,bi->b", u1, u2) ** 2)
    same = (inst.labels[:, None] == inst.labels[None, :]).numpy()
    for b in range(inst.B):
        np.testing.assert_allclose(A[b].numpy()[same], 2 * rho[b] ** 2, rtol=REF_RTOL)
        assert np.abs(A[b].numpy()[~same]).max() <= 1e-12
    assert torch.allclose(con.rho_tilde, torch.as_tensor(rho), rtol=REF_RTOL)


def test_theorem_1_proof_W_attains_equality_but_other_witnesses_exist(run):
    """The printed '>' fails for the proof's W (equality), which is a proof erratum; the statement itself holds
    on the paper example (the LP finds a witness, which scaling makes strict)."""
    ev = run(T1, instance="paper_example", form="as_printed")
    assert not ev.claim("proof_strict_inequality").passed
    assert ev.claim("proof_W_vs_printed_bound").observed == pytest.approx(1.0, rel=REF_RTOL)
    assert ev.holds and ev.claim("witness_exists").observed > 0.1


def test_theorem_1_antipodal_identity_holds_for_every_W(run):
    """x₂ = −x₁: A₁₂ = −A₁₁ for random (W^Q, W^K), and the LP over all forms returns 0 (certificate)."""
    ev = run(T1, instance="antipodal", form="as_printed")
    assert ev.details["random_W_max_abs_A11_plus_A12"] <= 1e-12
    assert ev.details["random_W_best_min_A11_A12"] <= 0.0
    assert abs(ev.details["witness_lp_min"]) <= theorem_1.LP_ZERO
    assert "LP over every bilinear form" in ev.details["no_witness_certificate"]
    assert ev.details["rho_def1_min"] > 0.1  # Definition 1's |·| does not see the problem


def test_theorem_1_dependent_subspaces_force_a_zero_diagonal(run):
    """(K−1)r = 2 < 3 = m, yet every bilinear form with zero cross entries has a zero diagonal (numpy null space)."""
    ev = run(T1, instance="dependent_lines", form="as_printed")
    assert ev.details["admissible_forms_dim"] >= 1
    assert ev.details["admissible_forms_max_abs_diagonal"] <= 1e-12
    assert ev.details["rho_def1_min"] == pytest.approx(math.sqrt(0.5), rel=1e-9)
    assert ev.details["no_witness_certificate"]


def test_theorem_1_lp_witness_on_hand_cases():
    """Independent hand cases: two orthogonal lines (a witness: M = I gives t* > 0), and x₂ = −x₁ (t* = 0)."""
    X = torch.tensor([[[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                      [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=torch.float64)
    t = block_diagonal_lp(X, torch.tensor([0, 0, 1]))
    assert t[0] > 0.1 and abs(float(t[1])) <= theorem_1.LP_ZERO


def test_theorem_1_k3_unit_columns_counterexample(run):
    eps_z = 0.1  # the registered counterexample (replayed by the conformance module with the same instance)
    """K = 3, u₃ ∝ (1, 1, ε_z): ρ̃_c is the distance of u_c from the span of the others (numpy least squares);
    the closed-form trace bound ρ_max² = n/Σν_c[(UᵀU)^{-1}]_cc caps every unit-column witness below Definition 1's
    ρ, and the dual certificate is at least that bound (it is an upper bound on the same maximum)."""
    ev = run(T1, instance="k3_near_dependent", form="as_printed", normalisation="unit_columns")
    assert not ev.claim("unit_column_witness_reaches_printed_bound").passed and ev.details["no_witness_certificate"]
    rho_max, rho = ev.details["rho_max_any_W_first"], ev.details["rho_def1_first"]
    assert rho_max < rho
    assert ev.details["unit_column_dual_upper_bound_max"] >= (rho_max / rho) ** 2 * (1 - 1e-9)
    assert ev.claim("witness_exists").passed  # without a normalisation a witness exists: scaling reaches ν_iρ²
    U = np.array([[1, 0, 1], [0, 1, 1], [0, 0, eps_z]], dtype=float)
    U /= np.linalg.norm(U, axis=0)
    dist = []
    for c in range(3):
        O = U[:, [l for l in range(3) if l != c]]
        dist.append(np.linalg.norm(U[:, c] - O @ np.linalg.lstsq(O, U[:, c], rcond=None)[0]))
    corrected = run(T1, instance="k3_near_dependent")
    np.testing.assert_allclose(corrected.details["rho_tilde_c_first"], dist, rtol=1e-8)
    assert min(dist) <= rho_max * (1 + 1e-9)


def test_theorem_1_normalisation_modes_differ(run):
    """The flag matters: the unit-column reading adds a bound claim, which the literal reading does not have."""
    none = run(T1, instance="k3_near_dependent", form="as_printed")
    unit = run(T1, instance="k3_near_dependent", form="as_printed", normalisation="unit_columns")
    assert none.holds and not unit.holds


def test_theorem_1_scaled_and_softmax_attention(run):
    """The Transformer's 1/√d_k divides the bound by √n; softmax leaks across clusters."""
    ev = run(T1, attention="scaled", allow_violation=True)
    assert ev.details["tightness_per_cluster_min"] == pytest.approx(1 / math.sqrt(ev.details["n"]), rel=REF_RTOL)
    sm = run(T1, attention="softmax", allow_violation=True)
    assert sm.details["cross_entries_max_rel"] > 1e-3


def test_theorem_1_k2_rho_tilde_never_beats_definition_1(run):
    assert run(T1).details["K2_rho_tilde_minus_rho_def1_max"] <= 1e-12


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_1_lp_zero_is_pinned_by_a_witness_just_above_it(run):
    """ε_z = 4e-6: independent lines, a witness exists with t* = ε_z²/4 = 4e-12. The printed claim fails (t* is
    below WITNESS_ATOL) but no "no witness" certificate may be issued: LP_ZERO loosened ×10 would certify one,
    and the control would replay as a counterexample to an existential statement that holds there."""
    control = dict(instance="k3_near_dependent", eps_z=4e-6, form="as_printed")
    result = registered("deep_fusion.theorem_1", control)
    ev = recording.expect(run_spec(run, result, control), recording.NOT_CONVERGED)
    assert not ev.converged and "witness_lp_unresolved" in ev.details
    assert [c.name for c in ev.failed_bounds] == ["witness_exists"]
    upper = ev.details["witness_lp_dual_upper_min"]
    assert 1e-12 < upper <= 1e-11, upper  # literal: 1–10 LP_ZEROs above it
    assert "no_witness_certificate" not in ev.details
    why = counterexample_problem(result, {k: v for k, v in control.items() if k != "form"}, run)
    assert why is not None and "certif" in why


def test_theorem_1_witness_atol_is_pinned_from_below(run):
    """ε_z = 4e-5: t* = 4e-10, between WITNESS_ATOL ÷ 10 and WITNESS_ATOL: the claim fails, uncertified, so the
    instance is not converged (undecided), not a failure."""
    control = dict(instance="k3_near_dependent", eps_z=4e-5, form="as_printed")
    result = registered("deep_fusion.theorem_1", control)
    ev = recording.expect(run_spec(run, result, control), recording.NOT_CONVERGED)
    c = ev.claim("witness_exists")
    assert not ev.converged and not c.passed and 1e-10 < c.observed < 1e-9, c
    assert "no_witness_certificate" not in ev.details


def test_theorem_1_lp_certificate_is_the_dual_bound(run):
    """Below t* ≈ 1e-7 HiGHS returns a point whose exact value is ≈ −ε_z² (negative: it stopped short), so a
    certificate read off the primal value would say "no witness" on independent lines; the dual bound is exact."""
    ev = recording.expect(run("deep_fusion.theorem_1", form="as_printed", instance="k3_near_dependent", eps_z=1e-5),
                          recording.NOT_CONVERGED)
    assert ev.details["witness_lp_min"] < 0 < ev.details["witness_lp_dual_upper_min"]
    assert abs(ev.details["witness_lp_dual_upper_min"] / (1e-5 ** 2 / 4) - 1) < 1e-6
    assert "no_witness_certificate" not in ev.details


def test_theorem_1_identities_allow_for_rounding_on_near_dependent_lines(run):
    """At ε_z = 1e-4 (independent lines, ρ̃ = 7e-5) A_ij/(ν_cρ̃_c²) is exact only to ~1e-7: rounding of A is absolute
    (~n·ε_mach), the bound is 5e-9. A flat 1e-9 raised IdentityFailure ("a bug in the suite") on a valid instance;
    on the default instance the allowance stays BOUND_RTOL."""
    ev = run("deep_fusion.theorem_1", instance="k3_near_dependent", eps_z=1e-4)
    assert ev.holds and 1e-7 < ev.details["identity_rtol"] < 1e-4
    assert run("deep_fusion.theorem_1").details["identity_rtol"] == 1e-9


def test_theorem_1_ratio_where_the_bound_is_zero():
    """t = min A_same / (ν_cρ_c²) is 1 where both are 0 and ±inf where only the bound is 0 (ρ = 0: Definition 1 on
    the counterexamples), never a quotient by a clamped zero."""
    import torch

    from theorems.deep_fusion.theorem_1 import _ratio_per_cluster

    labels = torch.tensor([0, 0, 1, 1])
    nu = torch.tensor([2.0, 2.0], dtype=torch.float64)
    for a, want in ((0.0, 1.0), (1e-3, float("inf")), (-1e-3, -float("inf"))):
        A = torch.full((1, 4, 4), a, dtype=torch.float64)
        t, _, _ = _ratio_per_cluster(A, labels, 2, nu, torch.zeros(1, 2, dtype=torch.float64))
        assert t.tolist() == [[want, want]], (a, t)
    t, _, _ = _ratio_per_cluster(torch.full((1, 4, 4), 0.5, dtype=torch.float64), labels, 2, nu,
                                 torch.full((1, 2), 0.5, dtype=torch.float64))
    assert t.tolist() == [[1.0, 1.0]]


def test_theorem_1_eps_z_below_the_lp_resolution_is_refused():
    """ε_z = 2e-6: t* = ε_z²/4 = 1e-12 = LP_ZERO, and the LP would 'certify' that no witness exists on independent
    lines, where one does: the domain stops at 4e-6, before any computation."""
    from theorems.core.errors import ParameterError
    with pytest.raises(ParameterError, match="eps_z"):
        registry.check("deep_fusion.theorem_1", instance="k3_near_dependent", eps_z=2e-6, form="as_printed")


def test_theorem_1_pins_leave_the_other_claims_alone(run):
    """Each w_scale pin fails only the identities it pins (and unit_columns, which any w_scale ≠ 1 breaks): the
    bound claims hold, so the pin tests the tolerance, not the statement."""
    result = registry.get("deep_fusion.theorem_1")
    for ws in (0.999999998, 1.000000002, 1.000000000003):
        ev = run_spec(run, result, dict(w_scale=ws, allow_violation=True))
        assert all(c.passed for c in ev.claims if c.kind == "bound"), ev.explain()
        assert ev.claim("cross_entries_zero").passed


def test_theorem_1_margin_positive_holds_where_the_lp_cannot_decide(run):
    """RHO_MIN (1e-8) ×1000 would call ρ̃ = 2.8e-6 (independent lines at ε_z = 4e-6) a zero margin: the margin
    claim holds there; the instance is undecided only for the LP (not converged), never for the margin."""
    ev = recording.expect(run("deep_fusion.theorem_1", form="corrected", instance="k3_near_dependent", eps_z=4e-6),
                          recording.NOT_CONVERGED)
    c = ev.claim("margin_positive")
    assert c.passed and 1e-6 < c.observed < 1e-5, c


# monkeypatch, not a Pin: T1.attention_matrix is a function no parameter or module constant reaches
@pytest.mark.parametrize("bump, passes", [(0.5e-10, True), (3e-10, False)])
def test_theorem_1_cross_rtol_is_pinned(monkeypatch, bump, passes):
    """CROSS_RTOL (1e-10): one cross entry of A (first sample of cluster 0, last of cluster 1) moved by a literal
    bump times max(1, max|A|); the construction's cross entries are ~1e-15 unmoved."""
    from theorems.deep_fusion import theorem_1 as T1

    attention = T1.attention_matrix

    def moved(X, W, kind):
        A = attention(X, W, kind).clone()
        A[..., 0, -1] += bump * A.abs().amax(dim=(-1, -2)).clamp_min(1.0)
        return A

    monkeypatch.setattr(T1, "attention_matrix", moved)
    small = dict(instances=2)
    assert_identity_pin(T1.ID, "cross_entries_zero", passes, **small)


def test_theorem_1_proof_margin_is_one_on_the_paper_example_and_0_1_on_its_erratum(run):
    """The proof's margin over Definition 1's ρ: exactly 1 on the paper's example (the step holds with equality),
    0.0705/0.707 ≈ 0.0998 on the erratum's near-dependent lines (worst line; it fails): the bound is the literal 1."""
    ok = run(T1ID, form="as_printed", instance="paper_example").claim("proof_margin_at_least_rho")
    assert ok.passed and abs(ok.observed - 1.0) < 1e-12 and ok.bound == 1.0, ok
    bad = recording.expect(run(T1ID, form="as_printed", instance="k3_near_dependent"), *recording.OUTCOMES)
    c = bad.claim("proof_margin_at_least_rho")
    assert not c.passed and abs(c.observed - 0.0705 / 0.7071) < 5e-4, c  # its third line's margin ρ̃ = 0.0705


def test_theorem_1_registered_lp_pin_sits_at_four_lp_zeros(run):
    """The registered pin ε_z = 4e-6: the witness LP's dual bound is t* = ε_z²/4 = 4e-12 (four LP_ZEROs), below
    WITNESS_ATOL, so the LP can decide nothing there (not converged)."""
    from theorems.core.verdict import run_spec

    pin = dict(instance="k3_near_dependent", eps_z=4e-6, form="as_printed")
    result = registry.get(T1ID)
    assert pin in [dict(p) for p in result.pin_instances()]
    ev = recording.expect(run_spec(run, result, pin), *recording.OUTCOMES)
    assert ev.details["witness_lp_dual_upper_min"] == pytest.approx(4e-6 ** 2 / 4, rel=1e-3)
    assert ev.converged is False


def test_theorem_1_binding_margin_is_its_printed_distance(run):
    """The registered binding ('u₃ ∝ (1, 1, 0.02): … ρ̃ = 0.014'): ρ̃ = 0.02/√2 on that instance, and it holds."""
    from theorems.core.verdict import run_spec

    (b,) = registry.get(T1ID).binding
    assert "ρ̃ = 0.014" in b.margin
    ev = run_spec(run, registry.get(T1ID), b.params, b.form)
    assert ev.holds and abs(ev.details["rho_tilde_min"] - 0.02 / 2 ** 0.5) < 1e-4


# monkeypatch, not a Pin: T1._ratio_per_cluster is a function no parameter or module constant reaches
@pytest.mark.parametrize("lift, passes", [(3e-9, True), (0.3e-9, False)])
def test_theorem_1_strict_rtol_is_pinned(monkeypatch, lift, passes):
    """STRICT_RTOL (1e-9): on the paper's example the proof's W attains A_ij = ν_iρ² (ratio 1 to ~1e-15); the
    ratios scaled by 1 + lift put the printed '>' literally 3 tolerances above (holds; ×10 fails it) or 0.3 of
    one (fails; ÷10 passes it)."""
    from theorems.deep_fusion import theorem_1 as T1

    ratio = T1._ratio_per_cluster

    def lifted(*args):
        t, a, b = ratio(*args)
        return t * (1 + lift), a, b

    monkeypatch.setattr(T1, "_ratio_per_cluster", lifted)
    ev = probe(T1ID, form="as_printed", instance="paper_example")
    c = ev.claim("proof_strict_inequality")
    assert c.passed is passes and abs(c.observed - lift) < 1e-12, c
