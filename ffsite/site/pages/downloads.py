"""Downloads: every published table, as CSV and JSON, with the page that shows it."""

from __future__ import annotations

from ffsite.site.context import SiteContext


def build(ctx: SiteContext) -> None:
    downloads = sorted(ctx.writer.downloads, key=lambda d: d.name)
    ctx.writer.page("downloads.html", "downloads.html", section="downloads.html",
                    downloads=downloads)
