"""Memory shared with forked children, and memory the C library keeps after Python
frees it.

A forked child shares the parent's pages until either process writes to one, which then
becomes two.  Python's garbage collector writes to every object it scans, so a full
collection in either process after the fork copies nearly every page holding objects:
`hold_for_children` keeps what exists at the fork out of both processes' collections
until the last child ends (gc.freeze; what is made after it is collected as usual).

A build also frees a great deal as it goes (the frames of one table after another), and
glibc's allocator keeps most of it in its heap, where it still counts against the
process and every child forked from it: `give_back_freed_memory` returns the free pages
(`malloc_trim`; measured on the default site: about 100 MB after the model pages).
Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Callable

_holding = 0  # children alive that share this process's objects


def hold_for_children() -> None:
    """Before a fork: free pages back to the system, and keep today's objects out of
    garbage collections until `let_go` is called as often as this."""
    global _holding
    give_back_freed_memory()
    gc.freeze()
    _holding += 1


def let_go() -> None:
    """After a child ended (or was never made): collect frozen objects again once no
    child shares them."""
    global _holding
    _holding = max(0, _holding - 1)
    if not _holding:
        gc.unfreeze()


@functools.cache
def _trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def give_back_freed_memory() -> None:
    """Return the free pages of the C library's heap to the system (glibc only)."""
    trim = _trim()
    if trim is not None:
        trim(0)
