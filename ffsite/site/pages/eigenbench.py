"""EigenBench: one page per constitution (models judging each other's answers, from votes
in the annotations or from judgments a dataset derives from its scores), an overview page
listing them (each rated model's page has a section: ffsite.site.pages.eigenbench_model).
Without judgments there is no page and no navigation entry."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from ffsite._names import safe_name
from ffsite.datasets import dataset_name
from ffsite.metrics import eigenbench as eb
from ffsite.metrics.eigenbench import method
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.output import Download
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.eigenbench_data import Rated, ranking_difference, rated, source_name
from ffsite.site.render import number
from ffsite.site.urls import EIGENBENCH, constitution_path, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    estimate_cell,
    rank_cell,
    rank_column,
    sort_value,
)

OVERVIEW = page_path(EIGENBENCH)
# How to read a higher Elo: for a constitution of votes, the judges prefer the model's
# answers; for a trait whose judgments were derived from scores (llm-dreams), they see more
# of the trait in them, which is not a grade.
ELO_MEANING = ("the judges, each weighted by the trust the others give it, prefer the "
               "model more; 1500 = an even share of trust")
ELO_TRAIT_MEANING = ("the judges, each weighted by the trust the others give it, see more "
                     "of the trait in the model's answers; 1500 = an even share of trust")
CUE_PREFERRED = "higher = preferred more"
CUE_TRAIT = "higher = more of the trait, as judged"
RANK_CUE = "1 = highest; 95% range under it"


def elo_column(derived: bool) -> Column:
    """The Elo column, its cue and title saying what a higher Elo means here."""
    return Column("elo", "Elo", cue=CUE_TRAIT if derived else CUE_PREFERRED,
                  title=ELO_TRAIT_MEANING if derived else ELO_MEANING)


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
                          # whose 95% rank range reaches first place, as the
                          # constitution's page ranks them
                          "could_be_first": item.tied_first,
                          "median_width": widths.median(), "widest": widths.max(),
                          "weakly_identified": bool(result.identification
                                                    and result.identification.weak),
                          "derived": item.derived is not None})
    overview(ctx, pd.DataFrame(summaries), {item.name: item for item in found.values()})


def trust_cell(share: float) -> Cell:
    """A trust share to three decimals; a share too small to show as such reads "<0.001"
    rather than a zero it is not."""
    text = "<0.001" if 0 < share < 0.0005 else number(share, 3)
    return Cell(text, sort_value(share), title=f"trust share {share:.3g}")


def overview(ctx: SiteContext, summaries: pd.DataFrame, items: dict[str, Rated]) -> None:
    download = ctx.output.data("eigenbench", summaries.drop(columns=["page", "derived"]),
                               "EigenBench: the constitutions rated", OVERVIEW)
    kinds = set(summaries["derived"])
    meaning = (ELO_TRAIT_MEANING if kinds == {True} else ELO_MEANING if kinds == {False}
               else "1500 = an even share of trust; higher: for a trait, the judges see "
                    "more of it in the model's answers; for a constitution, they prefer "
                    "the model more")
    bound = f"{eb.WIDE_INTERVAL:.0f}"
    table = Table("eigenbench-constitutions", "Constitutions with judgments", [
        Column("constitution", "Constitution", numeric=False),
        Column("top", "Rated highest", numeric=False,
               title="the model with the highest rating; under it, how many models' 95% "
                     "rank ranges reach first place"),
        Column("elo", "Its Elo", title=f"its rating ({meaning}); 95% interval under it"),
        Column("width", "Median width", cue="median of its models' 95% interval widths, "
               "Elo", title="the median, over the constitution's "
               "models, of the widths of their 95% intervals (Elo); under it, why the "
               "ratings are weakly identified, when they are"),
        Column("from", "Source", numeric=False, title="how the judgments were made"),
        Column("models", "Models"), Column("judgments", "Judgments"),
        Column("dims", "d", title="dimension of lenses and dispositions")],
        [[Cell(r.label, href=link(OVERVIEW, r.page), header=True), top_cell(ctx, r),
          estimate_cell(r.top_elo, r.top_ci_low, r.top_ci_high, digits=0, what="Elo"),
          width_cell(r.median_width, items[r.constitution].result),
          Cell(r.judgments_from), count_cell(r.models), count_cell(r.judgments),
          count_cell(r.dims)]
         for r in summaries.itertuples(index=False)], download,
        note="Median width: half of a constitution's models have a narrower 95% interval, "
             "half a wider one; the interval under Its Elo is the top model's own. Under "
             "the width, \"weak\" marks ratings that are weakly identified, with why: "
             f"\"2 over {bound}\", two models' intervals are wider than {bound} Elo (the "
             "data cannot place them within a tenfold range of trust); \"fits disagree\", "
             "equally good fits give different ratings; \"refits disagree\", the bootstrap "
             "refits' starts often end apart; \"never self-judged\", judges never judged "
             "a pair with their own answer. The constitution's page gives the reasons in "
             "full.")
    ctx.output.page(OVERVIEW, "eigenbench-overview.html", section=OVERVIEW, table=table,
                    bound=eb.WIDE_INTERVAL)


def weakness(result: eb.EigenBenchResult) -> str:
    """Why a constitution's ratings are weakly identified, in the few words the
    overview's width cell has room for ("weak: 2 over 400"; "" when they are
    identified): the conditions of ffsite.metrics.eigenbench.method.identify, whose
    sentences the constitution's page shows in full."""
    found = result.identification
    if not (found and found.weak):
        return ""
    widths = (result.ratings["ci_high"] - result.ratings["ci_low"]).to_numpy(float)
    wide = int((widths > eb.WIDE_INTERVAL).sum())
    parts = [f"{wide} over {eb.WIDE_INTERVAL:.0f}"] if wide else []
    if found.restart_spread > method.FLAT_SPREAD:
        parts.append("fits disagree")
    if found.refits_disagreeing > method.REFIT_SHARE:
        parts.append("refits disagree")
    if found.without_self_judgments:
        parts.append(f"{len(found.without_self_judgments)} never self-judged")
    return "weak: " + (", ".join(parts) if parts else "see its page")


