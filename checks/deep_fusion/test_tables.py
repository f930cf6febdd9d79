"""The checks particular to ``deep_fusion.tables`` (§Experiment (Model Architecture, Results, Ablation Studies), Tables
2–6; Conclusion): its pins, hypothesis edges and hand-made cases."""

from __future__ import annotations

from decimal import Decimal

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, row_ids
from theorems.core import recording, registry
from theorems.core.verdict import run_spec
from theorems.deep_fusion import tables

TB = tables.ID


# ------------------------------------------------------------------------------------------------------
# Tables: the one-printed-unit thresholds from both sides, and the controls' claims
# ------------------------------------------------------------------------------------------------------
TBID = "deep_fusion.tables"


UNIT_PINS = [  # (the cell move, the claim group, the claim): the smallest difference becomes 0.005 / 0.02
    ("t2:ImageNet-200/TF/1.9M:unsup", "gains", "tf_outperforms_everywhere", -2.25),
    ("t2:CIFAR100/FFN/7.4M:unsup", "larger_heads", "larger_heads_more_accurate", -0.68),
    ("t2:CIFAR10/TF/7.6M:hours", "larger_heads", "larger_heads_slower", -0.86),
]


EDGES = [
    ("deep_fusion.tables", None, dict(), None),
    ("deep_fusion.tables", None, dict(perturb="t3:512:FFN_unsup:0.01"), "the cells as printed"),
    # tables: a perturbation must name a printed cell and a decimal
    ("deep_fusion.tables", None, dict(perturb=""), None),
    ("deep_fusion.tables", None, dict(perturb="no-such-cell=1.0"), "perturb names a printed cell and a decimal"),
]


# ======================================================================================================
# Tables 2–6
# ======================================================================================================
def test_tables_gains_recomputed_from_the_printed_strings():
    """Independent of `tables`' Decimal code: integers in hundredths from the printed strings."""
    def hundredths(text):
        whole, _, frac = text.partition(".")
        return int(whole) * 100 + int((frac + "00")[:2])

    for (ds, tf), (unsup, sup) in tables.TABLE_2_GAINS.items():
        ffn = "1.9M" if tf == "1.9M" else "7.4M"
        for col, printed in ((0, unsup), (1, sup)):
            diff = hundredths(tables.TABLE_2[(ds, "TF", tf)][col]) - hundredths(tables.TABLE_2[(ds, "FFN", ffn)][col])
            assert diff == hundredths(printed), (ds, tf, col)
    sup = [hundredths(v[1]) for v in tables.TABLE_2_GAINS.values()]
    assert (min(sup), max(sup)) == (238, 361)  # printed: 2.38 to 5.26


def test_tables_counterexamples_name_the_contradicting_rows(run):
    sup = run(TB, claim="sup_gain_range")
    assert sup.details["sup_gain_max_row"] == "CIFAR100/1.9M" and sup.claim("sup_gain_max_as_printed").observed == 3.61
    assert sup.claim("sup_gain_min_as_printed").passed
    ffn = run(TB, claim="ffn_default").claim("ffn_default_matches_table_2")
    assert (ffn.observed, ffn.bound) == (35.43, 37.42)
    time = run(TB, claim="batch_time")
    assert time.details["fastest_batch_ffn"] == time.details["fastest_batch_tf"] == "512"
    assert run(TB, claim="head_sizes").claim("three_head_sizes").observed == 2
    assert run(TB, claim="tf_default").holds and run(TB, claim="gains").holds


def test_tables_perturb_moves_exactly_one_cell():
    base, moved = tables.values(""), tables.values("t3:512:FFN_unsup:0.57")
    changed = [k for k in base if base[k] != moved[k]]
    assert changed == ["t3:512:FFN_unsup"] and moved[changed[0]] - base[changed[0]] == Decimal("0.57")


@pytest.mark.parametrize("bad", ["t9:x:y:1", "t3:512:FFN_unsup:abc"])
def test_tables_bad_perturb_names_the_parameter(bad):
    with pytest.raises((theorems.HypothesisViolation, theorems.ParameterError), match="perturb"):
        theorems.check(TB, perturb=bad, allow_violation=True)


