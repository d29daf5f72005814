"""The progress display: a redrawn bar on a terminal, a few plain lines elsewhere."""

from __future__ import annotations

import io

from ffsite.annotate.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_when_not_a_terminal():
    stream = io.StringIO()
    progress = Progress("judge", 50, stream)
    for k in range(50):
        if k == 3:
            progress.retried()
        progress.advance(failed=k == 7)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10  # every tenth, then the closing line
    assert lines[0].startswith("judge: 5/50 calls")
    assert lines[-1].startswith("judge: 50/50 calls") and lines[-1].endswith(
        "1 retries, 1 failed")
    assert "\r" not in stream.getvalue()


def test_a_bar_on_a_terminal():
    stream = Terminal()
    progress = Progress("generate", 4, stream)
    for _ in range(4):
        progress.advance()
    progress.close()
    text = stream.getvalue()
    assert text.startswith("\r[######------------------] generate: 1/4 calls")
    assert "\r[########################] generate: 4/4 calls" in text and text.endswith("\n")
