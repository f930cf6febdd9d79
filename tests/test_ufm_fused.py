"""The compiled per-start loops (``optim.fused``) against the torch path they replace on small CPU instances.

References are independent of the compiled code: the torch closed form ``ufm_newton_model`` (itself tested against
autograd in tests/test_ufm.py), the dense arrow Hessian ``ArrowModel.hessian`` and ``torch.linalg.solve`` /
``eigvalsh`` on it, and the torch ``solve_ufm`` path (``ufm.FUSED = False``) for whole solutions.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from theorems.core.context import Context
from theorems.data.frames import balanced_labels
from theorems.neural_collapse import ufm
from theorems.optim import fused, newton



def test_the_compiled_path_is_available():
    """numba is a declared dependency: an install where it does not import silently runs the slower torch path."""
    assert fused.AVAILABLE

FIELDS = ("f", "gw", "gx", "A", "D", "P", "a", "Q", "b", "basis")
# float precision of the comparisons: relative to each field's largest entry (the two paths sum in different orders)
RTOL = {torch.float64: 1e-12}


def point(K: int, n: int, d: int, B: int, seed: int, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    Wp = torch.randn(B, K, d - 1, generator=g, dtype=dtype)
    U = torch.randn(B, K * n, d - 1, generator=g, dtype=dtype)
    return Wp, math.sqrt(d) * U / U.norm(dim=-1, keepdim=True), balanced_labels(K, n, device="cpu")


def rel_err(x: torch.Tensor, ref: torch.Tensor) -> float:
    return float((x - ref).abs().max() / ref.abs().max().clamp_min(1e-300))


# float64: the dtype solve_ufm compiles for (ufm._compiled); the kernels are dtype-generic, float32 is not compiled
# here to keep the first-run compile of a fresh checkout to one dtype
@pytest.mark.parametrize("dtype", [torch.float64])
@pytest.mark.parametrize("loss", ["ce", "mse"])
@pytest.mark.parametrize("K,n,d", [(4, 3, 6), (2, 1, 3), (3, 2, 8)])
def test_model_blocks_match_the_torch_closed_form(loss, K, n, d, dtype):
    Wp, U, labels = point(K, n, d, 7, seed=K + d, dtype=dtype)
    ref = ufm.ufm_newton_model(Wp, U, labels, loss, 0.05)
    got = fused.ufm_model(Wp, U, labels, loss, 0.05)
    for name in FIELDS:
        r, x = getattr(ref, name), getattr(got, name)
        assert x.shape == r.shape and x.dtype == r.dtype, name
        assert rel_err(x, r) <= RTOL[dtype], name


@pytest.mark.parametrize("scale", [30.0, 300.0])
def test_model_is_overflow_safe_at_large_logits(scale):
    """Logits of hundreds (exp overflows float64 past ~709): the log-sum-exp is shifted by the largest logit, as
    torch's logsumexp is, so value, gradient and blocks stay finite and equal to the torch closed form."""
    Wp, U, labels = point(4, 3, 6, 5, seed=11)
    ref = ufm.ufm_newton_model(scale * Wp, U, labels, "ce", 0.05)
    got = fused.ufm_model(scale * Wp, U, labels, "ce", 0.05)
    for name in FIELDS:
        r, x = getattr(ref, name), getattr(got, name)
        assert bool(torch.isfinite(x).all()), name
        assert rel_err(x, r) <= RTOL[torch.float64], name


def shifted(model, c: torch.Tensor):
    """The model of H + diag(c)·I per instance (A and D shifted, the coupling unchanged)."""
    m, q = model.A.shape[-1], model.D.shape[-1]
    return dataclasses.replace(model, A=model.A + c[:, None, None] * torch.eye(m, dtype=model.A.dtype),
                               D=model.D + c[:, None, None, None] * torch.eye(q, dtype=model.A.dtype))


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_solve_matches_the_dense_solve_and_the_torch_arrow_solve(loss):
    """Steps solve (H + μI) s = −g (dense reference), agree with newton.arrow_solve, and ok says H + μI ≻ 0."""
    Wp, U, labels = point(4, 3, 6, 24, seed=3)
    model = ufm.ufm_newton_model(Wp, U, labels, loss, 0.05)
    H = model.hessian()
    ev = torch.linalg.eigvalsh(H)
    # μ on both sides of −λ_min: a factor 0.5 below (indefinite), 2 above (definite), and large
    lam_min = ev[:, 0]
    mu = torch.where(torch.arange(24) % 3 == 0, 0.5 * (-lam_min).clamp_min(1e-3),
                     torch.where(torch.arange(24) % 3 == 1, 2 * (-lam_min).clamp_min(1e-3) + 1e-2, torch.full_like(lam_min, 5.0)))
    want_ok = lam_min + mu > 0
    assert 0 < int(want_ok.sum()) < 24  # both kinds present
    sw, sx, ok = fused.arrow_solve(model, mu)
    assert ok.tolist() == want_ok.tolist()
    tw, tx, tok = newton.arrow_solve(model, mu)
    assert ok.tolist() == tok.tolist()
    g = torch.cat([model.gw, model.gx.flatten(1)], 1)
    dense = torch.linalg.solve(H + mu[:, None, None] * torch.eye(H.shape[-1], dtype=H.dtype), -g)
    s = torch.cat([sw, sx.flatten(1)], 1)
    assert rel_err(s[ok], dense[ok]) <= 1e-10
    assert rel_err(sw[ok], tw[ok]) <= 1e-11 and rel_err(sx[ok], tx[ok]) <= 1e-11


