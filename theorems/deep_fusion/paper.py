"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="000",
    title="Deep Fusion: Capturing Dependencies in Contrastive Learning via Transformer Projection Heads",
    authors="Huanran Li, Daniel Pimentel-Alarcón",
)
