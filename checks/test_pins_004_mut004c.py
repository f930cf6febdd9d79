"""Tolerances of paper 004's slow training modules, pinned where they decide (issue 26, item 9, seed 37).

A pin of a training tolerance is not a deliberately unconverged 200–400 s run: each convergence or reach decision
is a small named function of the measured numbers (``sandwich.plateaued``/``stationary``, the same in
``figure_1``, ``lemma_4_2.reach_claim``/``noncollapsed_claim``) that the module's evaluate calls, pinned here with
literal inputs 3–4 allowances outside the tolerance (it must then fail: loosened ×10 or ×1000 it would pass) and
3× inside (it must pass: tightened ÷10 it would fail). The numbers are literals read off the tolerance comments,
never built from the constants. One cheap end-to-end test per route shows that evaluate does decide through the
function (patched to refuse, the run reports not converged / the claim fails). Every test is a few float
operations or one tiny run.
"""

from __future__ import annotations

import pytest
import torch

from theorems.core.registry import check
from theorems.neural_collapse import figure_1, lemma_4_1, lemma_4_2, sandwich
from theorems.neural_collapse.ufm import closed_form
from theorems.optim.batched_train import PLATEAU, train_to_plateau
from theorems.optim.lbfgs import GTOL, MAX_ITER, STALLED


# -- the plateau and first-order certificates of the trained networks (PLATEAU_RTOL 0.02, TRAIN_GTOL 1e-9) --------
@pytest.mark.parametrize("module", [sandwich, figure_1], ids=["sandwich", "figure_1"])
def test_plateau_certificate_is_pinned_by_literal_drops(module):
    assert not module.plateaued(0.06)  # 3 allowances of 2 % (loosened ×10: 0.2 would certify it)
    assert module.plateaued(0.006)  # a third of one (tightened ÷10: 0.002 would refuse it)
    assert not module.plateaued(float("nan"))  # a NaN drop never certifies


@pytest.mark.parametrize("module", [sandwich, figure_1], ids=["sandwich", "figure_1"])
def test_first_order_certificate_is_pinned_by_literal_gradient_norms(module):
    assert not module.stationary(4e-9)  # 4 allowances of 1e-9 (loosened ×10 or ×1000 would certify it)
    assert module.stationary(3e-10)  # a third of one
    assert not module.stationary(float("nan"))


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


TINY_FIGURE_1 = dict(K=2, n=2, d=4, depths=[2, 3, 4], seeds=1, train_iter=80, window=20)


def test_figure_1_converged_flag_routes_through_its_certificates(monkeypatch):
    """The tiniest Figure 1 sweep: certified as run; with both certificates refusing, not converged."""
    monkeypatch.setattr(figure_1, "_CACHE", {})
    ev = check(figure_1.ID, **TINY_FIGURE_1)
    assert ev.converged is True
    monkeypatch.setattr(figure_1, "_CACHE", {})
    monkeypatch.setattr(figure_1, "plateaued", lambda drop: False)
    monkeypatch.setattr(figure_1, "stationary", lambda g: False)
    ev = check(figure_1.ID, **TINY_FIGURE_1)
    assert ev.converged is False and ev.details["not_certified"]


