"""Deep-UFM remark: the residual deep UFM's optimum copies the shallow UFM and zeroes every other layer (paper 004,
`neural_collapse.deep_ufm_remark`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, row_ids
from theorems.core.verdict import run_spec
from theorems.neural_collapse import deep_ufm_remark as DU


def test_deep_ufm_registered_as_verified_with_bindings_at_the_edges():
    res = theorems.get(DU.ID)
    assert str(res.status) == "verified"
    assert {(b.params["loss"], b.params["d"] - b.params["K"]) for b in res.binding} == {("mse", 1), ("ce", 0)}


def test_deep_ufm_optimum_equals_the_shallow_closed_form(run):
    """Independent reference: Lemma 4.2's MSE optimum Kλ/(2(d+Kλ)) written out here (CE's root is in ufm)."""
    K, d, lam = 3, 4, 0.05
    ev = run(DU.ID, loss="mse", K=K, d=d, lam=lam)
    assert ev.holds and ev.converged, ev.explain()
    assert ev.details["shallow_optimum"] == pytest.approx(K * lam / (2 * (d + K * lam)), rel=1e-14)
    assert ev.details["best_value"] == pytest.approx(K * lam / (2 * (d + K * lam)), rel=1e-9)
    assert ev.details["best_inner_sq_norm"] < 1e-8
    assert ev.details["hessian_min_eig"] > -1e-6 * ev.details["hessian_max_eig"]


def test_deep_ufm_controls_break_what_they_should(run):
    res = theorems.get(DU.ID)
    want = [["deep_ufm_above_shallow_optimum"], ["trained_reaches_shallow_optimum"], ["trained_inner_layers_zero"],
            ["trained_reaches_shallow_optimum", "trained_collapsed"]]
    for spec, names in zip(res.controls, want, strict=True):
        ev = run_spec(run, res, spec)
        assert ev.converged, (spec, ev.explain())
        assert sorted(c.name for c in ev.failed_bounds) == sorted(names), (spec, ev.explain())
    # The unregularised blocks keep O(1) weight, far outside INNER_ATOL (the pin is not marginal).
    assert run_spec(run, res, res.controls[2]).claim("trained_inner_layers_zero").observed > 1e-2
    # MSE at d = K: NC2B = 1/√K at the trained optimum (Lemma 4.2's counterexample), not a stalled run.
    ev = run_spec(run, res, res.controls[3])
    assert ev.details["best_nc2b"] == pytest.approx(1 / math.sqrt(3), rel=1e-4)


def test_deep_ufm_forward_is_the_identity_on_zero_blocks():
    import torch

    from theorems.core.context import Context
    from theorems.optim.manifolds import ln

    ctx = Context.make("cpu", seed=1)
    K, d, N, D = 2, 4, 4, 4
    V = ctx.randn(1, d * N)
    theta = torch.cat([V, torch.zeros(1, (D - 1) * d * (d + 1), dtype=ctx.dtype), ctx.randn(1, K * d)], dim=1)
    _, X, inner = DU.forward(theta, K, d, N, D)
    torch.testing.assert_close(X, ln(V.view(1, d, N)), rtol=1e-13, atol=1e-13)
    assert float(inner[0]) == 0.0


def test_deep_ufm_hessian_helper_sees_negative_curvature():
    """The curvature certificate's call (``optim.curvature.tangent_curvature``, full Lanczos) on a hand case:
    f(x, y) = x² − 3y² has eigenvalues 2 and −6."""
    import torch

    cur = DU.tangent_curvature(lambda z: z[:, 0] ** 2 - 3 * z[:, 1] ** 2,
                               torch.tensor([[0.3, -0.2]], dtype=torch.float64), generator=torch.Generator().manual_seed(0))
    assert float(cur.lam_min[0]) == pytest.approx(-6.0) and float(cur.lam_max[0]) == pytest.approx(2.0)


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # the deep UFM remark: d ≥ K+1 (MSE) / K (CE), one λ on every layer
    ("deep_ufm_remark", None, dict(d=3, K=3, loss="mse"), "d ≥ K+1 (MSE, Lemma 4.2)"),
    ("deep_ufm_remark", None, dict(d=4, K=3, loss="mse"), None),
    ("deep_ufm_remark", None, dict(d=3, K=4, loss="ce"), "d ≥ K (CE, Definition 3.4)"),
    ("deep_ufm_remark", None, dict(d=4, K=4, loss="ce"), None),
    ("deep_ufm_remark", None, dict(inner_factor=0.5), "every layer regularised with the same λ"),
    ("deep_ufm_remark", None, dict(bound_scale=1.001), "exact UFM optimum"),
    # the deep UFM remark: one λ on every layer (inner_factor 1 inside, 0 the control)
    ("deep_ufm_remark", None, dict(inner_factor=1.0), None),
    ("deep_ufm_remark", None, dict(inner_factor=0.0), "every layer regularised with the same λ"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


# -- the deep-UFM remark (Section 4.2): remark_claims on literal numbers ---------------------------------------------
# a point that passes every claim: L* = 1, the trained best 1e-9 above it, blocks Σ‖W_l‖² = 1e-8 ≤ 2·1e-9/0.1
BASE = dict(lows=[1.5, 1.0 + 1e-9, 1.0], best_value=1.0 + 1e-9, bound=1.0, inner=1e-8,
            metrics={"nc1": 1e-5, "nc2a": 1e-5, "nc2b": 1e-5, "nc3": 1e-5}, nc2="nc2a", copy_value=1.0,
            optimum_value=1.0, excess=1e-9, lam_inner=0.1)


# (what is moved, the claims that must fail: () = every claim passes)
REMARK_ROWS = [
    ({}, ()),
    # LOWER_RTOL = 1e-10: ONE family's lowest point 3e-10 below L* (the others above) fails; 3e-11 below passes
    (dict(lows=[1.5, 1.0 - 3e-10, 1.0]), ("deep_ufm_above_shallow_optimum",)),
    (dict(lows=[1.0 - 3e-10, 1.5, 1.0]), ("deep_ufm_above_shallow_optimum",)),
    (dict(lows=[1.5, 1.0, 1.0 - 3e-11]), ()),
    # REACH_RTOL = 1e-7 on the best trained value
    (dict(best_value=1.0 + 3e-7, excess=3e-7), ("trained_reaches_shallow_optimum",)),
    (dict(best_value=1.0 + 3e-8, excess=3e-8), ()),
    # INNER_ATOL = 1e-5 on Σ‖W_l‖² (excess 1: the certificate 2·1/0.1 = 20 is far)
    (dict(inner=3e-5, excess=1.0), ("trained_inner_layers_zero",)),
    (dict(inner=3e-6, excess=1.0), ()),
    # NC_TOL = 1e-3 on the worst of NC1, NC2, NC3: each one alone at 3e-3 fails, all at 3e-4 pass
    (dict(metrics={"nc1": 3e-3, "nc2a": 1e-5, "nc2b": 1e-5, "nc3": 1e-5}), ("trained_collapsed",)),
    (dict(metrics={"nc1": 1e-5, "nc2a": 3e-3, "nc2b": 1e-5, "nc3": 1e-5}), ("trained_collapsed",)),
    (dict(metrics={"nc1": 1e-5, "nc2a": 1e-5, "nc2b": 1e-5, "nc3": 3e-3}), ("trained_collapsed",)),
    (dict(metrics={"nc1": 1e-5, "nc2a": 1e-5, "nc2b": 3e-3, "nc3": 1e-5}, nc2="nc2b"), ("trained_collapsed",)),
    (dict(metrics={"nc1": 3e-4, "nc2a": 3e-4, "nc2b": 3e-4, "nc3": 3e-4}), ()),
    # COPY_RTOL = 1e-12: the copy's L_D 3e-12 relative off L* fails the identity, 3e-13 passes
    (dict(copy_value=1.0 + 3e-12), ("copy_attains_shallow_optimum",)),
    (dict(copy_value=1.0 - 3e-12), ("copy_attains_shallow_optimum",)),
    (dict(copy_value=1.0 + 3e-13), ()),
    # CERT_ATOL = 1e-12 on Σ‖W_l‖² ≤ 2(L_D − L*)/λ = 2e-8; the factor 2: 1.25× the certificate fails
    (dict(inner=2e-8 + 3e-12), ("inner_norm_certificate",)),
    (dict(inner=2e-8 + 3e-13), ()),
    (dict(inner=2.5e-8), ("inner_norm_certificate",)),
    (dict(inner=1.9e-8), ()),
]


@pytest.mark.parametrize("moved, failing", REMARK_ROWS, ids=[str(i) for i in range(len(REMARK_ROWS))])
def test_deep_ufm_remark_claims_pinned_by_literal_inputs(moved, failing):
    from theorems.neural_collapse.deep_ufm_remark import remark_claims

    claims = remark_claims(**{**BASE, **moved})
    assert sorted(c.name for c in claims if not c.passed) == sorted(failing), [str(c) for c in claims]


def test_deep_ufm_remark_identity_claims_exist_where_they_apply():
    """The copy's identity only where the UFM optimum is attained; the certificate only where the blocks are
    regularised (λ_inner > 0): both present at the defaults, each absent where it does not apply."""
    from theorems.neural_collapse.deep_ufm_remark import remark_claims

    names = lambda **kw: {c.name for c in remark_claims(**{**BASE, **kw})}  # noqa: E731
    assert {"copy_attains_shallow_optimum", "inner_norm_certificate"} <= names()
    assert "copy_attains_shallow_optimum" not in names(copy_value=None)
    assert "inner_norm_certificate" not in names(lam_inner=0.0)
    assert "inner_norm_certificate" in names(lam_inner=1e-12, inner=0.0)


@pytest.mark.parametrize("lo, hi, ok", [(-3e-6, 1.0, False), (-3e-7, 1.0, True), (-3e-6, -1.0, False),
                                        (0.0, 1.0, True), (-3e-5, 100.0, True), (-3e-4, 100.0, False)])
def test_deep_ufm_remark_curvature_tolerance(lo, hi, ok):
    """CURV_RTOL = 1e-6 of the largest |eigenvalue|: a smallest eigenvalue 3e-6 of it below 0 is a saddle (the run is
    not converged), 3e-7 below is rounding."""
    from theorems.neural_collapse.deep_ufm_remark import no_negative_curvature

    assert no_negative_curvature(lo, hi) is ok
