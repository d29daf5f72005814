"""Page builders run two at a time: a forked child runs some of a run.

After the model pages, the remaining builders (trait, dataset, lineage, EigenBench pages,
the explorer...) read the tables and write only their own pages, tables and files; one
after the other on one core they took about 6.5 s of a 39 s cold build.
`build_side_by_side` runs such a run of builders with the work shared by a forked child
(ffsite.site.forked), then puts what each builder made into the site's output in the
builders' order, as if they had run one after the other: the same pages, tables and files
in the same order, the same checks of the tables' names, the same progress lines (said
once the run is over), the same notes.

Only builders that read nothing another builder of the run makes belong in a run
(`SIDE_BY_SIDE` in ffsite.site.pages). Tables computed ahead are all in before the fork
(the child never reads the reports of the process computing them). The model pages use
the same run for their two halves (ffsite.site.pages.models).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from ffsite.progress import Progress
from ffsite.site.context import SiteContext
from ffsite.site.forked import in_halves
from ffsite.site.output import Download, Page


@dataclass
class Built:
    """What one builder added to the output, and said."""

    pages: list[Page]
    tables: list[tuple[Download, pd.DataFrame]]
    files: list[tuple[str, str]]
    notes: list[str]
    steps: list[str]


class _Recorded(Progress):
    """A quiet Progress that keeps the lines it would have said."""

    def __init__(self) -> None:
        super().__init__(quiet=True)
        self.lines: list[str] = []

    def step(self, message: str) -> None:
        self.lines.append(message)


def build_side_by_side(ctx: SiteContext, builders: Sequence[Callable[[SiteContext], None]],
                       beside: Sequence[bool]) -> None:
    """Run `builders`, those marked `beside` in a forked child (when there is a second
    core and the site is large enough for it to pay: `ctx.forks_pay`), and add what each
    made to `ctx.output` in their order."""
    ctx.wait_ahead()
    output, progress = ctx.output, ctx.progress
    start, notes = output.mark(), len(ctx.notes)

    def run(builder: Callable[[SiteContext], None]) -> Built:
        # Each builder is recorded from where the run began: what this process's
        # builders before it in the run made is forgotten (a child never sees it).
        output.rewind(start)
        del ctx.notes[notes:]
        ctx.progress = recorded = _Recorded()
        try:
            builder(ctx)
        finally:
            ctx.progress = progress
        return Built(*output.since(start), ctx.notes[notes:], recorded.lines)

    found = (in_halves(builders, run, at_least=2, beside=beside) if ctx.forks_pay
             else [run(builder) for builder in builders])
    output.rewind(start)
    del ctx.notes[notes:]
    for built in found:
        for line in built.steps:
            progress.step(line)
        output.pages.extend(built.pages)
        for download, frame in built.tables:
            output.adopt(download, frame)
        output.files.extend(built.files)
        ctx.notes.extend(note for note in built.notes if note not in ctx.notes)
