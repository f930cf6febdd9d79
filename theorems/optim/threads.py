"""Evaluations on small tensors run with one intra-op thread.

The instances of the dynamics results (paper 002) are sequences of thousands of operations on tensors of a few
hundred elements. Torch does not split such operations across threads, but its MKL/OpenMP pool still
synchronises (and spin-waits) on every BLAS/LAPACK call: on a 2-core machine running two pytest-xdist workers
with two threads each, the same checks took 191 s of CPU with torch's default two threads and 27 s with one
(paper 002's share of the default pytest, measured under load; see the report of issue 17). One thread also
fixes the order of floating-point reductions whatever the caller's setting, which is what the report's worker
processes do too (``theorems.core.runner.prepare_worker``).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator, TypeVar

import torch

F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(1)``; the caller's setting is restored afterwards."""
    previous = torch.get_num_threads()
    if previous == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def small_tensors(fn: F) -> F:
    """Decorator: ``fn`` runs under :func:`one_thread` (for evaluations whose tensors are small)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with one_thread():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
