"""The batched UFM solver's speed-ups keep its certificate (issue 29): the second-order test at the returned starts
reuses the solver's last model (``NewtonResult.model``) instead of evaluating it again, so that model must be the
model at the returned point, for every start, across restart chunks, whatever stage each start stopped in.

Reference: ``ufm_newton_model`` evaluated afresh at the returned (W, X) (moved to 1^⊥ coordinates here), and
``ufm_second_order`` run from (W, X) alone. Agreement is to 1e-12 absolute on O(1) entries: the two differ only by
the rounding of the change of coordinates (~1e-15 measured); a stale row (a start's model from an earlier iterate,
a step of ≥ 1e-9 for the last Newton step of a converged start, or another start's row) is off by far more.
"""

from __future__ import annotations

import pytest
import torch

import theorems.neural_collapse.ufm as ufm
from theorems.core.context import Context
from theorems.neural_collapse.ufm import solve_ufm, ufm_newton_model, ufm_second_order
from theorems.optim.manifolds import orthonormal_basis_of_ones_complement

ATOL = 1e-12
FIELDS = ("f", "gw", "gx", "A", "D", "P", "a", "Q", "b", "basis")


def _fresh(sol, loss: str, d: int):
    Q = orthonormal_basis_of_ones_complement(d, dtype=sol.W.dtype)
    return ufm_newton_model(sol.W @ Q, (Q.T @ sol.X).transpose(-1, -2), sol.labels, loss, 0.05)


@pytest.mark.parametrize("loss,K,n,d,R,chunk,max_iter", [
    ("ce", 3, 2, 5, 24, None, 3000), ("mse", 3, 2, 5, 24, None, 3000),
    ("ce", 3, 2, 5, 24, 5, 3000),  # chunk: restarts per chunk
    ("ce", 3, 2, 5, 24, None, 6),  # every start still running when max_iter ends the loop
])
def test_reused_model_is_the_model_at_the_returned_point(monkeypatch, loss, K, n, d, R, chunk, max_iter):
    if chunk is not None:  # several chunks: the results' models are concatenated in order
        monkeypatch.setattr(ufm, "CHUNK_FLOATS", chunk * ufm._model_floats(K, K * n, d))
        assert len(ufm._chunks(R, ufm._model_floats(K, K * n, d))) > 1
    sol = solve_ufm(loss, K, n, d, 0.05, restarts=R, ctx=Context.make("cpu", seed=3), max_iter=max_iter)
    assert bool(sol.converged.all()) == (max_iter > 6)
    assert sol.raw.model is not None and sol.raw.model.f.shape == (R,)
    fresh = _fresh(sol, loss, d)
    for name in FIELDS:
        assert torch.allclose(getattr(sol.raw.model, name), getattr(fresh, name), rtol=0, atol=ATOL), name
    # the certificate from the reused model is the certificate from (W, X) alone
    alone = ufm_second_order(sol.W, sol.X, sol.labels, loss, 0.05, Context.make("cpu", seed=3), spectra=False)
    assert torch.equal(alone.certified, sol.min_curvature_lower_bound >= -ufm.CURV_RTOL)


def test_stale_model_is_caught():
    """Control for the comparison above: another start's rows (each start ends at its own rotation of the collapsed
    optimum) differ from the fresh ones by far more than ATOL."""
    sol = solve_ufm("ce", 3, 2, 5, 0.05, restarts=8, ctx=Context.make("cpu", seed=3))
    fresh = _fresh(sol, "ce", 5)
    shifted = sol.raw.model.take(torch.roll(torch.arange(8), 1))  # another start's rows
    assert not torch.allclose(shifted.D, fresh.D, rtol=0, atol=ATOL)
    assert not torch.allclose(shifted.A, fresh.A, rtol=0, atol=ATOL)
