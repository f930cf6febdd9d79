"""optim.lbfgs's speculative backtracking (``speculate`` = m): the next m halvings of every pending instance in one
batched call must take exactly the steps of m sequential halvings, and stop after the same number of trials."""

from __future__ import annotations

import pytest
import torch

from theorems.core.context import Context
from theorems.data.classification import gaussian_mixture
from theorems.neural_collapse.models import ModelSpec, init_params, objective, trainable_mask
from theorems.optim.batched_train import SPECULATE, train_to_plateau
from theorems.optim.lbfgs import STALLED, autograd_objective, batched_lbfgs


def _network(calls: list):
    """A batch of tiny post-LN ResNets of paper 004 (depth 8, d = d0 = 8), trained as ``sandwich.certified_sweep``
    trains them (input layer frozen), whose ReLU kinks make the line search backtrack; ``calls`` records the rows of
    every call. Its rows are independent to the last bit whatever their number (the frozen input layer's gradient,
    a sum over the batch's broadcast, is the one part that rounds differently for a batch of one row)."""
    ctx = Context(seed=3, device="cpu")
    X, labels = gaussian_mixture(ctx, 3, 2, 8)
    spec = ModelSpec("rn1", 8, 8, 3, d0=8)
    fn = autograd_objective(lambda z: objective(spec, z, X, labels, "ce", 0.05, 0.05))
    mask = trainable_mask(spec).to(X.dtype)

    def fun(z):
        calls.append(z.shape[0])
        f, g = fn(z)
        return f, g * mask

    return fun, init_params(spec, ctx, 4, inner_scale=1.0)


# Same steps, compared to rounding: on this machine the batch's rows are independent to the last bit (the runs are
# bitwise equal), but a BLAS that blocks a batch of m·B rows differently from one of B may round the forward pass
# differently. A different step length (a wrong halving, the last passing step instead of the first) moves x by
# ~1e-3 relative or more, so 1e-10 separates the two by orders of magnitude.
TRAJECTORY_RTOL = 1e-10


def _same_trajectory(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=TRAJECTORY_RTOL, atol=TRAJECTORY_RTOL * float(a.abs().max()))


@pytest.mark.parametrize("m, c1", [(1, 1e-4), (3, 1e-4), (SPECULATE, 1e-4), (50, 1e-4), (SPECULATE, 0.4)])
def test_speculative_backtracking_takes_the_sequential_steps(m, c1):
    """c1 = 0.4: a sufficient decrease that decides most trials (at 1e-4 it rarely does)."""
    seq_calls, spec_calls = [], []
    fun, x0 = _network(seq_calls)
    seq = batched_lbfgs(fun, x0, max_iter=40, gtol=1e-12, c1=c1)
    fun, x0 = _network(spec_calls)
    fast = batched_lbfgs(fun, x0, max_iter=40, gtol=1e-12, c1=c1, speculate=m)
    backtracks = len(seq_calls) - 1 - int(seq.iterations.max())
    assert backtracks >= 10  # the instance exercises the line search
    assert torch.equal(seq.iterations, fast.iterations)
    for a, b in ((seq.x, fast.x), (seq.f, fast.f), (seq.grad, fast.grad)):
        _same_trajectory(a, b)
    assert seq.status == fast.status
    assert fast.evaluations == len(spec_calls)
    if m > 1:
        assert len(spec_calls) < len(seq_calls)  # fewer calls: the point of it
    assert max(spec_calls) <= max(x0.shape[0], x0.shape[0] * m)
    if m > x0.shape[0]:  # a speculative call then never has B rows: every iteration's first trial, t = 1, alone does
        assert spec_calls.count(x0.shape[0]) >= 1 + int(fast.iterations.max())


def _never_acceptable(trials: list):
    """f = ‖x‖² at the start, NaN at every other point: every trial fails and the line search must stall after
    exactly max_backtracks step lengths 1, 1/2, …; ``trials`` records the step lengths tried. At x = ½·1 ∈ R⁴ the
    gradient is 1, ‖g‖ = 2, the first direction d = −g/‖g‖ = −½·1: a trial point is ½ − t/2, exactly."""
    x_start = torch.full((2, 4), 0.5, dtype=torch.float64)

    def fun(x):
        moved = (x != x_start[:1]).any(1)
        f = (x * x).sum(1).masked_fill(moved, float("nan"))
        if moved.any():
            trials.append((0.5 - x[moved][:, 0]) / 0.5)
        return f, 2 * x

    return fun, x_start


@pytest.mark.parametrize("m", [0, 3, 7])
def test_a_stalled_line_search_tries_the_same_step_lengths(m):
    trials: list = []
    fun, x0 = _never_acceptable(trials)
    res = batched_lbfgs(fun, x0, max_iter=3, max_backtracks=10, speculate=m)
    assert res.status == [STALLED, STALLED] and int(res.iterations.max()) == 0
    tried = torch.cat(trials)
    assert sorted(set(tried.tolist()), reverse=True) == [0.5 ** k for k in range(10)]  # none skipped, none beyond
    assert tried.numel() == 2 * 10  # each of the two instances tried each of them once


def test_train_to_plateau_speculates_and_keeps_its_numbers():
    calls: list = []
    fun, x0 = _network(calls)
    kw = dict(reference=0.0, window=10, rtol=1e-3, max_iter=30)
    a, b = train_to_plateau(fun, x0, speculate=0, **kw), train_to_plateau(fun, x0, **kw)
    _same_trajectory(a.x, b.x)
    _same_trajectory(a.f, b.f)
    _same_trajectory(a.drop.nan_to_num(-1.0), b.drop.nan_to_num(-1.0))
    assert a.status == b.status and torch.equal(a.iterations, b.iterations)
