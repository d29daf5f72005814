"""ffsite._memory: objects stay out of garbage collections while any forked child shares
them, and come back once the last child has ended."""

from __future__ import annotations

import gc
from pathlib import Path

from ffsite._memory import _trim, give_back_freed_memory, hold_for_children, let_go


def test_objects_are_frozen_until_the_last_child_lets_go():
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(100)]  # (tracked by the collector: in a list)
    hold_for_children()
    frozen = gc.get_freeze_count()
    assert frozen >= 1
    hold_for_children()  # a second child (a build forks while its ahead child runs)
    let_go()
    assert gc.get_freeze_count() >= frozen  # the first child still shares them
    let_go()
    assert gc.get_freeze_count() == 0
    let_go()  # once more than held: nothing to let go, and no count below zero
    hold_for_children()
    assert gc.get_freeze_count() >= 1
    let_go()
    assert gc.get_freeze_count() == 0
    assert len(kept) == 100


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_freed_heap_memory_goes_back_to_the_system():
    # Our machines and CI run glibc on Linux, where the build relies on this.
    assert _trim() is not None
    blocks = [bytearray(100_000) for _ in range(1_000)]  # 100 MB, each below glibc's
    last = blocks[-1]  # mmap threshold: on the heap, the last one on top of the rest
    del blocks
    before = _resident_mb()
    give_back_freed_memory()
    assert before - _resident_mb() > 50, before
    assert len(last) == 100_000
