"""Paper 004's figure_1 drop_scale control, pinned (the last session's mutation sweep: its ×10 and ×1000 survived).

The other constants that sweep listed are pinned already, with literal inputs through the functions that decide
with them, in ``checks/test_pins_004_mut004s.py`` (sandwich EXPONENT_MAX, SLOPE_MIN, RATE_ATOL, LOWER_RTOL,
LANDING_PER_BLOCK; theorem_4_3_pre_ln COPY_ATOL, FORWARD_RTOL; figure_1 FALL_EXPONENT through ``depth_claims``):
every ×10 / ×1000 / ÷10 / ÷1000 mutant of those is killed by that file alone. What was left is ``evaluate``'s own
use of the bar (FALL_EXPONENT × drop_scale) and the registered control's position: ``drop_scale`` = 3 loosened
×10 or ×1000 still fails the default sweep (nothing a trained sweep gives reaches −15), so no test saw it. Here
``evaluate`` runs on literal sweeps (``sweep`` replaced by literal rows: no training), so the file costs well
under a second of CPU.

lemma_4_1's training gtol (1e-12) is not pinned: equivalent (see the report of branch pins004): it only picks
which iterate of the trainer is judged, every iterate is an admissible pair of the for-every-pair claim, and on
the default instance all runs end at max_iter for gtol 1e-13 … 1e-9 (identical numbers).

Also: ``depth_sweep.summarise``'s iteration counts (a held-out survivor of seed 53), one 3-iteration tiny run.
"""

from __future__ import annotations

from theorems.core import registry
from theorems.core.result import AS_PRINTED
from theorems.neural_collapse import figure_1

# -- figure_1: FALL_EXPONENT −0.5 and the registered drop_scale control, through evaluate ---------------------------
FIG_DEPTHS = (2, 4, 8)


def _figure_1(monkeypatch, exponent: float, **params) -> dict:
    """figure_1.evaluate on a literal sweep whose seed-mean NC1 and NC3 follow c·L^exponent exactly (``sweep``
    replaced: no training), every network certified and above L*_GUFM."""
    rows = [dict(L=L, gufm_value=1.0, objective=[1.5, 1.2], status=["plateau", "gtol"],
                 nc1=0.3 * L ** exponent, nc2a=0.01 * L ** -1.0, nc3=0.1 * L ** exponent) for L in FIG_DEPTHS]
    monkeypatch.setattr(figure_1, "sweep", lambda ctx, p: [dict(r) for r in rows])
    p = registry.validate_structure(registry.get(figure_1.ID), dict(params), AS_PRINTED)
    out = figure_1.evaluate(p, AS_PRINTED, None)
    return {c.name: c for c in out.claims}


def test_figure_1_evaluate_judges_by_the_fall_bar(monkeypatch):
    """evaluate's bar is −0.5 (between the λ ∝ 1/L curves, ≈ −1.1, and the constant-λ ones, ≈ −0.2) at the default
    drop_scale: curves at −0.4 fail both fall claims (a bar ÷10, −0.05, would pass them), curves at −0.6 pass (a
    bar ×10, −5, would fail them)."""
    for name in ("nc1_falls_with_depth", "nc3_falls_with_depth"):
        assert not _figure_1(monkeypatch, -0.4)[name].passed
        assert _figure_1(monkeypatch, -0.6)[name].passed


def test_figure_1_registered_control_is_a_near_miss(monkeypatch):
    """The registered negative control (drop_scale = 3: a required exponent −1.5) fails curves that fall at
    −1.3, i.e. faster than the default sweep's ≈ −1.1 (a drop_scale ÷10 would let them pass), and no more than
    that: curves at −1.7 pass it (a drop_scale ×10, −15, would fail anything a trained sweep gives: the control
    would then test nothing about the bar)."""
    (control,) = [dict(c) for c in registry.get(figure_1.ID).controls]
    params = {k: v for k, v in control.items() if k != "allow_violation"}
    assert not _figure_1(monkeypatch, -1.3, **params)["nc1_falls_with_depth"].passed
    assert _figure_1(monkeypatch, -1.7, **params)["nc1_falls_with_depth"].passed


# -- depth_sweep.summarise: the iteration counts it reports (held-out seed-53 survivor depth_sweep:97) ---------------
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