def test_solve_fails_on_non_finite_and_on_an_indefinite_schur_block():
    """A NaN block is never 'positive definite'; nor is H + μI with definite x blocks but an indefinite Schur
    complement (the failure only the second Cholesky can see)."""
    Wp, U, labels = point(4, 3, 6, 4, seed=5)
    model = ufm.ufm_newton_model(Wp, U, labels, "ce", 0.05)
    D = model.D.clone()
    D[1, 2, 0, 0] = math.nan
    m_nan = dataclasses.replace(model, D=D)
    mu = torch.full((4,), 10.0, dtype=torch.float64)
    assert fused.arrow_solve(m_nan, mu)[2].tolist() == [True, False, True, True]
    # x blocks made very definite, A very negative: the x blocks factor, S = A + μI − ΣFᵀF does not
    A = model.A.clone()
    A[2] -= 1e3 * torch.eye(A.shape[-1], dtype=A.dtype)
    m_s = dataclasses.replace(model, A=A)
    assert bool(torch.linalg.eigvalsh(m_s.hessian() + 10 * torch.eye(m_s.dim, dtype=A.dtype))[2, 0] < 0)
    assert fused.arrow_solve(m_s, mu)[2].tolist() == [True, True, False, True]


@pytest.mark.parametrize("loss,seed", [("ce", 0), ("ce", 7), ("mse", 1)])
def test_solve_ufm_same_solutions_on_both_paths(monkeypatch, loss, seed):
    """Whole solves: the compiled path and the torch path reach the same optima with the same certificates."""
    sols, calls = {}, []
    real = fused.arrow_solve

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(fused, "arrow_solve", counted)
    for path in (True, False):
        monkeypatch.setattr(ufm, "FUSED", path)
        calls.clear()
        sols[path] = ufm.solve_ufm(loss, 4, 3, 6, 0.05, restarts=24, ctx=Context.make("cpu", seed=seed))
        assert (len(calls) > 0) == path  # each path is the one taken (the certificate's solve included)
    a, b = sols[True], sols[False]
    assert a.converged.tolist() == b.converged.tolist() and bool(a.converged.all())
    assert a.status == b.status
    L = ufm.closed_form(loss, 4, 6, 0.05).value
    torch.testing.assert_close(a.values, b.values, rtol=1e-10, atol=0)
    assert float((a.values.min() - L) / L) <= 1e-9
    assert bool((a.grad_norm <= a.gtol).all())
    # the proven second-order bound at every start on both paths (the best start, where eigvalsh sharpens it, may
    # differ: the starts' values tie to rounding)
    for sol in (a, b):
        assert bool((sol.min_curvature_lower_bound >= -ufm.CURV_RTOL).all())


def test_which_instances_take_the_compiled_path(monkeypatch):
    """Small CPU instances only: Lemma 4.2's default size does, the realistic K=10 n=20 d=32 and a non-CPU device
    keep the torch path, and FUSED off (THEOREMS_FUSED=0) turns it off."""
    monkeypatch.setattr(ufm, "FUSED", True)
    cpu = torch.device("cpu")
    assert ufm._compiled(4, 12, 6, cpu)
    assert not ufm._compiled(10, 200, 32, cpu)
    assert not ufm._compiled(4, 12, 6, torch.device("meta"))
    assert not ufm._compiled(4, 12, 6, cpu, torch.float32)
    monkeypatch.setattr(ufm, "FUSED", False)
    assert not ufm._compiled(4, 12, 6, cpu)
