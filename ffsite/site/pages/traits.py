"""A page per trait: the trait across all models and all datasets, plus a trait index."""

from __future__ import annotations

from ffsite.datasets import DATASETS as ALL_DATASETS
from ffsite.metrics.results import spread
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.pages.home import NO_SIGNAL_TRAIT, leaderboard_traits
from ffsite.site.pages.ratings import rating_table
from ffsite.site.pages.scored_traits import scored_trait_page
from ffsite.site.render import number
from ffsite.site.urls import DATASETS, TRAITS, link, page_path
from ffsite.site.views import (
    CUE_ENCOURAGED,
    Cell,
    Column,
    Table,
    chart,
    metric_cells,
    metric_columns,
    sort_value,
)

# Datasets that draw their own traits' pages (EQ-Bench 3's criteria: their models never
# meet the reference model): each returns True for a trait it drew.
TRAIT_PAGES = [d.hook("trait_page") for d in ALL_DATASETS if d.trait_page]


def build(ctx: SiteContext) -> None:
    output = ctx.output
    index_page = page_path(TRAITS)
    traits = ctx.traits
    by_model = ctx.models.traits
    index = traits.assign(spread_across_models=traits["trait_id"].map(
        spread(by_model)).to_numpy())
    download = output.data("traits", index.rename(columns={"trait": "wording",
                                                           "label": "trait"}),
                           "Traits", index_page)
    table = Table("trait-index", "Traits", [
        Column("trait", "Trait", numeric=False),
        Column("set", "Trait set", numeric=False),
        Column("judge", "Judge", numeric=False),
        Column("spread", "Spread across models", cue="higher = models differ more",
               title="max − min strength across models")],
        [[Cell(r.label, href=link(index_page, ctx.slugs.page(TRAITS, r.trait_id)),
               header=True), Cell(r.trait_set),
          Cell(r.judge), Cell(number(r.spread_across_models),
                              sort_value(r.spread_across_models))]
         for r in index.itertuples(index=False)], download)
    output.page(index_page, "traits.html", section=index_page, table=table)

    board = leaderboard_traits(ctx)
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
            quiet = trait.trait_id in board.ranked and not board.ranked[trait.trait_id].signal
            elo_table = rating_table(rated, "elo", "Elo rating of each model (the reference "
                                     "is 1000)", Column("model", "Model", numeric=False),
                                     lambda r, page=page: model_cell(ctx, page, r.model),
                                     download, ranked=not quiet)
            if quiet:  # the leaderboard gives no rank here: neither does the Elo table
                elo_table.note = f"{NO_SIGNAL_TRAIT} {elo_table.note}".strip()
        output.page(page, "trait.html", section=index_page, trait=trait,
                    model_table=model_table, dataset_table=dataset_table, profile=profile,
                    charts=[profile] if profile else [], elo_table=elo_table)



