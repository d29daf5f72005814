"""A page per model: its trait profile against the reference, counts, example pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from ffsite.format.read import Annotations
from ffsite.metrics.results import model_dataset_counts
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.examples import ExamplePool, choose_examples
from ffsite.site.pages import communication
from ffsite.site.pages.ratings import rating_table
from ffsite.site.render import NOT_ZERO, number
from ffsite.site.urls import DATASETS, MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    metric_cells,
    metric_columns,
    sort_value,
)

TOP = 5  # traits listed as most / least exhibited


def build(ctx: SiteContext) -> None:
    results = ctx.models
    if results.models.empty:
        return
    counts = model_dataset_counts(ctx.annotations, results)
    summaries = run_summaries_by_model(ctx.annotations, results.reference_model)
    by_model = dict(tuple(results.traits.groupby("model", sort=False)))
    datasets = sorted(set(ctx.annotations.comparisons["dataset"].astype(object).to_numpy()[
        results.reference.comparison]))
    trait_pages = ctx.slugs.pages(TRAITS)
    pool = ExamplePool.create(ctx.annotations, ctx.votes, ctx.labels, trait_pages, ctx.texts,
                              ctx.preference_of, datasets)
    ratings_of = dict(tuple(ctx.ratings().groupby("model", sort=False)))
    indices_of = dict(tuple(ctx.indices().groupby("model", sort=False)))
    for model, n_reference, n_all in ctx.progress.items(
            "model pages", list(results.models.itertuples(index=False))):
        slug = ctx.slugs.models[model]
        page = page_path(MODELS, slug)
        own = by_model[model].sort_values(["strength", "trait_id"], ascending=[False, True],
                                          kind="stable")
        examples, anchors = choose_examples(pool, ctx.votes, results, model)
        download = ctx.output.data(f"model-{slug}", own, f"{model}: traits vs the reference",
                                   page)
        trait_table = traits_table(ctx, page, model, own, anchors, download)
        count_table = comparisons_table(ctx, counts[counts["model"] == model], model, slug,
                                        page)
        rated = ratings_and_indices(ctx, model, slug, page, ratings_of.get(model),
                                    indices_of.get(model))
        talk = communication.model_table(ctx, model)
        findings = own[own["finding"]]
        profile = chart("profile", charts.strength_bars(
            own.assign(name=own["trait"]), "trait",
            f"Strength of each trait for {model} against the reference, strongest first; "
            "faint bars have too few valid votes to count as findings. The table below "
            "lists the same numbers."))
        ctx.output.page(
            page, "model.html", section=page_path("index"), model=model,
            reference=results.reference_model, n_reference=n_reference, n_all=n_all,
            trait_table=trait_table, count_table=count_table,
            most=findings[findings["strength"] >= NOT_ZERO].head(TOP),
            least=findings[findings["strength"] <= -NOT_ZERO].sort_values("strength").head(TOP),
            profile=profile, charts=[profile], examples=examples,
            summaries=summaries.get(model, []), trait_pages=trait_pages,
            rated=rated, talk=talk)


def traits_table(ctx: SiteContext, page: str, model: str, own: pd.DataFrame,
                 anchors: dict[str, str], download) -> Table:
    """The model's FF metrics per trait, each trait linked to its example pair."""
    columns = [Column("trait", "Trait", numeric=False), *metric_columns()]
    if anchors:
        columns.append(Column("example", "Example", numeric=False))
    rows = []
    for row in own.itertuples(index=False):
        cells = [Cell(row.trait, href=link(page, ctx.slugs.page(TRAITS, row.trait_id)),
                      header=True),
                 *metric_cells(row, ctx.min_valid)]
        if anchors:
            anchor = anchors.get(row.trait_id)
            cells.append(Cell("see example", href=f"#{anchor}") if anchor else Cell(""))
        rows.append(cells)
    return Table("traits", f"{model}: strength of each trait against the reference",
                 columns, rows, download)


def comparisons_table(ctx: SiteContext, counts: pd.DataFrame, model: str, slug: str,
                      page: str) -> Table:
    """The model's comparisons with the reference, per dataset."""
    mine = counts[["dataset", "comparisons"]]
    download = ctx.output.data(f"model-{slug}-comparisons", mine,
                               f"{model}: comparisons per dataset", page)
    return Table("comparisons", "Comparisons with the reference, per dataset",
                 [Column("dataset", "Dataset", numeric=False),
                  Column("comparisons", "Comparisons")],
                 [[Cell(d, href=link(page, ctx.slugs.page(DATASETS, d)), header=True),
                   count_cell(n)] for d, n in mine.itertuples(index=False)], download)


def ratings_and_indices(ctx: SiteContext, model: str, slug: str, page: str,
                        ratings: pd.DataFrame | None, indices: pd.DataFrame | None
                        ) -> list[Table]:
    """The model's Elo per trait and its index scores (none when it was not rated)."""
    shown = []
    if ratings is not None:
        own = ratings.sort_values(["elo", "trait_id"], ascending=[False, True], kind="stable")
        download = ctx.output.data(f"model-{slug}-ratings", own, f"{model}: Elo per trait",
                                   page)
        shown.append(rating_table(
            own, "ratings", f"{model}: Elo rating per trait (the reference is 1000)",
            Column("trait", "Trait", numeric=False),
            lambda r: Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                           header=True),
            download))
    if indices is not None:
        download = ctx.output.data(f"model-{slug}-indices", indices,
                                   f"{model}: index scores", page)
        shown.append(Table("model-indices", f"{model}: index scores (1–100)", [
            Column("index", "Index", numeric=False),
            Column("score", "Score", cue="higher = shows the index's traits more"),
            Column("interval", "95% interval", numeric=False),
            Column("traits", "Rated traits")],
            [[Cell(r.index, href=link(page, page_path("ratings")), header=True),
              Cell(number(r.score, 0), sort_value(r.score)),
              Cell(f"{number(r.ci_low, 0)} to {number(r.ci_high, 0)}"),
              count_cell(r.traits_used)] for r in indices.itertuples(index=False)], download))
    return shown


def run_summaries_by_model(annotations: Annotations, reference: str | None
                           ) -> dict[str, list[dict[str, Any]]]:
    """Annotate-run summaries (file metadata `extra`) of files about one model (compared
    with the reference), by model."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path, summary in sorted(annotations.run_summaries.items()):
        sides = pq.read_table(path, columns=["model_a", "model_b"])
        models = {m for column in sides.columns for m in column.unique().to_pylist() if m}
        others = sorted(models - {reference})
        if len(others) != 1:
            continue  # a file about many models is not one model's run
        for model in others:
            found.setdefault(model, []).append({"file": Path(path).name,
                                                "items": flatten(summary)})
    return found


def flatten(summary: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """(key, value) pairs of a summary; nested mappings become dotted keys."""
    items = []
    for key, value in summary.items():
        if isinstance(value, dict):
            items.extend(flatten(value, f"{prefix}{key}."))
        elif isinstance(value, float):
            items.append((f"{prefix}{key}", f"{value:,.4g}"))
        else:
            items.append((f"{prefix}{key}", str(value)))
    return items
