"""Home: judged personality first (ffsite.site.pages.judged), then the text-statistics
leaderboard (a row per model, a column per rules-judge trait) and its headline chart."""

from __future__ import annotations

import pandas as pd

from ffsite.metrics.results import spread
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.model_meta import meta_cells, meta_columns, with_meta
from ffsite.site.pages.judged import judged_overview
from ffsite.site.render import content_markdown
from ffsite.site.urls import MODELS, link, page_path
from ffsite.site.views import (
    CUE_STRENGTH,
    HEAT,
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    strength_cell,
)

HEADLINE_TRAITS = 12  # the traits on which models differ most, in the headline chart


def trait_order(ctx: SiteContext) -> list[str]:
    """Trait ids, those on which the models differ most first (FF's "max diff")."""
    long = ctx.models.traits
    if long.empty:
        return list(ctx.traits["trait_id"])
    frame = spread(long).rename("spread").reset_index()
    return list(frame.sort_values(["spread", "trait_id"], ascending=[False, True],
                                  kind="stable")["trait_id"])


def build(ctx: SiteContext) -> None:
    results = ctx.models
    output = ctx.output
    page = page_path("index")
    order = trait_order(ctx)
    labels = ctx.traits.set_index("trait_id")
    long = results.traits
    output.data("models", with_meta(results.models, ctx.registry), "Models", page)
    long_download = output.data("model-traits", long, "Every model's traits vs the reference "
                                "(all metrics)", page)
    wide = pd.DataFrame({"model": results.models["model"],
                         "comparisons": results.models["comparisons"]})
    pivot = long.pivot(index="model", columns="trait_id", values="strength") if len(
        long) else pd.DataFrame()
    shown = [t for t in order if t in pivot.columns]
    for trait_id in shown:
        wide[trait_id] = wide["model"].map(pivot[trait_id]).to_numpy()
    download = output.data("leaderboard", wide, "Leaderboard: strength per model and trait "
                           "(columns named by trait_id)", page)

    columns = [Column("model", "Model", numeric=False), *meta_columns(),
               Column("comparisons", "Comparisons",
                      title="comparisons with the reference model")]
    columns += [Column(t, labels.at[t, "label"], cue=CUE_STRENGTH,
                       title=labels.at[t, "trait"], vertical=True) for t in shown]
    cells = {(row[0], row[1]): row[2:]
             for row in long[["model", "trait_id", *HEAT]].itertuples(index=False)}
    rows = []
    for model, n in results.models[["model", "comparisons"]].itertuples(index=False):
        row = [Cell(model, href=link(page, ctx.slugs.page(MODELS, model)), header=True),
               *meta_cells(ctx.registry, model), count_cell(n)]
        for trait_id in shown:
            if (model, trait_id) in cells:
                value, finding, valid, low, high = cells[(model, trait_id)]
                row.append(strength_cell(value, finding, valid, ctx.min_valid, low, high))
            else:
                row.append(Cell("–"))
        rows.append(row)
    table = Table("leaderboard", "Strength of each trait, model vs the reference", columns,
                  rows, download)

    headline = None
    top = shown[:HEADLINE_TRAITS]
    if top:
        strip = long[long["trait_id"].isin(top)].copy()
        strip["rank"] = strip["trait_id"].map({t: i for i, t in enumerate(top)})
        strip = strip.sort_values(["rank", "model"], kind="stable")
        headline = chart("headline", charts.strip_plot(
            strip, f"The {len(top)} traits on which models differ most. Each tick is one "
            "model's strength against the reference: right of zero, the model shows the "
            "trait more; left, less. Every number is in the table below."))
    judged = judged_overview(ctx, page)
    charts_shown = [c for c in (judged.chart if judged else None, headline) if c]
    output.page(page, "home.html", section=page,
                intro=content_markdown(ctx.config.markdown_file("intro.md")), judged=judged,
                table=table, headline=headline, charts=charts_shown,
                long_download=long_download, reference=results.reference_model,
                reference_page=ctx.slugs.page(MODELS, results.reference_model)
                if results.reference_model else None,
                n_models=len(results.models), n_traits=len(shown))
