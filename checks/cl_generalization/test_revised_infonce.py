"""E4: revised InfoNCE (τ = 0.2) against SimCLR (τ = 1, 0.5) at every checkpoint (finite analogue, measured) (paper
003, `cl_generalization.revised_infonce`): the checks particular to this result, its hand cases against independent
references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import pytest

from checks.cl_generalization.stand_ins import no_training
from checks.pinning import assert_hypothesis_edge, assert_refused_naming, probe, row_ids
from theorems import HypothesisViolation

E4 = "cl_generalization.revised_infonce"


def test_revised_infonce_ordering_depends_on_the_augmentation(run):
    # the finding the status rests on: the printed order holds under partial augmentation, not under full
    ev = run(E4)
    assert ev.claim("revised_vs_simclr_tau_1_s06").passed and ev.claim("revised_vs_simclr_tau_05_s06").passed
    assert not ev.claim("revised_vs_simclr_tau_1_s1").passed and not ev.claim("revised_vs_simclr_tau_05_s1").passed
    collapsed = run(E4, lam=0.0, allow_violation=True)
    assert not any(c.passed for c in collapsed.claims if c.kind == "bound")
    # each claim is the largest gap over the checkpoints of the recorded error curves
    for s in ("s06", "s1"):
        rev = ev.details[f"error_revised_tau_02_{s}"]
        for row in ("simclr_tau_1", "simclr_tau_05", "simclr_tau_02"):
            gaps = [a - b for a, b in zip(rev, ev.details[f"error_{row}_{s}"], strict=True)]
            assert ev.claim(f"revised_vs_{row}_{s}").observed == pytest.approx(max(gaps), abs=1e-15)


# -- the paper's own preconditions and the declared domains -------------------------------------------------
@pytest.mark.parametrize(
    "rid, params, hypothesis",
    [(E4, dict(lam=0.0), "λ > 0")],
)
def test_bad_input_names_the_hypothesis(rid, params, hypothesis):
    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


P = "cl_generalization."


HYPOTHESIS_EDGES = [
    # revised_infonce: λ > 0 at its edge
    (P + "revised_infonce", None, dict(lam=1e-9), None),
    (P + "revised_infonce", None, dict(lam=0.0), "λ > 0"),
    ('cl_generalization.revised_infonce', None, dict(lam=0.0), 'λ > 0 (the revised loss keeps its log-sum-exp)'),
    ("cl_generalization.revised_infonce", None, dict(lam=0.01), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


def test_revised_infonce_checkpoints_are_the_four_epochs():
    """The slides' four epochs (200, 400, 600, 800) at a quarter, half, three quarters and all of the steps; a
    run shorter than four steps keeps step 1 as its first checkpoint."""
    from theorems.cl_generalization.revised_infonce import checkpoints

    assert checkpoints(800) == [200, 400, 600, 800] and checkpoints(2) == [1, 2], (checkpoints(800), checkpoints(2))


# monkeypatch, not a Pin: it replaces RI.curves, code that a Pin (a parameter or constant set to a literal) cannot move
def test_revised_infonce_claims_take_the_worst_checkpoint(monkeypatch):
    """Error curves given literally: the revised loss equal to every SimCLR row except 0.1 worse at the last of two
    checkpoints, at the first strength: that comparison fails (the claim is the worst checkpoint), the others hold."""
    import torch

    from theorems.cl_generalization import revised_infonce as RI

    def curves(p, ctx):
        err = torch.zeros(len(p["strengths"]), len(RI.ROWS), 2, 1, dtype=torch.float64)
        err[0, RI.ROWS.index("revised_tau_02"), 1, 0] = 0.1
        return dict(err=err, checkpoints=[1, 2], record=no_training())

    monkeypatch.setattr(RI, "curves", curves)
    ev = probe(RI.ID, strengths=[0.6, 1.0])
    assert not ev.claim("revised_vs_simclr_tau_1_s06").passed and not ev.claim("revised_vs_simclr_tau_05_s06").passed
    assert ev.claim("revised_vs_simclr_tau_1_s1").passed and ev.claim("revised_vs_simclr_tau_05_s1").passed


def test_revised_infonce_composes_all_five_transformations():
    """The revised-loss experiment composes every transformation (a)–(e) of the tables, each once."""
    from theorems.cl_generalization import revised_infonce as RI
    from theorems.cl_generalization.instances import TRANSFORMS

    assert sorted(RI.ALL_TRANSFORMS) == list(range(len(TRANSFORMS))) and len(TRANSFORMS) == 5
