"""EigenBench: one page per constitution (models judging each other's answers, from votes
in the annotations or from judgments a dataset derives from its scores), an overview page
listing them, and a section on each rated model's page.  Without judgments there is no
page and no navigation entry."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ffsite._names import safe_name
from ffsite.datasets import dataset_name
from ffsite.metrics import eigenbench as eb
from ffsite.site import charts
from ffsite.site.context import EIGENBENCH_BOOTSTRAP, SiteContext
from ffsite.site.output import Download
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.eigenbench_data import Rated, ranking_difference, rated, source_name
from ffsite.site.render import number
from ffsite.site.sections import Section, model_page
from ffsite.site.urls import EIGENBENCH, constitution_path, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    estimate_cell,
    rank_cell,
    sort_value,
)

OVERVIEW = page_path(EIGENBENCH)
RANK_RULE = "1 + the models whose 95% interval lies wholly above this one's"
ELO_MEANING = ("the judges, each weighted by the trust the others give it, prefer the "
               "model more; 1500 = an even share of trust")


def build(ctx: SiteContext) -> None:
    found = ctx.prepared(rated)
    if not found:
        return
    ctx.progress.step(f"EigenBench: {len(found)} constitution page(s)")
    summaries = []
    for item in found.values():
        page = constitution_path(item.name)
        constitution_page(ctx, item, page)
        result = item.result
        top = result.ratings.iloc[0]
        widths = result.ratings["ci_high"] - result.ratings["ci_low"]
        summaries.append({"constitution": item.name, "label": item.label, "page": page,
                          "judgments_from": source_name(item), "models": len(result.models),
                          "judgments": result.n_judgments, "dims": result.dims,
                          "top_model": top["model"], "top_elo": top["elo"],
                          "top_ci_low": top["ci_low"], "top_ci_high": top["ci_high"],
                          # 1 + none wholly above: as the constitution's page ranks them
                          "could_be_first": int((item.ranks == 1).sum()),
                          "median_width": widths.median(), "widest": widths.max(),
                          "weakly_identified": bool(result.identification
                                                    and result.identification.weak)})
    overview(ctx, pd.DataFrame(summaries))


def trust_cell(share: float) -> Cell:
    """A trust share to three decimals; a share too small to show as such reads "<0.001"
    rather than a zero it is not."""
    text = "<0.001" if 0 < share < 0.0005 else number(share, 3)
    return Cell(text, sort_value(share), title=f"trust share {share:.3g}")


def overview(ctx: SiteContext, summaries: pd.DataFrame) -> None:
    download = ctx.output.data("eigenbench", summaries.drop(columns="page"),
                               "EigenBench: the constitutions rated", OVERVIEW)
    table = Table("eigenbench-constitutions", "Constitutions with judgments", [
        Column("constitution", "Constitution", numeric=False),
        Column("top", "Rated highest", numeric=False,
               title="the model with the highest rating; under it, how many models' "
                     "intervals leave them a chance of first place"),
        Column("elo", "Its Elo", title=f"its rating ({ELO_MEANING}); 95% interval under it"),
        Column("width", "Interval width", title="median width of the 95% intervals, Elo"),
        Column("from", "Source", numeric=False, title="how the judgments were made"),
        Column("models", "Models"), Column("judgments", "Judgments"),
        Column("dims", "d", title="dimension of lenses and dispositions")],
        [[Cell(r.label, href=link(OVERVIEW, r.page), header=True), top_cell(ctx, r),
          estimate_cell(r.top_elo, r.top_ci_low, r.top_ci_high, digits=0, what="Elo"),
          Cell(number(r.median_width, 0) + (" (weakly identified)"
                                             if r.weakly_identified else ""),
               sort_value(r.median_width)),
          Cell(r.judgments_from), count_cell(r.models), count_cell(r.judgments),
          count_cell(r.dims)]
         for r in summaries.itertuples(index=False)], download)
    ctx.output.page(OVERVIEW, "eigenbench-overview.html", section=OVERVIEW, table=table,
                    bound=eb.WIDE_INTERVAL)


def top_cell(ctx: SiteContext, summary: Any) -> Cell:
    """The highest-rated model of a constitution's `summary` row, and under it whether
    the intervals set it apart: "alone first", or how many models could be first."""
    return replace(model_cell(ctx, OVERVIEW, summary.top_model), header=False,
                   interval="alone first" if summary.could_be_first == 1 else
                   f"{summary.could_be_first} of {summary.models} could be first")


def constitution_page(ctx: SiteContext, item: Rated, page: str) -> None:
    # long: one page's six tables, each with its download, and the chart
    output, slug, name, result = ctx.output, safe_name(item.name), item.name, item.result
    ranks = item.ranks
    ratings = result.ratings.assign(rank=ranks)
    ratings.insert(0, "constitution", name)
    if item.compared is not None:
        ratings = ratings.merge(item.compared[["model", "panel_mean", "panel_low",
                                               "panel_high", "panel_rank"]], on="model")
    rating_download = output.data(f"eigenbench/{slug}/ratings", ratings,
                                  f"EigenBench ratings: {item.label}", page)
    trust = result.trust_frame()
    trust["relative"] = trust["trust"] * len(result.models)
    trust_download = output.data(f"eigenbench/{slug}/trust", trust.assign(
        constitution=name)[["constitution", "judge", "model", "trust", "relative"]],
        f"EigenBench trust matrix: {item.label}", page)
    judges = result.judges.copy()
    judges.insert(0, "constitution", name)
    judge_download = output.data(f"eigenbench/{slug}/judges", judges,
                                 f"EigenBench judges: {item.label}", page)
    vectors = result.vectors_frame()
    vectors.insert(0, "constitution", name)
    vector_download = output.data(f"eigenbench/{slug}/vectors", vectors,
                                  f"EigenBench lenses and dispositions: {item.label}", page)
    held_out = result.held_out.copy()
    held_out.insert(0, "constitution", name)
    held_out_download = output.data(f"eigenbench/{slug}/held-out", held_out,
                                    f"EigenBench held-out log-likelihood per d: "
                                    f"{item.label}", page)
    order = list(result.ratings["model"])
    heatmap = chart("trust-chart", charts.trust_heatmap(
        trust, order, f"Trust matrix of {len(order)} models: row = judge, column = the "
        "model it judges, both in rating order; blue: the judge trusts the model more "
        "than an even share, red: less. The trust download has every number."))
    widths = result.ratings["ci_high"] - result.ratings["ci_low"]
    output.page(page, "eigenbench.html", section=OVERVIEW, constitution=item.label,
                name=name, item=item, result=result,
                ratings=ratings_table(ctx, page, item, rating_download),
                judges=judges_table(ctx, page, result, judge_download),
                vectors=vectors_table(ctx, page, result, vector_download),
                held_out=held_out_table(result, held_out_download), heatmap=heatmap,
                charts=[heatmap], trust_download=trust_download,
                overview=link(page, OVERVIEW), bootstrap=EIGENBENCH_BOOTSTRAP,
                median_width=widths.median(), widest=widths.max(), bound=eb.WIDE_INTERVAL,
                identification=result.identification,
                difference=(ranking_difference(item.compared, ctx.registry.display_name)
                            if item.compared is not None else ""),
                scorer=item.scorer, source=dataset_name(item.derived.dataset)
                if item.derived else "")


def ratings_table(ctx: SiteContext, page: str, item: Rated, download: Download) -> Table:
    result, ranks = item.result, item.ranks
    columns = [
        Column("model", "Model", numeric=False),
        Column("elo", "Elo", cue="higher = preferred more", title=ELO_MEANING),
        Column("rank", "Rank", cue="1 = highest", title=RANK_RULE),
        Column("trust", "Trust share", title="t_j: the model's share of the population's "
               "trust (sums to 1)")]
    compared = None
    if item.compared is not None:
        compared = item.compared.set_index("model")
        columns += [Column("panel", "Mean score", title=f"{item.scorer}'s mean score of "
                           "the trait, with its 95% interval"),
                    Column("panel_rank", "Its rank", cue="1 = highest",
                           title="the rank of that mean among these models")]
    rows = []
    for r, rank in zip(result.ratings.itertuples(index=False), ranks, strict=True):
        row = [model_cell(ctx, page, r.model),
               estimate_cell(r.elo, r.ci_low, r.ci_high, digits=0, what="Elo"),
               rank_cell(rank, len(ranks)), trust_cell(r.trust)]
        if compared is not None:
            mine = compared.loc[r.model]
            row += [estimate_cell(mine["panel_mean"], mine["panel_low"], mine["panel_high"],
                                  what="mean score"),
                    Cell("–") if pd.isna(mine["panel_rank"]) else
                    rank_cell(int(mine["panel_rank"]), len(ranks))]
        rows.append(row)
    return Table("eigenbench-ratings", "EigenTrust ratings, highest first", columns, rows,
                 download)


def judges_table(ctx: SiteContext, page: str, result: eb.EigenBenchResult,
                 download: Download) -> Table:
    """Each judge: how it rates itself against how the others rate it, and how it judges."""
    return Table("eigenbench-judges", "Each judge: how it rates itself, and how it judges", [
        Column("judge", "Judge", numeric=False),
        Column("self", "Rates itself", title="Elo of the judge from its own trust row"),
        Column("others", "Others rate it", title="Elo of the judge from the mean of the "
               "other judges' trust rows"),
        Column("gap", "Self-preference", cue="higher = rates itself above what others do",
               title="the difference, with its 95% bootstrap interval"),
        Column("own", "Self-judgments", title="its judgments of a pair that includes its "
               "own answer"),
        Column("agreement", "Agrees with consensus", title="share of its decisive "
               "judgments that pick the model rated higher"),
        Column("lens", "Lens distance", title="cosine distance of its lens from the mean "
               "lens (0: the common view; 1: at right angles)"),
        Column("distance", "Trust distance", title="L1 distance of its trust row from "
               "the consensus t (0: judges exactly like the consensus; at most 2)"),
        Column("ties", "Tie propensity", title="lambda_i"),
        Column("judgments", "Judgments")],
        [[model_cell(ctx, page, r.judge), Cell(number(r.self_elo, 0), sort_value(r.self_elo)),
          Cell(number(r.others_elo, 0), sort_value(r.others_elo)),
          estimate_cell(r.self_preference, r.self_preference_low, r.self_preference_high,
                        digits=0, signs=True, what="self-preference"),
          count_cell(r.self_judgments),
          Cell(number(r.agreement * 100, 0) + "%" if pd.notna(r.agreement) else "–",
               sort_value(r.agreement)),
          Cell(number(r.lens_distance, 2), sort_value(r.lens_distance)),
          Cell(number(r.trust_distance, 2), sort_value(r.trust_distance)),
          Cell(number(r.tie_propensity, 2), sort_value(r.tie_propensity)),
          count_cell(r.judgments)]
         for r in result.judges.itertuples(index=False)], download)


def vectors_table(ctx: SiteContext, page: str, result: eb.EigenBenchResult,
                  download: Download) -> Table:
    """Each model's lens (as a judge) and disposition (as an evaluee), axis by axis."""
    frame = result.vectors_frame()
    axes = range(1, result.dims + 1)
    return Table("eigenbench-vectors", "Lenses and dispositions", [
        Column("model", "Model", numeric=False),
        *[Column(f"lens_{a}", f"Lens {a}") for a in axes],
        *[Column(f"disposition_{a}", f"Disposition {a}") for a in axes],
        Column("tie_propensity", "Tie propensity", title="lambda_i")],
        [[model_cell(ctx, page, r["model"]),
          *[Cell(number(r[f"lens_{a}"], 2), sort_value(r[f"lens_{a}"])) for a in axes],
          *[Cell(number(r[f"disposition_{a}"], 2), sort_value(r[f"disposition_{a}"]))
            for a in axes],
          Cell(number(r["tie_propensity"], 2), sort_value(r["tie_propensity"]))]
         for r in frame.to_dict("records")], download,
        note="The axes are the fit's own: only how lenses and dispositions point relative "
             "to each other means anything (u_i . v_j is judge i's view of model j).")


