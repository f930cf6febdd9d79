"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="004",
    title="Neural Collapse is Globally Optimal in Deep Regularized ResNets and Transformers",
    authors="Peter Súkeník, Christoph H. Lampert, Marco Mondelli",
)