def test_tables_sentences_that_hold_hold_as_printed(run):
    for group in ("gains", "unsup_gain_range", "larger_heads", "tf_default", "best_batch", "best_tau", "best_wd",
                  "best_probe"):
        assert run(TB, claim=group).holds, group
    ev = run(TB)
    assert sorted(ev.details["failed_sentences"]) == sorted(c.name for c in ev.claims if not c.passed)
    assert set(ev.details["failed_sentences"]) == {"sup_gain_max_as_printed", "ffn_default_matches_table_2",
                                                   "batch_time_optimal_ffn", "batch_time_optimal_tf", "three_head_sizes"}
    time = run(TB, claim="batch_time")
    assert time.claim("batch_time_optimal_ffn").observed == pytest.approx(4.22 - 4.05, abs=1e-12)
    assert time.claim("batch_time_optimal_tf").observed == pytest.approx(2.98 - 2.65, abs=1e-12)


@pytest.mark.parametrize("rid, form, params, name", EDGES, ids=row_ids(EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_tables_head_sizes_bound_is_the_printed_three(run):
    """"three head sizes" (the text): the claim's bound is the printed 3 (the tables have 2 per head type)."""
    ev = run("deep_fusion.tables", form="as_printed", claim="head_sizes")
    c = ev.claim("three_head_sizes")
    assert (c.observed, c.bound, c.passed) == (2, 3, False)


def test_tables_printed_claims_fail_exactly_where_a_counterexample_is_registered(run):
    """On the printed tables (claim='all') every claim holds except those of the registered counterexamples: a
    threshold or relation changed in a claim that holds as printed makes it fail there, and the verdict (refuted by
    the counterexamples anyway) would not notice."""
    result = registry.get("deep_fusion.tables")
    ev = run(result.id, form="as_printed")
    failing = {c.name for c in ev.claims if c.kind != "measurement" and not c.passed}
    registered = {c.name for cx in result.counterexamples for c in run(result.id, form="as_printed", **cx).claims
                  if c.kind != "measurement" and not c.passed}
    assert failing == registered and registered, (failing, registered)
    assert len([c for c in ev.claims if c.kind == "bound"]) > len(registered)


@pytest.mark.parametrize("cell, group, name, zero", UNIT_PINS, ids=[u[2] for u in UNIT_PINS])
def test_tables_one_unit_thresholds_are_pinned_from_both_sides(run, cell, group, name, zero):
    """Moving the cell by ``zero`` makes the difference 0 (the registered control); by zero + 0.005 it is half a
    printed unit (a registered pin: fails the 0.01 threshold, passes 0.001), by zero + 0.02 two units (holds;
    fails 0.1)."""
    from decimal import Decimal as Dec


    result = registry.get(TBID)
    half = dict(claim=group, perturb=f"{cell}:{Dec(str(zero)) + Dec('0.005')}", allow_violation=True)
    assert half in [dict(p) for p in result.pin_instances()]
    c = recording.expect(run_spec(run, result, half), recording.FAILS).claim(name)
    assert not c.passed and c.observed == pytest.approx(0.005, abs=1e-12), c
    two = recording.expect(run(TBID, claim=group, perturb=f"{cell}:{Dec(str(zero)) + Dec('0.02')}",
                               allow_violation=True), *recording.OUTCOMES).claim(name)
    assert two.passed and two.observed == pytest.approx(0.02, abs=1e-12), two


def test_tables_controls_fail_the_claim_they_name(run):
    """The registered TF = FFN control fails 'consistently outperforms' itself with a gain of 0 (it fails the
    bracketed-gain claim too, which alone would hide a claim taking the best column)."""

    control = dict(claim="gains", perturb="t2:ImageNet-200/TF/1.9M:unsup:-2.25", allow_violation=True)
    result = registry.get(TBID)
    assert control in [dict(c) for c in result.controls]
    c = recording.expect(run_spec(run, result, control), recording.FAILS).claim("tf_outperforms_everywhere")
    assert not c.passed and c.observed == 0.0, c
