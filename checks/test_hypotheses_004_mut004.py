"""Hypothesis checks of paper 004 named at their edges (issue 26, item 9): one row per check and, where the check is
a comparison, a row on each side of its edge, evaluated on the declared hypotheses alone (`Result.hypotheses` on the
validated parameters; nothing is computed). Dropping a check, flipping or loosening its comparison, or moving the
constant in it (d ≥ 4, d ≥ K / K+1, depths ≥ 2(N+K)+1, L ≥ 16a, ...) fails a row here. Every edge is a literal
instance read off the paper's hypothesis (Theorems 4.3/4.6, Lemma 4.2, Definition 3.4, Appendices A/C), never
computed from the module's constants."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge
from theorems.core import registry

NC = "neural_collapse."

# (result id, form or None for the default, parameters, a fragment of the violated hypothesis or None: inside)
EDGES = [
    # Theorems 4.3/4.6 on one network (deep.deep_hypotheses): λ > 0, d ≥ 4 for ResNets, d ≥ 2V+2 for transformers
    ("theorem_4_3", None, dict(d=3), "d ≥ 4 (L-RN1)"),
    ("theorem_4_3", None, dict(d=4), None),
    ("theorem_4_3", None, dict(lam=0.0), "λ > 0"),
    ("theorem_4_3", None, dict(lam=1.0), None),
    ("theorem_4_3", None, dict(arch="tx1", V=2, C=4, d=5), "d ≥ 2V+2 (L-Tx1)"),
    ("theorem_4_3", None, dict(arch="tx1", V=2, C=4, d=6), None),
    ("theorem_4_3", None, dict(duplicates=1), "Assumption 4.4 (distinct inputs)"),
    ("theorem_4_3", None, dict(ln_gain=3.0), "LayerNorm without affine parameters"),
    ("theorem_4_3", None, dict(last_bias=True), "no last-layer bias"),
    ("theorem_4_3", None, dict(bound_scale=100.0), "exact GUFM optimum"),
    ("dimension_conditions", None, dict(lam=0.0), "λ > 0"),
    ("dimension_conditions", None, dict(lam=1.0), None),
    ("dimension_conditions", None, dict(d=3, K=4), "d ≥ K (Definition 3.4"),
    ("dimension_conditions", None, dict(d=4, K=4), None),
    # the depth sweeps (depth_trend): d ≥ K+1 (MSE) / K (CE), then d ≥ 4; depths ≥ 2(N+K)+1 (K=3, n=2: 19)
    ("theorem_4_3_depth", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE) / d ≥ K (CE)"),
    ("theorem_4_3_depth", None, dict(d=3, K=2, loss="ce"), "d ≥ 4 (Theorems 4.3/4.6)"),
    ("theorem_4_3_depth", None, dict(d=4, K=3, loss="mse"), None),
    ("theorem_4_3_depth", None, dict(depths=(18, 37, 73)), "depths ≥ 2(N+K)+1"),
    ("theorem_4_3_depth", None, dict(depths=(19, 37, 73)), None),
    ("theorem_4_3_depth", None, dict(arch="rn2"), "one linear layer per block"),
    ("theorem_4_6", None, dict(inner_lambda="constant"), "λ(L) = o(1/log L)"),
    ("theorem_4_6", None, dict(inner_lambda="vanishing"), None),
    # Lemma 4.1: where Lemma 4.2's collapsed optimum exists (d ≥ K+1 MSE / K CE)
    ("lemma_4_1", None, dict(d=3, K=4, loss="ce"), "d ≥ K+1 (MSE) / d ≥ K (CE)"),
    ("lemma_4_1", None, dict(d=3, K=3, loss="ce"), None),
    ("lemma_4_1", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE) / d ≥ K (CE)"),
    ("lemma_4_1", None, dict(d=4, K=3, loss="mse"), None),
    ("lemma_4_1", None, dict(const_scale=0.5), "the derived constants and exponents"),
    ("lemma_4_1", None, dict(exponent_shift=0.25), "the derived constants and exponents"),
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
    # the pre-LN construction: d ≥ 4, d ≥ K+1/K, depths ≥ 2(N+K)+1 (K=2, n=2: 13)
    ("theorem_4_3_pre_ln", None, dict(d=3, K=2), "d ≥ 4 (Theorem 4.3)"),
    ("theorem_4_3_pre_ln", None, dict(d=4, K=2, depths=(13, 37)), None),
    ("theorem_4_3_pre_ln", None, dict(d=4, K=2, depths=(12, 37)), "depths ≥ 2(N+K)+1"),
    ("theorem_4_3_pre_ln", None, dict(d=4, K=4, loss="mse", depths=(41, 73)), "d ≥ K+1 (MSE) / K (CE)"),
    ("theorem_4_3_pre_ln", None, dict(d=5, K=4, loss="mse", depths=(41, 73)), None),
    # Appendix A's proof steps
    ("errata_a9", None, dict(step_scale=1.001), "exact construction constants"),
    ("errata_a9", None, dict(others_at="inside"), "margin: other samples"),
    ("errata_a9", None, dict(others_at="boundary"), None),
    ("errata_a12", None, dict(target="flat", d=7), "d even for target='flat'"),
    ("errata_a12", None, dict(target="flat", d=8), None),
    ("errata_a12", None, dict(target="random", d=7), None),
    # the figures
    ("figure_1", None, dict(drop_scale=1.001), "the predicted fall"),
    ("figure_1", None, dict(inner_lambda="constant"), "λ ∝ 1/L on the block parameters"),
    ("figure_2", None, dict(inner_lambda="vanishing"), "constant λ on every weight"),
    ("figure_2", None, dict(bias_decay=True), None),  # the recorded alternative reading (decayed biases)
    ("figure_2", None, dict(flat_scale=1.001), "the flatness tolerance"),
    # the 1-D toy: L ≫ a read as L ≥ 16a; one layer per block; the exact closed form
    ("toy_1d", None, dict(depths=(15, 64, 256)), "L ≫ a"),
    ("toy_1d", None, dict(depths=(16, 64, 256)), None),
    ("toy_1d", None, dict(layers=2), "one linear layer per block"),
    ("toy_1d", None, dict(bound_scale=1.001), "exact closed form"),
    # the deep UFM remark: d ≥ K+1 (MSE) / K (CE), one λ on every layer
    ("deep_ufm_remark", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE, Lemma 4.2)"),
    ("deep_ufm_remark", None, dict(d=4, K=3, loss="mse"), None),
    ("deep_ufm_remark", None, dict(d=3, K=4, loss="ce"), "d ≥ K (CE, Definition 3.4)"),
    ("deep_ufm_remark", None, dict(d=4, K=4, loss="ce"), None),
    ("deep_ufm_remark", None, dict(inner_factor=0.5), "every layer regularised with the same λ"),
    ("deep_ufm_remark", None, dict(bound_scale=1.001), "exact UFM optimum"),
    # transformers (K=2, V=2, C=3: d ≥ 2V+2 = 6; depths ≥ 2(contexts + K)+1 = 33)
    ("theorem_4_3_transformer", None, dict(arch="tx2"), "L-Tx1"),
    ("theorem_4_3_transformer", None, dict(V=3), "K divides V"),
    ("theorem_4_3_transformer", None, dict(d=5), "d ≥ 2V+2"),
    ("theorem_4_3_transformer", None, dict(d=6), None),
    ("theorem_4_3_transformer", None, dict(C=1), "C ≥ 2"),
    ("theorem_4_3_transformer", None, dict(C=2, depths=(21, 65, 129)), None),
    ("theorem_4_3_transformer", None, dict(depths=(32, 65, 129)), "depths ≥ 2(contexts + K)+1"),
    ("theorem_4_3_transformer", None, dict(depths=(33, 65, 129)), None),
    ("theorem_4_3_transformer", None, dict(V=4, C=6), "V^C·C ≤ 4096"),
    ("theorem_4_6_transformer", None, dict(inner_lambda="constant"), "λ(L) = o(1/log L)"),
    ("theorem_4_6_transformer", None, dict(inner_lambda="vanishing"), None),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES,
                         ids=[f"{r}-{i}" for i, (r, _, _, _) in enumerate(EDGES)])
def test_hypothesis_check_at_its_edge(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


def test_every_bypassing_control_of_the_paper_violates_a_named_hypothesis():
    """A registered control that bypasses the hypotheses (``allow_violation``) must be outside them by the declared
    checks: were the check it relies on dropped, the control would be an instance inside the hypotheses that fails."""
    for rid in registry.ids():
        if not rid.startswith(NC):
            continue
        result = registry.get(rid)
        for control in (*result.controls, *result.trend_controls):
            if not control.get("allow_violation"):
                continue
            params = {k: v for k, v in control.items() if k not in ("form", "allow_violation")}
            _, violations = registry.validate(result, params, control.get("form", result.default_form))
            assert violations and all(v.hypothesis for v in violations), f"{rid}: {dict(control)} violates nothing"


def test_the_cost_of_a_deep_network_grows_with_its_depth():
    """Result.cost keeps an instance on the machine: a network twice as deep does twice the blocks' work."""
    result = registry.get(NC + "theorem_4_3")
    base = registry.validate_structure(result, {}, result.default_form)
    deeper = registry.validate_structure(result, dict(L=2 * base["L"]), result.default_form)
    assert result.cost(deeper).work > 1.5 * result.cost(base).work
