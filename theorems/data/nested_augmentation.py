"""Nested augmentation sets on the nuisance-block population (paper 003's Tables 1–2, as a finite analogue).

SimCLR-style pipelines apply each transformation with some probability and draw its magnitude from a range that
grows with its strength, so a richer pipeline can still produce every view of a poorer one: A ⊆ A'. The analogue
here builds that directly. A *level* is one setting of the pipeline: a per-block strength (block b of the
nuisance-block population, :func:`~theorems.data.finite_population.nuisance_block_population`, is replaced by
(1 − s_b)·z_b + s_b·T_{j,b}, T a template bank shared by all points) and optionally a strength for the class
content (a transformation that does not preserve the class: negative controls only). Level ℓ contributes
``per_level`` new views (own templates); the cell "up to level L" holds the identity view and the views of
levels 1…L, padded to a common number of views by copies of the identity view with weight 0 (so d_A, the class
centres and the losses see exactly the real views, and all cells batch into one tensor problem).

Because the cell at level L holds every view of the cell at level L − 1, A_{L−1}(x) ⊆ A_L(x) and
d_{A_L} ≤ d_{A_{L−1}} (the Remark after Definition 1 of paper 003): concentration is monotone by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .finite_population import Population, nuisance_block_population


@dataclass(frozen=True)
class Level:
    """One setting of the augmentation pipeline: strength per nuisance block (0 = untouched) and of the class
    content (0 = class preserved)."""

    blocks: tuple[float, ...]
    content: float = 0.0


def nested_cells(ctx_factory, sizes: list[int], scales: list[float], levels: list[Level], per_level: int, *,
                 Dc: int, Db: int, separation: float, noise: float, jitter: float) -> list[Population]:
    """One population per cell L = 1…len(levels) (views of levels ≤ L), all with the same points, the same
    template bank and the same padded number of views 1 + len(levels)·per_level. ``ctx_factory()`` returns a
    fresh context of the same stream (the draws must repeat)."""
    B = len(scales)
    if any(len(lv.blocks) != B for lv in levels):
        raise ValueError(f"every level needs {B} block strengths")
    M = 1 + len(levels) * per_level

    def draw(transform_all: bool) -> Population:
        # strength 1: every transformed coordinate is exactly the template (0·z + 1·T), the untransformed exactly z
        return nuisance_block_population(ctx_factory(), sizes, M, scales, list(range(B)) if transform_all else [],
                                         Dc=Dc, Db=Db, separation=separation, noise=noise, jitter=jitter,
                                         strength=1.0, content_transform=transform_all)

    plain, replaced = draw(False), draw(True)
    ref = plain.views
    # per view slot: the fraction of each coordinate that the template replaces
    mix = torch.zeros(M, ref.shape[-1], dtype=ref.dtype, device=ref.device)
    for ell, lv in enumerate(levels):
        rows = slice(1 + ell * per_level, 1 + (ell + 1) * per_level)
        mix[rows, :Dc] = lv.content
        for b, s in enumerate(lv.blocks):
            mix[rows, Dc + b * Db: Dc + (b + 1) * Db] = s
    views = plain.views + mix[None] * (replaced.views - plain.views)
    views[:, 0] = plain.clean
    cells = []
    for L in range(1, len(levels) + 1):
        real = 1 + L * per_level
        v = views.clone()
        v[:, real:] = plain.clean[:, None, :]  # padding: the identity view again, weight 0
        w = torch.zeros(plain.N, M, dtype=ref.dtype, device=ref.device)
        w[:, :real] = 1.0 / real
        cells.append(Population(plain.clean, v.contiguous(), w, plain.labels, plain.K, True))
    return cells
