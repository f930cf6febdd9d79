"""``theorems.nonlinear_cl.common``, shared by several results: its checks."""

from __future__ import annotations

import pytest

from theorems import HypothesisViolation
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.nonlinear_cl.common import without_allow

PIN = dict(formula_scale=1 + 5e-10, allow_violation=True)
IDS = ("nonlinear_cl.lemma_3", "nonlinear_cl.lemma_4")


# 1 + 5e-10 scales the formula: its relative error is 5e-10 = 5 allowances, plus rounding (~1e-15) either way.
MOST_ALLOWANCES = 10


@pytest.mark.parametrize("rid", IDS)
def test_the_shared_pin_sits_about_ten_allowances_out(run, rid):
    result = registry.get(rid)
    assert PIN in [dict(c) for c in result.controls]
    ev = recording.expect(run_spec(run, result, PIN), recording.FAILS)
    excess = {c.name: (c.observed - c.bound) / c.allowance for c in ev.claims if c.kind == "bound"}
    assert excess and all(1.0 < e <= MOST_ALLOWANCES for e in excess.values()), excess


@pytest.mark.parametrize("rid", IDS)
def test_differentiating_through_a_fixed_alpha_is_refused(run, rid):
    with pytest.raises(HypothesisViolation, match="needs alpha='infonce'"):
        run(rid, stop_gradient=False, alpha="random", allow_violation=True)


def test_without_allow_drops_only_the_flag():
    assert without_allow(dict(eps_max=1.5, allow_violation=True)) == dict(eps_max=1.5)
