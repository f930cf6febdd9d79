"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="001",
    title="Understanding the Role of Nonlinearity in Training Dynamics of Contrastive Learning",
    authors="Yuandong Tian",
)
