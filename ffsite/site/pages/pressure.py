"""Under pressure: how far each model's judged personality moves from its baseline when
the same questions are asked under pressure (Behavioral Profiling's five conditions).

The numbers are the data layer's (ffsite.metrics.from_scores): `ScoreResults.shifts`,
per model, trait and condition the mean over paired prompts of (condition score −
baseline score) with a 95% interval that resamples the pairs; `ScoreResults.bend`, per
model and condition the mean size of those shifts over the traits.  This page adds
words: a summary computed from those tables, and one section per condition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ffsite.datasets import CONDITION_ORDER, CONDITIONS, SOURCES, condition_label
from ffsite.metrics.ranking import RankRanges, rank_ranges
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge
from ffsite.site.output import Download
from ffsite.site.render import count, number, signed
from ffsite.site.urls import MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    FLOOR_COUNTED,
    FLOOR_NOTE,
    Cell,
    Chart,
    Column,
    Table,
    below_floor,
    chart,
    estimate_cell,
    interval_text,
)

PAGE = page_path("pressure")
BASELINE = CONDITION_ORDER[0]
# Colour steps of a shift cell, in scale points (the heat classes of strength cells).
SHIFT_STEPS = (0.1, 0.25, 0.5, 1.0)
NAMED = 3  # models named as bending most / least under a condition
CUE_SHIFT = "higher = shown more under pressure"
CUE_BEND = "higher = moves more"


def condition_order(conditions) -> list[str]:
    """The conditions in the source's order, unknown ones after them by name."""
    known = {c: i for i, c in enumerate(CONDITION_ORDER)}
    return sorted(set(conditions), key=lambda c: (known.get(c, len(known)), c))


def shift_class(value: float) -> str:
    """The heat class of a shift (hp1..hp4 up, hn1..hn4 down, h0 about zero)."""
    if value is None or math.isnan(value):
        return "nf"
    level = sum(abs(value) >= step for step in SHIFT_STEPS)
    return "h0" if level == 0 else f"{'hp' if value > 0 else 'hn'}{level}"


def shift_cell(row) -> Cell:
    """A shift (row: shift, ci_low, ci_high) with its interval, heat-coloured."""
    return estimate_cell(row.shift, row.ci_low, row.ci_high, signs=True,
                         css=shift_class(row.shift), what="shift from baseline")


def model_names(ctx: SiteContext, ids) -> dict[str, str]:
    """{model id: the registry's display name}; ids whose names would clash keep the id."""
    names = {model: ctx.registry.display_name(model) for model in sorted(set(ids))}
    taken = pd.Series(list(names.values())).value_counts()
    return {model: name if taken[name] == 1 else model for model, name in names.items()}


def model_cell(ctx: SiteContext, page: str, model: str, name: str) -> Cell:
    """A row header with the model's display name, linked to its page."""
    target = ctx.slugs.page(MODELS, model)
    return Cell(name, href=link(page, target) if target else None, header=True,
                title=None if name == model else model)


