"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="002",
    title="Representation Learning Dynamics of Self-Supervised Models",
    authors="Pascal M. Esser, Satyaki Mukherjee, Debarghya Ghoshdastidar",
)
