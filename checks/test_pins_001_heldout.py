"""A worst-case aggregation the held-out mutation sample of stop 34 (seed 11) found untested: the Remark after
Theorem 6's ``negative_modulation`` claim is the *max* over −1 < ε < 0 of P[E_l]/((1/d)(1 + ε/2)^d). A quadrature
off at ONE negative ε (twice the bound there, a literal factor) must fail it, whatever the other ε do; a claim that
took the best ε would pass."""

from __future__ import annotations

import theorems
from theorems.core import recording


def test_theorem_6_remark_negative_modulation_takes_the_worst_eps(monkeypatch):
    from theorems.nonlinear_cl import theorem_6_remark as R

    exact = R.prob_event

    def one_eps_off(eps, dist):
        q = exact(eps, dist).clone()
        e, d = eps[:, 0], eps.shape[1] + 1
        i = int(((e > -1) & (e < 0)).nonzero()[0])
        q[i] = 2 * (1 + e[i] / 2) ** d / d
        return q

    monkeypatch.setattr(R, "prob_event", one_eps_off)
    ev = recording.expect(theorems.check(R.ID), recording.FAILS)  # a patched quadrature
    c = ev.claim("negative_modulation")
    assert not c.passed and 1.9 < c.observed < 2.1, c
