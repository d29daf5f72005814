"""The site's pages: one builder per page kind.

A builder is a function `build(ctx: SiteContext) -> None` that computes what it needs
and hands it to `ctx.output`: tables to publish (`ctx.output.data(...)`, which returns
the download links) and pages to render (`ctx.output.page(...)`).  Nothing is written
until every builder has run, so they may run in any order.  To add a page kind, write a
module here, add its builder to PAGE_BUILDERS and, for a top-level page, an entry to NAV.
A dataset's own pages live in its folder: its record names their builder and its page,
which join both lists here.
"""

from __future__ import annotations

from collections.abc import Callable

from ffsite.datasets import DATASETS as ALL_DATASETS
from ffsite.site import filters
from ffsite.site.context import SiteContext
from ffsite.site.output import SiteOutput
from ffsite.site.pages import (
    agreement,
    big_five,
    communication,
    compare,
    content,
    datasets,
    downloads,
    eigenbench,
    eigenbench_data,
    explore,
    home,
    judges,
    lineage,
    models,
    pressure,
    ratings,
    redirects,
    sycophancy,
    traits,
)
from ffsite.site.urls import page_path

PageBuilder = Callable[[SiteContext], None]

PAGE_BUILDERS: list[PageBuilder] = [
    filters.build,  # what every model table's rows and filter bar read
    home.build,
    # Before the model pages, which wait for the ratings being computed ahead: these
    # read none of the tables computed ahead, so they fill that wait.
    pressure.build,
    sycophancy.build,
    communication.build,
    big_five.build,
    models.build,
    ratings.build,
    *(d.hook("builder") for d in ALL_DATASETS if d.builder),  # datasets' own pages
    eigenbench.build,
    datasets.build,
    traits.build,
    compare.build,
    lineage.build,
    agreement.build,
    explore.build,
    judges.build,
    content.build,
    downloads.build,
    redirects.build,
]

# Builders that read only the tables and write only their own pages, tables and files:
# a run of them in PAGE_BUILDERS is built two at a time (ffsite.site.side_by_side), those
# marked True by a forked child.  The marks share the time about evenly (on the default
# site, 2026-12-04: trait pages 1.9 s, explorer 1.0-1.4 s, datasets 1.05 s, lineage
# 0.65 s, compare 0.56 s, EigenBench 0.2-0.5 s, EQ-Bench 0.37 s, judges 0.21 s).
SIDE_BY_SIDE: dict[PageBuilder, bool] = {
    **{d.hook("builder"): False for d in ALL_DATASETS if d.builder},
    eigenbench.build: False, datasets.build: True, traits.build: False,
    compare.build: False, lineage.build: True, agreement.build: False,
    explore.build: True, judges.build: False,
}

# The slowest tables, computed in a forked child while the first pages are built
# (SiteContext.compute_ahead), in the order the model pages ask for them.  EQ-Bench 3's
# overall table (6 s of a cold build) is left to this process: its pairwise results are
# computed here anyway, the child's chain of fits is what the model pages wait for, and
# without it the cold build took 35.8 s against 37.4 s (median of six alternated pairs,
# docs/performance.md).
AHEAD: list[str | Callable[[SiteContext], object]] = [
    eigenbench_data.derived_fits,
    "ratings",
]

# (page, label) of the main navigation, in order.
NAV: list[tuple[str, str]] = [(page_path(name), label) for name, label in (
    ("index", "Leaderboard"),
    ("ratings", "Ratings"),
    ("pressure", "Under pressure"),
    ("sycophancy", "Sycophancy"),
    ("communication", "Communication"),
    ("big-five", "Big Five"),
    *((d.page, d.name) for d in ALL_DATASETS if d.page),
    ("eigenbench", "EigenBench"),
    ("datasets", "Datasets"),
    ("traits", "Traits"),
    ("compare", "Compare"),
    ("lineage", "Lineage"),
    ("agreement", "Trait agreement"),
    ("explore", "Explore"),
    ("judges", "Judges"),
    ("methodology", "Methodology"),
    ("about", "About"),
    ("downloads", "Downloads"),
)]

# Entries shown only when their page was built: EigenBench only with judgments, the Big
# Five only with ratings.
CONDITIONAL_NAV = frozenset({eigenbench.OVERVIEW, page_path("big-five")})


def visible_nav(output: SiteOutput) -> list[tuple[str, str]]:
    """NAV without the conditional entries whose page no builder produced."""
    built = {page.path for page in output.pages}
    return [(page, label) for page, label in NAV
            if page not in CONDITIONAL_NAV or page in built]
