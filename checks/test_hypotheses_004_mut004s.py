"""Hypothesis checks of paper 004 that no row named on both sides of their edge (issue 26, item 9, held-out seed 23):
the depth sweeps' data and duplicate checks, the shared sweep checks (sandwich.sweep_violations), the figures'
defaults. Each row is evaluated on the declared hypotheses alone (nothing is computed); edges are literal instances
read off the paper's hypotheses (Appendix C's data X = I_K ⊗ 1_nᵀ + E needs d0 ≥ K; Assumption 4.4)."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge

NC = "neural_collapse."

# (result id, form or None for the default, parameters, a fragment of the violated hypothesis or None: inside)
EDGES = [
    # Appendix C's data needs d0 ≥ K input coordinates (K = 3)
    ("theorem_4_3_depth", None, dict(data="appendix_c", d0=2, K=3), "d0 ≥ K (Appendix C's data)"),
    ("theorem_4_3_depth", None, dict(data="appendix_c", d0=3, K=3), None),
    ("theorem_4_3_depth", None, dict(data="mixture", d0=2, K=3), None),
    # duplicates (inputs of class 1 copied from class 0): at most n of them, only in the mixture; any is a control
    ("theorem_4_3_depth", None, dict(duplicates=3, n=2), "duplicates ≤ n"),
    ("theorem_4_3_depth", None, dict(duplicates=2, n=2), "Assumption 4.4 (distinct inputs)"),
    ("theorem_4_3_depth", None, dict(duplicates=1, data="appendix_c", d0=3), "duplicates with data='mixture'"),
    ("theorem_4_3_depth", None, dict(duplicates=0, data="appendix_c", d0=3), None),
    # the shared sweep checks (the deliberate wrong rate and L*); a pre-LN sweep with trained depths is inside
    ("theorem_4_3_depth", None, dict(arch="pre_rn1", train_depths=(5, 10)), None),
    ("theorem_4_3_depth", None, dict(rate_shift=-0.1), "the predicted rate"),
    ("theorem_4_3_depth", None, dict(bound_scale=2.0), "the exact L*_GUFM"),
    # the figures' defaults are inside their hypotheses; Figure 1 with free biases too (objective (11)'s reading)
    ("figure_1", None, dict(), None),
    ("figure_1", None, dict(bias_decay=False), None),
    ("figure_2", None, dict(), None),
    # the deep UFM remark: one λ on every layer (inner_factor 1 inside, 0 the control)
    ("deep_ufm_remark", None, dict(inner_factor=1.0), None),
    ("deep_ufm_remark", None, dict(inner_factor=0.0), "every layer regularised with the same λ"),
    # Lemma 4.1's switches off their defaults one at a time
    ("lemma_4_1", None, dict(const_scale=1.0, exponent_shift=0.0), None),
    # transformers: V^C·C ≤ 4096 on both sides (V = 4, C = 5: 5120; V = 2, C = 8: 2048)
    ("theorem_4_3_transformer", None, dict(V=4, C=5), "V^C·C ≤ 4096"),
    ("theorem_4_3_transformer", None, dict(V=2, C=8, depths=(1025, 2049, 4095)), None),
]


@pytest.mark.parametrize("rid, arch", [("theorem_4_3_depth", "pre_rn1"), ("theorem_4_3_transformer", "pre_tx1")])
def test_an_empty_trained_sweep_is_refused_by_the_domain(rid, arch):
    """Pre-LN variants have no construction, only the trained sweep: an empty one is refused before anything runs,
    naming train_depths (the declared domain is 1 to 16 depths)."""
    from theorems.core import registry
    from theorems.core.errors import ParameterError

    result = registry.get(NC + rid)
    with pytest.raises(ParameterError, match="train_depths"):
        registry.validate_structure(result, dict(arch=arch, train_depths=()), result.default_form)



@pytest.mark.parametrize("rid, form, params, name", EDGES,
                         ids=[f"{r}-{i}" for i, (r, _, _, _) in enumerate(EDGES)])
def test_hypothesis_check_at_its_edge(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)
