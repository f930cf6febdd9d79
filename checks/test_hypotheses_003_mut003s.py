"""Paper 003: every hypothesis check of theorems/cl_generalization named on both sides of its edge, with the
tightest admissible values (a comparison flipped, a literal moved ±1 or ×10, or the check dropped must change one
row). Complements the rows of checks/test_pins_001_003.py and checks/test_pins_003_mut003.py; no computation (the
declared hypotheses alone), so the file costs nothing in the gate."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

P = "cl_generalization."
EDGES = [
    # instances.instance_hypotheses: m < 2 without the identity view (theorem_3 needs neither identity view nor more)
    (P + "theorem_3", dict(m=1, identity_view=False), "m ≥ 2 without the identity view"),
    (P + "theorem_3", dict(m=2, identity_view=False), None),
    (P + "theorem_3", dict(m=1, identity_view=True), None),
    # the identity encoder only on the sphere harness; a random map on style_content is fine
    (P + "theorem_3", dict(encoder="identity", harness="style_content"), "identity encoder only on the sphere"),
    (P + "theorem_3", dict(encoder="random", harness="style_content"), None),
    (P + "theorem_3", dict(encoder="random", harness="sphere"), None),
    # the identity view (Theorem 2, Lemma 1) and the sphere, on the other side of the edge
    (P + "theorem_2", dict(identity_view=True, m=2), None),
    (P + "theorem_2", dict(identity_view=False, m=2), "identity view x ∈ A(x)"),
    (P + "lemma_1", dict(normalize=True), None),
    # theorem_3: τ ≥ 0 at its edge, ‖f‖ = 1 just off it
    (P + "theorem_3", dict(tau=-1e-9), "τ ≥ 0"),
    (P + "theorem_3", dict(tau=1e-9), None),
    (P + "theorem_3", dict(r=1.001), "‖f‖ = 1"),
    (P + "theorem_3", dict(r=1.0), None),
    (P + "theorem_3", dict(repair_scale=1 + 1e-9), "exact T_kℓ"),
    (P + "theorem_3", dict(pairing="iid"), None),
    # theorem_2's negative-control switches just off their defaults
    (P + "theorem_2", dict(thr_slack=1e-9), "exact divergence threshold"),
    (P + "theorem_2", dict(bound_scale=1 + 1e-9), "exact bound (1−σ)+R_ε"),
    (P + "theorem_2", dict(rho_mutation="lipschitz_tenth"), "exact ρ_max"),
    (P + "theorem_2", dict(rho_mutation="none", thr_slack=0.0, bound_scale=1.0), None),
    # augmentation_trend: the divergence threshold exact, nested templates
    (P + "augmentation_trend", dict(thr_slack=1e-9), "exact divergence threshold"),
    (P + "augmentation_trend", dict(thr_slack=0.0, templates="nested"), None),
    # theorem_1: a fixed encoder (random is one), the far view needs m ≥ 2
    (P + "theorem_1", dict(encoder="random"), None),
    (P + "theorem_1", dict(encoder="revised"), "fixed encoder"),
    (P + "theorem_1", dict(far_view_weight=1e-9, m=1), "m ≥ 2 with a far view"),
    (P + "theorem_1", dict(eta_scale=1 + 1e-9), "η(ε) = 1/(√2 w_min ε)"),
    # lemma_1: the classifier right on the good set; the bound exact
    (P + "lemma_1", dict(classifier="nearest_centre"), None),
    (P + "lemma_1", dict(classifier="random"), None),
    (P + "lemma_1", dict(bound_scale=1 - 1e-9), "exact bound (1−σ)+R_ε"),
    # infonce_decomposition: its four switches just off their defaults
    (P + "infonce_decomposition", dict(r=1.001), "‖f‖ = 1"),
    (P + "infonce_decomposition", dict(limit_coef=0.5 + 1e-9), "limit ½L'"),
    (P + "infonce_decomposition", dict(split_shift=1e-9), "L₁ = ½E‖f₁ − f₂‖² − 1"),
    (P + "infonce_decomposition", dict(r=1.0, limit_coef=0.5, split_shift=0.0, pairing="iid"), None),
    # Barlow Twins: the uncentred normalisation, i.i.d. positives, the exact constants
    (P + "lemma_2", dict(bt_norm="uncentred", pairing="iid"), None),
    (P + "lemma_2", dict(bt_norm="cross"), "E f_i² = 1"),
    (P + "lemma_2", dict(split_scale=1 + 1e-9), "exact split"),
    (P + "lemma_2", dict(align_scale=1 - 1e-9), "= 2Σ(1 − C_ii) exactly"),
    (P + "theorem_4", dict(tau_scale=1 - 1e-9), "τ ≥ ‖E f₁f₂ᵀ"),
    (P + "theorem_4", dict(tau_scale=1.5), None),
    (P + "theorem_4", dict(residual_coef=1 + 1e-9), "exact residual d − K"),
    (P + "theorem_4", dict(psd_shift=1e-9), "no shift"),
    (P + "theorem_4", dict(pairing="distinct"), "positives i.i.d. from A(x)"),
    # revised_infonce: λ > 0 at its edge
    (P + "revised_infonce", dict(lam=1e-9), None),
    (P + "revised_infonce", dict(lam=0.0), "λ > 0"),
    # the experiments: a transformation that also replaces the class content (instances.destroy_hypotheses)
    (P + "tables_1_2", dict(destroy="e"), "transformations preserve the class"),
    (P + "tables_1_2", dict(destroy="none"), None),
    (P + "composition_ordering", dict(destroy="e"), "transformations preserve the class"),
    (P + "composition_ordering", dict(destroy="none"), None),
    # alignment_uniformity: K ≤ d + 1 at its edge in another dimension, the cube from d = 3
    (P + "alignment_uniformity", dict(K=6, d=5), None),
    (P + "alignment_uniformity", dict(K=7, d=5), "K ≤ d + 1"),
    (P + "alignment_uniformity", dict(cube_d=4), None),
]


@pytest.mark.parametrize("rid, params, name", EDGES, ids=[f"{r[len(P):]}-{i}" for i, (r, _, _) in enumerate(EDGES)])
def test_hypothesis_edge_is_named_mut003s(rid, params, name):
    assert_hypothesis_edge(rid, None, params, name)
