"""Tolerances and hypothesis checks of papers 001 and 003 pinned by REGISTERED controls (issue 26, item 9).

A tolerance is pinned when some registered negative control fails its claim by more than the allowance and by at
most 10 allowances: then the tolerance loosened ×10 (or ×1000) lets that control pass, and tightened ÷10 the
control's failure is more than 10 allowances, so either mutant fails this test. Each row names the control by its
literal parameters (never built from the constant it pins, which would move with it) and the test finds it among
``Result.controls``: the registered control is what is checked, not a copy of it kept by a test or a report.

A registered control that bypasses the hypotheses (``allow_violation``) must violate one of them, and each
hypothesis check is named at its edge (both sides where the edge is a comparison), evaluated on the declared
hypotheses alone: dropping a check, or flipping its comparison, fails a row here.
"""


from __future__ import annotations


import pytest
from checks.pinning import assert_hypothesis_edge, assert_registered_pin
from theorems.core import registry
from theorems.core.verdict import run_spec


# (result id, the registered control, the bound claims it pins)
PINS: list = [
    ("cl_generalization.infonce_decomposition", dict(split_shift=6e-10, allow_violation=True),
     ("decomposition", "linear_loss_identity")),
    ("cl_generalization.infonce_decomposition", dict(limit_coef=0.5 + 1e-9, allow_violation=True),
     ("temperature_limit_rate",)),
    ("cl_generalization.theorem_1", dict(far_view_weight=0.5, m=2, eta_scale=1 - 1.5e-12, allow_violation=True),
     ("printed_bound",)),
    ("cl_generalization.lemma_1", dict(mode="antipodal_bad", sizes=[10, 10], m=10, bound_scale=1 - 1e-10,
                                       allow_violation=True), ("error_bound",)),
    ("cl_generalization.theorem_2", dict(mode="antipodal_bad", sizes=[10, 10], m=10, bad_frac=0.1, centre_cos=0.35,
                                         bound_scale=1 - 1e-10, allow_violation=True), ("error_bound",)),
]


@pytest.mark.parametrize("rid, control, claims", PINS, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(PINS)])
def test_registered_control_pins_the_tolerance(run, rid, control, claims):
    assert_registered_pin(run, rid, control, claims, kinds=("bound", "identity"))


