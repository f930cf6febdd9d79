"""Real data for the papers' MNIST experiments, at small scale: scikit-learn's bundled ``load_digits``.

MNIST cannot be downloaded here (and a verification suite should not depend on a download), so the experiments
the papers run on MNIST (paper 000's Table 1 / Fig. 1, paper 001's Figs. 12-13, paper 004's Figs. 1-2) run on
the UCI optical-recognition digits that scikit-learn ships inside its wheel: 1,797 greyscale images of 8×8
pixels (values 0…16), ten classes of about 180 images each. It is a *small-scale stand-in*: the resolution
(64 pixels against MNIST's 784), the size (1.8k images against 70k) and the difficulty (a linear classifier
reaches about 96 %) are not comparable, so a number measured on it is compared with the paper's *shape*
(which curve is above which, which way a trend goes), never with the paper's printed values.

``digits(ctx, K, n)`` returns (X (64, K·n), labels (K·n,)) with columns ordered class by class (x_{ki} is column
k·n + i, as ``frames.balanced_labels``): the first K digit classes, n images of each drawn without replacement
by ``ctx``'s generator, pixels scaled to [0, 1] and, with ``center=True``, the mean image subtracted.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from ..core.errors import ParameterError
from .frames import balanced_labels

DATASET = "digits"
PIXELS = 64
CLASSES = 10
PIXEL_MAX = 16.0
STAND_IN_NOTE = ("scikit-learn's bundled 8×8 digits (1,797 images, 10 classes) as a small-scale stand-in for MNIST: "
                 "resolution and size are not comparable, only the shape of the result is")


@lru_cache(maxsize=1)
def _load() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:  # pragma: no cover - scikit-learn is a dependency
        raise ImportError("the digits data set needs scikit-learn (pip install scikit-learn)") from exc
    bunch = load_digits()
    return bunch.data.astype(np.float64) / PIXEL_MAX, bunch.target.astype(np.int64)


def class_sizes() -> list[int]:
    """How many images each digit class has (the most n a draw may ask for)."""
    _, y = _load()
    return [int((y == k).sum()) for k in range(CLASSES)]


def digits(ctx, K: int, n: int, *, center: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """(X (64, K·n), labels (K·n,)) on ``ctx``'s device: n images of each of the digit classes 0…K−1."""
    if not 2 <= K <= CLASSES:
        raise ParameterError(f"K={K}: the digits data set has classes 0…{CLASSES - 1}, so 2 ≤ K ≤ {CLASSES}",
                             name="K", value=K)
    most = min(class_sizes()[:K])
    if not 1 <= n <= most:
        raise ParameterError(f"n={n}: each of the first {K} digit classes has at least {most} images, so 1 ≤ n ≤ {most}",
                             name="n", value=n)
    X, y = _load()
    columns = []
    for k in range(K):
        rows = np.flatnonzero(y == k)
        pick = torch.randperm(len(rows), generator=ctx.generator, device="cpu")[:n].numpy()
        columns.append(X[rows[pick]])
    data = torch.as_tensor(np.concatenate(columns), dtype=ctx.dtype, device=ctx.device).T
    if center:
        data = data - data.mean(dim=1, keepdim=True)
    return data, balanced_labels(K, n, device=ctx.device)
