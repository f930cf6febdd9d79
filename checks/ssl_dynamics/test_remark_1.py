"""Remark 1: a z-variate squared regression trains as z independent univariate ones (linear / kernel) (paper 002,
`ssl_dynamics.remark_1`): the checks particular to this result, its hand cases against independent references, pins
and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import theorems
from checks.pinning import assert_hypothesis_edge, row_ids
from theorems.core import registry


def test_remark_1_gradient_descent_against_numpy_least_squares():
    """remark_1.gd on the joint squared loss of a linear model against the closed-form numpy update
    Θ ← Θ − η(ΘXᵀ − Yᵀ)X, row by row (each output alone)."""
    from theorems.ssl_dynamics import remark_1

    rng = np.random.default_rng(1)
    X, Y, T0 = rng.standard_normal((6, 3)), rng.standard_normal((6, 2)), rng.standard_normal((2, 3))
    eta, steps = 0.05, 20
    Xt, Yt = torch.tensor(X), torch.tensor(Y)
    out = remark_1.gd([torch.tensor(T0)], lambda prm: 0.5 * ((Xt @ prm[0].T - Yt) ** 2).sum(), eta, steps,
                      lambda prm: prm[0].detach().clone())
    for l in range(2):
        th = T0[l].copy()
        for _ in range(steps):
            th = th - eta * (X @ th - Y[:, l]) @ X
        np.testing.assert_allclose(out[-1][l].numpy(), th, rtol=1e-12)


# ======================================================================================================
# Remark 1 (eq. 3)
# ======================================================================================================
R1 = "ssl_dynamics.remark_1"


def test_remark_1_holds_and_its_controls_fail_for_their_reason(run):
    from theorems.ssl_dynamics import remark_1

    assert str(theorems.get(R1).status) == "verified"
    for model in ("linear", "kernel"):
        ev = run(R1, model=model)
        assert ev.holds and ev.details["cross_output_ntk_max"] == 0.0
        assert ev.details["final_train_loss"] < ev.details["initial_train_loss"]  # it trains
    net = run(R1, **remark_1.CONTROLS[0])
    assert not net.claim("joint_equals_independent").passed and net.details["cross_output_ntk_max"] > 0.1
    leak = run(R1, **remark_1.CONTROLS[1])
    # the wrong constant moves the outputs just outside the tolerance (1-10 allowances: its declared Pin, remark_1.py)
    assert not leak.claim("joint_equals_independent").passed
    edge = run(R1, eta_frac=0.95, steps=400)
    assert edge.holds


HYPOTHESIS_EDGES = [
    ("ssl_dynamics.remark_1", None, dict(model="two_layer"), "linear or kernel model"),
    ("ssl_dynamics.remark_1", None, dict(coupling=0.1), "the squared loss of eq. (3)"),
    # remark_1: eq. (3)'s right-hand side scaled (the EQ3_RTOL pin's control)
    ("ssl_dynamics.remark_1", None, dict(eq3_scale=1.0), None),
    ("ssl_dynamics.remark_1", None, dict(eq3_scale=1 + 1e-12), "eq. (3) as printed"),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
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
