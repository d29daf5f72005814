"""Work that holds the GIL, shared with a forked child.

Rendering pages and writing the published tables are Python holding the GIL; with two
cores or more and many items, a forked child does every second item while this process
does the others.  Both run the same code on the same values, so the results (and the
files written) are the ones one process would give.  A child that fails or is killed
leaves its items to this process, which then meets any error itself.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Fewer items than this are done in this process alone: a fork costs more than it saves.
FORK_FROM = 60


def in_halves(items: Sequence[T], work: Callable[[T], R]) -> list[R]:
    """`[work(item) for item in items]`, in order, every second item done by a forked
    child when that pays (its results come back pickled)."""
    if len(items) < FORK_FROM or (os.cpu_count() or 1) < 2 or not hasattr(os, "fork"):
        return [work(item) for item in items]
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: its half, handed over, and leave at once
        status = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as pipe:
                pickle.dump([work(item) for item in items[1::2]], pipe)
            status = 0
        finally:
            os._exit(status)  # no cleanup of the parent's: no atexit, no buffers flushed
    os.close(write)
    try:
        own = [work(item) for item in items[0::2]]
    finally:  # read before waiting: a child with more than a pipe's worth waits for it
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(child, 0)
    theirs = pickle.loads(data) if status == 0 and data else [
        work(item) for item in items[1::2]]
    results: list = [None] * len(items)
    results[0::2], results[1::2] = own, theirs
    return results
