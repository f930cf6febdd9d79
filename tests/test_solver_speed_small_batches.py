"""The Newton solver's x blocks are factored and solved entry by entry for large batches and by LAPACK for small
ones (``optim.newton.UNROLL_MIN_BLOCKS``, issue 29): both paths must give the same step and the same definiteness
verdict, the one the inertia certificate rests on.

Reference: the dense arrow Hessian (``ArrowModel.hessian``), its eigvalsh and a dense solve, independent of either
block path. Each test runs with the threshold forced to each side, so both paths are exercised at any batch size.
"""

from __future__ import annotations


import pytest
import torch

import theorems.optim.newton as newton
from test_solver_certificate import _model

DT = torch.float64
PATHS = {"unrolled": 0, "lapack": 10**9}  # UNROLL_MIN_BLOCKS forcing each path


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_both_block_paths_solve_and_certify(monkeypatch, path, loss):
    monkeypatch.setattr(newton, "UNROLL_MIN_BLOCKS", PATHS[path])
    model = _model(loss, 4, 3, 6, 4, seed=7)  # q = 4 ≤ UNROLL_MAX
    assert newton._unrolled(model.D) == (path == "unrolled")
    H = model.hessian()
    lam_min = torch.linalg.eigvalsh(H)[:, 0]
    assert bool((lam_min < 0).all())  # random points: indefinite
    # the definiteness verdict, pinned from both sides at 1e-6 relative of λ_min
    for frac, want in ((1 - 1e-6, False), (1 + 1e-6, True)):
        _, _, ok = newton.arrow_solve(model, -lam_min * frac)
        assert ok.tolist() == [want] * 4, frac
    # the step, against a dense solve of (H + μI) s = −g
    mu = -2 * lam_min
    sw, sx, ok = newton.arrow_solve(model, mu)
    assert bool(ok.all())
    g = torch.cat([model.gw, model.gx.flatten(1)], dim=1)
    ref = torch.linalg.solve(H + mu[:, None, None] * torch.eye(H.shape[-1], dtype=DT), -g[..., None])[..., 0]
    torch.testing.assert_close(torch.cat([sw, sx.flatten(1)], dim=1), ref, rtol=1e-9, atol=1e-11)


def test_threshold_splits_full_batches_from_small_ones():
    """At the benchmark's CE K=4 n=3 d=6 size (12 blocks of 4×4 per start) a full batch of 256 starts is unrolled, a
    re-solve of a few starts goes to LAPACK."""
    D = torch.zeros(256, 12, 4, 4, dtype=DT)
    assert newton._unrolled(D) and not newton._unrolled(D[:8])
