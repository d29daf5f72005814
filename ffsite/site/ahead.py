"""The slowest tables of a build, computed ahead in a forked child while this process
builds the first pages.

Most of a cold build's arithmetic is a few tables (bootstrap ratings, EigenBench fits)
that pages ask for one after the other, while the second core waits.  A thread would
not help much: these tables hold the GIL in their Python parts, and the pages are Python
too.  So a child process, forked once the votes are read, computes them in the order
pages ask and keeps each in the results store (ffsite._stored); the page that asks for
one waits until the child has kept it and then finds it there, the very value it would
have computed (the store guarantees it).  The child touches nothing else: no file but
the store's, no output, no progress lines.

When nothing is kept (no store), on one core, without fork, or for a site too small for
a fork to pay (SiteContext.forks_pay), nothing is computed ahead and every page computes
what it asks for, as before.  A child that fails or is killed leaves its tables to the
pages, which compute them and meet any error themselves.
"""

from __future__ import annotations

import os
import signal
import warnings
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from ffsite._memory import let_go
from ffsite._stored import keeping
from ffsite.site.forked import can_fork, fork_with_pipe


class Ahead:
    """A child computing `tables` (keys: a table's name or a function) in order."""

    def __init__(self, tables: Sequence[Any], child: int, reports: int) -> None:
        self.tables, self.child, self.reports = list(tables), child, reports
        self.done = 0  # how many tables, in order, the child reported kept
        self.over = False  # the child has ended (or was told to)

    @classmethod
    def start(cls, tables: Sequence[Any], compute: Callable[[Any], object]
              ) -> Ahead | None:
        """Fork a child that calls `compute(table)` for each of `tables`, reporting each
        one done; None where computing ahead cannot help."""
        if not tables or not keeping() or not can_fork():
            return None
        forked = fork_with_pipe()
        if forked is None:  # no room for a second process: the pages compute everything
            return None
        child, end = forked
        if child == 0:  # the child: compute, report, and leave at once
            status = 1
            try:
                # It writes nowhere: a lock on stderr held by another thread of the
                # parent at the fork (`serve`'s) would never be let go here.
                warnings.simplefilter("ignore")
                for table in tables:
                    compute(table)
                    os.write(end, b".")
                status = 0
            finally:
                os._exit(status)  # no cleanup of the parent's: no atexit, no buffers flushed
        return cls(tables, child, end)

    def wait_for(self, table: Any) -> None:
        """Return once the child has kept `table`, or has ended without it; at once for
        a table it is not computing."""
        if table not in self.tables:
            return
        wanted = self.tables.index(table) + 1
        while self.done < wanted and not self.over:
            news = os.read(self.reports, 64)
            if news:
                self.done += len(news)
            else:
                self._reap()

    def finish(self) -> None:
        """Stop the child (its tables are no longer needed) and wait for it to end."""
        if not self.over:
            os.kill(self.child, signal.SIGTERM)
            self._reap()

    def _reap(self) -> None:
        self.over = True
        os.close(self.reports)
        os.waitpid(self.child, 0)
        let_go()


class once(cached_property):  # noqa: N801 (named like the decorator it extends)
    """functools.cached_property that first waits for the table, when it is being
    computed ahead (SiteContext.compute_ahead)."""

    def __get__(self, ctx: Any, owner: type | None = None) -> Any:
        if ctx is not None and ctx._ahead is not None:
            ctx._ahead.wait_for(self.attrname)
        return super().__get__(ctx, owner)