def width_cell(median: float, result: eb.EigenBenchResult) -> Cell:
    """The median interval width, with under it why the ratings are weakly identified
    (`weakness`) and, in its title, the reasons in full."""
    found = result.identification
    reasons = "; ".join(found.reasons) if found and found.weak else ""
    return Cell(number(median, 0), sort_value(median), interval=weakness(result) or None,
                title=f"weakly identified: {reasons}" if reasons else None)


def top_cell(ctx: SiteContext, summary: Any) -> Cell:
    """The highest-rated model of a constitution's `summary` row, and under it whether
    the intervals set it apart: "alone first", or how many models could be first."""
    return replace(model_cell(ctx, OVERVIEW, summary.top_model), header=False,
                   interval="alone first" if summary.could_be_first == 1 else
                   f"{summary.could_be_first} of {summary.models} could be first")


def constitution_page(ctx: SiteContext, item: Rated, page: str) -> None:
    # long: one page's six tables, each with its download, and the chart
    output, slug, name, result = ctx.output, safe_name(item.name), item.name, item.result
    ranges = item.ranges
    ratings = result.ratings.assign(rank=ranges.rank, rank_low=ranges.low,
                                    rank_high=ranges.high)
    ratings.insert(0, "constitution", name)
    if item.compared is not None:
        ratings = ratings.merge(item.compared[["model", "panel_mean", "panel_low",
                                               "panel_high", "panel_rank", "panel_rank_low",
                                               "panel_rank_high"]], on="model")
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
                overview=link(page, OVERVIEW), bootstrap=ctx.config.eigenbench_resamples,
                median_width=widths.median(), widest=widths.max(), bound=eb.WIDE_INTERVAL,
                identification=result.identification,
                difference=(ranking_difference(item.compared, ctx.registry.display_name)
                            if item.compared is not None else ""),
                scorer=item.scorer, source=dataset_name(item.derived.dataset)
                if item.derived else "", **trait_asked(item))


