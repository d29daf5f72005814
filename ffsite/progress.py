"""Progress of long commands, on stderr: a bar on a terminal, a few plain lines elsewhere
(pipes, CI logs), nothing when quiet.

`Progress.step` prints a line; `Progress.task` follows a count (calls, bytes, pages)
towards a total.  On a terminal tqdm draws the task as one redrawn line (at most ten
redraws a second, cut to the terminal's width, ended with a newline); elsewhere a task
writes its status line each time it passes a tenth of its total and once more when it
closes, so a log gets a handful of lines and no carriage returns.  The status line is
the same in both: "judge: 120/800 calls, 35.2/s, 3 retries, 0 failed".
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO, TypeVar

from tqdm import tqdm

T = TypeVar("T")

BAR_WIDTH = 24
REDRAW_SECONDS = 0.1
UNCUT = 10_000  # the size taken for a terminal that does not tell its own: lines stay whole


class Progress:
    def __init__(self, quiet: bool = False, stream: TextIO | None = None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty()

    def step(self, message: str) -> None:
        if not self.quiet:
            self.stream.write(message + "\n")
            self.stream.flush()

    def task(self, label: str, total: float | None, *, unit: str = "",
             scale: float = 1.0, counters: Sequence[str] = ()) -> Task:
        """A count towards `total` (None: unknown), shown in `unit`s of `scale` (bytes
        shown as MB: unit="MB", scale=1e6); `counters` are named tallies shown after the
        rate, in this order (retries, failed)."""
        return Task(self, label, total, unit=unit, scale=scale, counters=counters)

    def items(self, label: str, items: Sequence[T]) -> Iterator[T]:
        """Iterate `items`: a bar on a terminal, else one line "label (N)" before."""
        if self.quiet or not self.terminal or len(items) < 2:
            self.step(f"{label} ({len(items)})")
            yield from items
            return
        with self.task(label, len(items)) as task:
            for item in items:
                yield item
                task.advance()

    def per_label(self, *, unit: str = "", scale: float = 1.0) -> LabelledTasks:
        """A callback (label, done, total) that follows one task per label, for code that
        reports its progress that way (downloads, file by file)."""
        return LabelledTasks(self, unit=unit, scale=scale)


class Task:
    """Use as a context manager, or call `close` once the count is done."""

    def __init__(self, progress: Progress, label: str, total: float | None, *,
                 unit: str, scale: float, counters: Iterable[str]):
        self.progress = progress
        self.label = label
        self.total = total
        self.unit = unit
        self.scale = scale
        self.counts = dict.fromkeys(counters, 0)
        self.done: float = 0
        self.started = time.monotonic()
        self._bar: tqdm | None = None  # drawn from the first advance on
        self._tenths = 0

    def __enter__(self) -> Task:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def advance(self, n: float = 1, **counts: int) -> None:
        """`n` more done; `counts` add to the named counters (e.g. failed=1)."""
        self.done += n
        for name, value in counts.items():
            self.counts[name] = self.counts.get(name, 0) + value
        if self.progress.quiet:
            return
        if self.progress.terminal:
            self._draw(n)
            return
        tenth = int(self.done * 10 // self.total) if self.total else 0
        if tenth > self._tenths and self.done < self.total:
            self._tenths = tenth
            self.progress.step(self.status())

    def close(self) -> None:
        if self.progress.quiet or self.total == 0:
            return
        if not self.progress.terminal:
            self.progress.step(self.status())
            return
        self._draw(0)
        self._bar.close()  # the final state, then a newline
        self._bar = None

    def status(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        unit = f" {self.unit}" if self.unit else ""
        count = (f"{self._amount(self.done)}/{self._amount(self.total)}{unit}"
                 if self.total is not None else f"{self._amount(self.done)}{unit}")
        rate = f"{self.done / self.scale / elapsed:.1f}/s"
        return ", ".join([f"{self.label}: {count}", rate,
                          *(f"{value} {name}" for name, value in self.counts.items())])

    def _amount(self, value: float) -> str:
        return f"{value:.0f}" if self.scale == 1 else f"{value / self.scale:.1f}"

    def _draw(self, n: float) -> None:
        if self._bar is None:
            # Without a total there is no bar to fill: the status line alone.
            shape = f"[{{bar:{BAR_WIDTH}}}] {{desc}}" if self.total else "{desc}"
            # A known width is followed as the terminal is resized; tqdm would take an
            # unknown size (a pseudo-terminal of 0 x 0) for one too small to draw in.
            known = _columns(self.progress.stream) is not None
            self._bar = tqdm(total=self.total, initial=self.done, file=self.progress.stream,
                             desc=self.status(), bar_format=shape, ascii="-#",
                             mininterval=REDRAW_SECONDS, dynamic_ncols=known,
                             ncols=None if known else UNCUT, nrows=None if known else UNCUT)
            return
        self._bar.set_description_str(self.status(), refresh=False)
        self._bar.update(n)  # tqdm redraws when REDRAW_SECONDS have passed


def _columns(stream: TextIO) -> int | None:
    """The width of the terminal `stream` writes to, or None when it does not say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or None
    except (AttributeError, ValueError, OSError):
        return None


class LabelledTasks:
    """Calls (label, done, total): a task per label, closed when it reaches its total or
    when another label starts."""

    def __init__(self, progress: Progress, *, unit: str, scale: float):
        self.progress = progress
        self.unit = unit
        self.scale = scale
        self.task: Task | None = None

    def __call__(self, label: str, done: float, total: float | None) -> None:
        if self.task is None or self.task.label != label:
            self.close()
            self.task = self.progress.task(label, total, unit=self.unit, scale=self.scale)
        self.task.advance(done - self.task.done)
        if total is not None and done >= total:
            self.close()

    def close(self) -> None:
        if self.task is not None:
            self.task.close()
            self.task = None
