"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="000",
    title="Deep Fusion: Capturing Dependencies in Contrastive Learning via Transformer Projection Heads",
    authors="Huanran Li, Daniel Pimentel-Alarcón",
    # arXiv 2403.18681, in arXiv's HTML rendering: its appendices are lettered (section links),
    # its sections unnamed by number (the AAAI template), so those are named in words.
    # The text the suite reads carries no id of its own: the id is arXiv's listing for this title and these
    # authors.
    url="https://arxiv.org/html/2403.18681",
)
