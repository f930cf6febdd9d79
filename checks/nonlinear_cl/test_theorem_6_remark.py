"""The checks particular to ``nonlinear_cl.theorem_6_remark`` (Appendix C.3, the Remark after the proof of Theorem 6,
eqs. (152)–(157)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import (
    assert_fails_within_ten_times_the_bound,
    assert_hypothesis_edge,
    assert_registered_bindings,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
)
from theorems.core import recording

T6R = "nonlinear_cl.theorem_6_remark"
T6, REMARK = "nonlinear_cl.theorem_6", "nonlinear_cl.theorem_6_remark"
NL = "nonlinear_cl."


EDGES = [
    (REMARK, "as_printed", dict(formula_scale=1.001), "eq. (155) as printed"),
    (REMARK, None, dict(formula_scale=0.999), "eq. (155) as printed"),
    (REMARK, None, dict(bound_scale=1.001), "the modulation bound as stated"),
    (REMARK, None, dict(dist="uniform"), None),
    # the Remark after Theorem 6: the two laws that break eq. (153), each scale off 1 the other way
    (NL + "theorem_6_remark", None, dict(dist="normal"), "Y_l ~ U[−1, 1]"),
    (NL + "theorem_6_remark", None, dict(dist="comonotone"), "Y_l independent"),
    (NL + "theorem_6_remark", None, dict(bound_scale=0.999), "the modulation bound as stated"),
    ('nonlinear_cl.theorem_6_remark', 'as_printed', dict(dist='normal'), 'Y_l ~ U[−1, 1]'),
    ('nonlinear_cl.theorem_6_remark', 'as_printed', dict(dist='comonotone'), 'Y_l independent (eq. 153)'),
    ('nonlinear_cl.theorem_6_remark', None, dict(dist='normal'), 'Y_l ~ U[−1, 1]'),
    ('nonlinear_cl.theorem_6_remark', None, dict(dist='comonotone'), 'Y_l independent (eq. 153)'),
]


def test_theorem_6_remark_counterexamples_by_closed_form(run):
    ev = run(T6R, form="as_printed", eps_max=1.5)
    assert ev.claim("positive_modulation").observed == pytest.approx(0.5 / 0.75, rel=1e-12)  # P = 1/2 at ε = 1.5
    ev = run(T6R, form="as_printed", gap=0.8, d=5)
    # r = 5, r' = 2: (1/3)(1 − (ε_c(2) − ε_c(5))/2)³ = (1/3)(1 − 1.2)³ < 0 = P[E_c(5)]
    assert ev.claim("general_rank_157").observed == pytest.approx(-(1 / 3) * (-0.2) ** 3, rel=1e-9)
    assert ev.claim("general_top_156").passed  # the gap 0.8 ≤ 1 keeps (156)


def test_theorem_6_remark_no_modulation_is_one_over_d(run):
    ev = run(T6R, d=10)
    assert ev.claim("d_times_P0").observed == pytest.approx(1 - 2.0**-10, rel=1e-12)


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: R.prob_event is a function no parameter or module constant reaches
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


# -- Theorem 6's remark, general case: (157) is the min over r' < r, judged at the worst r ---------------------------
def test_theorem_6_remark_bound_157_is_the_min_over_earlier_ranks():
    """d = 3, gap 0.5, no jitter: ε = (0, −0.5, −1). Eq. (157) at r = 2: (1 − 0.5/2)²/2 = 0.28125; at r = 3 the
    smaller of r' = 1: (1 − 1/2)²/2 = 0.125 and r' = 2: (1 − 0.5/2)³/3 = 0.140625, i.e. 0.125 (max would give
    0.140625). Literal values, computed by hand."""
    from theorems.core.context import Context
    from theorems.nonlinear_cl import theorem_6_remark as R

    p = dict(d=3, gap=0.5, jitter=0.0, mc=1000, dist="uniform", seed=0)
    claims, details = R.general_case(p, "corrected", Context.make(seed=0))
    assert details["bound_157"] == pytest.approx([0.28125, 0.125], rel=1e-12)
    # the corrected (156) is the one reported: ½ min(gap, 1), not the printed ½ gap
    top = [c for c in claims if c.name == "general_top_156"][0]
    assert top.bound == pytest.approx(0.25, rel=1e-12) and "½ min(ε_c(1) − ε_c(2), 1)" in top.message, top


# monkeypatch, not a Pin: R.prob_event is a function no parameter or module constant reaches
def test_theorem_6_remark_rank_157_takes_the_worst_rank(monkeypatch):
    """ONE rank's probability (r = 3 of the default d = 6) patched to 0.49 — above every (157) bound there (≤ 1/3) —
    the others as computed: general_rank_157 (a max over r ≥ 2) must fail; the best rank would pass."""
    import theorems
    from theorems.nonlinear_cl import theorem_6_remark as R

    real = R.prob_event

    def one_rank_off(delta, dist):
        P = real(delta, dist)
        if delta.shape[0] != R.GRID:  # the general case's d rows (the special case has GRID rows)
            P = P.clone()
            P[2] = 0.49
        return P

    monkeypatch.setattr(R, "prob_event", one_rank_off)
    ev = recording.expect(theorems.check(R.ID, mc=1000), recording.FAILS)  # a patched probability
    c = ev.claim("general_rank_157")
    assert not c.passed and c.observed > 0.1, c


# -- the Remark after Theorem 6: every claim over the ε grid (or over r) is judged at its worst entry ---------------
# monkeypatch, not a Pin: R.prob_155, R.prob_event is a function no parameter or module constant reaches
def test_theorem_6_remark_grid_claims_take_their_worst_entry(monkeypatch):
    """ONE entry of each aggregate is patched off by a literal amount, the others left exact: (155) off by 0.2 at the
    last ε > 0 (both (155) claims, the quadrature's and the Monte Carlo's, see it: 0.2 ≫ QUAD_ATOL, ≈ 13 standard
    errors of 1000 draws), the quadrature halved at ε = 1 (positive modulation at 0.5 of its bound; elsewhere it is ≥ 1), and
    P[E_c(3)] of the general case raised 0.2 above (157)'s bound. Each claim must fail, with the patched value as its
    observation; a claim taking the best entry (min for max) would pass."""
    import theorems
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_6_remark as R

    exact_155, exact_event = R.prob_155, R.prob_event

    def off_155(eps, d):
        out = exact_155(eps, d)
        if len(eps) > 1:  # the grid, not the single ε = 0 of d·P₀
            out = out.clone()
            out[-1] += 0.2
        return out

    def off_event(delta, dist):
        q = exact_event(delta, dist).clone()
        if len(delta) == R.GRID:  # the special case: the last ε = eps_max = 1 (its quadrature halved)
            q[-1] = q[-1] / 2
        else:  # the general case (d rows): P[E_c(3)] pushed over (157)
            q[2] = 0.5
        return q

    monkeypatch.setattr(R, "prob_155", off_155)
    monkeypatch.setattr(R, "prob_event", off_event)
    ev = recording.expect(theorems.check(R.ID, mc=1000), recording.FAILS)  # patched formulas
    quad = ev.claim("formula_155_quadrature")
    assert not quad.passed and quad.observed > 0.19, quad
    mc = ev.claim("formula_155_monte_carlo")
    assert not mc.passed and mc.observed > 2 * R.MC_Z, mc
    pos = ev.claim("positive_modulation")
    assert not pos.passed and 0.49 < pos.observed < 0.51, pos
    rank = ev.claim("general_rank_157")
    assert not rank.passed and rank.observed > 0.1, rank
    gmc = ev.claim("general_monte_carlo")
    assert not gmc.passed, gmc


def test_registered_instance_fails_within_ten_times_the_bound(run):
    """A bound constant (or a z-threshold) pinned by a registered failing instance whose observed value lies in
    (bound, 10·bound]: the constant loosened ×10 lets it pass."""
    assert_fails_within_ten_times_the_bound(
        run, "nonlinear_cl.theorem_6_remark", "controls", dict(dist="comonotone", mc=1000, allow_violation=True),
        ("formula_155_monte_carlo", "general_monte_carlo"))  # 15 and 9.7 standard errors against MC_Z = 4.5


def test_registered_bindings_are_the_documented_ones():
    # where each hypothesis binds, as the module's docstring documents
    assert_registered_bindings("nonlinear_cl.theorem_6_remark", [dict(eps_max=1.0), dict(eps_max=3.0)])


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.theorem_6_remark")
