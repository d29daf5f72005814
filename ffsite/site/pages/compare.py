"""Compare: any two models side by side, trait by trait, drawn in the browser.

The page carries every model's strengths as JSON (the same numbers as
data/model-traits.csv); a small script fills the table and chart for the two models
named in the URL (?a=...&b=...), so no page per pair is generated.
"""

from __future__ import annotations

from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.home import trait_order
from ffsite.site.render import json_script
from ffsite.site.urls import page_path
from ffsite.site.views import chart


def build(ctx: SiteContext) -> None:
    long = ctx.models.traits
    models = list(ctx.models.models["model"])
    order = [t for t in trait_order(ctx) if t in set(long["trait_id"])]
    labels = ctx.labels
    pivot = long.pivot(index="model", columns="trait_id", values="strength") if len(
        long) else None
    strength = {}
    for model in models:
        values = pivot.loc[model].reindex(order)
        strength[model] = [None if v != v else round(float(v), 4) for v in values]
    data = {"models": models,
            # compare.js links each trait to traits/<slug>.html
            "traits": [{"label": labels[t], "slug": ctx.slugs.traits[t]} for t in order],
            "strength": strength}
    difference = chart("compare-chart", charts.difference_bars(
        "Per-trait difference in strength between the two chosen models (first minus "
        "second), largest differences first. The table lists the same numbers."))
    page = page_path("compare")
    ctx.output.page(page, "compare.html", section=page, models=models,
                    data=json_script(data), difference=difference, charts=[difference],
                    reference=ctx.models.reference_model)