def test_sandwich_trains_through_its_certificates(monkeypatch):
    """``certified_sweep`` hands sandwich's own decisions to train_to_plateau (a spy stops the sweep there)."""
    import theorems.optim.batched_train as bt

    seen = {}

    class Stop(Exception):
        pass

    def spy(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    import theorems.neural_collapse.models as models

    monkeypatch.setattr(bt, "train_to_plateau", spy)
    monkeypatch.setattr(models, "trainable_mask", lambda sp, device: torch.ones(1, device=device))
    monkeypatch.setattr(sandwich, "plateaued", lambda drop: "sentinel-plateau")
    monkeypatch.setattr(sandwich, "stationary", lambda g: "sentinel-gtol")
    p = dict(train_depths=[2], seeds=1, restarts=0, window=5, train_iter=5, loss="ce")
    x = torch.zeros(1, 1, dtype=torch.float64)

    class Spec:
        size = 1

        def with_depth(self, L):
            return self

    with pytest.raises(Stop):
        sandwich.certified_sweep(p, None, Spec(), None, None, x, lambda L: (0.1, 0.1), 1.0, {}, init=lambda sp, k: x)
    assert seen["plateaued"](0.0) == "sentinel-plateau" and seen["stationary"](0.0) == "sentinel-gtol"


# -- lemma_4_2: REACH_RTOL 1e-7, REACH_ATOL 1e-12, NONCOLLAPSED_MARGIN_RTOL 1e-6 ------------------------------------
L_STAR = closed_form("ce", 3, 4, 0.05).value  # the PIN instance's closed form (an independent computation)


def test_reach_tolerances_are_pinned_by_literal_values():
    assert not lemma_4_2.reach_claim(L_STAR * (1 + 3e-7), L_STAR).passed  # 3 allowances of REACH_RTOL
    assert lemma_4_2.reach_claim(L_STAR * (1 + 3e-8), L_STAR).passed
    # L* = 0 (λ = 0): the absolute floor alone decides
    assert not lemma_4_2.reach_claim(4e-12, 0.0).passed  # 4 allowances of REACH_ATOL
    assert lemma_4_2.reach_claim(3e-13, 0.0).passed


def test_noncollapsed_margin_is_pinned_by_literal_values():
    # the pair must stay above L* by ≥ 1e-6·L*: 3e-7·L* is inside the rounding floor (fails), 4e-6·L* clears it
    assert not lemma_4_2.noncollapsed_claim(L_STAR * (1 + 3e-7), L_STAR).passed
    assert lemma_4_2.noncollapsed_claim(L_STAR * (1 + 4e-6), L_STAR).passed
    assert not lemma_4_2.noncollapsed_claim(3e-19, 0.0).passed  # L* = 0: the floor is 1e-6·REACH_ATOL = 1e-18
    assert lemma_4_2.noncollapsed_claim(4e-18, 0.0).passed


def test_lemma_4_2_reach_routes_through_reach_claim(monkeypatch):
    """One PIN solve: the reported best value, moved by a literal 3 allowances of REACH_RTOL above its L*, fails
    the registered claim; evaluate's claim is reach_claim's."""
    ev = check(lemma_4_2.ID, **lemma_4_2.PIN)
    claim = next(c for c in ev.claims if c.name == "best_run_reaches_closed_form")
    assert claim.passed
    assert not lemma_4_2.reach_claim(claim.observed * (1 + 3e-7) + 3e-7 * claim.bound, claim.bound).passed
    calls = []
    monkeypatch.setattr(lemma_4_2, "reach_claim", lambda v, ref: calls.append((v, ref)) or claim)
    check(lemma_4_2.ID, **lemma_4_2.PIN)
    assert calls == [(claim.observed, claim.bound)]


# -- lemma_4_1:152: the trained networks start perturbed in W_0, every block and W_L --------------------------------
def test_lemma_4_1_trained_starts_are_perturbed_in_every_group(monkeypatch):
    """The trained claims judge networks that start off the attaining network in W_0 (frozen: NC1 > 0 then), the
    blocks and W_L; a start left at the optimum in any of them would make 'trained' checks of the optimum itself.
    A spy on the trainer reads the starts; each group must move by ≥ 1e-4 relative in every seed (the smallest
    perturbation scale is 1e-3)."""
    from theorems.core.context import Context
    from theorems.neural_collapse.models import INNER, unpack

    seen = {}

    class Stop(Exception):
        pass

    def spy(spec, theta, *args, **kwargs):
        seen["spec"], seen["theta"] = spec, theta
        raise Stop

    monkeypatch.setattr(lemma_4_1, "train", spy)
    p = dict(K=3, n=2, d=6, lam=0.05, loss="ce", seeds=3, train_iter=1)
    ctx = Context.make(None, seed=0)
    with pytest.raises(Stop):
        lemma_4_1.trained_pairs(p, ctx)
    spec = seen["spec"]
    ctx = Context.make(None, seed=0)  # the same draws up to the attaining network
    from theorems.data.classification import gaussian_mixture

    X0, labels = gaussian_mixture(ctx, 3, 2, 6)
    base = unpack(spec, lemma_4_1.attaining_network(spec, X0, labels, "ce", 0.05, ctx))
    start = unpack(spec, seen["theta"])
    groups = {name: g for name, _, g in spec.layout()}
    moved = [name for name in start if groups[name] == INNER or name in ("WL", "W0")]
    assert {"WL", "W0"} <= set(moved) and any(groups[n] == INNER for n in moved)
    for name in moved:
        for s in range(3):
            rel = float((start[name][s] - base[name][0]).norm() / base[name][0].norm().clamp_min(1.0))
            assert rel >= 1e-4, (name, s, rel)


# -- claims that take the worst instance: ONE instance moved by a literal margin must fail the claim ------------------
def test_figure_1_identity_and_convergence_take_the_worst_network():
    rows = [dict(gufm_value=1.0, objective=[1.5, 1.2], status=["plateau", "gtol"]),
            dict(gufm_value=2.0, objective=[2.5, 3.0], status=["plateau", "plateau"])]
    assert figure_1.identity_claims(rows)[0].passed and figure_1.sweep_converged(rows)
    low = [dict(rows[0]), dict(rows[1], objective=[2.5, 2.0 * (1 - 3e-10)])]  # 3 allowances of LOWER_RTOL below
    assert not figure_1.identity_claims(low)[0].passed
    assert figure_1.identity_claims([rows[0], dict(rows[1], objective=[2.5, 2.0 * (1 - 3e-11)])])[0].passed
    assert not figure_1.sweep_converged([rows[0], dict(rows[1], status=["plateau", "max_iter"])])


def test_sandwich_local_slopes_take_the_worst_pair_of_depths():
    """ε(L) = L⁻¹ falls everywhere (slopes −1); ONE flat step (ε equal at two consecutive depths) fails
    certified_excess_local_slopes (SLOPE_MIN 0.02) while the fitted exponent still falls."""
    p = dict(loss="ce", lam=0.005, rate_shift=0.0, target=1.0)

    def rows(excess):
        return [sandwich.Row(L, 1.0, None, 1.0 + e, info={"upper": 1.0 + e, "trained_here": True, "upper_source": ""})
                for L, e in zip((5, 6, 8, 10, 12), excess, strict=True)]

    falling = [1 / L for L in (5, 6, 8, 10, 12)]
    claims = {c.name: c for c in sandwich.certified_claims(rows(falling), 1.0, p, 3, 2, 8)[0]}
    assert claims["certified_excess_local_slopes"].passed and claims["certified_excess_rate"].passed
    flat = falling[:3] + [falling[2], falling[4]]  # ε(10) = ε(8): one slope 0
    claims = {c.name: c for c in sandwich.certified_claims(rows(flat), 1.0, p, 3, 2, 8)[0]}
    assert not claims["certified_excess_local_slopes"].passed and claims["certified_excess_rate"].passed
