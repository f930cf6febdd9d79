"""Theorem 1: R_ε² ≤ η(ε)² L_align with η(ε) = O(1/ε) (witness 1/(√2 w_min ε) for finite view sets) (paper 003,
`cl_generalization.theorem_1`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_identity_fails, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.cl_generalization.theorem_1 import BINDING as T1_BINDING
from theorems.cl_generalization.theorem_1 import FAR_VIEWS
from theorems.core import registry

T1 = "cl_generalization.theorem_1"


# -- Theorem 1 ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("far", FAR_VIEWS)
def test_theorem_1_far_view_needs_a_constant_that_pays_for_the_augmentation_law(run, far):
    ev = run(T1, **far)
    w = far["far_view_weight"]
    assert ev.claim("printed_bound").passed and ev.details["R_grid"][0] == 1.0  # the far view: R_ε = 1 below 2
    # every view but the far one is the point itself: L_align = 2·w(1−w)·2² exactly
    assert ev.details["L_align"] == pytest.approx(8 * w * (1 - w), rel=1e-9)
    # the smallest constant that works, max_ε ε·R_ε/√L_align (reached just below the jump at ε = 2), grows like
    # 1/√w: no constant depending on L = 1 alone works; the witness 1/(√2 w_min) = 1/(√2 w) pays for it
    assert ev.details["c_star"] == pytest.approx(2 / math.sqrt(8 * w * (1 - w)), rel=1e-9)
    assert ev.details["witness_c"] == pytest.approx(1 / (math.sqrt(2) * w), rel=1e-12)
    assert ev.details["c_star"] <= ev.details["witness_c"]


def test_theorem_1_witness_is_attained_on_the_binding_instance(run):
    # two views of weight ½ at distance 2 (closed form): R_ε = 1, L_align = 2, c = √2, η(ε)²L_align = 4/ε² → 1
    ev = run(T1, **T1_BINDING)
    assert ev.details["L_align"] == pytest.approx(2.0, rel=1e-12) and ev.details["witness_c"] == pytest.approx(
        math.sqrt(2), rel=1e-12)
    c = ev.claim("printed_bound")
    assert c.kind == "identity" and c.passed and c.observed == 1.0 and c.bound == pytest.approx(1.0, abs=1e-10)
    shrunk = run(T1, **T1_BINDING, eta_scale=1 - 1e-10, allow_violation=True)
    assert not shrunk.claim("printed_bound").passed


def test_theorem_1_is_an_identity_under_its_reading_so_open():
    """The witness inequality is derived (Markov, R_ε ≤ 1): no bound claim, so no verdict — open, with a reason."""
    res = theorems.get(T1)
    assert str(res.status) == "open" and "Markov" in res.open_reason


@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [
        (T1, dict(far_view_weight=0.1, m=1), "m ≥ 2 with a far view"),
        (T1, dict(encoder="infonce", harness="style_content"), "fixed encoder"),
    ],
)
def test_no_instance_can_be_built_even_as_a_control(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation, allow_violation=True)


@pytest.mark.parametrize(
    "rid, params, name",
    [(T1, dict(eps=0.0), "eps")],
)
def test_structural_input_is_refused_by_the_declarations(rid, params, name):
    assert_refused_naming(rid, params, name, ParameterError)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # theorem_1: a fixed encoder (random is one), the far view needs m ≥ 2
    (P + "theorem_1", None, dict(encoder="random"), None),
    (P + "theorem_1", None, dict(encoder="revised"), "fixed encoder"),
    (P + "theorem_1", None, dict(far_view_weight=1e-9, m=1), "m ≥ 2 with a far view"),
    (P + "theorem_1", None, dict(eta_scale=1 + 1e-9), "η(ε) = 1/(√2 w_min ε)"),
    ("cl_generalization.theorem_1", None, dict(far_view_weight=0.1, m=1), "m ≥ 2 with a far view"),
    ("cl_generalization.theorem_1", None, dict(far_view_weight=0.1, m=2), None),
    ("cl_generalization.theorem_1", None, dict(far_view_weight=0.0, m=1), None),
    ('cl_generalization.theorem_1', None, dict(harness='style_content'), 'identity encoder only on the sphere harness'),
    ('cl_generalization.theorem_1', None, dict(encoder='infonce'), 'fixed encoder'),
    ('cl_generalization.theorem_1', None, dict(eta_scale=1e-06), 'η(ε) = 1/(√2 w_min ε)'),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_theorem_1_printed_bound_is_an_identity_attained_on_its_binding_instance(run):
    """Issue 26 item 7: under the reading chosen the printed inequality with the witness constant holds by
    derivation, so it is an identity (never evidence), and it is attained: on BINDING R_ε² = η(ε)²L_align to
    rounding as ε → 2⁻, so a witness smaller by 1.5e-12 relative fails it (the registered pin)."""
    result = registry.get("cl_generalization.theorem_1")
    ev = run(result.id, **dict(result.binding[0].params))
    c = ev.claim("printed_bound")
    assert c.kind == "identity" and c.passed and c.observed == 1.0, c
    assert 1 - 1e-11 < c.observed / c.bound <= 1 + 1e-12, c


def test_theorem_1_R_eps_counts_view_sets_wider_than_eps_only(run):
    """R_ε = P(x ∉ S_ε), S_ε = {x : sup ‖f(x₁) − f(x₂)‖ ≤ ε}: at ε equal to the largest diameter no point is outside
    (R_ε = 0); on BINDING every diameter is 2 (to rounding), so R_ε = 1 below it."""
    result = registry.get("cl_generalization.theorem_1")
    ev = run(result.id, **dict(result.binding[0].params))
    R = dict(zip(ev.details["eps_grid"], ev.details["R_grid"], strict=True))
    top = ev.details["max_diameter"]
    assert R[top] == 0.0, R
    assert all(r == 1.0 for e, r in R.items() if e < top * (1 - 1e-9)), R


def torch_where_first(a, factor):
    out = a.clone()
    out[0] = out[0] * factor
    return out


# monkeypatch, not a Pin: it replaces P.alignment_per_point: code, which a Pin cannot move
@pytest.mark.parametrize("claim, change", [
    ("unsquared_bound", lambda a: a * 1e-6),  # L_align ÷10⁶: Markov's bound falls below R_ε wherever R_ε > 0
    ("per_point", lambda a: torch_where_first(a, 1e-3)),  # one point's alignment ÷1000: below 2w²diam² there only
])
def test_theorem_1_identities_take_the_worst_eps_and_point(monkeypatch, claim, change):
    """Theorem 1's derivation steps are judged at the worst ε of the grid (Markov, R_ε ≤ L_align/(2w²ε²)) and the
    worst point (L_align(x) ≥ 2w_min(x)²diam(x)²): the per-point alignment moved by a literal factor (all of it,
    or one point's) fails the step, although R_ε = 0 at the largest ε and the other points still satisfy it."""
    from theorems.cl_generalization import population as P
    from theorems.cl_generalization import theorem_1 as T1

    per_point = P.alignment_per_point
    monkeypatch.setattr(P, "alignment_per_point", lambda *a, **k: change(per_point(*a, **k)))
    assert_identity_fails(T1.ID, claim)


def test_theorem_1_random_map_on_style_content_is_style_blind():
    """On the style–content harness the random map scales its style columns down (Dc = the content dimension), so
    it is nearly blind to the style the augmentation changes: its alignment loss is far below that of the same
    draw without the scaling (the same population and W, every column kept)."""
    import torch

    from theorems.cl_generalization import theorem_1 as T1
    from theorems.cl_generalization.encoders import random_features
    from theorems.cl_generalization.instances import build_population
    from theorems.core import registry
    from theorems.core.context import Context

    p = registry.validate_structure(registry.get(T1.ID), dict(harness="style_content", encoder="random", d=8),
                                    "as_printed")
    pop, F = T1.embedded_views(p, Context(torch.device("cpu"), p["seed"]))
    ctx = Context(torch.device("cpu"), p["seed"])
    pop2 = build_population(p, ctx)
    F2, _ = random_features(pop2, ctx, d=p["d"], r=p["r"], Dc=None)
    blind, seeing = (float(T1.P.alignment_per_point(G, pop.view_w).mean()) for G in (F, F2))
    assert torch.equal(pop.views, pop2.views) and blind < 0.1 * seeing, (blind, seeing)


NAMED_VIOLATIONS = [("cl_generalization.theorem_1", dict(eta_scale=0.5), "η(ε)")]


@pytest.mark.parametrize("rid, params, hypothesis", NAMED_VIOLATIONS, ids=row_ids(NAMED_VIOLATIONS))
def test_check_names_the_violated_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, theorems.HypothesisViolation)
