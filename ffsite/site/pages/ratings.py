"""Ratings: each trait as an Elo rating per model (Bradley–Terry with Firth's penalty,
anchored on the reference model) and the personality indices built from them."""

from __future__ import annotations

import pandas as pd

from ffsite.metrics.results import DEFAULT_INDICES
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.home import trait_order
from ffsite.site.render import number
from ffsite.site.urls import page_path
from ffsite.site.views import Cell, Column, Table, chart, count_cell, sort_value

CUE_INDEX = "higher = shows the index's traits more"
CUE_ELO = "higher = shows the trait more"


def build(ctx: SiteContext) -> None:
    ratings, indices = ctx.ratings(), ctx.indices()
    output = ctx.output
    page = page_path("ratings")
    rating_download = output.data("ratings", ratings, "Elo rating per trait and model", page)
    index_download = output.data("indices", indices, "Index scores per model", page)
    names = [i.name for i in DEFAULT_INDICES if i.name in set(indices["index"])]
    scores = {(r.model, r.index): r for r in indices.itertuples(index=False)}
    models = sorted(set(indices["model"]), key=str.lower)
    table = Table("indices", "Index scores (percentile rank among the rated models, 1–100)",
                  [Column("model", "Model", numeric=False),
                   *[Column(f"i{n}", name, cue=CUE_INDEX) for n, name in enumerate(names)]],
                  [[model_cell(ctx, page, model),
                    *[index_cell(scores.get((model, name))) for name in names]]
                   for model in models], index_download)

    elo = None
    if len(ratings):
        order = [t for t in trait_order(ctx) if t in set(ratings["trait_id"])]
        labels = ctx.labels
        rows = ratings.rename(columns={"trait_id": "key", "model": "name", "elo": "value",
                                       "ci_low": "low", "ci_high": "high"})
        elo = chart("elo-chart", charts.selectable(
            rows, order, [labels[t] for t in order], "Trait", "Elo",
            f"Elo rating of every model on the chosen trait, with its 95% interval; "
            f"{ctx.config.reference_model} is fixed at 1000. The ratings table (download) "
            "has every number.", interval=True))
    output.page(page, "ratings.html", section=page, table=table,
                elo=elo, charts=[elo] if elo else [], rating_download=rating_download,
                indices=[i for i in DEFAULT_INDICES if i.name in names],
                trait_labels=ctx.labels,
                reference=ctx.config.reference_model,
                resamples=ctx.config.rating_resamples)


def index_cell(row) -> Cell:
    if row is None:
        return Cell("–")
    return Cell(number(row.score, 0), sort_value(row.score),
                title=f"95% interval {number(row.ci_low, 0)} to {number(row.ci_high, 0)}; "
                      f"{row.traits_used} rated traits")


def rating_table(frame: pd.DataFrame, table_id: str, caption: str, first: Column,
                 first_cell, download=None) -> Table:
    """Elo rows (trait_id, trait, model, elo, ci_low, ci_high, rank, n) as a table."""
    return Table(table_id, caption, [
        first, Column("elo", "Elo", cue=CUE_ELO),
        Column("interval", "95% interval", numeric=False),
        Column("rank", "Rank", cue="lower = shows it more", title="1 + the number of "
               "models rated surely higher (their interval lies above this one)"),
        Column("n", "Comparisons")],
        [[first_cell(r), Cell(number(r.elo, 0), sort_value(r.elo)),
          Cell(f"{number(r.ci_low, 0)} to {number(r.ci_high, 0)}"),
          count_cell(r.rank), count_cell(r.n)] for r in frame.itertuples(index=False)],
        download)

