"""Hypothesis edges of paper 002 that no test named on both sides (issue 26, item 9; the held-out seed-23 sample),
and binding instances that must sit at their edge. Each edge is read off the statement, not off the module."""

from __future__ import annotations

import pytest

from checks.pinning import assert_hypothesis_edge
from theorems.core import registry

EDGES = [
    # remark_2: z ≥ 2 outputs (collapse is of several outputs onto one)
    ("ssl_dynamics.remark_2", None, dict(z=2), None),
    ("ssl_dynamics.remark_2", None, dict(z=1), "z ≥ 2 outputs"),
    # remark_2: the anchors span at least two directions (two positive covariance eigenvalues)
    ("ssl_dynamics.remark_2", None, dict(spectrum=(1.0, 0.5, 0.0), z=2), None),
    ("ssl_dynamics.remark_2", None, dict(spectrum=(1.0, 0.0, 0.0), z=2), "anchors spanning at least two directions"),
    # figure_3: T at least the convergence horizon log(h_max)/(8|λ₁|) + 14/r (half moons, h_max = 1000: 10.16)
    ("ssl_dynamics.figure_3", None, dict(T=10.2), None),
    ("ssl_dynamics.figure_3", None, dict(T=10.1), "T long enough for both runs to converge"),
    # new_data_point: T at least the limit's horizon log(h)/(8|λ₁|) + 20/r (h = 50: 13.71)
    ("ssl_dynamics.new_data_point", None, dict(T=13.8), None),
    ("ssl_dynamics.new_data_point", None, dict(T=13.6), "T long enough for the limit"),
    # theorem_1: h ≥ z (W₂ ∈ St(h, z)) and h ≥ d (W₁ ∈ St(h, d)), at h = 3 (the smallest asymptotic width)
    ("ssl_dynamics.theorem_1", None, dict(h=3, d=3, z=3), None),
    ("ssl_dynamics.theorem_1", None, dict(h=3, d=1, z=4), "h ≥ z"),
    ("ssl_dynamics.theorem_1", None, dict(h=3, d=4, z=1), "h ≥ d"),
]


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(EDGES)])
def test_hypothesis_edge(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_remark_1_binding_step_size_is_at_the_stability_edge():
    """Remark 1's binding instance is 'a step size at which training still converges': η within 10 % of the edge
    2/λ_max (eta_frac ∈ [0.9, 1)), where a rounding error grows the most."""
    (b,) = registry.get("ssl_dynamics.remark_1").binding
    assert 0.9 <= b.params["eta_frac"] < 1.0


def test_remark_1_features_are_the_input_for_the_linear_model_and_fourier_for_the_kernel():
    """The linear model is Θx (features: x itself, dimension d); the kernel model Θψ(x), h random Fourier features."""
    import torch

    from theorems.core.context import Context
    from theorems.ssl_dynamics.remark_1 import features

    ctx = Context.make(None, seed=0)
    X = torch.randn(5, 3, dtype=torch.float64)
    psi, m = features(dict(model="linear", d=3, h=7), ctx)
    assert m == 3 and torch.equal(psi(X), X)
    psi, m = features(dict(model="kernel", d=3, h=7), ctx)
    assert m == 7 and psi(X).shape == (5, 7) and float(psi(X).abs().max()) <= (2 / 7) ** 0.5 + 1e-15
