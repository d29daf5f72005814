"""Communication traits (AA-PersonalityBench): per-model means of numbers measured on
each response by program (length, structure, punctuation, emphasis), each with its 95%
interval and the number of responses it rests on (ffsite.metrics.communication)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ffsite.datasets import dataset_name
from ffsite.judges.communication import COMMUNICATION_TRAITS, GROUPS, LABELS
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.render import percent
from ffsite.site.urls import page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    estimate_cell,
    interval_text,
    sort_value,
)

WHOLE = {"characters", "words"}  # large counts: no decimals
# Why a response has no value of a measure (NaN), as a cell's title says it.
UNDEFINED = {"avg_sentence_length": "no sentence"}

LEAD_CAPTION = ("Mean per response, its 95% interval under it (ends with a question: "
                "share of responses)")


def measures(names: list[str]) -> list[str]:
    """The measures, the 21 communication traits first in their order."""
    known = [m for m in COMMUNICATION_TRAITS if m in names]
    return known + sorted(m for m in names if m not in known)


@dataclass(frozen=True)
class Grid:
    """The estimates as [models, measures] arrays (models by id, measures in `measures`
    order), made once per build for the page and every model page: indexing the long
    frame cell by cell on each page would cost most of its table."""

    models: list[str]
    measures: list[str]
    share: dict[str, bool]  # the mean is a share: shown in percent, Wilson's interval
    responses: np.ndarray  # [models]: each model's responses
    empty: np.ndarray  # [models]: how many have no body text (zeros in every mean)
    row: dict[str, int]  # model -> its row
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray  # the responses a mean rests on (fewer where a measure is undefined)


def grid(ctx: SiteContext) -> Grid:
    """`ctx.communication` as a Grid (for `ctx.prepared`)."""
    estimates = ctx.communication
    names = measures(list(pd.unique(estimates["measure"])))

    def wide(column: str) -> pd.DataFrame:
        return estimates.pivot(index="model", columns="measure", values=column).reindex(
            columns=names)

    mean = wide("mean")
    models = [str(m) for m in mean.index]
    share = dict(zip(estimates["measure"], estimates["share"].astype(bool), strict=True))
    per_model = estimates.drop_duplicates("model").set_index("model").reindex(mean.index)
    return Grid(models, names, {m: share[m] for m in names},
                per_model["responses"].to_numpy(dtype=np.int64),
                per_model["empty"].to_numpy(dtype=np.int64),
                {m: i for i, m in enumerate(models)}, mean.to_numpy(dtype=float),
                wide("low").to_numpy(dtype=float), wide("high").to_numpy(dtype=float),
                wide("n").to_numpy(dtype=float).astype(np.int64))


def value_cell(g: Grid, row: int, column: int, *, titled: bool) -> Cell:
    """The mean of one model and measure with its 95% interval under it; a share in
    percent.  The title says when the mean rests on fewer than the model's responses
    (average sentence length: an answer without a sentence has none) or on one, which
    gives no interval."""
    measure = g.measures[column]
    value, low, high = (float(a[row, column]) for a in (g.mean, g.low, g.high))
    n, responses = int(g.n[row, column]), int(g.responses[row])
    what = LABELS.get(measure, measure)
    if g.share[measure]:
        interval = interval_text(100 * low, 100 * high, 1)
        cell = Cell(percent(100 * value), sort_value(value),
                    interval=interval and f"{interval}%",
                    title=f"{what}: {percent(100 * value)}, 95% interval {interval}%"
                    if interval and titled else None)
    else:
        cell = estimate_cell(value, low, high, digits=0 if measure in WHOLE else 2,
                             what=what, titled=titled)
    if n < responses:
        rests = (f"over {n:,} of the model's {responses:,} responses (the others have "
                 f"{UNDEFINED.get(measure, 'no value')})")
        return replace(cell, title=f"{cell.title}; {rests}" if cell.title
                       else f"{what}: {rests}")
    if n == 1:
        return replace(cell, title=f"{what}: one response, no interval")
    return cell


def responses_cell(g: Grid, row: int) -> Cell:
    """A model's responses, marked with how many have no body text (empty, AlpacaEval's
    known defect, or only code or web addresses): each counts as zeros in every mean of
    its row."""
    cell = count_cell(g.responses[row])
    empty = int(g.empty[row])
    if not empty:
        return cell
    return replace(cell, badge=f"{empty} without text", badge_title=(
        f"{empty} of its {int(g.responses[row]):,} responses have no body text (empty, or "
        "only code or web addresses): each counts as zeros in every mean of this row"))


def build(ctx: SiteContext) -> None:
    g = ctx.prepared(grid)
    page = page_path("communication")
    download = ctx.output.data("communication", download_frame(g),
                               "Communication traits: per-model means with 95% intervals",
                               page)
    # The wide table shows 21 intervals a row: no title repeats them (page weight); a
    # cell that rests on fewer responses than its row's count still says so.
    rows = [[model_cell(ctx, page, model),
             responses_cell(g, i),
             *[value_cell(g, i, j, titled=False) for j in range(len(g.measures))]]
            for i, model in enumerate(g.models)]
    table = Table("communication", LEAD_CAPTION,
                  [Column("model", "Model", numeric=False),
                   Column("responses", "Responses", title="responses measured per model"),
                   *[Column(m, LABELS.get(m, m), title=GROUPS.get(m, ""))
                     for m in g.measures]], rows, download)
    figure = None
    if g.models:
        figure = chart("communication-chart", charts.selectable(
            chart_frame(g, [ctx.registry.display_name(m) for m in g.models]), g.measures,
            # One axis title for every choice: a share says its unit in its own name.
            [LABELS.get(m, m) + (" (% of responses)" if g.share[m] else "")
             for m in g.measures], "Measure", "mean per response",
            "Mean of the chosen communication trait per model, highest first, with its 95% "
            "interval as a line. The table below lists every number.", interval=True))
    metrics = ctx.response_metrics
    measured = sorted(set(metrics.loc[metrics["model"].notna(), "dataset"].astype(str)))
    ctx.output.page(page, "communication.html", section=page, table=table, figure=figure,
                    charts=[figure] if figure else [],
                    datasets=", ".join(dataset_name(d) for d in measured))


def download_frame(g: Grid) -> pd.DataFrame:
    """model, responses, empty, then per measure its mean, <measure>_low and <measure>_high
    (a share from 0 to 1, as measured)."""
    columns: dict[str, object] = {"model": g.models, "responses": g.responses,
                                  "empty": g.empty}
    for j, measure in enumerate(g.measures):
        columns[measure] = g.mean[:, j]
        columns[f"{measure}_low"] = g.low[:, j]
        columns[f"{measure}_high"] = g.high[:, j]
    return pd.DataFrame(columns)


def chart_frame(g: Grid, names: list[str]) -> pd.DataFrame:
    """key (measure), name (the models' `names`, as the table shows them), value, low,
    high: a row per model and measure, a share in percent as the table shows it."""
    scale = np.array([100.0 if g.share[m] else 1.0 for m in g.measures])
    return pd.DataFrame({
        "key": np.tile(np.array(g.measures, dtype=object), len(g.models)),
        "name": np.repeat(np.array(names, dtype=object), len(g.measures)),
        "value": (g.mean * scale).reshape(-1), "low": (g.low * scale).reshape(-1),
        "high": (g.high * scale).reshape(-1)})


def model_table(ctx: SiteContext, model: str) -> Table | None:
    """A model's means with their 95% intervals beside the reference model's, for its
    page."""
    g = ctx.prepared(grid)
    if model not in g.row:
        return None
    reference = ctx.config.reference_model
    has_reference = reference in g.row and reference != model  # not beside itself
    name = ctx.registry.display_name
    mine = g.row[model]
    columns = [Column("measure", "Measure", numeric=False), Column("value", name(model))]
    counts = [Cell("Responses", header=True), responses_cell(g, mine)]
    if has_reference:
        theirs = g.row[reference]
        columns.append(Column("reference", f"{name(reference)} (the reference)"))
        counts.append(responses_cell(g, theirs))
    rows = [counts]  # what every mean below averages over
    for j, measure in enumerate(g.measures):
        row = [Cell(LABELS.get(measure, measure), header=True),
               value_cell(g, mine, j, titled=True)]
        if has_reference:
            row.append(value_cell(g, theirs, j, titled=True))
        rows.append(row)
    return Table("model-communication", "Communication traits: mean per response, its 95% "
                 "interval under it", columns, rows,
                 note="All models: see the communication page. Intervals: the normal "
                 "approximation over the model's responses (Wilson's for a share).")
