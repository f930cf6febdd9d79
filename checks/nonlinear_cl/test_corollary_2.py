"""The checks particular to ``nonlinear_cl.corollary_2`` (Section 3.2, Corollary 2 (with Theorem 2 and the paragraph
after it)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

from checks.pinning import (
    assert_hypothesis_edge,
    assert_named_iff,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    short_row_ids,
)

C2 = "nonlinear_cl.corollary_2"
N = "nonlinear_cl."


EDGES = [
    ("nonlinear_cl.corollary_2", None, dict(quad_scale=1.001), "the s-quadrature itself"),
    ("nonlinear_cl.corollary_2", None, dict(alpha_offset=1e-6), "α_g is the 1-D Gaussian α of w_* itself"),
    ("nonlinear_cl.corollary_2", None, dict(), None),
    ('nonlinear_cl.corollary_2', None, dict(alpha_offset=-3.14), 'α_g is the 1-D Gaussian α of w_* itself'),
]


# (result, form, params, hypothesis (a substring of its name), named?)
EDGE_NAMES = [
    # Corollary 2
    (N + "corollary_2", None, dict(alpha_offset=1e-12), "Gaussian α of w_* itself", True),
    (N + "corollary_2", None, dict(alpha_offset=0.0), "Gaussian α of w_* itself", False),
    (N + "corollary_2", None, dict(quad_scale=1 + 1e-12), "the s-quadrature itself", True),
    (N + "corollary_2", None, dict(quad_scale=1 - 1e-12), "the s-quadrature itself", True),
    (N + "corollary_2", None, dict(quad_scale=1.0), "the s-quadrature itself", False),
]


# -- Corollary 2 -------------------------------------------------------------------------------------------------------
def test_corollary_2_z0_against_monte_carlo(run):
    import torch

    from theorems.core.context import Context
    from theorems.nonlinear_cl.corollary_2 import instance

    ev = run(C2)
    ctx = Context.make(seed=0)
    gm, w, _ = instance({"clusters": 3, "radius": 2.5, "sigma": 0.6}, ctx)
    h = torch.relu(gm.sample(ctx, 200_000) @ w[0])
    z0_mc = float(torch.exp(-h**2 / 2).mean())  # τ = 1
    assert ev.details["z0"] == pytest.approx(z0_mc, abs=5 * 0.5 / 200_000**0.5)
    assert ev.details["rho_ratio"] <= ev.details["z0"]  # the roughness drops at least by z₀ (Chebyshev)


def test_corollary_2_tolerance_is_pinned(run):
    assert run(C2, alpha_offset=1e-9, allow_violation=True).claim("r_identity").passed
    assert not run(C2, alpha_offset=1e-8, allow_violation=True).claim("r_identity").passed  # 9e-9 > R_RTOL


def test_corollary_2_the_roughness_only_stabilises(run):
    ev = run(C2)
    assert ev.details["qDq_u"] < ev.details["qDq_g"] < 0  # both stabilising, Gaussian α less so


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


@pytest.mark.parametrize("rid, form, params, name, present", EDGE_NAMES, ids=short_row_ids(EDGE_NAMES))
def test_hypothesis_named_exactly_outside_its_edge(rid, form, params, name, present):
    assert_named_iff(rid, form, params, name, present)


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.corollary_2")
