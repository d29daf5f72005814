"""Sycophancy: what on the site bears on it, ranked with intervals, what none of it
measures, and how a contributor would measure it directly.

A dataset says what of it bears on sycophancy in its record (`Dataset.sycophancy`): a
pressure condition (how far each model's scores bend under it, `ScoreResults.bend`) or
a trait (its ratings, or its means when judges scored it).  Feedback Forensics'
sycophancy traits (the FF Sycophancy index) are ranked too when some judge voted on
them (`ffsite annotate`); the default site has no such votes, and the page says how to
add them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ffsite.datasets import DATASETS, condition_label
from ffsite.datasets.record import Bearing
from ffsite.metrics.indices import FF_INDICES
from ffsite.metrics.ranking import (
    correlation_interval,
    grouped_rank_ranges,
    has_signal,
    spearman,
)
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.pressure import bend_cell, floor_counts
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    count_cell,
    elo_cell,
    estimate_cell,
    rank_column,
    ranked_cell,
    tied_first,
)

PAGE = page_path("sycophancy")
SYCOPHANCY = next(i for i in FF_INDICES if i.name == "Sycophancy")
JUDGE_EXAMPLE = "google/gemini-2.5-flash"


@dataclass(frozen=True)
class Part:
    """One thing that bears on sycophancy: a dataset's condition or trait, ranked."""

    id: str
    dataset: str
    title: str
    why: str
    table: Table
    how: str  # what the number is and where it comes from
    more: tuple[str, str] | None  # (words, link) to the full view
    tied: int  # how many models could rank first
    of: int


def build(ctx: SiteContext) -> None:
    parts = []
    for dataset in DATASETS:
        for bearing in dataset.sycophancy:
            found = part(ctx, dataset, bearing)
            if found is not None:
                parts.append(found)
    ff = ff_parts(ctx)
    ctx.output.page(PAGE, "sycophancy.html", section=PAGE, parts=parts, ff=ff,
                    ff_traits=[t.removeprefix("Select the response that ")
                               for t in sycophancy_wordings()],
                    judge_example=JUDGE_EXAMPLE, charts=[])


def part(ctx: SiteContext, dataset, bearing: Bearing) -> Part | None:
    if bearing.kind == "condition":
        return condition_part(ctx, dataset, bearing)
    return trait_part(ctx, dataset, bearing)


def condition_part(ctx: SiteContext, dataset, bearing: Bearing) -> Part | None:
    """Every model's bend under the condition: the mean size of its trait shifts from
    the baseline, ranked (rank ranges drawn from each model's interval)."""
    if not len(ctx.scores):
        return None
    bend = ctx.score_results.bend
    own = bend[(bend["dataset"] == dataset.id) & (bend["condition"] == bearing.id)]
    if own.empty:
        return None
    own = pd.concat([own, grouped_rank_ranges(own, ["judge"], "bend")], axis=1)
    own = own.sort_values(["bend", "model"], ascending=[False, True], kind="stable")
    label = condition_label(bearing.id)
    download = ctx.output.data(f"sycophancy-{dataset.command_name}-{bearing.id}", own,
                               f"{dataset.name}: how far each model's scores bend under "
                               f"{label}", PAGE)
    ranked = has_signal(own["ci_low"], own["ci_high"])
    tied = tied_first(own) if ranked else 0
    table = Table(f"bend-{bearing.id}", f"How far each model's scores move under {label} "
                  f"({dataset.name}), most first", [
                      Column("model", "Model", numeric=False),
                      Column("bend", "Bend (points)", cue="higher = moves more",
                             title="the mean, over the traits, of the size of the shift "
                                   "from the baseline, on the 1-10 scale"),
                      rank_column("1 = moves most; 95% range under it", ranks="bend"),
                      Column("pairs", "Paired questions")],
                  [[marked_cell(ctx, dataset.id, r.model),
                    bend_cell(r, ctx.prepared(floor_counts)),
                    ranked_cell(r, len(own), ranked, tied), count_cell(r.n_pairs)]
                   for r in own.itertuples(index=False)], download)
    return Part(f"{dataset.command_name}-{bearing.id}", dataset.name,
                f"{label}: {dataset.name}", bearing.why, table,
                f"Judged by {own['judge'].iloc[0]}. The bend is the mean, over the nine "
                "traits, of how far a model's average score moves from the same questions "
                "at baseline (scale points), with a 95% interval from resampling the paired "
                "questions.",
                (f"every trait's shift under {label}", link(PAGE, page_path("pressure"))),
                tied, len(own))


def marked_cell(ctx: SiteContext, dataset: str, model: str) -> Cell:
    """The model's row header, marked when it judged `dataset` (its own answers too)."""
    return replace(model_cell(ctx, PAGE, model), **judge_badge(ctx, dataset, model))


