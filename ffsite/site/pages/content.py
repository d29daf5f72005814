"""Pages written in content/*.md: methodology and about (with the judges of this build),
and the 404 page."""

from __future__ import annotations

from ffsite.site.context import SiteContext
from ffsite.site.render import content_markdown
from ffsite.site.urls import page_path
from ffsite.site.views import Cell, Column, Table


def build(ctx: SiteContext) -> None:
    output = ctx.output
    markdown = ctx.config.markdown_file
    methodology, about = page_path("methodology"), page_path("about")
    output.page(methodology, "page.html", section=methodology, title="Methodology",
                body=content_markdown(markdown("methodology.md")))
    output.page(about, "page.html", section=about, title="About",
                body=content_markdown(markdown("about.md")), judges=judge_table(ctx))
    # Hosts serve 404.html at any depth, so it links through the configured base URL.
    output.page(page_path("404"), "404.html", section="", base_href=ctx.config.base_url)


def judge_table(ctx: SiteContext) -> Table:
    """Who produced which numbers in this build, read from the annotations themselves."""
    rows = []
    # A panel's traits name its judges joined by "+"; a scored trait is scores, not votes
    # (votes derived from them are ffsite's).
    counted: dict[tuple[str, str], int] = {}
    for joined, scored in zip(ctx.traits["judge"], ctx.traits["scored"], strict=True):
        for judge in {j.strip() for j in str(joined).split("+")}:
            role = "scores" if scored else "trait votes"
            counted[(judge, role)] = counted.get((judge, role), 0) + 1
    for (judge, role), n in sorted(counted.items()):
        rows.append([Cell(judge, header=True), Cell(role),
                     Cell(f"{n} trait{'s' if n != 1 else ''}")])
    descriptions = ctx.annotations.preference_descriptions
    for row in ctx.datasets.itertuples(index=False):
        for judge in [a for a in row.preference_annotators.split(", ") if a]:
            default = " (shown)" if judge == row.default_annotator else ""
            what = f"preferences on {row.dataset}{default}"
            if descriptions.get(judge):
                what += f": {descriptions[judge]}"
            rows.append([Cell(judge, header=True), Cell("preference votes"), Cell(what)])
    return Table("judges", "Judges and annotators in this build",
                 [Column("judge", "Judge", numeric=False), Column("role", "Role", numeric=False),
                  Column("what", "What it produced", numeric=False)], rows)
