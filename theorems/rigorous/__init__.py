"""Rigorous re-evaluation of the registered counterexamples (issue 41): each failing claim re-computed from its
recorded point in ball arithmetic (python-flint's Arb) or exact rationals, independently of the torch code path.

Importing this package registers every replay in ``theorems.core.grade.REPLAYS`` (one module per paper; paper 003,
``cl_generalization``, registers no counterexample). A replay takes an Evidence's ``{"params", "details"}`` (or the
minimal point its own Enclosure records) and returns an :class:`~theorems.core.grade.Enclosure` that decides the
failure, or raises :class:`~theorems.rigorous.arith.NotDecided` (a ValueError) when it cannot certify one (another
form, another instance, a point outside the printed hypotheses, an interval that straddles the bound). Nothing here
imports torch or numpy: ``theorems.core.grade.rerun`` re-checks an enclosure of evidence.json with python-flint alone.

Of the 27 registered counterexamples 25 replay rigorously (tests/test_rigorous_replay.py holds the list). Two cannot:
``nonlinear_cl.figure_4`` (a trend over trained networks and seeds) and ``ssl_dynamics.expected_c`` (a Monte Carlo
z-score over resamplings) are statistical; for the latter the closed form the correction rests on, E[C̃ | X]/n =
x̄x̄ᵀ − XᵀX/n, is evaluated exactly inside the check instead.
"""

from . import deep_fusion, neural_collapse, nonlinear_cl, ssl_dynamics  # noqa: F401  (registration)
