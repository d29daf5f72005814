"""EigenBench on a model's page: per constitution whose population the model belongs to,
its rating, the 95% range of its place and its trust share, and how it rates itself as a
judge; for judgments a dataset derives from its scores, the same beside the dataset's own
mean scores (ffsite.site.pages.eigenbench has the constitutions' pages)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite._names import safe_name
from ffsite.datasets import dataset_name
from ffsite.site.context import SiteContext
from ffsite.site.pages.eigenbench import RANK_CUE, SELF_GAP_TITLE, elo_column, trust_cell
from ffsite.site.pages.eigenbench_data import Rated, rated
from ffsite.site.render import number
from ffsite.site.sections import Section, model_page
from ffsite.site.urls import constitution_path, link
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    count_cell,
    estimate_cell,
    rank_cell,
    rank_column,
    sort_value,
)


@dataclass(frozen=True, kw_only=True)
class EigenBenchSection(Section):
    bootstrap: int  # refits behind the intervals
    derived: bool = False  # its judgments were derived from a dataset's scores
    difference: str = ""  # how its EigenBench ranks and its mean-score ranks differ


def eigenbench_sections(ctx: SiteContext, model: str) -> list[Section]:
    """The EigenBench sections of a model's page: per constitution of votes whose
    population it belongs to, its rating, rank and trust share, and how it rates itself
    as a judge; then, per dataset that derives judgments from scores, the same beside
    the dataset's mean scores.  None when it is in no population."""
    slug, page = model_page(ctx, model)
    own = [item for item in ctx.prepared(rated).values() if model in item.result.models]
    sections = []
    asked = [item for item in own if item.derived is None]
    if asked:
        sections.append(_section(ctx, model, slug, page, asked, "eigenbench",
                                 "EigenBench", "EigenBench ratings per constitution"))
    for dataset in dict.fromkeys(item.derived.dataset for item in own if item.derived):
        items = [item for item in own if item.derived and item.derived.dataset == dataset]
        name = dataset_name(dataset)
        sections.append(_section(ctx, model, slug, page, items,
                                 f"eigenbench-{safe_name(dataset)}",
                                 f"EigenBench on {name}",
                                 f"EigenBench on {name}: each trait's rating beside the "
                                 "mean score"))
    return sections


