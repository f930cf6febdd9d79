"""Intra-op threads for loops of tiny tensor operations.

Paper 000's iterative loops (NT-Xent training of small Transformer heads, FISTA on batched min-norm points)
run thousands of operations on tensors of a few thousand elements. At that size torch's intra-op
parallelism only adds synchronisation: on a shared 2-core machine (load ≈ 7) the default trained-attention
instance took 185 s of wall time with torch's default two threads and 6 s with one, for the same numbers.
:func:`single_threaded` runs a block with one intra-op thread and restores the previous setting; :func:`pinned` wraps
a function in it. The batched UFM solver is one: its tensors are thousands of elements, and an unpinned solve at
K=10 n=20 d=32 next to other jobs took 29 s of CPU time against 2.8 s with one thread (oversubscribed threads
spinning in each kernel's synchronisation).
"""

from __future__ import annotations

import contextlib
import functools

import torch


@contextlib.contextmanager
def single_threaded():
    """Run the block with ``torch.set_num_threads(1)``, restoring the previous count afterwards."""
    previous = torch.get_num_threads()
    if previous == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def one_thread(evaluate):
    """``evaluate`` run under :func:`single_threaded` (for a result whose evaluation is all small tensors: its
    numbers then do not depend on the caller's thread count either, since reductions run in one order)."""

    def wrapped(params, form, ctx):
        with single_threaded():
            return evaluate(params, form, ctx)

    wrapped.__name__ = getattr(evaluate, "__name__", "evaluate")
    wrapped.__doc__ = evaluate.__doc__
    wrapped.__wrapped__ = evaluate
    return wrapped


def pinned(fn):
    """``fn`` run under :func:`single_threaded`, whatever the caller's thread count (same numbers either way)."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with single_threaded():
            return fn(*args, **kwargs)

    return wrapped
