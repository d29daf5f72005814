"""The slowest tables computed ahead in a forked child (ffsite.site.ahead): waited for
in order, left to the pages when the child fails, stopped when no longer needed, never
started where it cannot help, and the same site either way."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from site_fixture import build_tiny
from test_site_determinism import tree

from ffsite._stored import kept_in
from ffsite.site import ahead as ahead_module
from ffsite.site.ahead import Ahead


def _writer(folder: Path, fail_on: str | None = None, slow: str | None = None):
    """compute(table): writes folder/table (the child's work, seen from here)."""
    def compute(table: str) -> None:
        if table == fail_on:
            raise RuntimeError("a table that fails")
        if table == slow:
            time.sleep(60)
        (folder / table).write_text("kept\n", "utf-8")
    return compute


def test_waiting_for_a_table_returns_once_the_child_kept_it(tmp_path):
    with kept_in(tmp_path / "store"):
        started = Ahead.start(["a", "b", "c"], _writer(tmp_path))
    assert started is not None
    started.wait_for("b")
    assert (tmp_path / "a").is_file() and (tmp_path / "b").is_file()
    assert started.done >= 2
    started.wait_for("not computed ahead")  # returns at once
    started.wait_for("c")
    assert (tmp_path / "c").is_file()
    started.finish()
    assert started.over


def test_a_failing_table_leaves_it_and_the_rest_to_the_pages(tmp_path):
    with kept_in(tmp_path / "store"):
        started = Ahead.start(["a", "b", "c"], _writer(tmp_path, fail_on="b"))
    started.wait_for("c")  # returns: the child ended without it
    assert started.over and started.done == 1
    assert (tmp_path / "a").is_file()
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
    started.finish()  # already over: nothing to stop


def test_finish_stops_a_child_still_computing(tmp_path):
    with kept_in(tmp_path / "store"):
        started = Ahead.start(["a", "slow", "c"], _writer(tmp_path, slow="slow"))
    started.wait_for("a")
    began = time.monotonic()
    started.finish()
    assert time.monotonic() - began < 10
    with pytest.raises(ChildProcessError):  # reaped: no such child any more
        os.waitpid(started.child, os.WNOHANG)
    assert not (tmp_path / "c").exists()


def test_nothing_is_computed_ahead_where_it_cannot_help(tmp_path, monkeypatch):
    compute = _writer(tmp_path)
    assert Ahead.start(["a"], compute) is None  # no store: the pages would not find it
    with kept_in(tmp_path / "store"):
        assert Ahead.start([], compute) is None
        monkeypatch.setattr(ahead_module.os, "cpu_count", lambda: 1)
        assert Ahead.start(["a"], compute) is None
    assert not (tmp_path / "a").exists()


def test_the_site_is_the_same_with_and_without_tables_computed_ahead(tmp_path, monkeypatch):
    from ffsite.site import build as build_module
    from ffsite.site import context

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(context, "FORK_FROM_ROWS", 0)  # (the tiny site is far smaller)
    children = []
    start = Ahead.start

    def watched(tables, compute):
        found = start(tables, compute)
        children.append(found)
        return found

    monkeypatch.setattr(ahead_module.Ahead, "start", watched)
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "cache-ahead"))
    computed_ahead = tree(build_tiny(tmp_path / "ahead"))
    assert len(children) == 1 and children[0] is not None
    # The pages asked for the ratings, the last table: the child kept every one first
    # (the derived EigenBench fits, then the ratings).
    assert children[0].done == len(children[0].tables) == 2
    monkeypatch.setattr(build_module, "AHEAD", [])
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "cache-alone"))
    alone = tree(build_tiny(tmp_path / "alone"))
    assert children[1] is None
    assert alone.keys() == computed_ahead.keys()
    assert [name for name in alone if alone[name] != computed_ahead[name]] == []


def test_a_site_too_small_for_a_fork_to_pay_forks_nothing(tmp_path, monkeypatch):
    """The tiny site's 23 votes: nothing computed ahead, no builder side by side, and the
    same site as when both are forced (the test above)."""
    from ffsite.site import context, forked

    forks = []
    fork = forked.fork_with_pipe
    monkeypatch.setattr(forked, "fork_with_pipe", lambda: forks.append(1) or fork())
    monkeypatch.setattr(ahead_module, "fork_with_pipe", forked.fork_with_pipe)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "cache-small"))
    small = tree(build_tiny(tmp_path / "small"))
    assert forks == []
    monkeypatch.setattr(context, "FORK_FROM_ROWS", 0)
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "cache-forked"))
    assert tree(build_tiny(tmp_path / "forked")) == small
    assert len(forks) >= 2  # computing ahead, and a run of builders side by side