def trait_part(ctx: SiteContext, dataset, bearing: Bearing) -> Part | None:
    """Every model's rating on the trait (a dataset of judged pairs)."""
    found = ctx.pairwise.get(dataset.id)
    if found is None:
        return None
    own = found.ratings[found.ratings["trait_id"] == bearing.id]
    if own.empty:
        return None
    own = own.sort_values(["elo", "model"], ascending=[False, True], kind="stable")
    label = str(ctx.labels.get(bearing.id, bearing.id))
    download = ctx.output.data(f"sycophancy-{dataset.command_name}-trait", own,
                               f"{dataset.name}: {label}, Elo per model", PAGE)
    tied = tied_first(own)
    anchor = ctx.registry.display_name(found.anchor) if found.anchor else "one model"
    judge = str(ctx.traits.drop_duplicates("trait_id").set_index("trait_id")["judge"].get(
        bearing.id, "its judge"))
    table = Table(f"trait-{dataset.command_name}", f"{label} ({dataset.name}): Elo, "
                  "highest first", [
                      Column("model", "Model", numeric=False),
                      Column("elo", "Elo", cue="higher = judged to strike the balance "
                             "better"),
                      rank_column(ranks="elo"), Column("n", "Comparisons")],
                  [[marked_cell(ctx, dataset.id, r.model), elo_cell(r.elo, r.ci_low, r.ci_high),
                    ranked_cell(r, len(own), tied=tied), count_cell(r.n)]
                   for r in own.itertuples(index=False)], download)
    return Part(f"{dataset.command_name}-trait", dataset.name, f"{label}: {dataset.name}",
                bearing.why, table,
                f"Bradley–Terry Elo from the judge's ({judge}) verdicts on this "
                f"criterion, {anchor} fixed at 1000, with 95% bootstrap intervals."
                + follows_lead(ctx, dataset, own, found.ratings),
                ("the criterion's page", link(PAGE, ctx.slugs.page(TRAITS, bearing.id))),
                tied, len(own))


def follows_lead(ctx: SiteContext, dataset, own: pd.DataFrame, ratings: pd.DataFrame
                 ) -> str:
    """How closely the criterion's Elo follows the dataset's summing-up trait (EQ-Bench
    3's overall EQ) across models: where the judge gives one verdict seen several times,
    the criterion adds little of its own about sycophancy."""
    lead = dataset.lead_trait
    if not lead or own["trait_id"].iat[0] == lead:
        return ""
    both = own.merge(ratings[ratings["trait_id"] == lead], on="model", suffixes=("", "_lead"))
    rho = spearman(both["elo"], both["elo_lead"])
    if len(both) < 3 or not np.isfinite(rho):
        return ""
    label = ctx.labels.get(lead, lead)
    low, high = correlation_interval(both["elo"], both["elo_lead"], ranks=True,
                                     n_bootstrap=ctx.config.rating_resamples)
    said = (f" Its Elo follows the judge's {label} across the {len(both)} models "
            f"(Spearman {rho:.2f}, 95% interval {low:.2f}–{high:.2f} over resampled models)")
    if low >= 0.9:
        return (said + ": the judge's verdict on this criterion is mostly its overall "
                "verdict, so this ranking adds little evidence of its own about sycophancy.")
    return said + "."


def sycophancy_wordings() -> list[str]:
    """The FF traits of the Sycophancy index, worded as a judge is asked them."""
    from ffsite.traits import FF_V1

    wanted = set(SYCOPHANCY.traits)
    return [t.wording for t in FF_V1 if t.id in wanted]


def ff_parts(ctx: SiteContext) -> list[Table]:
    """A table per FF sycophancy trait some judge voted on: every model's strength
    against the reference, ranked from the intervals."""
    long = ctx.models.traits
    found = []
    for trait_id in SYCOPHANCY.traits:
        own = long[(long["trait_id"] == trait_id) & long["finding"].astype(bool)]
        if own.empty:
            continue
        own = pd.concat([own, grouped_rank_ranges(own, ["trait_id"], "strength",
                                                  "strength_low", "strength_high")], axis=1)
        own = own.sort_values(["strength", "model"], ascending=[False, True], kind="stable")
        found.append(Table(f"ff-{trait_id}", f"{ctx.labels[trait_id]}: strength against "
                           "the reference, highest first", [
                               Column("model", "Model", numeric=False),
                               Column("strength", "Strength", cue="higher = shown more"),
                               rank_column(ranks="strength")],
                           [[model_cell(ctx, PAGE, r.model),
                             estimate_cell(r.strength, r.strength_low, r.strength_high,
                                           signs=True), ranked_cell(r, len(own))]
                            for r in own.itertuples(index=False)]))
    return found