def _section(ctx: SiteContext, model: str, slug: str, page: str, items: list[Rated],
             section_id: str, heading: str, title: str) -> EigenBenchSection:
    # long: one table of a model's ratings, with or without the mean scores beside them
    rows = []
    for item in items:
        result = item.result
        ratings = result.ratings.reset_index(drop=True)
        position = int(np.flatnonzero(ratings["model"].to_numpy() == model)[0])
        judge = result.judges.set_index("judge").loc[model]
        row = {"constitution": item.name, "label": item.label, "model": model,
               **ratings.iloc[position].drop("model").to_dict(),
               "rank": int(item.ranges.rank[position]),
               "rank_low": int(item.ranges.low[position]),
               "rank_high": int(item.ranges.high[position]), "models": len(ratings),
               "self_elo": judge["self_elo"], "others_elo": judge["others_elo"],
               "self_preference": judge["self_preference"],
               "self_preference_low": judge["self_preference_low"],
               "self_preference_high": judge["self_preference_high"],
               "judgments": int(judge["judgments"])}
        if item.compared is not None:
            mine = item.compared.set_index("model").loc[model]
            row.update(eigenbench_order=int(mine["eigenbench_rank"]),
                       panel_mean=mine["panel_mean"], panel_low=mine["panel_low"],
                       panel_high=mine["panel_high"], panel_rank=mine["panel_rank"])
        rows.append(row)
    frame = pd.DataFrame(rows)
    derived = "panel_mean" in frame.columns
    download = ctx.output.data(f"models/{slug}/{section_id}", frame,
                               f"{ctx.registry.display_name(model)}: {title}", page)
    columns = [Column("constitution", "Trait" if derived else "Constitution", numeric=False),
               elo_column(derived), rank_column(RANK_CUE)]
    tied = [item.tied_first for item in items]
    if derived:
        columns += [Column("panel", "Mean score", title="the dataset's mean score of the "
                           "trait, with its 95% interval"),
                    Column("orders", "Place: EigenBench / mean", title="its place among "
                           "the same models by Elo and by the mean score")]
    else:
        columns.append(Column("trust", "Trust share",
                              title="the model's share of the population's trust"))
    columns += [Column("self", "Rates itself", title="its Elo from its own trust row"),
                Column("others", "Others rate it", title="its Elo from the other judges' "
                       "rows"),
                Column("gap", "Own row − others'", cue="higher = rates itself above what "
                       "others do", title=SELF_GAP_TITLE)]
    if not derived:
        columns.append(Column("judgments", "Judgments made", title="its judgments as a "
                              "judge"))
    table_rows = []
    for r, first in zip(frame.to_dict("records"), tied, strict=True):
        row = [Cell(r["label"].split(": ", 1)[-1] if derived else r["label"],
                    href=link(page, constitution_path(r["constitution"])), header=True),
               estimate_cell(r["elo"], r["ci_low"], r["ci_high"], digits=0, what="Elo"),
               rank_cell(r["rank"], r["models"], r["rank_low"], r["rank_high"], first)]
        if derived:
            place = ("–" if pd.isna(r["panel_rank"]) else
                     f"{r['eigenbench_order']} / {int(r['panel_rank'])}")
            row += [estimate_cell(r["panel_mean"], r["panel_low"], r["panel_high"],
                                  what="mean score"),
                    Cell(place, sort_value(r["eigenbench_order"]))]
        else:
            row.append(trust_cell(r["trust"]))
        row += [Cell(number(r["self_elo"], 0), sort_value(r["self_elo"])),
                Cell(number(r["others_elo"], 0), sort_value(r["others_elo"])),
                estimate_cell(r["self_preference"], r["self_preference_low"],
                              r["self_preference_high"], digits=0, signs=True,
                              what="self-preference")]
        if not derived:
            row.append(count_cell(r["judgments"]))
        table_rows.append(row)
    table = Table(f"model-{section_id}", title, columns, table_rows, download)
    datasets = sorted({d for item in items for d in item.datasets})
    return EigenBenchSection(
        id=section_id, heading=heading,
        summary=(f"rated by the models it judged with, on {len(rows)} trait"
                 f"{'s' if len(rows) > 1 else ''}, beside the mean scores" if derived else
                 f"rated by the models it judged with, under {len(rows)} "
                 f"constitution{'s' if len(rows) > 1 else ''}"),
        judged_by="the models of each constitution's population",
        partial="sections/eigenbench.html", datasets=tuple(datasets), tables=(table,),
        bootstrap=ctx.config.eigenbench_resamples, derived=derived,
        difference=places_text(frame) if derived else "")


def places_text(frame: pd.DataFrame) -> str:
    """How a model's places among the population differ between EigenBench and the mean
    scores, over the traits, in a sentence."""
    usable = frame.dropna(subset=["panel_rank"])
    if usable.empty:
        return ""
    moved = (usable["eigenbench_order"] - usable["panel_rank"]).abs()
    far = usable[moved >= 2]
    text = (f"Among the same {int(usable['models'].iloc[0])} models, its place by "
            f"EigenBench and by the mean score agree on {int((moved == 0).sum())} of "
            f"{len(usable)} traits, differ by one place on {int((moved == 1).sum())} and "
            f"by two or more on {len(far)}")
    if len(far):
        worst = far.loc[moved[moved >= 2].idxmax()]
        text += (f" (most: {worst['label'].split(': ', 1)[-1]}, "
                 f"{int(worst['eigenbench_order'])} by EigenBench against "
                 f"{int(worst['panel_rank'])} by the mean score)")
    return text + "."
