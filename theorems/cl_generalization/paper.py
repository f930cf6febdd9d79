"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from ..core.result import Paper

PAPER = Paper(
    number="003",
    title="The Generalization of Contrastive Self-Supervised Learning",
    authors="Weiran Huang, Mingyang Yi, Xuyang Zhao, Zihao Jiang",
    venue="ICLR",
    year=2023,
    # arXiv 2111.00743, "Towards the Generalization of Contrastive Self-Supervised Learning", the ICLR
    # 2023 paper of these authors. The text the suite reads presents it under its own section names,
    # so the report names the sections in words.
    # The text the suite reads carries no id of its own: the id is arXiv's listing for this title and these
    # authors.
    url="https://arxiv.org/abs/2111.00743",
)
