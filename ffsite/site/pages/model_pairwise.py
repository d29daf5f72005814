"""A model page's judged pairs without the reference model (EQ-Bench 3): per dataset,
its Elo and its strength against the other models, criterion by criterion."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite._names import safe_name
from ffsite.datasets import dataset_name, find
from ffsite.metrics.results import PairwiseResults
from ffsite.site.context import SiteContext, labelled
from ffsite.site.judging import judge_badge, self_judge_notes
from ffsite.site.render import heat_class, number
from ffsite.site.sections import (
    Credit,
    Headline,
    Section,
    judge_name,
    model_page,
    rank_text,
    source_credit,
)
from ffsite.site.urls import MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    count_cell,
    estimate_cell,
    interval_text,
    rank_cell,
    rank_column,
    sort_value,
)

CUE_MORE = "higher = shown more"


@dataclass(frozen=True, kw_only=True)
class PairwiseSection(Section):
    dataset_name: str
    anchor: str | None  # the model fixed at 1000, by name
    anchor_page: str | None
    is_anchor: bool  # the model is the anchor
    min_valid: int
    source: Credit | None
    page: str | None  # the dataset's own page, if it has one


def pairwise_sections(ctx: SiteContext, model: str) -> list[Section]:
    """One section per dataset of judged pairs the model was rated in."""
    return [pairwise_section(ctx, results, by_model[model], model)
            for results, by_model in ctx.prepared(pairwise_by_dataset)
            if model in by_model]


def pairwise_by_dataset(ctx: SiteContext
                        ) -> list[tuple[PairwiseResults, dict[str, pd.DataFrame]]]:
    return [(results, pairwise_by_model(ctx, results)) for results in ctx.pairwise.values()]


def pairwise_by_model(ctx: SiteContext, results: PairwiseResults) -> dict[str, pd.DataFrame]:
    """Per model of a dataset of judged pairs: per criterion, its strength against the
    other models and its Elo, ranked among the rated models (the published columns)."""
    ratings = results.ratings
    ranked = ratings.assign(
        models_rated=ratings.groupby("trait_id")["elo"].transform("size").astype(np.int64))[
        ["model", "trait_id", "elo", "ci_low", "ci_high", "rank", "rank_low", "rank_high",
         "models_rated", "n"]
    ].rename(columns={"ci_low": "elo_ci_low", "ci_high": "elo_ci_high", "rank": "elo_rank",
                      "rank_low": "elo_rank_low", "rank_high": "elo_rank_high",
                      "n": "rated_comparisons"})
    strengths = results.models.traits[
        ["model", "trait_id", "strength", "strength_low", "strength_high", "relevance",
         "cohens_kappa", "valid_votes", "num_votes", "finding"]]
    merged = strengths.merge(ranked, how="outer", on=["model", "trait_id"])
    merged.insert(0, "dataset", results.dataset)
    merged = labelled(merged, ctx.labels, label_column="criterion")
    merged = merged.sort_values(["model", "criterion", "trait_id"], kind="stable")
    return {model: own.reset_index(drop=True)
            for model, own in merged.groupby("model", sort=False)}


def pairwise_section(ctx: SiteContext, results: PairwiseResults, merged: pd.DataFrame,
                     model: str) -> PairwiseSection:
    """The model's Elo and strength per criterion on a dataset of judged pairs without
    the reference model (`merged`: its rows of `pairwise_by_model`)."""
    slug, page = model_page(ctx, model)
    name = ctx.registry.display_name(model)
    dataset = results.dataset
    judges = sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(
        merged["trait_id"]).dropna()))
    download = ctx.output.data(
        f"models/{slug}/dataset-{safe_name(dataset)}", merged,
        f"{name}: Elo and strength against the other models per criterion "
        f"({dataset_name(dataset)})", page)
    anchor = results.anchor
    table = Table(f"pairs-{section_id(dataset)}", "Elo and strength per criterion", [
        Column("criterion", "Criterion", numeric=False),
        Column("elo", "Elo", cue=CUE_MORE, title=f"Bradley–Terry with Firth's penalty; "
               f"{ctx.registry.display_name(anchor) if anchor else 'the anchor'} = 1000"),
        rank_column("1 = highest Elo; 95% range under it"),
        Column("strength", "Strength vs others", cue="higher = shown more than the others",
               title="(agreed − disagreed) / comparisons, against every other model it met"),
        Column("valid", "Valid votes", title="comparisons with an A/B vote on the criterion"),
        Column("n", "Comparisons")],
        [criterion_row(ctx, page, r, anchor) for r in merged.itertuples(index=False)],
        download)
    return PairwiseSection(
        id=section_id(dataset), heading=dataset_name(dataset),
        summary=f"{len(merged)} criteria judged in pairs by "
                + ", ".join(judge_name(ctx, j) for j in judges),
        judged_by=", ".join(judge_name(ctx, j) for j in judges),
        partial="sections/pairwise.html", datasets=(dataset,), tables=(table,),
        notes=self_judge_notes(ctx, dataset, model),
        dataset_name=dataset_name(dataset),
        anchor=ctx.registry.display_name(anchor) if anchor else None,
        anchor_page=ctx.slugs.page(MODELS, anchor) if anchor else None,
        is_anchor=model == anchor, min_valid=ctx.min_valid, source=source_credit(dataset),
        page=own_page(dataset), headline=lead_elo(ctx, page, merged, dataset, anchor,
                                                  judge_badge(ctx, dataset, model)))


def lead_elo(ctx: SiteContext, page: str, merged: pd.DataFrame, dataset: str,
             anchor: str | None, marks: dict[str, str]) -> Headline | None:
    """The model's Elo on the dataset's summing-up criterion (EQ-Bench 3's overall EQ),
    else on its first rated criterion, for the top of its page; None for the anchor (its
    Elo is fixed) or a model without a rating."""
    rated = merged[merged["elo"].notna()]
    if rated.empty or rated["model"].iat[0] == anchor:
        return None
    record = find(dataset)
    lead = rated[rated["trait_id"] == (record.lead_trait if record else None)]
    row = (lead if len(lead) else rated).iloc[0]
    return Headline("Elo", row["criterion"], link(page, ctx.slugs.page(TRAITS, row["trait_id"])),
                    number(row["elo"], 0), interval_text(row["elo_ci_low"], row["elo_ci_high"],
                                                         0),
                    rank_text(row["elo_rank"], row["models_rated"], row["elo_rank_low"],
                              row["elo_rank_high"]), **marks)


def criterion_row(ctx: SiteContext, page: str, r, anchor: str | None) -> list[Cell]:
    """A criterion's Elo (the anchor's fixed), rank, strength and counts; dashes where the
    model has no rating or no strength on it."""
    if pd.isna(r.elo):
        elo = Cell("–")
    elif r.model == anchor:
        elo = Cell(number(r.elo, 0), sort_value(r.elo), interval="anchor, fixed",
                   title="the anchor: fixed at 1000 on every criterion")
    else:
        elo = estimate_cell(r.elo, r.elo_ci_low, r.elo_ci_high, digits=0, what="Elo")
    finding = bool(r.finding) if not pd.isna(r.finding) else False
    strength = Cell("–") if pd.isna(r.strength) else estimate_cell(
        r.strength, r.strength_low, r.strength_high, signs=True,
        css=heat_class(r.strength, finding), what="strength")
    return [Cell(r.criterion, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                 header=True),
            elo,
            rank_cell(r.elo_rank, r.models_rated, r.elo_rank_low, r.elo_rank_high),
            strength,
            Cell("–") if pd.isna(r.valid_votes) else count_cell(r.valid_votes),
            Cell("–") if pd.isna(r.num_votes) else count_cell(r.num_votes)]


def own_page(dataset: str) -> str | None:
    """The dataset's own page (EQ-Bench 3's), if its record names one."""
    record = find(dataset)
    return page_path(record.page) if record and record.page else None


def section_id(dataset: str) -> str:
    """An HTML id for a dataset's section: its page's name, else pairs-<dataset>."""
    record = find(dataset)
    return record.page if record and record.page else f"pairs-{dataset}"
