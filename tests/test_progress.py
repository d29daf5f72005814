"""The progress display (`ffsite.progress`): a redrawn bar on a terminal, a few plain lines
elsewhere, nothing when quiet."""

from __future__ import annotations

import io

from ffsite.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def calls(label: str, total: int, stream: io.StringIO):
    """The task `ffsite annotate` shows for a phase of API calls."""
    return Progress(stream=stream).task(label, total, unit="calls",
                                        counters=("retries", "failed"))


def test_plain_lines_when_not_a_terminal():
    stream = io.StringIO()
    progress = calls("judge", 50, stream)
    for k in range(50):
        if k == 3:
            progress.advance(0, retries=1)
        progress.advance(failed=int(k == 7))
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10  # every tenth, then the closing line
    assert lines[0].startswith("judge: 5/50 calls")
    assert lines[-1].startswith("judge: 50/50 calls") and lines[-1].endswith(
        "1 retries, 1 failed")
    assert "\r" not in stream.getvalue()


def test_a_bar_on_a_terminal():
    stream = Terminal()
    progress = calls("generate", 4, stream)
    for _ in range(4):
        progress.advance()
    progress.close()
    text = stream.getvalue()
    assert text.startswith("\r[######------------------] generate: 1/4 calls")
    assert "\r[########################] generate: 4/4 calls" in text and text.endswith("\n")


def test_quiet_prints_nothing():
    for stream in (io.StringIO(), Terminal()):
        progress = Progress(quiet=True, stream=stream)
        progress.step("reading 3 annotation files")
        assert list(progress.items("model pages", [1, 2, 3])) == [1, 2, 3]
        with progress.task("judge", 2) as task:
            task.advance(2)
        assert stream.getvalue() == ""


def test_steps_and_items_off_a_terminal():
    stream = io.StringIO()
    progress = Progress(stream=stream)
    progress.step("reading 3 annotation files")
    assert list(progress.items("model pages", list("abc"))) == list("abc")
    assert stream.getvalue() == "reading 3 annotation files\nmodel pages (3)\n"


def test_items_on_a_terminal():
    stream = Terminal()
    assert list(Progress(stream=stream).items("trait pages", list("abcd"))) == list("abcd")
    text = stream.getvalue()
    assert text.startswith("\r[######------------------] trait pages: 1/4, ")
    assert "\r[########################] trait pages: 4/4, " in text and text.endswith("\n")


def test_downloads_file_by_file():
    stream = io.StringIO()
    follow = Progress(stream=stream).per_label(unit="MB", scale=1e6)
    for done in range(0, 3_000_001, 300_000):
        follow("alpaca_eval/a.json", done, 3_000_000)
    follow("hh_rlhf/b.jsonl.gz", 1_500_000, None)  # no size known: a line when it ends
    follow("hh_rlhf/b.jsonl.gz", 2_000_000, None)
    follow.close()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("alpaca_eval/a.json: 0.3/3.0 MB, ")
    assert lines[-2].startswith("alpaca_eval/a.json: 3.0/3.0 MB, ")
    assert lines[-1].startswith("hh_rlhf/b.jsonl.gz: 2.0 MB, ") and len(lines) == 11
