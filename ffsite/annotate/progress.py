"""A one-line progress bar on a terminal; a few plain lines otherwise (logs, CI)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_WIDTH = 24


class Progress:
    def __init__(self, label: str, total: int, stream: TextIO | None = None):
        self.label = label
        self.total = total
        self.done = 0
        self.retries = 0
        self.failed = 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._last_tenth = 0

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        self._show()

    def retried(self) -> None:
        self.retries += 1
        self._show()

    def close(self) -> None:
        if self.total == 0:
            return
        if self.tty:
            self._draw()
            self.stream.write("\n")
        else:
            self.stream.write(self._status() + "\n")
        self.stream.flush()

    def _status(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        return (f"{self.label}: {self.done}/{self.total} calls, {self.done / elapsed:.1f}/s, "
                f"{self.retries} retries, {self.failed} failed")

    def _show(self) -> None:
        if self.tty:
            now = time.monotonic()
            if now - self._last_draw >= 0.1:
                self._last_draw = now
                self._draw()
            return
        tenth = self.done * 10 // max(self.total, 1)
        if tenth > self._last_tenth and self.done < self.total:
            self._last_tenth = tenth
            self.stream.write(self._status() + "\n")
            self.stream.flush()

    def _draw(self) -> None:
        filled = BAR_WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self._status()}\x1b[K")
        self.stream.flush()
