"""Trait pages used to be named by the trait's id (often a hash: traits/11bb8171.html)
and are now named by its wording (traits/is-more-verbose.html).  Each old name gets a
tiny page that sends the reader on (a meta refresh and a link; no script), so links
published before keep working."""

from __future__ import annotations

from ffsite.site.context import SiteContext
from ffsite.site.urls import TRAITS, page_path


def build(ctx: SiteContext) -> None:
    labels = ctx.labels
    for old, trait_id in ctx.slugs.old_traits.items():
        target = ctx.slugs.traits[trait_id]
        label = str(labels.get(trait_id, trait_id))
        ctx.output.page(page_path(TRAITS, old), "redirect.html", target=f"{target}.html",
                        label=label, description=f"Moved: the page of the trait "
                        f"\u201c{label}\u201d is now {page_path(TRAITS, target)}.")
