"""Downloads: every published table, as CSV and JSON, with the page that shows it.

The list itself is `published`, which every page is rendered with once all builders
have run (ffsite.site.output), so this builder may run at any point.
"""

from __future__ import annotations

from ffsite.site.context import SiteContext
from ffsite.site.urls import page_path


def build(ctx: SiteContext) -> None:
    page = page_path("downloads")
    ctx.output.page(page, "downloads.html", section=page)
