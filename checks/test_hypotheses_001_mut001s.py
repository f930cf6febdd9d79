"""Every hypothesis check of paper 001's first half of modules (α-CL gradient, App. B.5, BatchNorm, Corollaries 1
and 2, the §3 examples, Figures 1 (right), 4, 8, 11, 12, Lemmas 1–5 and 10) named on BOTH sides of its edge
(issue 26, item 9, seed-23 sweep): a value just outside names the hypothesis, the nearest value inside does not.

Evaluated on the declared hypotheses alone (nothing is computed): dropping a check, flipping its comparison, or moving
its threshold (×10, ÷10, ±1) fails a row. The inside rows assert the NAME is absent rather than that no hypothesis at
all is named, so a row may sit outside another hypothesis (e.g. figure 12's ratio order with a non-printed crop)."""

from __future__ import annotations

import math

import pytest

from theorems.core import registry
from theorems.nonlinear_cl import examples

Q_STAR = (3 - math.sqrt(5)) / 2  # written out: the threshold of §3.1, independent of the module's constant


def named(rid: str, form, params: dict) -> list[str]:
    result = registry.get(rid)
    form = form or result.default_form
    return [v.hypothesis for v in result.hypotheses(registry.validate_structure(result, dict(params), form), form)]


N = "nonlinear_cl."
# (result, form, params, hypothesis (a substring of its name), named?)
EDGES = [
    # α-CL gradient (§2): ε = 0, α_ii = 0, c = 2N²
    (N + "alpha_cl_gradient", None, dict(eps=1e-9), "ε = 0", True),
    (N + "alpha_cl_gradient", None, dict(eps=0.0), "ε = 0", False),
    (N + "alpha_cl_gradient", None, dict(alpha_diag=True), "α_ii = 0", True),
    (N + "alpha_cl_gradient", None, dict(alpha_diag=False), "α_ii = 0", False),
    (N + "alpha_cl_gradient", None, dict(energy_scale=1 + 1e-12), "c = 2N²", True),
    (N + "alpha_cl_gradient", None, dict(energy_scale=1 - 1e-12), "c = 2N²", True),
    (N + "alpha_cl_gradient", None, dict(energy_scale=1.0), "c = 2N²", False),
    # App. B.5
    (N + "augmentation_b5", None, dict(orbit_tilt=1e-12), "the orbit direction", True),
    (N + "augmentation_b5", None, dict(orbit_tilt=0.0), "the orbit direction", False),
    (N + "augmentation_b5", None, dict(half_width_deficit=1e-12), "1-D rotation group", True),
    (N + "augmentation_b5", None, dict(augmentation="none"), "1-D rotation group", True),
    (N + "augmentation_b5", None, dict(augmentation="rotation", half_width_deficit=0.0), "1-D rotation group", False),
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
    # Corollary 1: no augmentation
    (N + "corollary_1", None, dict(aug=1e-9), "no augmentation", True),
    (N + "corollary_1", None, dict(aug=0.0), "no augmentation", False),
    # Corollary 2
    (N + "corollary_2", None, dict(alpha_offset=1e-12), "Gaussian α of w_* itself", True),
    (N + "corollary_2", None, dict(alpha_offset=0.0), "Gaussian α of w_* itself", False),
    (N + "corollary_2", None, dict(quad_scale=1 + 1e-12), "the s-quadrature itself", True),
    (N + "corollary_2", None, dict(quad_scale=1 - 1e-12), "the s-quadrature itself", True),
    (N + "corollary_2", None, dict(quad_scale=1.0), "the s-quadrature itself", False),
    # §3 examples: the categorical model
    (N + "categorical_model", None, dict(M=6, p_min=1 / 6), "0 ≤ p_min < 1/M", True),
    (N + "categorical_model", None, dict(M=6, p_min=1 / 6 - 1e-9), "0 ≤ p_min < 1/M", False),
    (N + "categorical_model", None, dict(M=4, p_min=0.25 - 1e-9), "0 ≤ p_min < 1/M", False),
    (N + "categorical_model", None, dict(M=4, p_min=0.25 + 1e-9), "0 ≤ p_min < 1/M", True),
    (N + "categorical_model", None, dict(closed_form_scale=1 + 1e-12), "exact closed form (8)", True),
    (N + "categorical_model", None, dict(closed_form_scale=1.0), "exact closed form (8)", False),
    (N + "categorical_model", None, dict(h_prime_at_zero=1e-9), "h'(0) = 0", True),
    (N + "categorical_model", None, dict(h_prime_at_zero=0.0), "h'(0) = 0", False),
    # the summation model: the verifier's exclusion |q − q*| ≥ 1e-6 on both sides of q*, just in and just out
    (N + "summation_model", None, dict(q=Q_STAR + 5e-7), "|q − (3 − √5)/2| ≥ 1e-6", True),
    (N + "summation_model", None, dict(q=Q_STAR - 5e-7), "|q − (3 − √5)/2| ≥ 1e-6", True),
    (N + "summation_model", None, dict(q=Q_STAR + 2e-6), "|q − (3 − √5)/2| ≥ 1e-6", False),
    (N + "summation_model", None, dict(q=Q_STAR - 2e-6), "|q − (3 − √5)/2| ≥ 1e-6", False),
    (N + "summation_model", None, dict(threshold=Q_STAR + 1e-12), "the printed threshold", True),
    (N + "summation_model", None, dict(threshold=Q_STAR), "the printed threshold", False),
    (N + "summation_model", None, dict(closed_form_scale=1 + 1e-12), "exact closed forms (9)", True),
    (N + "summation_model", None, dict(closed_form_scale=1.0), "exact closed forms (9)", False),
    # linear vs ReLU
    (N + "linear_vs_relu", None, dict(leak=1.0), "nonlinear (leak < 1)", True),
    (N + "linear_vs_relu", None, dict(leak=0.99), "nonlinear (leak < 1)", False),
    (N + "linear_vs_relu", None, dict(isotropic=True), "distinct top eigenvalue", True),
    (N + "linear_vs_relu", None, dict(isotropic=False), "distinct top eigenvalue", False),
    # Figure 11: max ζ ≥ 5, margin 0.05
    (N + "figure_11", None, dict(zetas=(1.0, 4.99)), "max ζ ≥ 5", True),
    (N + "figure_11", None, dict(zetas=(1.0, 5.0)), "max ζ ≥ 5", False),
    (N + "figure_11", None, dict(margin=0.05 + 1e-9), "margin = 0.05", True),
    (N + "figure_11", None, dict(margin=0.05), "margin = 0.05", False),
    # Figure 12: the printed crop, each of its three numbers; the ratio order
    (N + "figure_12", None, dict(crop_scale_min=0.5 + 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(ratio_low=0.5 - 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(ratio_high=1.5 + 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(ratio_high=1.5 - 1e-9), "RandomResizedCrop", True),
    (N + "figure_12", None, dict(crop_scale_min=0.5, ratio_low=0.5, ratio_high=1.5), "RandomResizedCrop", False),
    (N + "figure_12", None, dict(ratio_low=1.2, ratio_high=1.1), "ratio_low ≤ ratio_high", True),
    (N + "figure_12", None, dict(ratio_low=1.1, ratio_high=1.1), "ratio_low ≤ ratio_high", False),
    # Figure 1 (right): M ≤ d, eps ≤ λ_gap/2 (q = 0.3: λ_gap = 0.19), q < q*
    (N + "figure_1_right", None, dict(d=4, M=4), "M ≤ d", False),
    (N + "figure_1_right", None, dict(d=3, M=4), "M ≤ d", True),
    (N + "figure_1_right", None, dict(q=0.3, eps=0.0951), "at most half the orthogonal model's gap", True),
    (N + "figure_1_right", None, dict(q=0.3, eps=0.0949), "at most half the orthogonal model's gap", False),
    (N + "figure_1_right", None, dict(q=0.3819, eps=0.0), "q_m < (3 − √5)/2", False),
    (N + "figure_1_right", None, dict(q=0.382, eps=0.0), "q_m < (3 − √5)/2", True),
    # Figure 4 (corrected form by default)
    (N + "figure_4", None, dict(activations=("relu",)), "ReLU and linear in the run", True),
    (N + "figure_4", None, dict(activations=("linear", "relu")), "ReLU and linear in the run", False),
    (N + "figure_4", None, dict(Ps=(1,), betas=(2,)), "a regime of Fig. 4", True),
    (N + "figure_4", None, dict(Ps=(1,), betas=(1, 2)), "a regime of Fig. 4", False),
    (N + "figure_4", None, dict(Ps=(2,), betas=(2,)), "a regime of Fig. 4", False),
    (N + "figure_4", None, dict(Ps=(2,), betas=(1,)), "a regime of Fig. 4", True),
    (N + "figure_4", None, dict(shuffle_pairs=True), "share a generator", True),
    (N + "figure_4", None, dict(shuffle_pairs=False), "share a generator", False),
    (N + "figure_4", None, dict(margin=1e-9), "margin = 0.0", True),
    (N + "figure_4", None, dict(margin=0.0), "margin = 0.0", False),
    (N + "figure_4", None, dict(tau=0.1 + 1e-9), "τ = 0.1", True),
    (N + "figure_4", None, dict(tau=0.1), "τ = 0.1", False),
    (N + "figure_4", None, dict(d_out=1), "d_out ≥ 2", True),
    (N + "figure_4", None, dict(d_out=2), "d_out ≥ 2", False),
    (N + "figure_4", None, dict(steps=9), "steps ≥ 10", True),
    (N + "figure_4", None, dict(steps=10), "steps ≥ 10", False),
    (N + "figure_4", "as_printed", dict(steps=9), "steps ≥ 10", False),  # the printed form runs its own protocol
    (N + "figure_4", None, dict(lr=0.02 + 1e-9), "the corrected form: lr 0.02", True),
    (N + "figure_4", None, dict(lr=0.02), "the corrected form: lr 0.02", False),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=5000, batch=128, seeds=3), "the printed protocol", False),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=5000, batch=128, seeds=2), "the printed protocol", True),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=4999, batch=128, seeds=3), "the printed protocol", True),
    (N + "figure_4", "as_printed", dict(lr=2e-3, steps=5000, batch=127, seeds=3), "the printed protocol", True),
    (N + "figure_4", "as_printed", dict(lr=0.02, steps=5000, batch=128, seeds=3), "the printed protocol", True),
    # Figure 8: ReLU, the paper's points
    (N + "figure_8", None, dict(leak=1e-9), "ReLU activation", True),
    (N + "figure_8", None, dict(leak=0.0), "ReLU activation", False),
    (N + "figure_8", None, dict(points="uniform"), "the paper's 9 points", True),
    (N + "figure_8", None, dict(points="paper"), "the paper's 9 points", False),
    # Lemma 1
    (N + "lemma_1", None, dict(sign=1), "Gaussian α", True),
    (N + "lemma_1", None, dict(sign=-1), "Gaussian α", False),
    (N + "lemma_1", None, dict(shift="none"), "g bounded below", True),
    (N + "lemma_1", None, dict(shift="min"), "g bounded below", False),
    (N + "lemma_1", None, dict(psd_shift=1e-12), "α itself (no shift)", True),
    (N + "lemma_1", None, dict(psd_shift=0.0), "α itself (no shift)", False),
    (N + "lemma_1", None, dict(map_scale=1 - 1e-12), "the proof's map itself", True),
    (N + "lemma_1", None, dict(map_scale=1.0), "the proof's map itself", False),
    # Lemma 2
    (N + "lemma_2", None, dict(limit="plain"), "the variance of 𝔼[g|x₀]", True),
    (N + "lemma_2", None, dict(limit="conditional"), "the variance of 𝔼[g|x₀]", False),
    (N + "lemma_2", None, dict(alpha_on_views=True), "Def. 1", True),
    (N + "lemma_2", None, dict(alpha_on_views=False), "Def. 1", False),
    (N + "lemma_2", None, dict(rep_scale=1 - 1e-12), "the printed form of the limit itself", True),
    (N + "lemma_2", None, dict(rep_scale=1.0), "the printed form of the limit itself", False),
    (N + "lemma_2", None, dict(psd_shift=1e-12), "the limit L itself", True),
    (N + "lemma_2", None, dict(psd_shift=0.0), "the limit L itself", False),
    # Lemma 5
    (N + "lemma_5", None, dict(dependent=True), "Assumption 2(iii)", True),
    (N + "lemma_5", None, dict(dependent=False), "Assumption 2(iii)", False),
    (N + "lemma_5", None, dict(power=1), "p_c(1 − p_c)² of eq. (13)", True),
    (N + "lemma_5", None, dict(power=2), "p_c(1 − p_c)² of eq. (13)", False),
    (N + "lemma_5", None, dict(formula_scale=1 + 1e-12), "exact eq. (13)", True),
    (N + "lemma_5", None, dict(formula_scale=1.0), "exact eq. (13)", False),
    (N + "lemma_5", None, dict(rank_slack=1), "rank ≤ C", True),
    (N + "lemma_5", None, dict(rank_slack=-1), "rank ≤ C", True),
    (N + "lemma_5", None, dict(rank_slack=0), "rank ≤ C", False),
    # Lemmas 3 and 4 (their checks live in common machinery; named here on both sides all the same)
    (N + "lemma_3", None, dict(activation="tanh"), "homogeneous activation", True),
    (N + "lemma_3", None, dict(activation="leaky"), "homogeneous activation", False),
    (N + "lemma_4", None, dict(activation="tanh"), "homogeneous activation", True),
    (N + "lemma_4", None, dict(activation="leaky"), "homogeneous activation", False),
    (N + "lemma_3", None, dict(formula_scale=1 - 1e-12), "exact formula (7)", True),
    (N + "lemma_3", None, dict(formula_scale=1.0), "exact formula (7)", False),
    (N + "lemma_4", None, dict(formula_scale=1 - 1e-12), "exact formula (12)", True),
    (N + "lemma_4", None, dict(formula_scale=1.0), "exact formula (12)", False),
]


@pytest.mark.parametrize("rid, form, params, name, present", EDGES,
                         ids=[f"{r.split('.')[-1]}-{i}" for i, (r, *_) in enumerate(EDGES)])
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    found = named(rid, form, params)
    hit = any(name in h for h in found)
    assert hit == present, f"{rid} {form} {params}: {name!r} {'not ' if present else ''}named; named: {found}"


def test_the_summation_threshold_is_the_module_constant():
    """The rows above write q* out; the module's constant is the same number (a typo in it fails here)."""
    assert abs(examples.Q_STAR - Q_STAR) <= 1e-15