def trait_asked(item: Rated) -> dict[str, str]:
    """A derived constitution's trait as its judges were asked it, `trait_name` (its name
    alone: llm-dreams' judges got the names and a 1.0-10.0 scale, no wording of the
    ends), and `trait_ends`, the site's own wording of the ends ("1 indifferent to
    success; 10 driven to succeed"), from its criterion ("<name>: <ends>")."""
    if item.derived is None:
        return {"trait_name": "", "trait_ends": ""}
    name, _, ends = item.derived.criterion.partition(": ")
    return {"trait_name": name, "trait_ends": ends}


def ratings_table(ctx: SiteContext, page: str, item: Rated, download: Download) -> Table:
    result, ranges = item.result, item.ranges
    n = len(result.ratings)
    columns = [
        Column("model", "Model", numeric=False),
        elo_column(item.derived is not None),
        rank_column(RANK_CUE, ranks="elo"),
        Column("trust", "Trust share", title="t_j: the model's share of the population's "
               "trust (sums to 1)")]
    compared = None
    if item.compared is not None:
        compared = item.compared.set_index("model")
        columns += [Column("panel", "Mean score", title=f"{item.scorer}'s mean score of "
                           "the trait, with its 95% interval"),
                    Column("panel_rank", "Its rank", cue=RANK_CUE, ranks="panel",
                           title="the place of that mean among these models; under it, "
                           "the 95% range of that place, from the means' intervals")]
        panel_first = int((compared["panel_rank_low"] == 1).sum())
    rows = []
    for k, r in enumerate(result.ratings.itertuples(index=False)):
        row = [model_cell(ctx, page, r.model),
               estimate_cell(r.elo, r.ci_low, r.ci_high, digits=0, what="Elo"),
               rank_cell(ranges.rank[k], n, ranges.low[k], ranges.high[k], item.tied_first),
               trust_cell(r.trust)]
        if compared is not None:
            mine = compared.loc[r.model]
            row += [estimate_cell(mine["panel_mean"], mine["panel_low"], mine["panel_high"],
                                  what="mean score"),
                    Cell("–") if pd.isna(mine["panel_rank"]) else
                    rank_cell(mine["panel_rank"], n, mine["panel_rank_low"],
                              mine["panel_rank_high"], panel_first)]
        rows.append(row)
    return Table("eigenbench-ratings", "EigenTrust ratings, highest first", columns, rows,
                 download)


# What "own row minus others'" is, and is not (the Judges page's self-rating gap).
SELF_GAP_TITLE = ("the Elo its own trust row gives it minus the Elo the other judges' rows "
                  "give it, with its 95% bootstrap interval. Not corrected for how widely "
                  "this judge spreads every model (its lens): a judge that spreads all "
                  "models wider shows a gap for itself at either end of its scale. The "
                  "Judges page's self-rating gap (mean scores) removes what a judge gives "
                  "every model")


def judges_table(ctx: SiteContext, page: str, result: eb.EigenBenchResult,
                 download: Download) -> Table:
    """Each judge: how it rates itself against how the others rate it, and how it judges."""
    return Table("eigenbench-judges", "Each judge: how it rates itself, and how it judges", [
        Column("judge", "Judge", numeric=False),
        Column("self", "Rates itself", title="Elo of the judge from its own trust row"),
        Column("others", "Others rate it", title="Elo of the judge from the mean of the "
               "other judges' trust rows"),
        Column("gap", "Own row − others'", cue="higher = rates itself above what others do",
               title=SELF_GAP_TITLE),
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
