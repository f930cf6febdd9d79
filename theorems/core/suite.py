"""Suite profiles: how much work a check run does (hypothesis examples, optimiser restarts).

``quick`` is for iterating locally, ``ci`` is the CI gate (derandomised hypothesis, small enough to
keep the default ``pytest`` run within minutes on two cores), ``thorough`` is meant for a GPU or a long
run. The profile is chosen with ``pytest --suite NAME`` or ``$THEOREMS_SUITE``, and by
``python -m theorems report --suite NAME``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

ENV_SUITE = "THEOREMS_SUITE"


@dataclass(frozen=True)
class Suite:
    name: str
    max_examples: int  # hypothesis examples per property
    restarts: int  # random starts per optimisation problem
    derandomize: bool  # hypothesis draws the same examples on every run
    report_examples: int  # random instances per result in the report, besides its fixed ones
    # Steps of the batched optimiser that pushes a result's continuous instance data towards its worst
    # case (results that take the parameter ``adversarial_steps``; see checks/test_conformance.py).
    adversarial_steps: int = 0
    # The self-fuzz of checks/test_conformance.py: bad parameter sets per result that must be refused before
    # any computation (cheap: nothing runs), and negative-control runs at the edges of the declared domains
    # (each runs the result, so few in the gate; tools/fuzz.py runs the large campaign).
    fuzz_examples: int = 25
    fuzz_runs: int = 1
    # Seeds besides the default on which every verified, verified-corrected and trend result's default instance
    # must hold or end not converged, never fail (a verdict tuned to one draw is not a verdict; issue 39).
    other_seeds: tuple[int, ...] = (1, 2, 3, 4)


SUITES = {
    "quick": Suite("quick", max_examples=3, restarts=8, derandomize=True, report_examples=2, adversarial_steps=10,
                   fuzz_examples=10, fuzz_runs=1, other_seeds=(1, 2)),
    "ci": Suite("ci", max_examples=15, restarts=16, derandomize=True, report_examples=4, adversarial_steps=40,
                fuzz_examples=25, fuzz_runs=1, other_seeds=(1, 2, 3, 4)),
    "thorough": Suite("thorough", max_examples=60, restarts=64, derandomize=False, report_examples=16,
                      adversarial_steps=400, fuzz_examples=200, fuzz_runs=20,
                      other_seeds=tuple(range(1, 21))),
}
DEFAULT_SUITE = "ci"


def get_suite(name: str | None = None) -> Suite:
    name = name or os.environ.get(ENV_SUITE, DEFAULT_SUITE)
    try:
        return SUITES[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}: choose one of {', '.join(SUITES)}") from None
