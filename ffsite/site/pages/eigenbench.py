"""EigenBench: one page per constitution whose judgments are in the annotations (models
judging each other's answers), and an overview page listing them. Without such
judgments there is no page and no navigation entry."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite._names import safe_name
from ffsite.metrics import eigenbench as eb
from ffsite.metrics.ranking import interval_ranks
from ffsite.site import charts
from ffsite.site.context import EIGENBENCH_BOOTSTRAP, SiteContext
from ffsite.site.output import Download
from ffsite.site.pages.datasets import model_cell
from ffsite.site.render import number, signed
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
    found = ctx.constitutions
    if found.empty:
        return
    ctx.progress.step(f"EigenBench: fitting {len(found)} constitution(s)")
    summaries = []
    for name, result in ctx.eigenbench_results.items():
        page = constitution_path(name)
        constitution_page(ctx, name, page, result)
        top = result.ratings.iloc[0]
        summaries.append({"constitution": name, "page": page, "models": len(result.models),
                          "judgments": result.n_judgments, "dims": result.dims,
                          "top_model": top["model"], "top_elo": top["elo"]})
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
        Column("models", "Models"), Column("judgments", "Judgments"),
        Column("dims", "d", title="dimension of lenses and dispositions"),
        Column("top", "Rated highest", numeric=False)],
        [[Cell(r.constitution, href=link(OVERVIEW, r.page), header=True),
          count_cell(r.models), count_cell(r.judgments), count_cell(r.dims),
          Cell(f"{r.top_model} ({number(r.top_elo, 0)})")]
         for r in summaries.itertuples(index=False)], download)
    ctx.output.page(OVERVIEW, "eigenbench-overview.html", section=OVERVIEW, table=table)


def constitution_page(ctx: SiteContext, name: str, page: str,
                      result: eb.EigenBenchResult) -> None:
    output, slug = ctx.output, safe_name(name)
    ranks = interval_ranks(result.ratings["ci_low"], result.ratings["ci_high"])
    ratings = result.ratings.assign(rank=ranks)
    ratings.insert(0, "constitution", name)
    rating_download = output.data(f"eigenbench/{slug}/ratings", ratings,
                                  f"EigenBench ratings: {name}", page)
    trust = result.trust_frame()
    trust["relative"] = trust["trust"] * len(result.models)
    trust_download = output.data(f"eigenbench/{slug}/trust", trust.assign(
        constitution=name)[["constitution", "judge", "model", "trust", "relative"]],
        f"EigenBench trust matrix: {name}", page)
    judges = result.judges.copy()
    judges.insert(0, "constitution", name)
    judge_download = output.data(f"eigenbench/{slug}/judges", judges,
                                 f"EigenBench judges: {name}", page)
    vectors = result.vectors_frame()
    vectors.insert(0, "constitution", name)
    vector_download = output.data(f"eigenbench/{slug}/vectors", vectors,
                                  f"EigenBench lenses and dispositions: {name}", page)
    held_out = result.held_out.copy()
    held_out.insert(0, "constitution", name)
    held_out_download = output.data(f"eigenbench/{slug}/held-out", held_out,
                                    f"EigenBench held-out log-likelihood per d: {name}", page)

    rating_table = Table("eigenbench-ratings", "EigenTrust ratings, highest first", [
        Column("model", "Model", numeric=False),
        Column("elo", "Elo", cue="higher = preferred more", title=ELO_MEANING),
        Column("rank", "Rank", cue="1 = highest", title=RANK_RULE),
        Column("trust", "Trust share", title="t_j: the model's share of the population's "
               "trust (sums to 1)")],
        [[model_cell(ctx, page, r.model),
          estimate_cell(r.elo, r.ci_low, r.ci_high, digits=0, what="Elo"),
          rank_cell(rank, len(ranks)), trust_cell(r.trust)]
         for r, rank in zip(result.ratings.itertuples(index=False), ranks, strict=True)],
        rating_download)

    judge_table = judges_table(ctx, page, result, judge_download)

    held_out_table = Table("eigenbench-held-out", "Held-out log-likelihood per judgment, "
                           "by dimension d", [
        Column("dims", "d"), Column("ll", "Held-out log-likelihood", cue="higher = "
                                    "predicts unseen judgments better"),
        Column("chosen", "Chosen", numeric=False)],
        [[count_cell(r.dims), Cell(number(r.held_out_log_likelihood, 4),
                                   sort_value(r.held_out_log_likelihood)),
          Cell("yes" if r.chosen else "")]
         for r in result.held_out.itertuples(index=False)], held_out_download)

    order = list(result.ratings["model"])
    heatmap = chart("trust-chart", charts.trust_heatmap(
        trust, order, f"Trust matrix of {len(order)} models: row = judge, column = the "
        "model it judges, both in rating order; blue: the judge trusts the model more "
        "than an even share, red: less. The trust download has every number."))
    output.page(page, "eigenbench.html", section=OVERVIEW, constitution=name,
                result=result, ratings=rating_table, judges=judge_table,
                held_out=held_out_table, heatmap=heatmap, charts=[heatmap],
                vector_download=vector_download, trust_download=trust_download,
                overview=link(page, OVERVIEW), bootstrap=EIGENBENCH_BOOTSTRAP)


def judges_table(ctx: SiteContext, page: str, result: eb.EigenBenchResult,
                 download: Download) -> Table:
    """Each judge: how it rates itself against how the others rate it, and how it judges."""
    return Table("eigenbench-judges", "Each judge: how it rates itself, and how it judges", [
        Column("judge", "Judge", numeric=False),
        Column("self", "Rates itself", title="Elo of the judge from its own trust row"),
        Column("others", "Others rate it", title="Elo of the judge from the mean of the "
               "other judges' trust rows"),
        Column("gap", "Self-preference", cue="higher = rates itself above what others do"),
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
          Cell(signed(r.self_preference, 0), sort_value(r.self_preference)),
          Cell(number(r.agreement * 100, 0) + "%" if pd.notna(r.agreement) else "–",
               sort_value(r.agreement)),
          Cell(number(r.lens_distance, 2), sort_value(r.lens_distance)),
          Cell(number(r.trust_distance, 2), sort_value(r.trust_distance)),
          Cell(number(r.tie_propensity, 2), sort_value(r.tie_propensity)),
          count_cell(r.judgments)]
         for r in result.judges.itertuples(index=False)], download)


# ------------------------------------------------------------------- model pages

@dataclass(frozen=True, kw_only=True)
class EigenBenchSection(Section):
    bootstrap: int  # refits behind the intervals


def eigenbench_sections(ctx: SiteContext, model: str) -> list[Section]:
    """The EigenBench section of a model's page: per constitution whose population it
    belongs to, its rating, rank and trust share, and how it rates itself as a judge;
    none when it is in none."""
    slug, page = model_page(ctx, model)
    rows = []
    for name, result in ctx.eigenbench_results.items():
        if model not in result.models:
            continue
        ratings = result.ratings.reset_index(drop=True)
        ranks = interval_ranks(ratings["ci_low"], ratings["ci_high"])
        position = int(np.flatnonzero(ratings["model"].to_numpy() == model)[0])
        judge = result.judges.set_index("judge").loc[model]
        rows.append({"constitution": name, "model": model, **ratings.iloc[position].drop(
            "model").to_dict(), "rank": int(ranks[position]), "models": len(ratings),
            "self_elo": judge["self_elo"], "others_elo": judge["others_elo"],
            "self_preference": judge["self_preference"],
            "judgments": int(judge["judgments"])})
    if not rows:
        return []
    frame = pd.DataFrame(rows)
    name = ctx.registry.display_name(model)
    download = ctx.output.data(f"models/{slug}/eigenbench", frame,
                               f"{name}: EigenBench ratings per constitution", page)
    table = Table("model-eigenbench", "EigenBench rating per constitution", [
        Column("constitution", "Constitution", numeric=False),
        Column("elo", "Elo", cue="higher = preferred more", title=ELO_MEANING),
        Column("rank", "Rank", cue="1 = highest", title=RANK_RULE),
        Column("trust", "Trust share", title="the model's share of the population's trust"),
        Column("self", "Rates itself", title="its Elo from its own trust row, as a judge"),
        Column("others", "Others rate it", title="its Elo from the other judges' rows"),
        Column("gap", "Self-preference", cue="higher = rates itself above what others do"),
        Column("judgments", "Judgments made", title="its judgments as a judge")],
        [[Cell(r.constitution, href=link(page, constitution_path(r.constitution)),
               header=True),
          estimate_cell(r.elo, r.ci_low, r.ci_high, digits=0, what="Elo"),
          rank_cell(r.rank, r.models), trust_cell(r.trust),
          Cell(number(r.self_elo, 0), sort_value(r.self_elo)),
          Cell(number(r.others_elo, 0), sort_value(r.others_elo)),
          Cell(signed(r.self_preference, 0), sort_value(r.self_preference)),
          count_cell(r.judgments)]
         for r in frame.itertuples(index=False)], download)
    found = ctx.constitutions
    datasets = sorted({d for name, names in zip(found["constitution"], found["datasets"],
                                                strict=True)
                       if name in set(frame["constitution"]) for d in names})
    return [EigenBenchSection(
        id="eigenbench", heading="EigenBench",
        summary=f"rated by the models it judged with, under {len(rows)} "
                f"constitution{'s' if len(rows) > 1 else ''}",
        judged_by="the models of each constitution's population",
        partial="sections/eigenbench.html", datasets=tuple(datasets), tables=(table,),
        bootstrap=EIGENBENCH_BOOTSTRAP)]
