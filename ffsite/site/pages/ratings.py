"""Ratings: each trait as an Elo rating per model (Bradley–Terry with Firth's penalty,
anchored on the reference model) and the personality indices built from them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ffsite._names import safe_name
from ffsite.datasets import DATASETS as DATASET_RECORDS
from ffsite.datasets import dataset_name, find
from ffsite.metrics.ranking import has_signal
from ffsite.metrics.results import DEFAULT_INDICES
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.judging import self_judges, variant_judges
from ffsite.site.output import Download
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.home import leaderboard_traits, trait_order
from ffsite.site.render import number
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import (
    ANCHOR_INTERVAL,
    Cell,
    Chart,
    Column,
    Table,
    chart,
    count_cell,
    rank_column,
    ranked_cell,
    sort_value,
    tied_first,
)

CUE_INDEX = "higher = shows the index's traits more"
CUE_ELO = "higher = shows the trait more"


def build(ctx: SiteContext) -> None:
    ratings, indices = ctx.ratings, ctx.indices
    output = ctx.output
    page = page_path("ratings")
    judges = ", ".join(sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(
        ratings["trait_id"].unique()).dropna().astype(str))))
    who = f" (judge: {judges}; {ctx.config.reference_model} = 1000)" if judges else ""
    rating_download = output.data("ratings", ratings, "Text statistics: Elo rating per "
                                  f"trait and model{who}", page)
    index_download = output.data("indices", indices, f"Text statistics: index scores per "
                                 f"model{who}", page)
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
    judged = judged_ratings(ctx, page)
    output.page(page, "ratings.html", section=page, table=table, judged=judged,
                elo=elo, charts=[c for c in [*(j.chart for j in judged), elo] if c],
                rating_download=rating_download,
                indices=[i for i in DEFAULT_INDICES if i.name in names],
                trait_labels=ctx.labels,
                # A member that mirrors another (is more concise: minus is more verbose)
                # is the same measurement counted twice: the index list says so.
                mirrors=ctx.prepared(leaderboard_traits).mirrors,
                reference=ctx.config.reference_model,
                resamples=ctx.config.rating_resamples, elo_note=ELO_NOTE)


@dataclass(frozen=True)
class JudgedRatings:
    """One rated dataset of judged data on the ratings page: its chart (a menu of its
    traits) and its download."""

    id: str
    name: str
    judge: str
    how: str  # where its matches come from, in a sentence
    anchor: str
    chart: Chart
    download: Download
    traits: list[tuple[str, str | None]]  # (label, trait page)
    self_judged: list[str]  # rated models that are its judges too (they rated themselves)
    derived: bool = False  # its matches are votes derived from scores, not a judge's
    variants: list[str] = field(default_factory=list)  # rated variants of its judges


def judged_ratings(ctx: SiteContext, page: str) -> list[JudgedRatings]:
    """Every dataset with ratings besides the text statistics: the datasets of judged
    pairs (EQ-Bench 3's criteria) and the scored ones (votes derived from the scores,
    `ScoreResults.ratings`), in DATASETS' order."""
    frames: dict[str, tuple[pd.DataFrame, str, str | None]] = {}
    for dataset, found in ctx.pairwise.items():
        if len(found.ratings):
            frames[dataset] = (found.ratings, "the judge's verdict on each pair, "
                               "criterion by criterion", found.anchor)
    if len(ctx.scores):
        scored = ctx.score_results.ratings
        for dataset, own in scored.groupby("dataset", sort=False):
            anchor = own.loc[own["ci_low"] == own["ci_high"], "model"]
            frames[str(dataset)] = (own, "votes derived from the scores: on each prompt, "
                                    "the model the judge scored higher wins the trait",
                                    str(anchor.iloc[0]) if len(anchor) else None)
    order = [d.id for d in DATASET_RECORDS if d.id in frames] + sorted(
        set(frames) - {d.id for d in DATASET_RECORDS})
    found = []
    for dataset in order:
        ratings, how, anchor = frames[dataset]
        traits = sorted(set(ratings["trait_id"]), key=lambda t: str(ctx.labels.get(t, t)))
        record = find(dataset)
        overall = [t for t in traits if record is not None and t == record.lead_trait]
        traits = overall + [t for t in traits if t not in overall]
        judges = sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(traits)
                            .dropna().astype(str)))
        anchor_name = ctx.registry.display_name(anchor) if anchor else "one model"
        slug = safe_name(dataset)
        rows = ratings.assign(key=ratings["trait_id"],
                              name=ratings["model"].map(ctx.registry.display_name),
                              value=ratings["elo"], low=ratings["ci_low"],
                              high=ratings["ci_high"])
        figure = chart(f"elo-{slug}", charts.selectable(
            rows, traits, [str(ctx.labels.get(t, t)) for t in traits], "Trait", "Elo",
            f"Elo of every model on the chosen {dataset_name(dataset)} trait, highest "
            f"first, with its 95% interval; {anchor_name} is fixed at 1000. The "
            "download has every number, with the ranks' ranges.", interval=True))
        download = ctx.output.data(f"ratings-{slug}", ratings.drop(
            columns=[c for c in ("description",) if c in ratings]),
            f"{dataset_name(dataset)}: Elo per trait and model", page)
        rated = set(ratings["model"])
        found.append(JudgedRatings(slug, dataset_name(dataset), ", ".join(judges), how,
                                   anchor_name, figure, download,
                                   [(str(ctx.labels.get(t, t)),
                                     link(page, ctx.slugs.page(TRAITS, t))) for t in traits],
                                   sorted(ctx.registry.display_name(m) for (d, m) in
                                          ctx.prepared(self_judges) if d == dataset
                                          and m in rated),
                                   derived=dataset not in ctx.pairwise,
                                   variants=sorted(ctx.registry.display_name(m) for (d, m) in
                                                   ctx.prepared(variant_judges)
                                                   if d == dataset and m in rated)))
    return found


