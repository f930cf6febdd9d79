"""The module `theorems.ssl_dynamics.trace_form` that several results of paper 002 share: its unit checks. (The trace
form of paper 002 (eq. (7), Definition 1 (8)) and shared pieces of its results.)"""

from __future__ import annotations

import pytest


def test_relu_is_named_only_for_its_slope_and_sigmoid_for_both():
    """ReLU has φ(0) = 0 (only φ'(0) = 1 fails: its left slope is 0); sigmoid fails both (φ(0) = ½, φ'(0) = ¼)."""
    from theorems.ssl_dynamics.trace_form import activation_violations

    assert [v.hypothesis for v in activation_violations("relu")] == ["φ'(0) = 1"]
    assert [v.hypothesis for v in activation_violations("sigmoid")] == ["φ(0) = 0", "φ'(0) = 1"]
    assert activation_violations("identity") == []


@pytest.mark.parametrize("name", ["identity", "tanh", "softplus2"])
def test_second_derivative_constants_are_sup_and_value_at_zero(name):
    """trace_form.SECOND_DERIVATIVE = (sup|φ''|, φ''(0)), against φ'' by autograd on a fine grid (independent)."""
    import torch

    from theorems.ssl_dynamics.trace_form import SECOND_DERIVATIVE, activation

    x = torch.linspace(-6, 6, 120_001, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(activation(name)(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x) if g.requires_grad else (torch.zeros_like(x),)
    sup, at0 = SECOND_DERIVATIVE[name]
    assert float(h.abs().max()) == pytest.approx(sup, rel=1e-6, abs=1e-12)
    assert float(h[60_000]) == pytest.approx(at0, abs=1e-9)
