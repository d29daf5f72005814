"""The page of a trait that judges scored (Behavioral Profiling's nine): its definition and
scale, every model ranked by its baseline mean, its strength against all other models
(from votes derived from the scores) and its shift under each pressure condition.

Called from traits.build for each scored trait; the numbers are `ScoreResults`'.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ffsite.datasets import CONDITIONS, DATASETS, SOURCES, condition_label
from ffsite.metrics.ranking import has_signal
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge
from ffsite.site.pages import pressure
from ffsite.site.pages.pressure import (
    BASELINE,
    CUE_SHIFT,
    SHIFT_STEPS,
    condition_order,
    model_cell,
    named,
    shift_cell,
)
from ffsite.site.render import number
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import (
    FLOOR_COUNTED,
    Cell,
    Chart,
    Column,
    Table,
    below_floor,
    chart,
    count_cell,
    elo_cell,
    estimate_cell,
    heat_class,
    rank_column,
    ranked_cell,
    sort_value,
    tied_first,
)

# The judges' rubric where the data says no more than the stored scale: (lowest anchor,
# highest anchor).  Behavioral Profiling stores 0-10, but its rubric anchors 1 and 10.
RUBRICS: dict[str, tuple[float, float]] = {d.id: d.rubric for d in DATASETS if d.rubric}
# The datasets whose judges saw only each trait's name and the scale (no described ends).
UNANCHORED = {d.id for d in DATASETS if d.rubric and not d.rubric_anchored}
# What one of a model's answers is, for datasets whose models answered repeatedly
# (their means' intervals are over those answers, ffsite.metrics.panel).
UNITS: dict[str, str] = {d.id: d.unit_label for d in DATASETS if d.unit}
DERIVED = "derived from scores"


@dataclass(frozen=True)
class ScoredBlock:
    """One dataset and judge that scored the trait."""

    dataset: str
    judge: str
    judge_description: str
    source: tuple[str, str, str] | None  # sources.SOURCES: credit, address, licence
    condition: str  # whose means rank the models: the baseline, or "" (no conditions)
    rubric: tuple[float, float] | None
    anchored: bool  # the judges' prompt described the rubric's ends
    below_rubric: int  # scores below the rubric's lowest anchor
    n_scores: int
    conditions: list[tuple[str, str]]  # (label, what it adds) of the shifts' conditions
    unit: str | None  # what one of a model's repeated answers is (the intervals' unit)
    means: Table
    chart: Chart
    strengths: Table | None
    ratings: Table | None
    anchor: str | None
    shifts: Table | None
    suffix: str


def scored_trait_page(ctx: SiteContext, trait, page: str, slug: str) -> None:
    """The page of scored trait `trait` (a row of ctx.traits) at `page`."""
    results = ctx.score_results
    means = named(ctx, results.means[results.means["trait_id"] == trait.trait_id])
    strengths = named(ctx, results.strengths[results.strengths["trait_id"]
                                             == trait.trait_id])
    shifts = named(ctx, results.shifts[results.shifts["trait_id"] == trait.trait_id])
    ratings = results.ratings[results.ratings["trait_id"] == trait.trait_id]
    scale = results.traits.set_index("trait_id").loc[trait.trait_id]
    blocks = []
    groups = list(means.groupby(["dataset", "judge"], sort=True))
    for position, ((dataset, judge), own) in enumerate(groups):
        # Ids and file names stay unique when several judges scored the trait.
        suffix = "" if position == 0 else f"-{position + 1}"
        conditions = set(own["condition"])
        condition = BASELINE if BASELINE in conditions else sorted(conditions)[0]
        own = own[own["condition"] == condition].sort_values(
            ["mean", "model_name"], ascending=[False, True], kind="stable")
        key = (strengths["dataset"] == dataset) & (strengths["judge"] == judge) & (
            strengths["condition"] == condition)
        shifted = shifts[(shifts["dataset"] == dataset) & (shifts["judge"] == judge)]
        rated = ratings[(ratings["dataset"] == dataset) & (ratings["description"] == trait.trait)
                        ] if condition == BASELINE else ratings.iloc[:0]
        blocks.append(block(ctx, trait, page, slug, suffix, dataset, judge, condition,
                            results.judges.get(judge, ""), own, strengths[key], shifted,
                            rated))
    # The rubric's ends where the data's stored scale is wider (Behavioral Profiling
    # stores 0-10 for its judges' 0s; its rubric runs 1-10).
    rubric = next((RUBRICS[d] for (d, _), _ in groups if d in RUBRICS), None)
    ctx.output.page(page, "trait_scored.html", section=page_path(TRAITS), trait=trait,
                    scale=rubric or (scale["scale_min"], scale["scale_max"]), blocks=blocks,
                    unanchored=any(d in UNANCHORED for (d, _), _ in groups),
                    charts=[b.chart for b in blocks],
                    pressure_page=link(page, pressure.PAGE), steps=SHIFT_STEPS,
                    derived=DERIVED)


def block(ctx: SiteContext, trait, page: str, slug: str, suffix: str, dataset: str,
          judge: str, condition: str, judge_description: str, means: pd.DataFrame,
          strengths: pd.DataFrame, shifts: pd.DataFrame, ratings: pd.DataFrame
          ) -> ScoredBlock:
    everyone = pd.concat([frame[["model", "model_name"]] for frame in (means, strengths,
                                                                        shifts)])
    cells = {model: replace(model_cell(ctx, page, model, name),
                            **judge_badge(ctx, dataset, model))
             for model, name in everyone.drop_duplicates("model").itertuples(index=False)}
    where = BlockPlace(ctx, trait, page, slug, suffix, dataset, judge, condition, cells)
    rating_table, anchor = ratings_table(where, ratings)
    conditions = condition_order(shifts["condition"])
    rubric = RUBRICS.get(dataset)
    below, scored = scores_below(ctx, trait.trait_id, dataset, judge,
                                 rubric[0] if rubric else -np.inf)
    return ScoredBlock(dataset, judge, judge_description, SOURCES.get(dataset), condition,
                       rubric, dataset not in UNANCHORED, below, scored,
                       [CONDITIONS.get(c, (c, "")) for c in conditions], UNITS.get(dataset),
                       means_table(where, means),
                       means_chart(where, means), strengths_table(where, strengths),
                       rating_table, anchor, shifts_table(where, means, shifts, conditions),
                       suffix)


@dataclass(frozen=True)
class BlockPlace:
    """Where a block's tables go and what they name: its trait, page, judge and the
    model cells (linked to the models' pages)."""

    ctx: SiteContext
    trait: Any  # a row of ctx.traits
    page: str
    slug: str
    suffix: str  # keeps ids and file names unique when several judges scored the trait
    dataset: str
    judge: str
    condition: str
    cells: dict[str, Cell]


def means_table(where: BlockPlace, means: pd.DataFrame) -> Table:
    """Every model's mean score, highest first, with its rank: its place and the 95%
    range of its rank over the means' resamples (ffsite.metrics.ranking); no rank when
    every interval overlaps every other (no signal: rank 0 in the download)."""
    low, high = means["ci_low"].to_numpy(), means["ci_high"].to_numpy()
    signal = has_signal(low, high)
    ranked = means if signal else means.assign(rank=0, rank_low=0, rank_high=0)
    tied = tied_first(ranked)
    download = where.ctx.output.data(
        f"traits/{where.slug}/means{where.suffix}", ranked,
        f"{where.trait.label}: every model's mean score ({where.judge})", where.page)
    return Table(f"means{where.suffix}", f"Mean score of each model{at(where.condition)}, "
                 "highest first", [
                     Column("model", "Model", numeric=False),
                     Column("mean", "Mean score", cue="higher = shows it more",
                            title="the plain average of the panel's scores"),
                     rank_column(ranks="mean"),
                     Column("prompts", f"{unit.capitalize()}s", title=f"the model's {unit}s")
                     if (unit := UNITS.get(where.dataset)) else
                     Column("prompts", "Prompts", title="prompts the model answered")],
                 [[where.cells[r.model],
                   below_floor(estimate_cell(r.mean, r.ci_low, r.ci_high, what="mean score"),
                               r.below_rubric_floor, r.n),
                   ranked_cell(r, len(ranked), bool(r.rank), tied),
                   count_cell(r.n_prompts)]
                  for r in ranked.itertuples(index=False)], download,
                 note=" ".join(filter(None, (
                     "" if signal else "No rank: every model's interval overlaps every "
                                       "other's (no signal).",
                     FLOOR_COUNTED if ranked["below_rubric_floor"].any() else ""))))


def means_chart(where: BlockPlace, means: pd.DataFrame) -> Chart:
    return chart(f"means-chart{where.suffix}", charts.interval_dots(
        means.assign(name=means["model_name"], value=means["mean"], low=means["ci_low"],
                     high=means["ci_high"]), "mean score",
        f"Each model's mean {where.trait.label} score{at(where.condition)}, highest first, "
        "with its 95% interval. The table below lists the same numbers."))


def strengths_table(where: BlockPlace, strengths: pd.DataFrame) -> Table | None:
    """Each model against all the others, from votes derived from the scores."""
    if not len(strengths):
        return None
    strengths = strengths.sort_values(["strength", "model_name"], ascending=[False, True],
                                      kind="stable")
    label = where.trait.label
    download = where.ctx.output.data(
        f"traits/{where.slug}/strengths{where.suffix}", strengths.assign(votes=DERIVED),
        f"{label}: strength against all other models ({DERIVED}, {where.judge})",
        where.page)
    return Table(
        f"strengths{where.suffix}", f"Strength against all other models ({DERIVED})", [
            Column("model", "Model", numeric=False),
            Column("strength", "Strength", cue="higher = shown more than the others",
                   title="(wins − losses) / comparisons, votes derived from scores"),
            Column("relevance", "Relevance", title="share of comparisons that are not "
                   "ties"),
            Column("wins", "Wins", title="prompts where the other model scored lower"),
            Column("ties", "Ties", title="prompts where both scored the same"),
            Column("losses", "Losses", title="prompts where the other model scored "
                   "higher"),
            Column("comparisons", "Comparisons")],
        [[where.cells[r.model], estimate_cell(r.strength, r.ci_low, r.ci_high, signs=True,
                                              css=heat_class(r.strength),
                                              what=f"strength ({DERIVED})"),
          Cell(number(r.relevance), sort_value(r.relevance)), count_cell(r.wins),
          count_cell(r.ties), count_cell(r.losses), count_cell(r.comparisons)]
         for r in strengths.itertuples(index=False)], download)


def ratings_table(where: BlockPlace, ratings: pd.DataFrame) -> tuple[Table | None, str | None]:
    """Bradley-Terry Elo from the derived votes, and the anchor's name (None: no ratings)."""
    if not len(ratings):
        return None, None
    ctx, page = where.ctx, where.page
    ratings = named(ctx, ratings.sort_values(["elo", "model"], ascending=[False, True],
                                             kind="stable"))
    # The anchor is the model held at exactly 1000 (its interval has no width).
    anchor = next((name for name, elo, low, high in ratings[
        ["model_name", "elo", "ci_low", "ci_high"]].itertuples(index=False)
        if elo == 1000 and low == high), None)
    tied = tied_first(ratings)
    download = ctx.output.data(
        f"traits/{where.slug}/ratings{where.suffix}",
        ratings.drop(columns="description").assign(votes=DERIVED),
        f"{where.trait.label}: Bradley-Terry Elo ({DERIVED}, {where.judge})", page)
    return Table(
        f"ratings{where.suffix}", f"Bradley–Terry rating ({DERIVED}), Elo scale", [
            Column("model", "Model", numeric=False),
            Column("elo", "Elo", cue="higher = shows it more",
                   title="400 points = 10:1 odds of showing it more on a prompt"),
            rank_column(ranks="elo"),
            Column("n", "Comparisons")],
        [[where.cells.get(r.model) or model_cell(ctx, page, r.model, r.model_name),
          elo_cell(r.elo, r.ci_low, r.ci_high),
          ranked_cell(r, len(ratings), tied=tied), count_cell(r.n)]
         for r in ratings.itertuples(index=False)], download), anchor


def shifts_table(where: BlockPlace, means: pd.DataFrame, shifts: pd.DataFrame,
                 conditions: list[str]) -> Table | None:
    """Each model's shift from baseline under each condition, models in the means' order."""
    if not len(shifts):
        return None
    download = where.ctx.output.data(
        f"traits/{where.slug}/shifts{where.suffix}", shifts,
        f"{where.trait.label}: shift from baseline under each condition ({where.judge})",
        where.page)
    of = {(r.model, r.condition): r for r in shifts.itertuples(index=False)}
    order = [m for m in means["model"] if m in set(shifts["model"])]
    order += sorted(set(shifts["model"]) - set(order))
    baseline = means.set_index("model")
    return Table(
        f"shifts{where.suffix}", "Shift from baseline under each condition (scale points)",
        [Column("model", "Model", numeric=False),
         Column("baseline", "Baseline", cue="higher = shows it more",
                title=f"mean score{at(where.condition)}"),
         *[Column(f"c-{c}", condition_label(c), cue=CUE_SHIFT,
                  title=CONDITIONS.get(c, (c, c))[1]) for c in conditions]],
        [[where.cells[m],
          estimate_cell(baseline.at[m, "mean"], baseline.at[m, "ci_low"],
                        baseline.at[m, "ci_high"], what="mean score")
          if m in baseline.index else Cell("–"),
          *[shift_cell(of[(m, c)]) if (m, c) in of else Cell("–") for c in conditions]]
         for m in order], download)


def at(condition: str) -> str:
    return f" at {condition}" if condition else ""


def scores_below(ctx: SiteContext, trait_id: str, dataset: str, judge: str,
                 floor: float) -> tuple[int, int]:
    """(scores below `floor`, all scores) of one trait, dataset and judge."""
    scores = ctx.scores
    columns = scores.columns
    own_column = ((columns["trait_id"] == trait_id) & (columns["judge"] == judge)).to_numpy()
    own = own_column[scores.column] & (
        scores.responses["dataset"].to_numpy(object)[scores.response] == dataset)
    return int((scores.value[own] < floor).sum()), int(own.sum())
