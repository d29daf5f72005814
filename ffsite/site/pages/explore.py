"""Explore: the Feedback Forensics app's views as one static page.

The reader chooses the reference (a model, several pooled, or the dataset's preference
annotator), the dataset, the judge, the metric and a metadata split; explore.js draws
the table from precomputed counts (explore_data.py) and pages through the comparisons
behind a number.  Without the script the page still shows a default table (the
reference model against every model), every dataset's traits against its preference
annotator, and each judge's side biases.
"""

from __future__ import annotations

import json

import numpy as np

from ffsite.metrics.pairs import triple_interval
from ffsite.metrics.results import with_max_diff
from ffsite.site.context import SiteContext
from ffsite.site.explore_data import (
    CAP,
    CAP_WITHOUT_MODELS,
    TEXT_BUDGET,
    TEXT_LIMIT,
    build_data,
    triple_metric,
)
from ffsite.site.pages.datasets import wide_table
from ffsite.site.render import heat_class, json_script, signed
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import CUE_STRENGTH, Cell, Column, Table, sort_value

PAGE = page_path("explore")


def build(ctx: SiteContext) -> None:
    ctx.progress.step("explorer data")
    data = build_data(ctx)
    for path, document in data.files.items():
        ctx.output.file(path, json.dumps(document, ensure_ascii=False, separators=(",", ":"),
                                         allow_nan=False))
    overview = None
    if len(ctx.dataset_traits):
        long = with_max_diff(ctx.dataset_traits)
        overview = wide_table(ctx, PAGE, "overview", "Strength of each trait per dataset, "
                              "against the dataset's preference annotator (higher = the "
                              "annotator prefers the response that shows it more), traits "
                              "by max diff", long, "dataset", None)
    ctx.output.page(PAGE, "explore.html", section=PAGE, index=json_script(data.index),
                    default=default_table(ctx, data), overview=overview,
                    cap=CAP,
                    cap_without_models=CAP_WITHOUT_MODELS, text_limit=TEXT_LIMIT,
                    text_budget=TEXT_BUDGET,
                    notes=grouped_notes(data.index["datasets"]),
                    datasets=data.index["datasets"])


def default_table(ctx: SiteContext, data) -> Table | None:
    """The table explore.js opens with, drawn on the server (readable without script)."""
    view, index = data.default, data.index
    if not view:
        return None
    models, traits = index["models"], index["traits"]
    dataset = index["datasets"][view["dataset"]]["name"]
    columns = [Column("trait", "Trait", numeric=False)]
    columns += [Column(f"m{i}", models[m], cue=CUE_STRENGTH) for i, m in
                enumerate(view["models"])]
    rows = []
    for trait, triples in view["rows"]:
        values = triple_metric(np.array(triples), "strength")
        lows, highs = triple_interval(np.array(triples), "strength")
        valid = np.array(triples)[:, 0] + np.array(triples)[:, 1]
        trait_id, label = traits[trait][0], traits[trait][1]
        row = [Cell(label, href=link(PAGE, ctx.slugs.page(TRAITS, trait_id)), header=True)]
        for value, votes, low, high in zip(values, valid, lows, highs, strict=True):
            finding = votes >= ctx.min_valid
            row.append(Cell(signed(value), sort_value(float(value)),
                            css=heat_class(value, finding),
                            title=None if finding else
                            f"only {votes} valid vote{'' if votes == 1 else 's'}",
                            interval=None if low != low else f"{signed(low)} to "
                            f"{signed(high)}"))
        rows.append(row)
    return Table("explore-table", f"Strength of each trait in {dataset}, judged by "
                 f"{index['judges'][view['judge']]}: every model against {view['reference']}",
                 columns, rows)


def grouped_notes(datasets: list[dict]) -> list[str]:
    """Each dataset's note on its texts, said once for all datasets that share it."""
    by_note: dict[str, list[str]] = {}
    for entry in datasets:
        if entry["textNote"]:
            by_note.setdefault(entry["textNote"], []).append(entry["name"])
    return [f"{', '.join(names)}: {note}" for note, names in by_note.items()]
