"""The checks particular to ``nonlinear_cl.lemma_10`` (Appendix G, Lemmas 9 and 10 (used in the proof of Theorem 3,
Appendix B.4)): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from checks.pinning import (
    assert_fails_within_ten_times_the_bound,
    assert_first_control_fails_at,
    assert_hypothesis_edge,
    assert_report_instances_flag_exactly_the_negative_controls,
    row_ids,
    uncached_probe,
)

L10 = "nonlinear_cl.lemma_10"
NL = "nonlinear_cl."


EDGES = [
    (NL + "lemma_10", None, dict(include_indefinite=True), "λ_i(t) > 0 for all i"),
    (NL + "lemma_10", None, dict(bound_scale=0.999), "exact bound"),
    ('nonlinear_cl.lemma_10', None, dict(include_indefinite=True), 'λ_i(t) > 0 for all i'),
    ("nonlinear_cl.lemma_10", None, dict(bound_scale=0.5), "exact bound"),
]


def test_lemma_10_kappa_is_of_order_one_over_the_gap_squared(run):
    ev = run(L10)
    assert ev.holds and 0.1 < ev.claim("max_kappa_gap2").observed < 10


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# monkeypatch, not a Pin: lemma_10.run is a function no parameter or module constant reaches
def test_lemma_10_judges_the_worst_step(monkeypatch):
    """Lemma 10's bound is the max over the judged PI steps: one judged step's |d_t − c_{t+1}| set to twice its
    bound ν_t(1 − c_t) fails the claim at ratio 2 (a literal), whatever the other steps do."""
    from theorems.nonlinear_cl import lemma_10, pi_steps

    real = lemma_10.run

    def fake(p, ctx):
        st = real(p, ctx)
        i = int(torch.nonzero(pi_steps.judged(st, positive_definite=True, need_dA=True))[0])
        gap = st.gap_dc.clone()
        gap[i] = 2.0 * st.nu[i] * st.one_minus_c[i]
        return dataclasses.replace(st, gap_dc=gap)

    monkeypatch.setattr(lemma_10, "run", fake)
    c = uncached_probe("nonlinear_cl.lemma_10").claim("ratio_difference_bound")
    assert not c.passed and c.observed == pytest.approx(2.0, rel=1e-12), c


def test_registered_instance_fails_within_ten_times_the_bound(run):
    """A bound constant (or a z-threshold) pinned by a registered failing instance whose observed value lies in
    (bound, 10·bound]: the constant loosened ×10 lets it pass."""
    assert_fails_within_ten_times_the_bound(
        run, "nonlinear_cl.lemma_10", "controls",
        dict(model="batch", N=16, aug=4.0, seed=1, include_indefinite=True, allow_violation=True),
        ("ratio_difference_bound",))  # 1.6


def test_report_instances_flag_exactly_the_negative_controls():
    assert_report_instances_flag_exactly_the_negative_controls("nonlinear_cl.lemma_10")


def test_fails_on_the_indefinite_steps(run):
    assert_first_control_fails_at(run, "nonlinear_cl.lemma_10", 1.62)
