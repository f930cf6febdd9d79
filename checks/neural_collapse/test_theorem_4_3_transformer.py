"""Theorem 4.3 / Corollary 4.5 for L-Tx1 (causal, every position a sample): open; the certified sandwich is recorded,
the proof's network (excess Θ(L^{-1/3}) with γ ∝ L^{-1/6}; the printed γ ∝ L^{-1/4} does not vanish: proof erratum)
checks Appendix A only (paper 004, `neural_collapse.theorem_4_3_transformer`): the checks particular to this result,
its hand cases against independent references, pins and hypothesis edges. What every result passes runs in
checks/test_conformance.py."""

from __future__ import annotations

import pytest

import theorems
from checks.neural_collapse.trained_sweeps import assert_empty_trained_sweep_refused
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, row_ids
from theorems import HypothesisViolation, ParameterError
from theorems.neural_collapse import transformer_depth as TD

T43T = TD.ID_43T


@pytest.mark.parametrize("rid, status", [(T43T, "open")])
def test_registered_with_the_status_the_evidence_supports(rid, status):
    assert str(theorems.get(rid).status) == status


# -- hypotheses named ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid, params, hypothesis", [
    (T43T, dict(C=1), "C ≥ 2"),
    (T43T, dict(depths=(9, 33, 65)), "depths ≥ 2(contexts + K)+1"),
    (T43T, dict(d=5), "d ≥ 2V+2"),
    (T43T, dict(K=3), "K divides V"),
    (T43T, dict(arch="tx2"), "one linear layer per MLP block"),
])
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, (HypothesisViolation, ParameterError))


def test_transformer_printed_gamma_is_a_proof_erratum(run):
    ev = run(T43T)
    claim = ev.claim("printed_gamma_excess_vanishes")
    assert claim.kind == "proof_step" and not claim.passed and abs(claim.observed) < 0.05
    assert ev.details["construction_excess_fit"]["exponent"] == pytest.approx(-1 / 3, abs=0.02)


def test_transformer_context_length_one_is_outside_the_check():
    with pytest.raises(HypothesisViolation, match="C ≥ 2"):
        theorems.check(T43T, C=1)


NC = "neural_collapse."


HYPOTHESIS_EDGES = [
    # transformers (K=2, V=2, C=3: d ≥ 2V+2 = 6; depths ≥ 2(contexts + K)+1 = 33)
    ("theorem_4_3_transformer", None, dict(arch="tx2"), "L-Tx1"),
    ("theorem_4_3_transformer", None, dict(V=3), "K divides V"),
    ("theorem_4_3_transformer", None, dict(d=5), "d ≥ 2V+2"),
    ("theorem_4_3_transformer", None, dict(d=6), None),
    ("theorem_4_3_transformer", None, dict(C=1), "C ≥ 2"),
    ("theorem_4_3_transformer", None, dict(C=2, depths=(21, 65, 129)), None),
    ("theorem_4_3_transformer", None, dict(depths=(32, 65, 129)), "depths ≥ 2(contexts + K)+1"),
    ("theorem_4_3_transformer", None, dict(depths=(33, 65, 129)), None),
    ("theorem_4_3_transformer", None, dict(V=4, C=6), "V^C·C ≤ 4096"),
    # transformers: V^C·C ≤ 4096 on both sides (V = 4, C = 5: 5120; V = 2, C = 8: 2048)
    ("theorem_4_3_transformer", None, dict(V=4, C=5), "V^C·C ≤ 4096"),
    ("theorem_4_3_transformer", None, dict(V=2, C=8, depths=(1025, 2049, 4095)), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(NC + rid, form, params, name)


@pytest.mark.parametrize("rid, arch", [("theorem_4_3_transformer", "pre_tx1")])
def test_an_empty_trained_sweep_is_refused_by_the_domain(rid, arch):
    """Pre-LN variants have no construction, only the trained sweep: an empty one is refused before anything runs,
    naming train_depths (the declared domain is 1 to 16 depths)."""
    assert_empty_trained_sweep_refused(NC + rid, arch)


# monkeypatch, not a Pin: it replaces T._construct: code, which a Pin cannot move
@pytest.mark.parametrize("exponent, holds", [(-0.05, False), (-0.15, True)])
def test_transformer_printed_gamma_claim_pinned(monkeypatch, exponent, holds):
    """VANISH_EXPONENT = −0.1: the printed γ(L)'s construction 'vanishes' when its excess falls at least as L^−0.1; a
    patched construction whose excess falls as L^−0.05 fails the proof step, one at L^−0.15 passes it."""
    from types import SimpleNamespace

    from theorems.neural_collapse import transformer_depth as T

    depths = (33, 65, 129)
    monkeypatch.setattr(T, "_construct", lambda *a, **k: {L: SimpleNamespace(objective=1.0 + 0.2 * L ** exponent)
                                                           for L in depths})
    claim = T._printed_gamma_claim({}, None, None, None, 1.0)
    assert claim.kind == "proof_step" and claim.passed is holds, claim
