"""Survivor of the held-out mutation sample (seed 41) of paper 000, killed here (issue 26, item 9).

Definition 1's signed-margin control (``patterns='positive'``: s ≡ +1 only, which is not the |·| margin of the
definition) is a report instance: it must fail ρ > 0 *as a converged run* (its min-norm brackets close to rounding),
not by being reported unconverged. Its convergence flag had no test (the mutant `≤ GAP_TOL` → `≥` survived).
"""

from __future__ import annotations


def test_the_signed_margin_control_fails_converged(run):
    ev = run("deep_fusion.definition_1", patterns="positive", signs="arbitrary", allow_violation=True)
    assert ev.details["bracket_width_max"] < 1e-12  # the brackets close (GAP_TOL is 1e-10)
    assert ev.converged and not ev.claim("rho_positive").passed, ev.explain()
