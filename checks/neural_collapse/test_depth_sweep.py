"""The module `theorems.neural_collapse.depth_sweep` that several results of paper 004 share: its unit checks.
(Training deep regularised networks of paper 004 over a sweep of depths (Section 5, Appendix D).)"""

from __future__ import annotations

import pytest

from theorems.core.context import Context
from theorems.data.classification import gaussian_mixture
from theorems.neural_collapse.depth_sweep import depth_sweep
from theorems.neural_collapse.models import ModelSpec
from theorems.neural_collapse.ufm import closed_form
from theorems.optim.lbfgs import GTOL


def _sweep(probe_rtol: float):
    ctx = Context.make(seed=0)
    X0, labels = gaussian_mixture(ctx, 3, 2, 5)
    spec = ModelSpec("rn1", 2, 5, 3, d0=5)
    ref = closed_form("ce", 3, 5, 0.05).value
    return depth_sweep(spec, ctx, X0, labels, "ce", [2, 3], 3, lambda L: (0.05, 0.05), lambda _: ref,
                       max_iter=25, gtol=1e-9, probe_iter=5, plateau_rtol=probe_rtol)


def test_a_plateau_is_resolved_never_converged():
    """With a generous plateau tolerance every probe that ran all its iterations is a plateau: those seeds are
    'resolved' and still not 'converged' (the first-order certificate is 'gtol' alone)."""
    points = _sweep(probe_rtol=1.0)
    statuses = [s for pt in points for s in pt.run.status]
    assert "plateau" in statuses, statuses
    for pt in points:
        conv = pt.run.converged.tolist()
        res = pt.run.resolved_mask().tolist()
        assert conv == [s == GTOL for s in pt.run.status]
        assert res == [s in (GTOL, "plateau") for s in pt.run.status]
        row = pt.row()
        assert row["seeds_certified"] == sum(conv) and row["seeds_resolved"] == sum(res)
        assert row["converged"] == (pt.run.status[pt.best] == GTOL)
        assert row["resolved"] == (pt.run.status[pt.best] in (GTOL, "plateau"))
    # A zero tolerance certifies nothing by plateau (a probe always moves the gap a little or stalls).
    strict = _sweep(probe_rtol=0.0)
    assert all(not bool(pt.run.resolved_mask()[i]) or pt.run.status[i] == GTOL
               for pt in strict for i in range(len(pt.run.status)))


# -- the plateau certificate of the depth sweeps (depth_sweep.plateau_certificate) -----------------------------------
@pytest.mark.parametrize("run, probe, drop, status, converged, resolved", [
    ("gtol", "max_iter", 0.5, "gtol", True, True),  # the run itself reached the gradient tolerance
    ("max_iter", "max_iter", 0.01, "plateau", False, True),  # ran all its iterations, gap fell ≤ 2 %: resolved
    ("max_iter", "max_iter", 0.02, "plateau", False, True),  # at the edge
    ("max_iter", "max_iter", 0.03, "max_iter", False, False),  # still falling
    ("max_iter", "stalled", 0.0, "stalled", False, False),  # a stalled probe proves nothing
    ("max_iter", "gtol", 0.0, "gtol", True, True),  # the probe reached the gradient tolerance
])
def test_plateau_certificate_seed_by_seed(run, probe, drop, status, converged, resolved):
    """One seed at a time inside a batch of three whose other seeds are fixed (a still-falling and a gtol seed):
    the certificate is decided per seed, never by the batch."""
    from theorems.neural_collapse.depth_sweep import plateau_certificate

    st, conv, res = plateau_certificate(["max_iter", run, "gtol"], ["max_iter", probe, "max_iter"],
                                        [0.3, drop, 0.0], 0.02)
    assert (st, conv, res) == (["max_iter", status, "gtol"], [False, converged, True], [False, resolved, True])


def test_depth_sweep_trains_every_depth_at_that_depth():
    """Each point of a warm-started sweep is a network of its own depth (padded from the previous one), trained with
    that depth's λ: the schedule is asked once per depth, and each run's spec has that depth."""
    from theorems.core.context import Context
    from theorems.data.classification import gaussian_mixture
    from theorems.neural_collapse.depth_sweep import depth_sweep
    from theorems.neural_collapse.models import ModelSpec

    ctx = Context.make(seed=0)
    X0, labels = gaussian_mixture(ctx, 3, 2, 4)
    asked = []

    def schedule(L):
        asked.append(L)
        return 0.05, 0.05 / L

    points = depth_sweep(ModelSpec("rn1", 2, 6, 3, d0=4), ctx, X0, labels, "ce", [4, 2, 3], 1, schedule,
                         lambda _: 0.0, max_iter=2, gtol=1e-9, probe_iter=0, plateau_rtol=0.02)
    assert [pt.L for pt in points] == [2, 3, 4] == asked
    assert [pt.run.spec.L for pt in points] == [2, 3, 4]
    assert [pt.lam_inner for pt in points] == [0.025, 0.05 / 3, 0.0125]


# -- depth_sweep.summarise: the iteration counts it reports ---------------------------------------------------------
def test_depth_sweep_reports_the_trainers_iterations():
    """A trained run reports L-BFGS's own iteration counts (3 per seed at max_iter = 3), an untrained summary
    zeros: theorem_4_3 and the depth sweep's details show them (a details-only number, no verdict)."""
    from theorems.core.context import Context
    from theorems.data.classification import gaussian_mixture
    from theorems.neural_collapse.depth_sweep import summarise, train
    from theorems.neural_collapse.models import ModelSpec, init_params

    ctx = Context.make(seed=0)
    X0, labels = gaussian_mixture(ctx, 3, 2, 5)
    spec = ModelSpec("rn1", 2, 4, 3, d0=5)
    theta = init_params(spec, ctx, 2)
    run = train(spec, theta, X0, labels, "ce", 0.05, 0.05, max_iter=3, gtol=1e-9)
    assert run.status == ["max_iter", "max_iter"] and run.iterations.tolist() == [3, 3]
    assert summarise(spec, theta, X0, labels, "ce", 0.05, 0.05).iterations.tolist() == [0, 0]
