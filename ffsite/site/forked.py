"""Work that holds the GIL, shared with a forked child.

Rendering pages, writing the published tables, drawing charts and the page builders after
the model pages (ffsite.site.side_by_side) are Python holding the GIL; with two cores or
more and enough items, a forked child does some of them (every second one, unless the
caller marks which) while this process does the others. Both run the same code on the
same values, so the results (and the files written) are the ones one process would give.
A child that fails or is killed leaves its items to this process, which then meets any
error itself.
"""

from __future__ import annotations

import collections
import functools
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from ffsite._memory import hold_for_children, let_go

T = TypeVar("T")
R = TypeVar("R")

# Fewer items than this are done in this process alone: a fork costs more than it saves.
FORK_FROM = 60


def in_halves(items: Sequence[T], work: Callable[[T], R], *, at_least: int = FORK_FROM,
              beside: Sequence[bool] | None = None) -> list[R]:
    """`[work(item) for item in items]`, in order, the items marked `beside` (every
    second one by default) done by a forked child when there are `at_least` items (its
    results come back pickled)."""
    if len(items) < max(2, at_least) or not can_fork():
        return [work(item) for item in items]
    marked = [bool(beside[n]) if beside else n % 2 == 1 for n in range(len(items))]
    theirs_at = [n for n in range(len(items)) if marked[n]]
    own_at = [n for n in range(len(items)) if not marked[n]]
    forked = fork_with_pipe()
    if forked is None:  # no room for a second process: this one does everything
        return [work(item) for item in items]
    child, end = forked
    if child == 0:  # the child: its share, handed over, and leave at once
        status = 1
        try:
            with os.fdopen(end, "wb") as pipe:
                _Pickler(pipe).dump([work(items[n]) for n in theirs_at])
            status = 0
        finally:
            os._exit(status)  # no cleanup of the parent's: no atexit, no buffers flushed
    try:
        own = [work(items[n]) for n in own_at]
    finally:  # read before waiting: a child with more than a pipe's worth waits for it
        with os.fdopen(end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(child, 0)
        let_go()
    theirs = pickle.loads(data) if status == 0 and data else [
        work(items[n]) for n in theirs_at]
    results: list = [None] * len(items)
    for n, result in zip([*own_at, *theirs_at], [*own, *theirs], strict=True):
        results[n] = result
    return results


def can_fork() -> bool:
    """Whether a forked child can work beside this process: a second core, and fork."""
    return (os.cpu_count() or 1) >= 2 and hasattr(os, "fork")


def fork_with_pipe() -> tuple[int, int] | None:
    """Fork with a pipe from the child to this process: (0, the pipe's writing end) in
    the child, (the child's pid, its reading end) here; None when no process could be
    made.  What exists now is held out of both processes' garbage collections
    (ffsite._memory: or both would copy every page they share); call `let_go` once the
    child has been waited for."""
    read, write = os.pipe()
    hold_for_children()
    try:
        child = os.fork()
    except OSError:
        let_go()
        os.close(read)
        os.close(write)
        return None
    os.close(read if child == 0 else write)
    return child, write if child == 0 else read


class _Pickler(pickle.Pickler):
    """Pickles as usual, and the rows of `DataFrame.itertuples` too: their namedtuple
    class cannot be found by name, so a row travels as its class's name, fields and
    values, and is made again as a row of a namedtuple of the same name and fields."""

    def reducer_override(self, obj: object) -> object:
        kind = type(obj)
        if isinstance(obj, tuple) and hasattr(kind, "_fields") and getattr(
                sys.modules.get(kind.__module__), kind.__qualname__, None) is not kind:
            return _row, (kind.__name__, kind._fields, tuple(obj))
        return NotImplemented


def _row(name: str, fields: tuple[str, ...], values: tuple) -> tuple:
    return _row_class(name, fields)(*values)


@functools.cache
def _row_class(name: str, fields: tuple[str, ...]) -> type:
    return collections.namedtuple(name, fields, rename=True)
