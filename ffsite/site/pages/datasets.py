"""Datasets (FF Result A): what each dataset's preference annotations encourage.

Per dataset: every trait against the default preference annotator; the same split by
each useful metadata column and by preference annotator, traits sorted by max diff;
each model's win rate against the reference.
"""

from __future__ import annotations

import pandas as pd

from ffsite._names import safe_name
from ffsite.metrics.strength import preference_sides
from ffsite.site import charts, tables
from ffsite.site.context import SiteContext
from ffsite.site.render import NOT_ZERO, number
from ffsite.site.views import (
    CUE_BETTER,
    CUE_ENCOURAGED,
    HEAT,
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    metric_cells,
    metric_columns,
    percent_cell,
    sort_value,
    strength_cell,
)

TOP = 5


def build(ctx: SiteContext) -> None:
    summary = ctx.datasets
    writer = ctx.writer
    index_download = writer.data("datasets", summary.drop(columns="slug"), "Datasets",
                                 "datasets.html")
    all_download = writer.data("dataset-traits", ctx.dataset_traits,
                               "Every dataset's traits vs its preference annotator",
                               "datasets.html")
    rows = [[Cell(row.dataset, href=f"datasets/{row.slug}.html", header=True),
             count_cell(row.comparisons), count_cell(row.models),
             Cell(row.preference_annotators or "none")]
            for row in summary.itertuples(index=False)]
    table = Table("datasets", "Datasets", [
        Column("dataset", "Dataset", numeric=False),
        Column("comparisons", "Comparisons"),
        Column("models", "Models"),
        Column("annotators", "Preference annotators", numeric=False)], rows, index_download)
    writer.page("datasets.html", "datasets.html", section="datasets.html", table=table,
                all_download=all_download)

    sides = preference_sides(ctx.annotations)
    for row in ctx.progress.items("dataset pages", list(summary.itertuples(index=False))):
        dataset_page(ctx, row, sides)


