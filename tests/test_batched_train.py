"""optim.batched_train (training to a plateau certificate, its cost model) and the depth sweep's zero-block padding."""

from __future__ import annotations

import pytest
import torch

from theorems.core.context import Context
from theorems.data.classification import gaussian_mixture
from theorems.neural_collapse.models import ModelSpec, init_params, objective
from theorems.neural_collapse.sandwich import pad_zero_blocks
from theorems.optim.batched_train import PLATEAU, train_to_plateau, training_cost
from theorems.optim.lbfgs import GTOL, MAX_ITER, STALLED


def _quadratic(scales):
    s = torch.tensor(scales, dtype=torch.float64)[:, None]

    def fun(x):
        return 0.5 * (s[: x.shape[0]] * x * x).sum(1), s[: x.shape[0]] * x

    return fun


def test_smooth_problems_stop_at_gtol_and_keep_the_exact_values():
    x0 = torch.ones(3, 4, dtype=torch.float64)
    run = train_to_plateau(_quadratic([1.0, 2.0, 3.0]), x0, reference=0.0, window=10, rtol=0.01, max_iter=100,
                           gtol=1e-12)
    assert run.status == [GTOL] * 3 and bool(run.certified.all())
    assert torch.allclose(run.f, torch.zeros(3, dtype=torch.float64), atol=1e-20)


def test_a_plateau_is_certified_only_after_a_window_that_barely_moves():
    """f(x) = ‖x‖² + 1 with reference 0: the gap never vanishes, so after convergence the next window moves it by
    0 ≤ rtol: 'plateau'. A budget shorter than one window cannot certify: the run ends at max_iter, not certified."""
    fun = _quadratic([1.0])

    def shifted(x):
        f, g = fun(x)
        return f + 1.0, g

    x0 = torch.full((1, 3), 2.0, dtype=torch.float64)
    run = train_to_plateau(shifted, x0, reference=0.0, window=5, rtol=1e-3, max_iter=50, gtol=-1.0)
    assert run.status == [PLATEAU] and float(run.drop[0]) <= 1e-3 and run.windows >= 2
    with pytest.raises(ValueError):
        train_to_plateau(shifted, x0, reference=0.0, window=0, rtol=1e-3, max_iter=50)
    never = train_to_plateau(shifted, x0, reference=0.0, window=5, rtol=1e-3, max_iter=4, gtol=-1.0)
    assert never.status == [MAX_ITER] and not bool(never.certified.any()) and int(never.iterations[0]) <= 4


def test_cost_model_is_linear_in_iterations_and_pays_the_dispatch_overhead():
    base = training_cost(instances=4, blocks=36, width=8, samples=6, params=3000, iterations=100)
    assert training_cost(instances=4, blocks=36, width=8, samples=6, params=3000, iterations=1000) == \
        pytest.approx(10 * base)
    # tiny networks: the overhead per block (~1e6 operation equivalents), not their ~1e4 flops, sets the cost
    assert base >= 100 * 1.5 * 36 * 1e6


@pytest.mark.parametrize("arch", ["rn1", "rn2", "tx1"])
def test_zero_blocks_are_an_exact_identity(arch):
    ctx = Context.make("cpu", 3)
    if arch == "tx1":
        from theorems.data.sequences import prefix_sum_sequences

        spec = ModelSpec(arch, 2, 8, 2, V=2, C=3, readout="all")
        inputs, labels = prefix_sum_sequences(2, 2, 3)
    else:
        spec = ModelSpec(arch, 3, 6, 3, d0=5)
        inputs, labels = gaussian_mixture(ctx, 3, 2, 5)
    theta = init_params(spec, ctx, 2, inner_scale=1.0)
    deep = pad_zero_blocks(spec, theta, spec.L + 4)
    a = objective(spec, theta, inputs, labels, "ce", 0.1, 0.1)
    b = objective(spec.with_depth(spec.L + 4), deep, inputs, labels, "ce", 0.1, 0.1)
    assert torch.allclose(a, b, rtol=1e-13, atol=0)


def _shifted_quadratic(x):
    return 0.5 * (x * x).sum(1) + 1.0, x  # never reaches its reference 0: only a plateau can certify it


def test_train_to_plateau_decides_through_the_callers_functions():
    """The caller's functions, not ``rtol``/``gtol``, decide: refused, the same run ends at max_iter; and an
    L-BFGS 'gtol' stop counts only when ``stationary`` confirms its final measure."""
    x0 = torch.full((2, 3), 2.0, dtype=torch.float64)
    kw = dict(reference=0.0, window=5, rtol=1e-3, max_iter=30)
    assert train_to_plateau(_shifted_quadratic, x0, gtol=-1.0, **kw).status == [PLATEAU] * 2
    refused = train_to_plateau(_shifted_quadratic, x0, gtol=-1.0, plateaued=lambda drop: False, **kw)
    assert refused.status == [MAX_ITER] * 2
    assert train_to_plateau(_shifted_quadratic, x0, gtol=1e-8, **kw).status == [GTOL] * 2
    unconfirmed = train_to_plateau(_shifted_quadratic, x0, gtol=1e-8, stationary=lambda g: False,
                                   plateaued=lambda drop: False, **kw)
    assert unconfirmed.status == [STALLED] * 2