def held_out_table(result: eb.EigenBenchResult, download: Download) -> Table:
    return Table("eigenbench-held-out", "Held-out log-likelihood per judgment, by "
                 "dimension d", [
                     Column("dims", "d"),
                     Column("ll", "Held-out log-likelihood", cue="higher = predicts unseen "
                            "judgments better"),
                     Column("chosen", "Chosen", numeric=False)],
                 [[count_cell(r.dims), Cell(number(r.held_out_log_likelihood, 4),
                                            sort_value(r.held_out_log_likelihood)),
                   Cell("yes" if r.chosen else "")]
                  for r in result.held_out.itertuples(index=False)], download)


# ------------------------------------------------------------------- model pages

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
               "rank": int(item.ranks[position]), "models": len(ratings),
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
               Column("elo", "Elo", cue="higher = preferred more", title=ELO_MEANING),
               Column("rank", "Rank", cue="1 = highest", title=RANK_RULE)]
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
                Column("gap", "Self-preference", cue="higher = rates itself above what "
                       "others do")]
    if not derived:
        columns.append(Column("judgments", "Judgments made", title="its judgments as a "
                              "judge"))
    table_rows = []
    for r in frame.to_dict("records"):
        row = [Cell(r["label"].split(": ", 1)[-1] if derived else r["label"],
                    href=link(page, constitution_path(r["constitution"])), header=True),
               estimate_cell(r["elo"], r["ci_low"], r["ci_high"], digits=0, what="Elo"),
               rank_cell(r["rank"], r["models"])]
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
        bootstrap=EIGENBENCH_BOOTSTRAP, derived=derived,
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
