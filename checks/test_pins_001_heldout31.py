"""A survivor of the held-out seed-31 mutation sample (issue 26, item 9): Lemma 6's V identity of App. B.6
(``batchnorm.lemma_6_claims``' ``lemma_6_v``) had no probe, so ``at_most`` → ``at_least`` went unnoticed (the
identity then holds for any error). One entry of V ℂ_α[f₁^bn] is scaled by a literal 1 + 3e-10 (three RTOL = 1e-10
allowances out: the identity must fail) or 1 + 3e-11 (inside: it must hold)."""

from __future__ import annotations

import pytest

from theorems.core.context import Context
from theorems.core.registry import get, validate
from theorems.nonlinear_cl import batchnorm


@pytest.mark.parametrize("scale,holds", [(1 + 3e-10, False), (1 + 3e-11, True)])
def test_lemma_6_v_identity_fails_three_allowances_out(monkeypatch, scale, holds):
    formula = batchnorm.lemma_6_formula

    def patched(*args):
        gw, gv = formula(*args)
        gv = gv.clone()
        flat = gv.view(-1)
        flat[int(flat.abs().argmax())] *= scale  # the largest entry: the relative error is exactly scale − 1
        return gw, gv

    monkeypatch.setattr(batchnorm, "lemma_6_formula", patched)
    result = get("nonlinear_cl.batchnorm")
    p, violations = validate(result, {}, result.default_form)
    assert not violations
    claims, _ = batchnorm.lemma_6_claims(p, Context.make(seed=0))
    (c,) = [c for c in claims if c.name == "lemma_6_v"]
    assert c.passed is holds, c
