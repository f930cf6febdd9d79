"""More hypothesis checks of paper 002 named at their edges (issue 26, item 9; see checks/test_hypotheses_000_002.py
for the rule): the wrong-constant controls added for the tolerance pins, lemma_2's "the draws can contradict ε_h",
and shared checks of ``ssl_dynamics.instances`` (the explicit C overrides the data, the anchors' ceiling). Nothing
here evaluates a result: the declared hypotheses and domains alone."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge
from theorems.core import registry
from theorems.core.errors import ParameterError

CASES = [
    # remark_1: eq. (3)'s right-hand side scaled (the EQ3_RTOL pin's control)
    ("ssl_dynamics.remark_1", None, dict(eq3_scale=1.0), None),
    ("ssl_dynamics.remark_1", None, dict(eq3_scale=1 + 1e-12), "eq. (3) as printed"),
    # theorem_3: the predicted rate scaled (the RATE_RTOL pin's control)
    ("ssl_dynamics.theorem_3", "corrected", dict(rate_scale=1 + 1e-12), "the predicted rate"),
    # lemma_2 at h = 100 (ε_100 = 0.344, d = 3, L = 1, s = ½): ε^13 = 9.5e-7 < 1e-6 can be contradicted by 13 draws,
    # ε^12 = 2.8e-6 cannot by 12
    ("ssl_dynamics.lemma_2", None, dict(widths=(100,), draws=13), None),
    ("ssl_dynamics.lemma_2", None, dict(widths=(100,), draws=12), "the draws can contradict"),
    # instances.common_C_violations: half moons need d = 2 only when no explicit C overrides the data
    ("ssl_dynamics.proposition_1", None, dict(data="moons", d=3, C="-1,0,0;0,-0.9,0;0,0,0.5"), None),
    ("ssl_dynamics.proposition_1", None, dict(data="moons", d=3), "d = 2 for half moons"),
    # new_data_point: h ≥ d + z with d = 2
    ("ssl_dynamics.new_data_point", None, dict(h=3, z=1), None),
    ("ssl_dynamics.new_data_point", None, dict(h=2, z=1), "h ≥ d + z"),
    ("ssl_dynamics.remark_3", None, dict(gd_scale=1 + 1e-12), "gradient descent Θ − η∇L"),
    # remark_3: λ_min(C) < 0, strict
    ("ssl_dynamics.remark_3", None, dict(C="0,0;0,2", d=2, r=2, z=2), "λ_min(C) < 0"),
    ("ssl_dynamics.remark_3", None, dict(C="-0.5,0;0,2", d=2, r=2, z=2), None),
    # theorem_1_rate: h ≥ z judged at the smallest width of the sweep
    ("ssl_dynamics.theorem_1_rate", None, dict(widths=(2, 100, 1000), z=3), "h ≥ z"),
    ("ssl_dynamics.theorem_1_rate", None, dict(widths=(3, 100, 1000), z=3), None),
    # figure_3: 2η·8·max|λ(C)| < 1 on the default half moons (max|λ| = 0.930): 0.95 and 1.05 of the edge
    ("ssl_dynamics.figure_3", None, dict(eta=0.06386), None),
    ("ssl_dynamics.figure_3", None, dict(eta=0.070582), "the 2η runs are stable"),
    # trace_form.symmetric_C_violations: an asymmetry at rounding level relative to C's scale is symmetric
    ("ssl_dynamics.proposition_1", None, dict(C="-1000,1e-10;0,500", d=2, eta=1e-4, eta_two_layer=1e-4), None),
    ("ssl_dynamics.proposition_1", None, dict(C="-1000,1e-8;0,500", d=2, eta=1e-4, eta_two_layer=1e-4),
     "C symmetric"),
]


@pytest.mark.parametrize("rid, form, params, name", CASES, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(CASES)])
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_anchor_ceiling_is_the_declared_max_n():
    """The anchors' ceiling MAX_N = 20 000 (instances.py: a resource ceiling of a 2-core machine) is the domain edge:
    20 000 anchors are accepted, 20 001 refused before any computation."""
    result = registry.get("ssl_dynamics.proposition_1")
    registry.validate_structure(result, dict(n=20_000), result.default_form)
    with pytest.raises(ParameterError, match="n"):
        registry.validate_structure(result, dict(n=20_001), result.default_form)
