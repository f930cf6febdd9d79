"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="001",
    title="Understanding the Role of Nonlinearity in Training Dynamics of Contrastive Learning",
    authors="Yuandong Tian",
    # arXiv 2206.01342 (ICLR 2023), in arXiv Labs' HTML rendering (the paper predates arXiv's own HTML):
    # its section ids follow the paper's numbering, so the report links each result to its section.
    # The text the suite reads carries no id of its own: the id is arXiv's listing for this title and these
    # authors.
    url="https://ar5iv.labs.arxiv.org/html/2206.01342",
)