# Hypothesis checks, one row per check: an instance that violates it (``name``, a fragment of the hypothesis the
# declared checks must report) or, on the other side of a comparison's edge, one inside every hypothesis (None).
# Evaluated on the declared hypotheses alone (`Result.hypotheses` on the validated parameters): nothing is computed.
HYPOTHESIS_EDGES = [
    ('cl_generalization.alignment_uniformity', None, dict(K=64), 'perfect uniformity exists (K ≤ d + 1: the regular simplex)'),
    ('cl_generalization.alignment_uniformity', None, dict(cube_d=2), 'the cube is not itself uniform (d ≥ 3)'),
    ('cl_generalization.composition_ordering', None, dict(destroy='b'), 'transformations preserve the class'),
    ('cl_generalization.infonce_decomposition', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.infonce_decomposition', None, dict(normalize=False), '‖f‖ ≡ r (features on the sphere)'),
    ('cl_generalization.infonce_decomposition', None, dict(r=0.001), '‖f‖ = 1'),
    ('cl_generalization.infonce_decomposition', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.infonce_decomposition', None, dict(limit_coef=-10.0), "limit ½L'"),
    ('cl_generalization.infonce_decomposition', None, dict(split_shift=-10.0), 'L₁ = ½E‖f₁ − f₂‖² − 1'),
    ('cl_generalization.lemma_1', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.lemma_1', None, dict(classifier='wrong_on_good'), 'G correct on (∪C_k⁰) ∩ S_ε'),
    ('cl_generalization.lemma_1', None, dict(bound_scale=0.0), 'exact bound (1−σ)+R_ε'),
    ('cl_generalization.lemma_2', None, dict(encoder='identity'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.lemma_2', None, dict(bt_norm='none'), 'E f_i² = 1 (per-coordinate normalisation)'),
    ('cl_generalization.lemma_2', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.lemma_2', None, dict(split_scale=0.0), 'exact split'),
    ('cl_generalization.revised_infonce', None, dict(lam=0.0), 'λ > 0 (the revised loss keeps its log-sum-exp)'),
    ('cl_generalization.theorem_1', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_1', None, dict(encoder='infonce'), 'fixed encoder'),
    ('cl_generalization.theorem_1', None, dict(eta_scale=1e-06), 'η(ε) = 1/(√2 w_min ε)'),
    ('cl_generalization.theorem_2', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_2', None, dict(identity_view=False), 'identity view x ∈ A(x)'),
    ('cl_generalization.theorem_2', None, dict(normalize=False), '‖f‖ ≡ r (features on the sphere)'),
    ('cl_generalization.theorem_2', None, dict(rho_mutation='drop_a'), 'exact ρ_max'),
    ('cl_generalization.theorem_2', None, dict(thr_slack=-10.0), 'exact divergence threshold'),
    ('cl_generalization.theorem_2', None, dict(bound_scale=0.0), 'exact bound (1−σ)+R_ε'),
    ('cl_generalization.theorem_3', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_3', None, dict(normalize=False), '‖f‖ ≡ r (features on the sphere)'),
    ('cl_generalization.theorem_3', None, dict(r=0.001), '‖f‖ = 1'),
    ('cl_generalization.theorem_3', None, dict(tau=-10.0), 'τ ≥ 0'),
    ('cl_generalization.theorem_3', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.theorem_3', None, dict(repair_scale=0.0), 'exact T_kℓ'),
    ('cl_generalization.theorem_4', None, dict(encoder='identity'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_4', None, dict(bt_norm='none'), 'E f_i² = 1 (per-coordinate normalisation)'),
    ('cl_generalization.theorem_4', None, dict(pairing='distinct'), 'positives i.i.d. from A(x)'),
    ('cl_generalization.theorem_4', None, dict(tau_scale=0.0), 'τ ≥ ‖E f₁f₂ᵀ − Σ p_k μ_kμ_kᵀ‖_F²'),
    ('cl_generalization.theorem_4', None, dict(residual_coef=-10.0), 'exact residual d − K'),
    ("cl_generalization.alignment_uniformity", None, dict(K=4, d=3), None),  # K = d + 1: the regular simplex
    ("cl_generalization.alignment_uniformity", None, dict(K=5, d=3), "K ≤ d + 1"),
    ("cl_generalization.alignment_uniformity", None, dict(cube_d=3), None),
    ("cl_generalization.theorem_3", None, dict(tau=0.0), None),
    ("cl_generalization.revised_infonce", None, dict(lam=0.01), None),
    # the worst-case search runs on the sphere harness with the identity encoder only (both conditions)
    ("cl_generalization.theorem_2", None, dict(adversarial_steps=5), None),
    ("cl_generalization.theorem_2", None, dict(adversarial_steps=5, harness="style_content", encoder="identity"),
     "worst-case search on the sphere harness"),
    ("cl_generalization.theorem_2", None, dict(adversarial_steps=5, encoder="random"),
     "worst-case search on the sphere harness"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES,
                         ids=[f"{r}-{i}" for i, (r, _, _, _) in enumerate(HYPOTHESIS_EDGES)])
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# Binding instances whose registered margin is a bound claim's: the tightest bound claim is within ``slack`` of its
# edge (normalised slack, as the Binding's margin says), so a binding moved off its edge fails here.
BINDS = [
    ("cl_generalization.lemma_2", dict(harness="sphere", encoder="identity", mode="clustered", sizes=[5, 5, 5, 5], d=4,
                                       m=4, noise=0.05, view_noise=0.05), 0.02),  # L_pos/2√(dL₁) = 0.99
]


@pytest.mark.parametrize("rid, params, slack", BINDS, ids=[r for r, _, _ in BINDS])
def test_registered_binding_is_near_its_edge(run, rid, params, slack):
    result = registry.get(rid)
    binding = [b for b in result.binding if dict(b.params) == params]
    assert binding, f"{rid}: {params} is not a registered binding instance"
    ev = run_spec(run, result, params, binding[0].form)
    assert ev.holds and 0.0 <= ev.slack <= slack, f"{rid}: slack {ev.slack:.3g} on its binding instance"
