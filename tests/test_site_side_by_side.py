"""ffsite.site.side_by_side: builders run two at a time make what they make one after
the other, in the same order."""

from __future__ import annotations

import io
import os
from types import SimpleNamespace

import pandas as pd
import pytest

from ffsite.errors import FfsiteError
from ffsite.progress import Progress
from ffsite.site.output import SiteOutput
from ffsite.site.side_by_side import build_side_by_side


def context(forks_pay: bool = True) -> SimpleNamespace:
    said = io.StringIO()
    return SimpleNamespace(output=SiteOutput(), notes=["before"], said=said,
                           progress=Progress(stream=said), wait_ahead=lambda: None,
                           forks_pay=forks_pay)


def builder(number: int, note: str | None = None):
    def build(ctx) -> None:
        ctx.progress.step(f"builder {number} (pid seen: {os.getpid() > 0})")
        rows = pd.DataFrame({"model": [f"m{number}", "m"], "x": [number, 2]})
        ctx.output.page(f"p{number}.html", "page.html", n=number, pid=os.getpid(),
                        rows=list(rows.itertuples(index=False)))
        ctx.output.data(f"t{number}", rows, f"table {number}", f"p{number}.html")
        ctx.output.file(f"data/f{number}.json", str(number))
        if note and note not in ctx.notes:
            ctx.notes.append(note)
    build.__name__ = f"builder_{number}"
    return build


def made(ctx) -> tuple:
    return ([(p.path, p.context["n"], [tuple(r) for r in p.context["rows"]],
              [r.model for r in p.context["rows"]]) for p in ctx.output.pages],
            [(d.name, d.title, f.to_dict("list")) for d, f in ctx.output.tables],
            ctx.output.files, ctx.notes, ctx.said.getvalue())


@pytest.mark.parametrize(("cores", "forks_pay"), [(1, True), (2, True), (2, False)])
def test_the_same_pages_tables_files_notes_and_lines_in_the_builders_order(cores, forks_pay,
                                                                          monkeypatch):
    builders = [builder(0), builder(1, "no texts"), builder(2, "no texts"), builder(3),
                builder(4, "other")]
    alone = context()
    for build in builders:
        build(alone)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    together = context(forks_pay)
    together.output.data("first", pd.DataFrame({"a": [1]}), "made before", "index.html")
    alone.output.tables.insert(0, together.output.tables[0])
    build_side_by_side(together, builders, [False, True, False, True, True])
    assert made(together) == made(alone)
    assert [p.path for p in together.output.pages] == [f"p{n}.html" for n in range(5)]
    assert together.notes == ["before", "no texts", "other"]  # a note said once
    assert together.said.getvalue().count("builder") == 5
    # Built where they were marked (no quiet fallback to this process), rows and all:
    elsewhere = [p.context["pid"] != os.getpid() for p in together.output.pages]
    forked = cores == 2 and forks_pay  # a site too small for a fork to pay: none
    assert elsewhere == ([False, True, False, True, True] if forked else [False] * 5)


def test_two_builders_publishing_one_name_still_stop_the_build(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with pytest.raises(FfsiteError, match="data/t1.csv"):
        build_side_by_side(context(), [builder(1), builder(1)], [False, True])


def test_an_error_in_the_childs_builder_is_this_processs_error(monkeypatch):
    def failing(ctx) -> None:
        raise FfsiteError("builder in the child failed")

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    ctx = context()
    with pytest.raises(FfsiteError, match="in the child failed"):
        build_side_by_side(ctx, [builder(0), failing], [False, True])
