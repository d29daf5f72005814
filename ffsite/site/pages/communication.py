"""Communication traits (AA-PersonalityBench): per-model averages of numbers measured on
each response by program (length, structure, punctuation, emphasis)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ffsite.datasets import dataset_name
from ffsite.judges.communication import COMMUNICATION_TRAITS, GROUPS, LABELS
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.render import number, percent
from ffsite.site.urls import page_path
from ffsite.site.views import Cell, Column, Table, chart, sort_value

SHARES = {"ends_with_question"}  # 0/1 per response: the average is a share
WHOLE = {"characters", "words"}  # large counts: no decimals


def measures(frame: pd.DataFrame) -> list[str]:
    """The measure columns, the 21 communication traits first in their order."""
    known = [m for m in COMMUNICATION_TRAITS if m in frame.columns]
    return known + sorted(c for c in frame.columns if c != "model" and c not in known)


def value_cell(measure: str, value: float) -> Cell:
    if measure in SHARES:
        return Cell(percent(100 * value), sort_value(value))
    return Cell(number(value, 0 if measure in WHOLE else 2), sort_value(value))


def build(ctx: SiteContext) -> None:
    averages = ctx.communication
    names = measures(averages)
    page = page_path("communication")
    download = ctx.output.data("communication", averages[["model", *names]],
                               "Communication traits: per-model averages", page)
    table = Table("communication", "Average per response (ends with a question: share of "
                  "responses)", [Column("model", "Model", numeric=False),
                                 *[Column(m, LABELS.get(m, m), title=GROUPS.get(m, ""))
                                   for m in names]],
                  [[model_cell(ctx, page, row[0]),
                    *[value_cell(m, v) for m, v in zip(names, row[1:], strict=True)]]
                   for row in averages[["model", *names]].itertuples(index=False)], download)
    figure = None
    if len(averages):
        long = averages.melt(id_vars="model", value_vars=names, var_name="key",
                             value_name="value").rename(columns={"model": "name"})
        figure = chart("communication-chart", charts.selectable(
            long, names, [LABELS.get(m, m) for m in names], "Measure", "average",
            "Average of the chosen communication trait per model, highest first. The table "
            "below lists every number."))
    metrics = ctx.response_metrics
    measured = sorted(set(metrics.loc[metrics["model"].notna(), "dataset"].astype(str)))
    ctx.output.page(page, "communication.html", section=page, table=table, figure=figure,
                    charts=[figure] if figure else [],
                    datasets=", ".join(dataset_name(d) for d in measured))


def by_measure(ctx: SiteContext) -> tuple[dict[str, int], dict[str, Any]]:
    """({model: its row}, {measure: its values}) of the averages, made once for every
    model page: indexing the frame cell by cell on each page cost most of its table.
    The values keep their own types (numpy scalars, as `DataFrame.at` gives them)."""
    averages = ctx.communication
    return ({model: row for row, model in enumerate(averages["model"].tolist())},
            {measure: averages[measure].array for measure in measures(averages)})


def model_table(ctx: SiteContext, model: str) -> Table | None:
    """A model's averages beside the reference model's, for its page."""
    rows_of, values = ctx.prepared(by_measure)
    if model not in rows_of:
        return None
    reference = ctx.config.reference_model
    has_reference = reference in rows_of and reference != model  # not beside itself
    name = ctx.registry.display_name
    columns = [Column("measure", "Measure", numeric=False), Column("value", name(model))]
    if has_reference:
        columns.append(Column("reference", f"{name(reference)} (the reference)"))
    rows = []
    for measure, column in values.items():
        row = [Cell(LABELS.get(measure, measure), header=True),
               value_cell(measure, column[rows_of[model]])]
        if has_reference:
            row.append(value_cell(measure, column[rows_of[reference]]))
        rows.append(row)
    return Table("model-communication", "Communication traits: average per response",
                 columns, rows, note="All models: see the communication page.")
