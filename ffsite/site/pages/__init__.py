"""The site's pages: one builder per page kind.

A builder is a function `build(ctx: SiteContext) -> None` that computes what it needs
and hands it to `ctx.output`: tables to publish (`ctx.output.data(...)`, which returns
the download links) and pages to render (`ctx.output.page(...)`).  Nothing is written
until every builder has run, so they may run in any order.  To add a page kind, write a
module here, add its builder to PAGE_BUILDERS and, for a top-level page, an entry to NAV.
"""

from __future__ import annotations

from collections.abc import Callable

from ffsite.site.context import SiteContext
from ffsite.site.pages import (
    agreement,
    big_five,
    communication,
    compare,
    content,
    datasets,
    downloads,
    eqbench,
    home,
    models,
    pressure,
    ratings,
    traits,
)
from ffsite.site.urls import page_path

PageBuilder = Callable[[SiteContext], None]

PAGE_BUILDERS: list[PageBuilder] = [
    home.build,
    models.build,
    ratings.build,
    pressure.build,
    communication.build,
    big_five.build,
    eqbench.build,
    datasets.build,
    traits.build,
    compare.build,
    agreement.build,
    content.build,
    downloads.build,
]

# (page, label) of the main navigation, in order.
NAV: list[tuple[str, str]] = [(page_path(name), label) for name, label in (
    ("index", "Leaderboard"),
    ("ratings", "Ratings"),
    ("pressure", "Under pressure"),
    ("communication", "Communication"),
    ("big-five", "Big Five"),
    ("eqbench", "EQ-Bench 3"),
    ("datasets", "Datasets"),
    ("traits", "Traits"),
    ("compare", "Compare"),
    ("agreement", "Trait agreement"),
    ("methodology", "Methodology"),
    ("about", "About"),
    ("downloads", "Downloads"),
)]

# Pages that exist only with their data: the navigation lists them only when built.
OPTIONAL_PAGES = {page_path("big-five")}


def site_nav(built: set[str]) -> list[tuple[str, str]]:
    """NAV without the optional pages that were not built (`built`: page paths)."""
    return [(href, label) for href, label in NAV
            if href not in OPTIONAL_PAGES or href in built]
