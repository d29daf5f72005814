"""Ratings: each trait as an Elo rating per model (Bradley–Terry with Firth's penalty,
anchored on the reference model) and the personality indices built from them."""

from __future__ import annotations

import pandas as pd

from ffsite.metrics.ranking import has_signal
from ffsite.metrics.results import DEFAULT_INDICES
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.home import trait_order
from ffsite.site.render import number
from ffsite.site.urls import page_path
from ffsite.site.views import (
    ANCHOR_INTERVAL,
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    rank_column,
    ranked_cell,
    sort_value,
)

CUE_INDEX = "higher = shows the index's traits more"
CUE_ELO = "higher = shows the trait more"


def build(ctx: SiteContext) -> None:
    ratings, indices = ctx.ratings, ctx.indices
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
                    *[index_cell(scores.get((model, name)), ctx.config.reference_model)
                      for name in names]]
                   for model in models], index_download,
                  note=INDEX_NOTE.format(anchor=ctx.config.reference_model))

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
                resamples=ctx.config.rating_resamples, elo_note=ELO_NOTE)


def index_cell(row, anchor: str | None) -> Cell:
    """An index score with its 95% interval in view.  The anchor's Elo is fixed at 1000
    on every trait, so its interval has no width by construction: it says so instead.
    A score that stays put at both bounds says that too (a percentile rank moves only
    when the model passes another one)."""
    if row is None:
        return Cell("–")
    if row.model == anchor:
        interval = "fixed reference"
    elif row.ci_low == row.ci_high:
        interval = "same at its bounds"
    else:
        interval = f"{number(row.ci_low, 0)}–{number(row.ci_high, 0)}"
    return Cell(number(row.score, 0), sort_value(row.score), interval=interval,
                title=f"{row.traits_used} rated traits")


INDEX_NOTE = ("Under each score, its 95% interval: the score with the model's member traits "
              "at the bounds of their Elo intervals, the other models held still. "
              "“same at its bounds”: the model passes no other model even at its bounds "
              "(a percentile rank only moves when it does), typical at 1 and 100. "
              "“fixed reference”: {anchor} is the Elo anchor, fixed at 1000 on every trait, "
              "so its own bounds cannot move; its uncertainty lies in the other models' "
              "intervals.")
ELO_NOTE = ("Elo is a relative scale: only differences mean something (400 points = 10:1 "
            "odds) and the reference sits at 1000, so a rating or bound below 0 is no error: "
            "it means more than 1,000 points below the reference (odds beyond 300:1). Long, "
            "lopsided intervals belong to models that rarely show the trait in their "
            "comparisons: a few votes more or less move them far.")
NO_RANK = "No rank: every model's interval overlaps every other's (no signal)."


def rating_table(frame: pd.DataFrame, table_id: str, caption: str, first: Column,
                 first_cell, download=None, ranked: bool = True) -> Table:
    """Elo rows (trait_id, trait, model, elo, ci_low, ci_high, rank, n) as a table.  No
    ranks when `ranked` is False or, for one trait, when no two intervals are disjoint;
    a note explains negative Elo when a bound is below 0."""
    single = frame["trait_id"].nunique() == 1
    if single and not has_signal(frame["ci_low"], frame["ci_high"]):
        ranked = False
    notes = ([] if ranked or not single else [NO_RANK]) + (
        [ELO_NOTE] if (frame["ci_low"] < 0).any() else [])
    return Table(table_id, caption, [
        first, Column("elo", "Elo", cue=CUE_ELO),
        Column("interval", "95% interval", numeric=False),
        rank_column(),
        Column("n", "Comparisons")],
        [[first_cell(r), Cell(number(r.elo, 0), sort_value(r.elo)),
          Cell(ANCHOR_INTERVAL if r.ci_low == r.ci_high
               else f"{number(r.ci_low, 0)} to {number(r.ci_high, 0)}"),
          ranked_cell(r, len(frame), ranked), count_cell(r.n)]
         for r in frame.itertuples(index=False)],
        download, note=" ".join(notes))
