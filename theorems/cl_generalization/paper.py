"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="003",
    title="The Generalization of Contrastive Self-Supervised Learning",
    authors="Weiran Huang, Mingyang Yi, Xuyang Zhao, Zihao Jiang",
    venue="ICLR",
    year=2023,
)
