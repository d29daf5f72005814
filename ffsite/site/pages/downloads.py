"""Downloads: every published table, as CSV and JSON, with the page that shows it.

The list itself is `published`, which every page is rendered with once all builders
have run (ffsite.site.output), so this builder may run at any point; so is `archive`, the
one zip of them all (ffsite.site.archive), whose README credits the datasets named here.
"""

from __future__ import annotations

from ffsite.site.context import SiteContext
from ffsite.site.sources import SOURCES, dataset_name
from ffsite.site.urls import page_path


def build(ctx: SiteContext) -> None:
    page = page_path("downloads")
    datasets = set(ctx.annotations.datasets) | set(ctx.scores.responses["dataset"].dropna())
    ctx.output.sources = [
        f"{dataset_name(d)}: " + ("{} <{}>, licence: {}".format(*SOURCES[d]) if d in SOURCES
                                  else "no source recorded") for d in sorted(datasets, key=str)]
    ctx.output.page(page, "downloads.html", section=page)
