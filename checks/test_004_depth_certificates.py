"""Paper 004's depth sweeps: what each optimiser certificate supports (issue 26 item 2, issue 25).

* ``depth_sweep``: a plateau ('plateau': the probe barely moved the gap) is *resolved*, never *converged*;
  ``converged`` is the first-order 'gtol' certificate only, and neither is a minimiser.
* ``sandwich.certified_sweep``: the upper bound U*(L) is the exact objective of an explicit network whatever the
  optimiser's status: a sweep with no training at all still gives a valid (looser) sandwich.
"""

from __future__ import annotations

import pytest

import theorems
from theorems.core.context import Context
from theorems.core.verdict import run_spec
from theorems.data.classification import gaussian_mixture
from theorems.neural_collapse import depth_trend as DT
from theorems.neural_collapse.depth_sweep import depth_sweep
from theorems.neural_collapse.models import ModelSpec
from theorems.neural_collapse.ufm import closed_form
from theorems.optim.lbfgs import GTOL
from theorems.core import recording

RESNET_IDS = (DT.ID_43, DT.ID_46)


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


@pytest.mark.parametrize("rid", RESNET_IDS)
def test_upper_bound_is_valid_whatever_the_optimiser_did(rid, run):
    """No training (train_iter=0: every run ends uncertified, 'max_iter'): the sandwich's upper side is still the
    exact objective of explicit networks, ≥ L*_GUFM, and no claim reads the optimiser's status."""
    ev = run_spec(run, theorems.get(rid), dict(train_depths=(3, 5, 10), depths=(19, 37, 73), train_iter=0, shifts=0))
    recording.expect(ev, recording.FAILS, recording.NOT_CONVERGED)  # untrained on purpose: not a finding
    lower = ev.details["gufm_optimum"]
    assert ev.claim("sandwich_lower").passed
    for info in ev.details["trained"].values():
        assert set(info["statuses"]) <= {"max_iter"} and not info["certified"], info["statuses"]
    rows = [r for r in ev.details["sandwich"] if r["upper"] is not None]
    assert rows and all(r["upper"] >= lower * (1 - 1e-10) for r in rows)
    # untrained networks are far from L*: the certified claims fail, for lack of a good network, never by status
    assert not ev.claim("certified_excess_target").passed