def dataset_page(ctx: SiteContext, row, sides) -> None:
    dataset, slug = row.dataset, row.slug
    page = f"datasets/{slug}.html"
    writer = ctx.writer
    own = ctx.dataset_traits[ctx.dataset_traits["dataset"] == dataset].sort_values(
        ["strength", "trait_id"], ascending=[False, True], kind="stable")
    trait_slugs = ctx.traits.set_index("trait_id")["slug"]
    result, profile = None, None
    if len(own):
        download = writer.data(f"dataset-{slug}-traits", own,
                               f"{dataset}: traits vs the preference annotator", page)
        result = Table("result", "Strength of each trait against the preference annotations",
                       [Column("trait", "Trait", numeric=False),
                        *metric_columns(CUE_ENCOURAGED)],
                       [[Cell(r.trait, href=f"../traits/{trait_slugs[r.trait_id]}.html",
                              header=True), *metric_cells(r, ctx.min_valid)]
                        for r in own.itertuples(index=False)], download)
        profile = chart("result-chart", charts.strength_bars(
            own.assign(name=own["trait"]), "trait",
            f"Strength of each trait against the preference annotations of {dataset}: "
            "right of zero the annotators prefer the response that shows the trait more "
            "(encouraged), left less (discouraged). The table below lists the numbers."))

    useful, skipped = tables.split_columns(ctx.annotations, dataset)
    splits = []
    for position, column in enumerate(useful, start=1):
        long = tables.split_results(ctx.annotations, ctx.votes, ctx.traits, dataset, column,
                                    sides, ctx.min_valid)
        name = column.removeprefix("meta.")
        if long.empty:
            continue
        download = writer.data(f"dataset-{slug}-by-{safe_name(name)}", long,
                               f"{dataset}: traits by {name}", page)
        splits.append(wide_table(ctx, f"split-{position}", f"Strength by {name}, traits "
                                 "sorted by max diff", long, "value", download))
    annotators = tables.annotator_results(ctx.annotations, ctx.votes, ctx.traits, dataset,
                                          ctx.min_valid)
    annotator_table = None
    if annotators is not None and len(annotators):
        download = writer.data(f"dataset-{slug}-annotators", annotators,
                               f"{dataset}: traits by preference annotator", page)
        annotator_table = wide_table(ctx, "annotators", "Strength by preference annotator, "
                                     "traits sorted by max diff", annotators, "annotator",
                                     download)
    wins = tables.win_rates(ctx.annotations, dataset, ctx.models.reference_model)
    win_table = None
    if wins is not None:
        download = writer.data(f"dataset-{slug}-win-rates", wins,
                               f"{dataset}: win rates against the reference", page)
        win_table = Table("win-rates", f"Win rate against {ctx.models.reference_model} "
                          f"(judged by {row.default_annotator}; a tie counts as half a win)",
                          [Column("model", "Model", numeric=False),
                           Column("win_rate", "Win rate", cue=CUE_BETTER),
                           Column("wins", "Wins"),
                           Column("ties", "Ties"),
                           Column("losses", "Losses", cue="lower is better")],
                          [[model_cell(ctx, w.model), percent_cell(w.win_rate),
                            count_cell(w.wins), count_cell(w.ties), count_cell(w.losses)]
                           for w in wins.itertuples(index=False)], download)

    findings = own[own["finding"]] if len(own) else own
    descriptions = ctx.annotations.preference_descriptions
    annotator_names = [a for a in row.preference_annotators.split(", ") if a]
    writer.page(page, "dataset.html", section="datasets.html", dataset=dataset, row=row,
                annotators=[(a, descriptions.get(a, "")) for a in annotator_names],
                result=result, profile=profile, charts=[profile] if profile else [],
                encouraged=findings[findings["strength"] >= NOT_ZERO].head(TOP),
                discouraged=findings[findings["strength"] <= -NOT_ZERO].sort_values(
                    "strength").head(TOP),
                splits=splits, skipped=[(c.removeprefix("meta."), why)
                                        for c, why in sorted(skipped.items())],
                annotator_table=annotator_table, win_table=win_table, slugs=trait_slugs)


def model_cell(ctx: SiteContext, model: str, prefix: str = "../") -> Cell:
    """A row header naming a model, linked to its page when it has one."""
    slug = ctx.model_slug(model)
    return Cell(model, href=f"{prefix}models/{slug}.html" if slug else None, header=True)


def wide_table(ctx: SiteContext, table_id: str, caption: str, long: pd.DataFrame,
               group: str, download) -> Table:
    """Traits as rows (in the frame's max-diff order), one strength column per group."""
    groups = list(dict.fromkeys(long[group]))
    sizes = long.groupby(group)["num_votes"].max()
    columns = [Column("trait", "Trait", numeric=False)]
    columns += [Column(f"g{i}", str(g), cue=CUE_ENCOURAGED, title=f"{g}: {sizes[g]:,} "
                       "comparisons with a preference") for i, g in enumerate(groups)]
    columns.append(Column("max_diff", "Max diff", cue="higher = groups differ more"))
    cells = {(r[0], r[1]): r[2:] for r in long[[group, "trait_id", *HEAT]].itertuples(
        index=False)}
    slugs = ctx.traits.set_index("trait_id")["slug"]
    rows = []
    for trait_id, trait, diff in long[["trait_id", "trait", "max_diff"]].drop_duplicates(
            "trait_id").itertuples(index=False):
        row = [Cell(trait, href=f"../traits/{slugs[trait_id]}.html", header=True)]
        for g in groups:
            found = cells.get((g, trait_id))
            if found:
                value, finding, valid, low, high = found
                row.append(strength_cell(value, finding, valid, ctx.min_valid, low, high))
            else:
                row.append(Cell("–"))
        row.append(Cell(number(diff), sort_value(diff)))
        rows.append(row)
    return Table(table_id, caption, columns, rows, download)
