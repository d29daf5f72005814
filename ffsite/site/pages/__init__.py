"""The site's pages: one builder per page kind, run in this order.

A builder is a function `build(ctx: SiteContext) -> None` that computes what it needs,
publishes its tables with `ctx.writer.data(...)` and renders pages with
`ctx.writer.page(...)`.  To add a page kind (ratings, communication traits, ...), write
a module here, add its builder to PAGE_BUILDERS and, for a top-level page, an entry to
NAV.  The downloads page runs last because it lists every table the others published.
"""

from __future__ import annotations

from collections.abc import Callable

from ffsite.site.context import SiteContext
from ffsite.site.pages import (
    agreement,
    communication,
    compare,
    content,
    datasets,
    downloads,
    home,
    models,
    ratings,
    traits,
)

PageBuilder = Callable[[SiteContext], None]

PAGE_BUILDERS: list[PageBuilder] = [
    home.build,
    models.build,
    ratings.build,
    communication.build,
    datasets.build,
    traits.build,
    compare.build,
    agreement.build,
    content.build,
    downloads.build,
]

# (page, label) of the main navigation, in order.
NAV: list[tuple[str, str]] = [
    ("index.html", "Leaderboard"),
    ("ratings.html", "Ratings"),
    ("communication.html", "Communication"),
    ("datasets.html", "Datasets"),
    ("traits.html", "Traits"),
    ("compare.html", "Compare"),
    ("agreement.html", "Trait agreement"),
    ("methodology.html", "Methodology"),
    ("about.html", "About"),
    ("downloads.html", "Downloads"),
]
