"""The paper this package checks (results pass ``paper=PAPER``)."""

from theorems.core.result import Paper

PAPER = Paper(
    number="weyl",
    title="Das asymptotische Verteilungsgesetz der Eigenwerte linearer partieller Differentialgleichungen",
    authors="Hermann Weyl",
    venue="Mathematische Annalen 71",
    year=1912,
)
