"""The exact (inertia) second-order certificate ``optim.curvature.arrow_certificate`` against dense eigvalsh.

Reference: the dense arrow Hessian (ArrowModel.hessian, tested against autograd in tests/test_optim.py) and its
eigvalsh. Adding c·I to H is adding c to the A and D blocks (the coupling is unchanged), which places λ_min exactly
where a test wants it: just inside and just outside the certificate's −rtol·max|λ| threshold.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from theorems.data.frames import balanced_labels
from theorems.neural_collapse.ufm import ufm_newton_model
from theorems.optim.curvature import arrow_certificate

DT = torch.float64
RTOL = 1e-6


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def model_at(loss: str, seed: int, B: int = 3):
    K, n, d = 3, 2, 5
    labels = balanced_labels(K, n, device="cpu")
    g = gen(seed)
    Wp = torch.randn(B, K, d - 1, generator=g, dtype=DT)
    U = torch.randn(B, K * n, d - 1, generator=g, dtype=DT)
    return ufm_newton_model(Wp, math.sqrt(d) * U / U.norm(dim=-1, keepdim=True), labels, loss, 0.05)


def shifted(model, c: torch.Tensor):
    """The model of H + diag(c)·I per instance."""
    m, q = model.A.shape[-1], model.D.shape[-1]
    return dataclasses.replace(model, A=model.A + c[:, None, None] * torch.eye(m, dtype=DT),
                               D=model.D + c[:, None, None, None] * torch.eye(q, dtype=DT))


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_threshold_is_pinned_from_both_sides(loss):
    """λ_min placed at −0.5·rtol·scale is certified, at −2·rtol·scale (and at −1.05) it is not; at 0 it is."""
    model = model_at(loss, 1)
    ev = torch.linalg.eigvalsh(model.hessian())
    for frac, want in ((0.0, True), (-0.5, True), (-1.05, False), (-2.0, False), (-100.0, False)):
        # target λ_min = frac·RTOL·s with s = max|λ| after the shift; λ_max dominates here (checked below)
        c = (frac * RTOL * ev[:, -1] - ev[:, 0]) / (1 - frac * RTOL)
        sm = shifted(model, c)
        ev_s = torch.linalg.eigvalsh(sm.hessian())
        assert bool((ev_s[:, -1].abs() >= ev_s[:, 0].abs()).all())
        torch.testing.assert_close(ev_s[:, 0] / ev_s[:, -1], torch.full_like(c, frac * RTOL), rtol=1e-3, atol=1e-12)
        assert arrow_certificate(sm, RTOL, generator=gen(0)).tolist() == [want] * 3, frac


@pytest.mark.parametrize("loss", ["mse", "ce"])
def test_agrees_with_dense_spectrum_at_random_points(loss):
    model = model_at(loss, 2, B=6)
    ev = torch.linalg.eigvalsh(model.hessian())
    truth = ev[:, 0] >= -RTOL * ev.abs().amax(-1)
    assert not bool(truth.all())  # random points are mostly indefinite: the check has something to reject
    assert torch.equal(arrow_certificate(model, RTOL, generator=gen(0)), truth)


def test_scale_from_a_one_step_lanczos_is_still_a_lower_bound():
    """With one Lanczos step the scale is a single Rayleigh quotient (≤ the true scale): the certificate can only get
    stricter, so a point whose λ_min is just past the threshold is still rejected."""
    model = model_at("ce", 1)
    ev = torch.linalg.eigvalsh(model.hessian())
    c = (-1.05 * RTOL * ev[:, -1] - ev[:, 0]) / (1 + 1.05 * RTOL)
    assert not bool(arrow_certificate(shifted(model, c), RTOL, scale_iters=1, generator=gen(0)).any())