def index_cell(row, anchor: str | None) -> Cell:
    """An index score with its range (INDEX_NOTE) in view.  The anchor's Elo is fixed at 1000
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
                title=f"{row.traits_used} rated traits; range with every member trait at "
                      "its Elo bounds")


INDEX_NOTE = ("Under each score, its range: the score with the model's member traits all "
              "at the low (then high) ends of their 95% Elo intervals, the other models "
              "held still. A sensitivity range, not a 95% interval: the traits' errors "
              "need not all go one way at once, and the other models' uncertainty is left "
              "out. "
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


def trait_boards(ratings: pd.DataFrame) -> dict[str, tuple[int, bool]]:
    """Per trait id of `ratings` (every model's Elo rows): how many models it rates and
    whether any two of their intervals are disjoint (else it ranks nobody)."""
    return {trait_id: (len(own), has_signal(own["ci_low"], own["ci_high"]))
            for trait_id, own in ratings.groupby("trait_id", sort=False)}


def rating_table(frame: pd.DataFrame, table_id: str, caption: str, first: Column,
                 first_cell, download=None, ranked: bool = True,
                 boards: dict[str, tuple[int, bool]] | None = None) -> Table:
    """Elo rows (trait_id, trait, model, elo, ci_low, ci_high, rank, n) as a table.  No
    ranks when `ranked` is False or when a trait's intervals are never disjoint; a note
    explains negative Elo when a bound is below 0.  The rows are one trait's models,
    unless `boards` (`trait_boards` of all the ratings) says, for rows of several traits
    (one model's page), how many models each trait ranks and whether it ranks any."""
    single = frame["trait_id"].nunique() == 1
    if boards is None:
        boards = {t: (len(frame), single and has_signal(frame["ci_low"], frame["ci_high"]))
                  for t in frame["trait_id"].unique()}
    if single and not boards[frame["trait_id"].iat[0]][1]:
        ranked = False
    notes = ([] if ranked or not single else [NO_RANK]) + (
        [ELO_NOTE] if (frame["ci_low"] < 0).any() else [])
    tied = tied_first(frame) if single else 0
    return Table(table_id, caption, [
        first, Column("elo", "Elo", cue=CUE_ELO),
        Column("interval", "95% interval", numeric=False),
        rank_column(ranks="elo"),
        Column("n", "Comparisons")],
        [[first_cell(r), Cell(number(r.elo, 0), sort_value(r.elo)),
          Cell(ANCHOR_INTERVAL if r.ci_low == r.ci_high
               else f"{number(r.ci_low, 0)} to {number(r.ci_high, 0)}"),
          ranked_cell(r, boards[r.trait_id][0], ranked and boards[r.trait_id][1], tied),
          count_cell(r.n)]
         for r in frame.itertuples(index=False)],
        download, note=" ".join(notes))
