"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="004",
    title="Neural Collapse is Globally Optimal in Deep Regularized ResNets and Transformers",
    authors="Peter Súkeník, Christoph H. Lampert, Marco Mondelli",
    # arXiv 2505.15239, in arXiv's HTML rendering: its section ids follow the paper's numbering, so
    # the report links each result to its section.
    # The text the suite reads carries no id of its own: the id is arXiv's listing for this title and these
    # authors.
    url="https://arxiv.org/html/2505.15239",
)
