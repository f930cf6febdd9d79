"""Paper 002's hypothesis checks that no gate-run test named on both sides of their edge (issue 26, item 9; the
held-out seed-37 sample of this session): each pair is one instance just inside (nothing named) and one just outside
(the hypothesis named), so dropping the check, flipping its comparison or moving its constant fails a test. Only the
declared hypotheses run (no computation)."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

EDGES = [
    # ssl_dynamics.remark_3 (corrected): with AAᵀ = I the collapse direction needs λ₁(C) simple
    ("ssl_dynamics.remark_3", "corrected", dict(projector="orthonormal", C="-1,0,0;0,-1,0;0,0,0.5", d=3),
     "μ₁(AAᵀ) or λ₁(C) simple"),
    ("ssl_dynamics.remark_3", "corrected", dict(projector="orthonormal", C="-1,0,0;0,-0.9,0;0,0,0.5", d=3), None),
    ("ssl_dynamics.remark_3", "corrected", dict(projector="gaussian", C="-1,0,0;0,-1,0;0,0,0.5", d=3), None),
    # trace_form.symmetric_C_violations (through remark_3): |C − Cᵀ| ≤ 1e-12·max(1, max|C|), literal asymmetries 3×
    # outside and 10× inside; at max|C| = 100 the allowance is 1e-10 (min(1, ·) would flag 3e-11)
    ("ssl_dynamics.remark_3", None, dict(C="-1,3e-12;0,0.5", d=2, r=2, z=2), "C symmetric"),
    ("ssl_dynamics.remark_3", None, dict(C="-1,1e-13;0,0.5", d=2, r=2, z=2), None),
    ("ssl_dynamics.remark_3", None, dict(C="-100,3e-11;0,50", d=2, r=2, z=2), None),
    ("ssl_dynamics.remark_3", None, dict(C="-100,3e-10;0,50", d=2, r=2, z=2), "C symmetric"),
    ("ssl_dynamics.remark_3", None, dict(C="-1,0;0", d=2, r=2, z=2), "C a square real matrix"),
    # instances.common_C_violations: C is d × d
    ("ssl_dynamics.remark_3", None, dict(C="-1,0;0,0.5", d=3, r=2, z=2), "C is d×d"),
    # proposition_1: h ≥ z, and the 2-layer step 2η₂ max|λ| < 1 (C = diag(−1, 25): η₂ = 0.02 is the edge)
    ("ssl_dynamics.proposition_1", None, dict(h=2, z=2), None),
    ("ssl_dynamics.proposition_1", None, dict(h=1, z=2), "h ≥ z"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.01, eta_two_layer=0.02), "η₂ <"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.01, eta_two_layer=0.019), None),
    # proposition_3: the Stiefel widths (h ≥ z, h ≥ d) before the width condition of problem (4)
    ("ssl_dynamics.proposition_3", "as_printed", dict(spectrum=(-2.0, -1.0, 0.5), z=2, h=3), None),
    ("ssl_dynamics.proposition_3", "as_printed", dict(spectrum=(-2.0, -1.0, 0.5), z=2, h=2), "h ≥ d"),
    ("ssl_dynamics.proposition_3", "as_printed", dict(spectrum=(-2.0, 0.5), z=3, h=2), "h ≥ z"),
    # lemma_1_ntk_limit: a slope needs three widths; the NTK scaling
    ("ssl_dynamics.lemma_1_ntk_limit", None, dict(widths=(10, 100)), "≥ 3 widths"),
    ("ssl_dynamics.lemma_1_ntk_limit", None, dict(widths=(10, 30, 100)), None),
    ("ssl_dynamics.lemma_1_ntk_limit", None, dict(parameterisation="standard"), "appropriate scaling"),
    # lemma_2: d ≤ the smallest width; the Haar law
    ("ssl_dynamics.lemma_2", None, dict(d=30, widths=(30, 100, 300)), None),
    ("ssl_dynamics.lemma_2", None, dict(d=31, widths=(30, 100, 300)), "d ≤ h"),
    ("ssl_dynamics.lemma_2", None, dict(law="coordinate"), "Q uniformly random"),
    # example_1 (explicit C): symmetric, and the Stiefel widths h ≥ max(d, z)
    ("ssl_dynamics.example_1", None, dict(C="-1,1;0,-0.5", z=2, h=2), "C symmetric"),
    ("ssl_dynamics.example_1", None, dict(C="-1,0,0;0,-0.5,0;0,0,-0.2", z=1, h=3), None),
    ("ssl_dynamics.example_1", None, dict(C="-1,0,0;0,-0.5,0;0,0,-0.2", z=1, h=2), "h ≥ max(d, z)"),
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,-0.5", z=3, h=2), "h ≥ max(d, z)"),
    # expected_c: half moons live in R²
    ("ssl_dynamics.expected_c", None, dict(data="moons", d=2), None),
    ("ssl_dynamics.expected_c", None, dict(data="moons", d=3), "d = 2 for half moons"),
    ("ssl_dynamics.expected_c", None, dict(data="gaussian", d=3), None),
    # figure_4: at most 178 images of the smaller digit class; W₁ ∈ St(h, 64)
    ("ssl_dynamics.figure_4", None, dict(n=178), None),
    ("ssl_dynamics.figure_4", None, dict(n=179), "images per class"),
    ("ssl_dynamics.figure_4", None, dict(widths=(64, 128)), None),
    ("ssl_dynamics.figure_4", None, dict(widths=(63, 128)), "h ≥ d = 64"),
    # networks.sweep_violations (figure_2, conjecture_1): three widths ≥ max(2, z) (h ≥ 2 is the widths' declared
    # domain, so only z can bind)
    ("ssl_dynamics.figure_2", None, dict(widths=(2, 10, 30)), None),
    ("ssl_dynamics.figure_2", None, dict(widths=(10, 30)), "≥ 3 widths"),
    ("ssl_dynamics.figure_2", None, dict(widths=(3, 10, 30), z=3), None),
    ("ssl_dynamics.figure_2", None, dict(widths=(3, 10, 30), z=4), "h ≥ max(d, z)"),
    # trace_form.activation_violations (conjecture_1): φ(0) = 0 and φ'(0) = 1
    ("ssl_dynamics.conjecture_1", None, dict(activation="tanh"), None),
    ("ssl_dynamics.conjecture_1", None, dict(activation="softplus2"), None),
    ("ssl_dynamics.conjecture_1", None, dict(activation="sigmoid"), "φ(0) = 0"),
    ("ssl_dynamics.conjecture_1", None, dict(activation="relu"), "φ'(0) = 1"),
]


@pytest.mark.parametrize("rid,form,params,name", EDGES)
def test_hypothesis_edge(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_relu_is_named_only_for_its_slope_and_sigmoid_for_both():
    """ReLU has φ(0) = 0 (only φ'(0) = 1 fails: its left slope is 0); sigmoid fails both (φ(0) = ½, φ'(0) = ¼)."""
    from theorems.ssl_dynamics.trace_form import activation_violations

    assert [v.hypothesis for v in activation_violations("relu")] == ["φ'(0) = 1"]
    assert [v.hypothesis for v in activation_violations("sigmoid")] == ["φ(0) = 0", "φ'(0) = 1"]
    assert activation_violations("identity") == []
