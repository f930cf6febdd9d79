"""Rigorous re-evaluation of the registered counterexamples (issue 41): each failing claim re-computed from its
recorded point in ball arithmetic (python-flint's Arb) or exact rationals, independently of the torch code path.

Importing this package registers every replay in ``theorems.core.grade.REPLAYS`` (one module per paper). Nothing
here imports torch or numpy: ``theorems.core.grade.rerun`` re-checks an enclosure of evidence.json with python-flint
alone.
"""

from . import deep_fusion, neural_collapse, nonlinear_cl, ssl_dynamics  # noqa: F401  (registration)
