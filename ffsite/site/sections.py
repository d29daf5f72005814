"""Sections: a model page, and a dataset page after its header, is a list of them, one
per kind of numbers the page's subject has.

A section provider is a function `(ctx, subject) -> list[Section]`, the subject being the
page's model id or dataset id: the sections of that kind it has (none when it has no
such numbers).  A page asks every provider of its list, in order (`pages.models.
MODEL_SECTIONS`, `pages.datasets.DATASET_SECTIONS`), and draws each section with its
template partial (`Section.partial`, under templates/, drawing the section `s`).  To add
a section, write a provider and add it to the list: one line.  A section with no partial
of its own is drawn by sections/tables.html from its fields alone.

Work a provider shares between every page of its list (ranking all the models, say) goes
in a function of the context that `ctx.prepared(...)` runs once per build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from ffsite.datasets import SOURCES
from ffsite.site.context import SiteContext
from ffsite.site.output import Download
from ffsite.site.urls import MODELS, page_path
from ffsite.site.views import Chart, Table


@dataclass(frozen=True)
class Headline:
    """A section's leading number for the list at the top of a model page: "highest
    place: Warmth 7.9 (7.6–8.2), #3 of 46 (range 2–6)"; the section's summary beside it
    names the judge."""

    lead: str  # what the number is, "highest place"
    label: str  # the trait or criterion
    href: str | None  # its page
    value: str
    interval: str  # its 95% interval
    rank: str = ""  # "#3 of 46 (range 2–6)"
    # judging.judge_badge's marks: the model judged these numbers, is a variant of a
    # judge, was added by a contributor.
    badge: str = ""
    badge_title: str = ""


def rank_text(rank: float, of: float, low: float, high: float) -> str:
    """"#3 of 46 (range 2–6)", the range dropped when it is the one place."""
    if pd.isna(rank) or int(rank) == 0:
        return ""
    text = f"#{int(rank)} of {int(of)}"
    if pd.notna(low) and pd.notna(high) and int(low) != int(high):
        text += f" (range {int(low)}–{int(high)})"
    return text


@dataclass(frozen=True, kw_only=True)
class Section:
    """One section of a page.  A kind of section whose partial needs more than these
    fields is a subclass that adds them."""

    id: str  # its HTML id: the page's list of sections links to it
    heading: str
    summary: str  # what was measured and by whom, in one line (a model page lists them)
    judged_by: str  # the judge, panel or rater(s) by name, as the section's text names them
    partial: str = "sections/tables.html"  # the template that draws it
    datasets: tuple[str, ...] = ()  # the datasets its numbers come from (ids)
    tables: tuple[Table, ...] = ()  # in the order drawn
    charts: tuple[Chart, ...] = ()
    notes: tuple[str, ...] = ()  # what a reader should know that no table says
    # The section's one number a model page lists first, in its first screen (or None).
    headline: Headline | None = None

    @property
    def downloads(self) -> list[Download]:
        """The tables it publishes (data/<name>.csv and .json)."""
        return [t.download for t in self.tables if t.download is not None]

    def table(self, table_id: str) -> Table | None:
        """Its table with this id, or None: partials place their tables by id."""
        return next((t for t in self.tables if t.id == table_id), None)


SectionProvider = Callable[[SiteContext, str], list[Section]]


@dataclass(frozen=True)
class Credit:
    """Where a dataset comes from, as a section credits it."""

    name: str
    url: str
    licence: str


def source_credit(dataset: str) -> Credit | None:
    found = SOURCES.get(dataset)
    return None if found is None else Credit(*found)


def model_page(ctx: SiteContext, model: str) -> tuple[str, str]:
    """(slug, page path) of a model's page: its own tables go under models/<slug>/."""
    slug = ctx.slugs.models[model]
    return slug, page_path(MODELS, slug)


def judge_name(ctx: SiteContext, judge: str) -> str:
    """A judge as pages name it: the registry's name when the judge is a registered model
    (EQ-Bench 3's claude-3.7-sonnet), else its id."""
    return ctx.registry.display_name(judge)
