"""``theorems.nonlinear_cl.quadrature``, shared by several results: its checks."""

from __future__ import annotations

import torch

D = torch.float64


# -- quadrature: ranges and truncations follow the widest component of a mixture -------------------------------------
def _two_scales():
    """Weights 0.3/0.7, means (0.6, 0.8) and 0, covariances 0.4²I and diag(1.5², 1): the components' spreads differ
    ×3.75, so a range or truncation taken from the narrowest one misses the widest."""
    from theorems.data.latents import GaussianMixture

    return GaussianMixture(torch.tensor([0.3, 0.7], dtype=D), torch.tensor([[0.6, 0.8], [0.0, 0.0]], dtype=D),
                           torch.tensor([[[0.16, 0.0], [0.0, 0.16]], [[2.25, 0.0], [0.0, 1.0]]], dtype=D))


def test_quadrature_truncation_order_uses_the_widest_component():
    """order_for at τ = 16: s = (max‖m‖ + 8σ_max)²/τ = (1 + 12)²/16 = 10.5625, √s = 3.25, so ⌈s + 10√s + 25⌉ = 69
    (σ_min = 0.4 would give 37). Hand value."""
    from theorems.nonlinear_cl import quadrature as Q

    assert Q.order_for(_two_scales(), 16.0) == 69


def test_quadrature_s_axis_covers_the_widest_component():
    """A(v) under uniform α by the s-axis quadrature (Corollary 2's) against the polar 2-D quadrature (r up to
    max‖m‖ + 12σ_max), on the two-scale mixture: they agree to ~1e-14; an s-range cut to the narrowest component
    (12 × 0.4 about its mean) loses the wide one's tails."""
    from theorems.nonlinear_cl import quadrature as Q

    gm, u = _two_scales(), torch.tensor([0.6, 0.8], dtype=D)
    V = torch.tensor([[0.6, 0.8], [0.0, -1.0], [0.0, 1.0]], dtype=D)  # v = u; gated with qᵀv = ∓0.6
    torch.testing.assert_close(Q.A_kernel_alpha(gm, V, u, None), Q.A_fixed_alpha(gm, V, None, 1.0, None, 0),
                               rtol=1e-11, atol=1e-12)
