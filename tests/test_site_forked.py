"""ffsite.site.forked: work shared with a forked child gives what one process gives."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from ffsite.site import forked
from ffsite.site.output import Download, SiteOutput, SiteWriter


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)


def test_results_come_back_in_order_from_both_processes(two_cores):
    items = list(range(forked.FORK_FROM + 41))
    assert forked.in_halves(items, lambda n: (n, os.getpid())) != [
        (n, os.getpid()) for n in items]  # the odd ones were done elsewhere
    assert [n for n, _ in forked.in_halves(items, lambda n: (n, os.getpid()))] == items
    assert forked.in_halves(items[:3], lambda n: os.getpid()) == [os.getpid()] * 3


def test_an_error_in_the_childs_half_is_this_processs_error(two_cores):
    def work(n: int) -> int:
        if n == 77:  # odd: the child's
            raise ValueError("item 77 is bad")
        return n

    with pytest.raises(ValueError, match="item 77"):
        forked.in_halves(list(range(100)), work)


def test_tables_written_by_both_processes_are_the_tables_one_writes(tmp_path, two_cores,
                                                                   monkeypatch):
    output = SiteOutput()
    for n in range(forked.FORK_FROM + 5):
        output.data(f"t{n}", pd.DataFrame({"model": [f"m{n}", "=cmd()"], "x": [n, 0.5]}),
                    f"table {n}", "index.html")
    apart, alone = tmp_path / "apart", tmp_path / "alone"
    writer = SiteWriter(apart, None, {})
    forked.in_halves(output.tables, writer.write_table)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    forked.in_halves(output.tables, SiteWriter(alone, None, {}).write_table)
    written = sorted(p.relative_to(apart) for p in apart.rglob("*") if p.is_file())
    assert len(written) == 2 * len(output.tables)
    assert written == sorted(p.relative_to(alone) for p in alone.rglob("*") if p.is_file())
    for name in written:
        assert (apart / name).read_bytes() == (alone / name).read_bytes(), name
    # (and a formula in a cell is neutralised in either process)
    assert "'=cmd()" in (apart / Download("t7", "", "").csv).read_text("utf-8")
