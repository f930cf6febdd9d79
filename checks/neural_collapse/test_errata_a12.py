"""Proof of Thm 4.3, phase-2 group mover: a proof step, two proof errata (ReLU not the identity) (paper 004,
`neural_collapse.errata_a12`): the checks particular to this result, its hand cases against independent references,
pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse import errata as ER

A12 = ER.ID_A12


@pytest.mark.parametrize("rid, status", [(A12, "open")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [(A12, dict(d=7, target="flat"), "d even")])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


def test_phase2_mover_proof_errata_and_the_repair(run):
    ev = run(A12)
    assert ev.claim("relu_is_identity").observed > 0.5 and ev.claim("moves_towards_target").observed > 0
    flat = run(A12, target="flat")
    assert all(c.passed for c in flat.claims), flat.explain()  # small-entry targets: both steps hold


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    ("errata_a12", None, dict(target="flat", d=7), "d even for target='flat'"),
    ("errata_a12", None, dict(target="flat", d=8), None),
    ("errata_a12", None, dict(target="random", d=7), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)
