"""Printing tables in the formats of --format: csv, json, table."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # pandas is imported where a table is printed, not by `CMD --help`
    import pandas as pd


def _clean(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return _clean(value.item())
    return value


def render(frame: pd.DataFrame, fmt: str) -> str:
    import pandas as pd

    from ffsite._spreadsheet import spreadsheet_safe

    if fmt == "csv":
        return spreadsheet_safe(frame).to_csv(index=False, float_format="%.17g",
                                              lineterminator="\n")
    if fmt == "json":
        rows = [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if frame.empty:
        return "(no rows)\n"
    shown = frame.copy()
    for column in shown.columns:
        if pd.api.types.is_float_dtype(shown[column]):
            shown[column] = shown[column].map(lambda v: "" if pd.isna(v) else f"{v:.3f}")
        elif column in ("description", "trait"):
            shown[column] = shown[column].map(
                lambda v: v if not isinstance(v, str) or len(v) <= 60 else v[:57] + "...")
    return shown.to_string(index=False) + "\n"


def emit(frame: pd.DataFrame, fmt: str) -> None:
    click.echo(render(frame, fmt), nl=False)
