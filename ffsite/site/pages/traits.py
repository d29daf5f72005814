"""A page per trait: the trait across all models and all datasets, plus a trait index."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.datasets import DATASETS as ALL_DATASETS
from ffsite.datasets import TRAIT_SET_NAMES, dataset_name
from ffsite.judges.rules import RULES_VERSION, rule_text
from ffsite.metrics.ranking import has_signal
from ffsite.metrics.results import spread
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.home import leaderboard_traits
from ffsite.site.pages.ratings import rating_table
from ffsite.site.pages.scored_traits import scored_trait_page
from ffsite.site.urls import DATASETS, TRAITS, link, page_path
from ffsite.site.views import (
    CUE_ENCOURAGED,
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    metric_cells,
    metric_columns,
)
from ffsite.traits import TRAIT_SET_NAMES as TRAIT_SETS_IN_WORDS


def trait_datasets(ctx: SiteContext) -> dict[str, list[str]]:
    """Per trait id, the datasets it was judged on (in DATASETS' order): a scored
    trait's datasets by its scores, a voted one's where its votes are in scope."""
    found: dict[str, list[str]] = {}
    means = ctx.score_results.means if len(ctx.scores) else None
    if means is not None:
        for trait_id, dataset in means[["trait_id", "dataset"]].drop_duplicates(
                ).itertuples(index=False):
            found.setdefault(trait_id, []).append(dataset)
    votes = ctx.votes
    for d, dataset in enumerate(votes.datasets):
        for t in np.flatnonzero(votes.in_scope[d]):
            found.setdefault(str(votes.traits["trait_id"].iloc[t]), []).append(dataset)
    order = {d.id: k for k, d in enumerate(ALL_DATASETS)}
    return {t: sorted(set(ds), key=lambda d: (order.get(d, len(order)), d))
            for t, ds in found.items()}


def set_name(trait_set: str | None) -> str:
    """A trait set in words (its id when no record or list names it)."""
    if not trait_set or pd.isna(trait_set):
        return "–"
    return TRAIT_SET_NAMES.get(trait_set) or BUILT_IN_SETS.get(trait_set) or str(trait_set)


def judged_first(ctx: SiteContext) -> pd.DataFrame:
    """ctx.traits, the traits LLM judges scored first, then those LLM judges voted on in
    pairs, then the rule-based judge's; each group by label."""
    traits = ctx.traits
    rules = traits["judge"].astype(str).str.startswith(RULES_PREFIX)
    kind = np.where(traits["scored"], 0, np.where(rules, 2, 1))
    order = {d.id: k for k, d in enumerate(ALL_DATASETS)}
    datasets = trait_datasets(ctx)
    first = [min((order.get(d, len(order)) for d in datasets.get(t, [])),
                 default=len(order)) for t in traits["trait_id"]]
    return traits.assign(_kind=kind, _first=first, _label=traits["label"].str.lower()
                         ).sort_values(["_kind", "_first", "_label"], kind="stable").drop(
        columns=["_kind", "_first", "_label"])


def trait_index(ctx: SiteContext, page: str) -> Table:
    """Every trait of every dataset, judged traits first, with its trait set in words,
    its judge, its datasets and how many models it was judged on."""
    datasets = trait_datasets(ctx)
    models = model_counts(ctx)
    index = judged_first(ctx)
    download = ctx.output.data("traits", index.assign(
        trait_set_name=index["trait_set"].map(set_name),
        datasets=index["trait_id"].map(lambda t: "; ".join(datasets.get(t, []))),
        models=index["trait_id"].map(models).astype("Int64"),
        spread_across_models=index["trait_id"].map(spread(ctx.models.traits)).to_numpy(),
    ).rename(columns={"trait": "wording", "label": "trait"}), "Traits", page)
    rows = [[Cell(r.label, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                  header=True, title=r.trait),
             Cell(", ".join(dataset_name(d) for d in datasets.get(r.trait_id, [])) or "–"),
             Cell(set_name(r.trait_set)), Cell(str(r.judge)),
             count_cell(models[r.trait_id]) if r.trait_id in models else Cell("–")]
            for r in index.itertuples(index=False)]
    return Table("trait-index", "Every trait: those LLM judges scored or compared first, "
                 "then those the rule-based judge decides", [
        Column("trait", "Trait", numeric=False),
        Column("dataset", "Dataset", numeric=False),
        Column("set", "Trait set", numeric=False),
        Column("judge", "Judge", numeric=False),
        Column("models", "Models", title="models judged on it")], rows, download)


def model_counts(ctx: SiteContext) -> dict[str, int]:
    """Per trait id, the models judged on it (a scored trait's at its first condition)."""
    found = ctx.models.traits.groupby("trait_id")["model"].nunique().to_dict()
    if len(ctx.scores):
        means = ctx.score_results.means
        found.update(means.groupby("trait_id")["model"].nunique().to_dict())
    for results in ctx.pairwise.values():
        found.update(results.ratings.groupby("trait_id")["model"].nunique().to_dict())
    return found


def trait_sets(ctx: SiteContext) -> list[tuple[str, str, int]]:
    """(trait set in words, its judge, how many traits) of every set the site shows."""
    index = judged_first(ctx)
    return [(set_name(trait_set), ", ".join(sorted(set(map(str, part["judge"])))),
             len(part)) for trait_set, part in index.groupby("trait_set", sort=False)]


# Datasets that draw their own traits' pages (EQ-Bench 3's criteria: their models never
# meet the reference model): each returns True for a trait it drew.
TRAIT_PAGES = [d.hook("trait_page") for d in ALL_DATASETS if d.trait_page]
BUILT_IN_SETS = TRAIT_SETS_IN_WORDS
RULES_PREFIX = RULES_VERSION.split("-")[0]  # "rules": every version of the rule-based judge


# When the leaderboard's strengths tell no model apart on a trait but the Elo ratings do.
QUIET_STRENGTHS = ("The strengths above tell no model apart on this trait; these Elo "
                   "ratings, fitted to the same votes in one model, do separate some, and "
                   "are ranked by their own intervals.")


def build(ctx: SiteContext) -> None:
    output = ctx.output
    index_page = page_path(TRAITS)
    traits = ctx.traits
    by_model = ctx.models.traits
    table = trait_index(ctx, index_page)
    output.page(index_page, "traits.html", section=index_page, table=table,
                sets=trait_sets(ctx))

    board = ctx.prepared(leaderboard_traits)
    models_of = dict(tuple(by_model.groupby("trait_id", sort=False)))
    datasets_of = dict(tuple(ctx.dataset_traits.groupby("trait_id", sort=False)))
    ratings_of = dict(tuple(ctx.ratings.groupby("trait_id", sort=False)))
    for trait in ctx.progress.items("trait pages", list(traits.itertuples(index=False))):
        slug = ctx.slugs.traits[trait.trait_id]
        page = page_path(TRAITS, slug)
        if trait.scored:  # judges scored it: a page of its own kind
            scored_trait_page(ctx, trait, page, slug)
            continue
        if any(draw(ctx, trait, page) for draw in TRAIT_PAGES):  # a dataset's own kind
            continue
        model_table, dataset_table, profile = None, None, None
        own = models_of.get(trait.trait_id)
        if own is not None:
            own = own.sort_values(["strength", "model"], ascending=[False, True],
                                  kind="stable")
            download = output.data(f"traits/{slug}/models", own,
                                   f"{trait.label}: every model vs the reference", page)
            model_table = Table("models", "Models against the reference",
                                [Column("model", "Model", numeric=False), *metric_columns()],
                                [[model_cell(ctx, page, r.model),
                                  *metric_cells(r, ctx.min_valid)]
                                 for r in own.itertuples(index=False)], download)
            profile = chart("trait-chart", charts.strength_bars(
                own.assign(name=own["model"]), "model",
                f"Strength of '{trait.label}' for each model against the reference, "
                "highest first. The table below lists the same numbers."))
        found = datasets_of.get(trait.trait_id)
        if found is not None:
            download = output.data(f"traits/{slug}/datasets", found,
                                   f"{trait.label}: every dataset's preference", page)
            dataset_table = Table(
                "datasets", "Datasets: does the preference annotator encourage it?",
                [Column("dataset", "Dataset", numeric=False),
                 Column("judge", "Preference annotator", numeric=False),
                 *metric_columns(CUE_ENCOURAGED)],
                [[Cell(r.dataset, href=link(page, ctx.slugs.page(DATASETS, r.dataset)),
                       header=True), Cell(r.judge), *metric_cells(r, ctx.min_valid)]
                 for r in found.itertuples(index=False)], download)
        elo_table = None
        rated = ratings_of.get(trait.trait_id)
        if rated is not None:
            download = output.data(f"traits/{slug}/ratings", rated,
                                   f"{trait.label}: Elo per model", page)
            # Ranked by their own intervals, as on the model pages: the strengths'
            # signal (the leaderboard's) is another measure's.
            elo_table = rating_table(rated, "elo", "Elo rating of each model (the reference "
                                     "is 1000)", Column("model", "Model", numeric=False),
                                     lambda r, page=page: model_cell(ctx, page, r.model),
                                     download)
            quiet = trait.trait_id in board.ranked and not board.ranked[trait.trait_id].signal
            if quiet and has_signal(rated["ci_low"], rated["ci_high"]):
                elo_table.note = f"{QUIET_STRENGTHS} {elo_table.note}".strip()
        rule = rule_text(trait.trait_id) if RULES_PREFIX in str(trait.judge) else None
        output.page(page, "trait.html", section=index_page, trait=trait, rule=rule,
                    model_table=model_table, dataset_table=dataset_table, profile=profile,
                    charts=[profile] if profile else [], elo_table=elo_table)



