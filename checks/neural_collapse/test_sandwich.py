"""The module `theorems.neural_collapse.sandwich` that several results of paper 004 share: its unit checks. (The depth
sandwich of paper 004, shared by the four depth results (ResNets and transformers, Theorems 4.3 and 4.6): at every
depth L,)"""

from __future__ import annotations

import pytest
import torch

from theorems.core.context import Context
from theorems.data import digits as DIGITS
from theorems.neural_collapse import sandwich
from theorems.neural_collapse.models import ModelSpec, features, init_params, objective
from theorems.neural_collapse.sandwich import pad_zero_blocks


def test_zero_padding_is_an_exact_identity_and_stays_zero():
    """The batched sweep pads shallow networks with zero blocks: the same features and objective (computed by
    models.objective at the true depth), and a trained sweep's padded blocks carry no norm."""
    ctx = Context.make("cpu", 3)
    X0, labels = DIGITS.digits(ctx, 3, 4)
    spec = ModelSpec("rn2", 3, 8, 3, d0=DIGITS.PIXELS)
    theta = init_params(spec, ctx, 2)
    padded = pad_zero_blocks(spec, theta, 8)
    top = spec.with_depth(8)
    assert torch.allclose(features(top, padded, X0), features(spec, theta, X0), rtol=0, atol=1e-14)
    assert torch.allclose(objective(top, padded, X0, labels, "ce", 0.005, 0.001),
                          objective(spec, theta, X0, labels, "ce", 0.005, 0.001), rtol=1e-14)


# monkeypatch, not a Pin: it replaces bt.train_to_plateau ...: code, which a Pin cannot move
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


# -- the depth sandwich (sandwich.py): its claim builders on literal rows -------------------------------------------
def _rows(depths, excess, lower=1.0, trained=None):
    from theorems.neural_collapse.sandwich import Row

    return [Row(L, lower, None, trained[i] if trained else lower + e,
                info={"upper": lower + e, "upper_source": "trained", "trained_here": True})
            for i, (L, e) in enumerate(zip(depths, excess, strict=True))]


SW_P = dict(loss="ce", lam=0.05, rate_shift=0.0, target=0.5)


DEPTHS = (5, 10, 20, 40)


def _certified(depths, excess, **p):
    from theorems.neural_collapse.sandwich import certified_claims

    claims, _ = certified_claims(_rows(depths, excess), 1.0, {**SW_P, **p}, 3, 2, 8)
    return {c.name: c.passed for c in claims}


def _power(exponent, depths=DEPTHS, c=0.1):
    return [c * L ** exponent for L in depths]


def _bend(depths, exponent, at, slope):
    """c·L^exponent with the segment ending at ``depths[at]`` given its own local slope (the rest unchanged)."""
    import math

    out = [0.1 * depths[0] ** exponent]
    for i in range(1, len(depths)):
        s = slope if i == at else exponent
        out.append(out[-1] * math.exp(s * math.log(depths[i] / depths[i - 1])))
    return out


@pytest.mark.parametrize("excess, failing", [
    (_power(-0.5), ()),
    (_power(-0.27), ("certified_excess_rate",)),  # EXPONENT_MAX = −0.3: an exponent 0.03 above it fails
    (_bend(DEPTHS, -0.5, 2, -0.01), ("certified_excess_local_slopes",)),  # SLOPE_MIN = 0.02: ONE flat segment
    (_bend(DEPTHS, -0.5, 3, -0.006), ("certified_excess_local_slopes",)),
    (_bend(DEPTHS, -0.5, 1, -0.05), ()),  # a segment at −0.05 still improves
    (_power(-0.5, c=10.0), ("certified_excess_target",)),  # ε(40)/L* = 10·40^−½ = 1.58 > 0.5
])
def test_sandwich_certified_claims_on_literal_excess(excess, failing):
    got = _certified(DEPTHS, excess)
    assert sorted(k for k, ok in got.items() if not ok) == sorted(failing), got


def test_sandwich_certified_claims_fit_from_depth_5():
    """FIT_FROM = 5: a flat segment from depth 4 to 5 is not judged (the fit starts at 5), one from 5 to 10 is."""
    depths = (3, 4, 5, 10, 20)
    assert all(_certified(depths, _bend(depths, -0.5, 1, 0.0)).values())
    assert all(_certified(depths, _bend(depths, -0.5, 2, 0.0)).values())
    assert not _certified(depths, _bend(depths, -0.5, 3, 0.0))["certified_excess_local_slopes"]


def test_sandwich_rate_shift_moves_the_exponent_bound():
    assert not _certified(DEPTHS, _power(-0.5), rate_shift=-0.3)["certified_excess_rate"]
    assert _certified(DEPTHS, _power(-0.5), rate_shift=-0.1)["certified_excess_rate"]


@pytest.mark.parametrize("low, holds", [(1.0 - 3e-10, False), (1.0 - 3e-11, True), (1.0, True)])
def test_sandwich_lower_takes_the_lowest_objective(low, holds):
    """LOWER_RTOL = 1e-10 on min over depths of the objectives / L*: ONE trained objective (the middle depth) 3e-10
    below L* fails it, 3e-11 below passes."""
    from theorems.neural_collapse.sandwich import sandwich_claims

    rows = _rows(DEPTHS, _power(-0.5), trained=[1.2, 1.1, low, 1.05])
    for r in rows:
        r.construction = 1.3
    (claim,), _ = sandwich_claims(rows, 1.0, 1.0)
    assert claim.passed is holds, claim


@pytest.mark.parametrize("err, holds", [(3e-13, False), (3e-14, True)])
def test_sandwich_landing_identity_takes_the_worst_depth(err, holds):
    """LANDING_PER_BLOCK = 1e-13 per block and per unit of (1 + α_max): ONE depth (of three) landing 3e-13 off
    per block fails the identity, 3e-14 passes."""
    from types import SimpleNamespace

    from theorems.neural_collapse.sandwich import landing_claim

    def built(error_per, alpha, blocks):
        return SimpleNamespace(landing_error=error_per * (1 + alpha) * blocks, extra={"alpha_max": alpha},
                               spec=SimpleNamespace(blocks=blocks))

    claim = landing_claim({19: built(1e-17, 3.0, 19), 37: built(err, 1e6, 37), 73: built(1e-17, 0.5, 73)})
    assert claim.kind == "identity" and claim.passed is holds, claim


@pytest.mark.parametrize("shift, at, failing", [
    (0.0, None, ()),
    (0.06, None, ("construction_excess_rate", "construction_local_slopes")),  # RATE_ATOL = 0.02, 3 allowances
    (0.006, None, ()),
    (0.06, 3, ("construction_local_slopes",)),  # ONE segment 0.06 flatter than predicted fails the local slopes
])
def test_sandwich_rate_claims_on_literal_excess(shift, at, failing):
    from theorems.neural_collapse.sandwich import rate_claims

    depths = (19, 37, 73, 145, 289, 577)
    reference = _power(-0.5, depths)
    excess = _power(-0.5 + shift, depths) if at is None else _bend(depths, -0.5, at, -0.5 + shift)
    claims, _ = rate_claims(depths, excess, reference, "the reference")
    assert sorted(c.name for c in claims if not c.passed) == sorted(failing), [str(c) for c in claims]