def named(ctx: SiteContext, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `model_name` after `model` and the trait's label as `trait` after
    `trait_id` (when it has one): what the downloads and pages show."""
    frame = frame.copy()
    names = model_names(ctx, frame["model"])
    frame.insert(frame.columns.get_loc("model") + 1, "model_name",
                 frame["model"].map(names).to_numpy(object))
    if "trait_id" in frame.columns:
        frame.insert(frame.columns.get_loc("trait_id") + 1, "trait",
                     frame["trait_id"].map(ctx.labels).to_numpy(object))
    return frame


@dataclass(frozen=True)
class Mover:
    """A trait that moves under a condition, for the summary: its average shift over
    the models, and how many models move its way (clearly: the interval excludes 0)."""

    label: str
    href: str | None
    average: str
    rises: bool
    moving: int  # models whose shift has the average's sign
    clearly: int  # of those, models whose interval excludes zero
    models: int


@dataclass(frozen=True)
class Condition:
    id: str
    anchor: str  # the section's id
    label: str
    description: str
    n_pairs: int  # paired prompts (the most any model has)
    fewest_pairs: int
    n_models: int
    median_bend: float
    # (model, bend, its interval, its place from that end with its range), most first
    most: list[tuple[Cell, str, str | None, str]]
    least: list[tuple[Cell, str, str | None, str]]  # holding best, least first
    movers: list[Mover]  # traits that move most on average
    table: Table


@dataclass(frozen=True)
class Study:
    """One dataset and judge with a baseline and pressure conditions."""

    dataset: str
    judge: str
    judge_description: str
    source: tuple[str, str, str] | None  # sources.SOURCES: credit, address, licence
    n_models: int
    conditions: list[Condition]
    bend_table: Table
    chart: Chart
    steady: list[Cell]  # among the models bending least under nearly every condition
    swaying: list[Cell]  # among those bending most under nearly every condition
    quarter: int  # how many models "most" / "least" counts
    nearly_all: int  # of how many conditions


def build(ctx: SiteContext) -> None:
    results = ctx.score_results
    shifts, bend = named(ctx, results.shifts), named(ctx, results.bend)
    shift_download = ctx.output.data(
        "pressure-shifts", shifts, "Under pressure: each model's shift from baseline per "
        "trait and condition (judge scores, paired prompts)", PAGE)
    bend_download = ctx.output.data(
        "pressure-bend", bend, "Under pressure: how much each model bends per condition "
        "(mean size of its trait shifts)", PAGE)
    studies = []
    for position, ((dataset, judge), own) in enumerate(shifts.groupby(["dataset", "judge"],
                                                                      sort=True)):
        own_bend = bend[(bend["dataset"] == dataset) & (bend["judge"] == judge)]
        # Ids of tables and charts stay unique when several datasets have conditions.
        suffix = "" if position == 0 else f"-{position + 1}"
        studies.append(study(ctx, dataset, judge, results.judges.get(judge, ""), own,
                             own_bend, suffix, (shift_download, bend_download)))
    ctx.output.page(PAGE, "pressure.html", section=PAGE, studies=studies,
                    charts=[s.chart for s in studies], shift_download=shift_download,
                    bend_download=bend_download, resamples=ctx.config.rating_resamples,
                    steps=SHIFT_STEPS, baseline=BASELINE)


def study(ctx: SiteContext, dataset: str, judge: str, judge_description: str,
          shifts: pd.DataFrame, bend: pd.DataFrame, suffix: str,
          downloads: tuple[Download, Download]) -> Study:
    conditions = condition_order(shifts["condition"])
    floors = ctx.prepared(floor_counts)
    names = dict(zip(bend["model"], bend["model_name"], strict=True))
    cells = {model: replace(model_cell(ctx, PAGE, model, name),
                            **judge_badge(ctx, dataset, model))
             for model, name in names.items()}
    traits = [t for t in ctx.traits["trait_id"] if t in set(shifts["trait_id"])]
    sections = [condition_section(ctx, condition, shifts[shifts["condition"] == condition],
                                  bend[bend["condition"] == condition], traits, cells,
                                  suffix, downloads[0]) for condition in conditions]

    # Who bends: a row per model, a column per condition.
    bend_of = {(r.model, r.condition): r for r in bend.itertuples(index=False)}
    first = bend[bend["condition"] == conditions[0]].set_index("model")["bend"]
    order = sorted(names, key=lambda m: (-first.get(m, -1.0), names[m].lower()))
    table = Table(f"who-bends{suffix}", "Bend: the mean size of a model's trait shifts "
                  "(scale points), per condition", [
                      Column("model", "Model", numeric=False),
                      *[Column(f"c-{c}", condition_label(c), cue=CUE_BEND,
                               title=CONDITIONS.get(c, (c, c))[1]) for c in conditions]],
                  [[cells[m], *[bend_cell(bend_of.get((m, c)), floors) for c in conditions]]
                   for m in order], downloads[1],
                  note=FLOOR_NOTE if any(k[0] == dataset for k in floors) else "")

    # Rank-based words (no interval needed): models in the quarter that bends least
    # (most) under all conditions but at most one.
    ranks = bend.assign(rank=bend.groupby("condition")["bend"].rank(method="first"),
                        of=bend.groupby("condition")["bend"].transform("size"))
    quarter = max(1, math.ceil(len(names) / 4))
    nearly_all = max(1, len(conditions) - 1)
    steady = ranks[ranks["rank"] <= quarter].groupby("model").size()
    swaying = ranks[ranks["rank"] > ranks["of"] - quarter].groupby("model").size()

    # Three decimals are plenty for a dot, and keep the page small (every condition
    # and trait is in the chart's data, for its menus).
    chart_rows = shifts.assign(name=shifts["model_name"], value=shifts["shift"].round(3),
                               low=shifts["ci_low"].round(3), high=shifts["ci_high"].round(3))
    default_trait = biggest_mover(shifts[shifts["condition"] == conditions[0]])
    trait_options = [default_trait, *[t for t in traits if t != default_trait]]
    dots = chart(f"pressure-chart{suffix}", charts.chosen_interval_dots(
        chart_rows, [("condition", "Condition", conditions,
                      [condition_label(c) for c in conditions]),
                     ("trait_id", "Trait", trait_options,
                      [ctx.labels[t] for t in trait_options])],
        "shift (scale points)",
        "Each model's shift from its baseline on the chosen trait under the chosen "
        "condition, with its 95% interval, the most raised first: right of zero the judges "
        "saw the trait more under pressure, left less. The tables below list every number.",
        signed=True))
    return Study(dataset, judge, judge_description, SOURCES.get(dataset), len(names),
                 sections, table, dots,
                 [cells[m] for m in sorted(steady[steady >= nearly_all].index,
                                           key=lambda m: names[m].lower())],
                 [cells[m] for m in sorted(swaying[swaying >= nearly_all].index,
                                           key=lambda m: names[m].lower())],
                 quarter, nearly_all)


def bend_cell(row, floors: dict | None = None) -> Cell:
    """A bend with its interval, marked when scores under the rubric's floor lie behind
    it (`floors`: `floor_counts`)."""
    if row is None:
        return Cell("–")
    cell = estimate_cell(row.bend, row.ci_low, row.ci_high, what="bend")
    return below_floor(cell, *(floors or {}).get((row.dataset, row.condition, row.model),
                                                (0, 0)), what="bend")


def floor_counts(ctx: SiteContext) -> dict[tuple[str, str, str], tuple[int, int]]:
    """{(dataset, condition, model): (scores below the rubric's floor, scores)} over the
    traits, under the condition and at baseline, on the pairs a bend compares (the data's
    known defect: a judge of the panel answered 0): marked as the means are."""
    return _marked(ctx.score_results.shifts.groupby(["dataset", "condition", "model"])[
        ["below_rubric_floor", "paired_scores"]].sum())


def trait_floor_counts(ctx: SiteContext) -> dict[tuple[str, str, str, str], tuple[int, int]]:
    """{(dataset, condition, model, trait): (scores below the rubric's floor, scores)}
    behind a shift: both conditions' scores of that trait on the pairs it compares."""
    return _marked(ctx.score_results.shifts.groupby(
        ["dataset", "condition", "model", "trait_id"])[
        ["below_rubric_floor", "paired_scores"]].sum())


def _marked(counts: pd.DataFrame) -> dict[tuple, tuple[int, int]]:
    """{key: (below, total)} of the rows of `counts` with scores under the floor."""
    counts = counts[counts["below_rubric_floor"] > 0]
    return {key: (int(r.below_rubric_floor), int(r.paired_scores))
            for key, r in counts.iterrows()}


def biggest_mover(shifts: pd.DataFrame) -> str:
    """The trait whose shift, averaged over the models, is furthest from zero."""
    average = shifts.groupby("trait_id")["shift"].mean()
    return str(average.abs().sort_values(ascending=False, kind="stable").index[0])


def condition_section(ctx: SiteContext, condition: str, shifts: pd.DataFrame,
                      bend: pd.DataFrame, traits: list[str], cells: dict[str, Cell],
                      suffix: str, download: Download) -> Condition:
    label, description = CONDITIONS.get(condition, (condition, ""))
    ranked = bend.sort_values(["bend", "model_name"], ascending=[False, True], kind="stable")
    floors = ctx.prepared(floor_counts)
    # Places from each end with their 95% ranges (drawn from the bends' intervals), as
    # the home page's cards give them: the glance names a place, not only an order.
    # Drawn in the bend table's own row order, as the sycophancy page draws them, so
    # both pages give a model the same range.
    value = bend["bend"].to_numpy(float)
    low, high = bend["ci_low"].to_numpy(float), bend["ci_high"].to_numpy(float)
    at = bend.index.get_indexer(ranked.index)  # ranked row -> bend row
    places = {end: RankRanges(*(np.asarray(a)[at] for a in (found.rank, found.low,
                                                             found.high)))
              for end, found in (("most", rank_ranges(value, low=low, high=high)),
                                 ("least", rank_ranges(-value, low=-high, high=-low)))}

    def shown(end: str) -> list[tuple[Cell, str, str | None, str]]:
        rows = list(ranked.itertuples(index=False))
        order = range(len(rows)) if end == "most" else range(len(rows) - 1, -1, -1)
        found = places[end]
        return [(below_floor(cells[rows[i].model], *floors.get(
                    (rows[i].dataset, condition, rows[i].model), (0, 0)), what="bend"),
                 number(rows[i].bend), interval_text(rows[i].ci_low, rows[i].ci_high),
                 place_text(found.rank[i], found.low[i], found.high[i]))
                for i in list(order)[:NAMED]]
    trait_floors = ctx.prepared(trait_floor_counts)

    average = shifts.groupby("trait_id")["shift"].mean()
    movers = []
    moved = average[average.abs() >= 0.005]  # what rounds to 0.00 did not move
    for trait_id in moved.abs().sort_values(ascending=False, kind="stable").index[:2]:
        own = shifts[shifts["trait_id"] == trait_id]
        rises = bool(average[trait_id] > 0)
        way = own["shift"] > 0 if rises else own["shift"] < 0
        clear = own["ci_low"] > 0 if rises else own["ci_high"] < 0
        target = ctx.slugs.page(TRAITS, trait_id)
        movers.append(Mover(ctx.labels[trait_id], link(PAGE, target) if target else None,
                            signed(average[trait_id]), rises, int(way.sum()),
                            int((way & clear).sum()), len(own)))

    of = {(r.model, r.trait_id): r for r in shifts.itertuples(index=False)}
    wording = ctx.traits.drop_duplicates("trait_id").set_index("trait_id")["trait"]
    pairs = shifts.groupby("model")["n_pairs"].max()
    anchor = f"c-{condition}{suffix}"
    columns = [Column("model", "Model", numeric=False),
               *[Column(f"t-{t}", ctx.labels[t], cue=CUE_SHIFT,
                        title=wording[t])
                 for t in traits],
               Column("pairs", "Pairs", title="paired prompts (asked with and without "
                      "the pressure)")]
    rows = [[cells[r.model], *[below_floor(shift_cell(of[(r.model, t)]), *trait_floors.get(
                                   (r.dataset, condition, r.model, t), (0, 0)), what="shift")
                               if (r.model, t) in of else Cell("–") for t in traits],
             Cell(count(pairs[r.model]), int(pairs[r.model]))]
            for r in ranked.itertuples(index=False)]
    marked = any((r.dataset, condition, r.model, t) in trait_floors
                 for r in ranked.itertuples(index=False) for t in traits)
    table = Table(f"shifts-{condition}{suffix}", f"{label}: shift of each trait from "
                  "baseline (scale points), models bending most first", columns, rows,
                  download, note=FLOOR_COUNTED if marked else "")
    return Condition(condition, anchor, label, description, int(bend["n_pairs"].max()),
                     int(bend["n_pairs"].min()), len(bend), float(bend["bend"].median()),
                     shown("most"), shown("least"), movers, table)


def place_text(rank: int, low: int, high: int) -> str:
    """ "#2 (1–5)": a place with its 95% range, or "#1" when the range is that place."""
    return f"#{int(rank)}" + (f" ({int(low)}–{int(high)})" if low != high else "")
