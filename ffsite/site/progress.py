"""Progress for long build steps: a bar on a terminal, plain lines elsewhere, or nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import TypeVar

import click

T = TypeVar("T")


class Progress:
    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.terminal = sys.stderr.isatty()

    def step(self, message: str) -> None:
        if not self.quiet:
            click.echo(message, err=True)

    def items(self, label: str, items: Sequence[T]) -> Iterator[T]:
        """Iterate `items`, showing a bar on a terminal."""
        if self.quiet or not self.terminal or len(items) < 2:
            self.step(f"{label} ({len(items)})")
            yield from items
            return
        with click.progressbar(items, label=label, file=sys.stderr) as bar:
            yield from bar
