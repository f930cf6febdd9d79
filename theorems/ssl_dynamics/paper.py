"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="002",
    title="Representation Learning Dynamics of Self-Supervised Models",
    authors="Pascal M. Esser, Satyaki Mukherjee, Debarghya Ghoshdastidar",
    # arXiv 2309.02011. Its sections are unnumbered (the AAAI template): the report names them in words.
    # The text the suite reads carries no id of its own: the id is arXiv's listing for this title and these
    # authors.
    url="https://arxiv.org/abs/2309.02011",
)
