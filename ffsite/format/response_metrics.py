"""Response-metrics files: numbers per response (e.g. the 21 communication traits).

Columns `dataset, response_id, prompt_id, model`, then one numeric column per measure
(docs/format.md).  Reading merges every such file under the given paths; votes files
are skipped, as `read_annotations` skips these.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format._columns import unreadable
from ffsite.format.read import find_annotation_files, read_file_metadata

ID_COLUMNS = list(schema.RESPONSE_ID_COLUMNS)


def read_response_metrics(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """All response-metrics rows under `paths`, sorted by dataset and response id."""
    frames = []
    for path in find_annotation_files(paths):
        if read_file_metadata(path).get("kind") == schema.KIND_RESPONSE_METRICS:
            frames.append(read_response_metrics_file(path))
    if not frames:
        return pd.DataFrame({name: pd.Series(dtype=object) for name in ID_COLUMNS})
    frame = pd.concat(frames, ignore_index=True)
    repeated = frame.duplicated(["dataset", "response_id"])
    if repeated.any():
        row = frame[repeated].iloc[0]
        raise FfsiteError(f"{row['_source']}: response '{row['response_id']}' of dataset "
                          f"'{row['dataset']}' also appears in another response-metrics file; "
                          "keep each response in one file")
    frame = frame.drop(columns="_source")
    return frame.sort_values(["dataset", "response_id"], kind="stable").reset_index(drop=True)


def read_response_metrics_file(path: str | os.PathLike) -> pd.DataFrame:
    """One response-metrics file, checked (a `_source` column names the file)."""
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise unreadable(path, exc) from None
    for name in ID_COLUMNS:
        if name not in table.column_names:
            raise FfsiteError(f"{path}: column '{name}' missing; a response-metrics file "
                              "needs " + ", ".join(ID_COLUMNS))
    for name in table.column_names:
        kind = table.schema.field(name).type
        if name not in ID_COLUMNS and not (pa.types.is_integer(kind)
                                           or pa.types.is_floating(kind)
                                           or pa.types.is_boolean(kind)):
            raise FfsiteError(f"{path}: column '{name}' is {kind}, not a number; "
                              "response-metrics files hold numbers only")
        if pa.types.is_floating(kind):
            infinite = pc.is_inf(table.column(name)).to_numpy(zero_copy_only=False)
            if infinite.any():  # NaN means "not measured"; an infinite count is a bug
                raise FfsiteError(f"{path}: column '{name}', row {int(np.argmax(infinite))}: "
                                  "infinite value; store a finite number, or NaN for none")
    for name in ("dataset", "response_id"):
        texts = table.column(name).to_pandas()
        empty = texts.isna() | (texts.astype(str) == "")
        if empty.any():
            raise FfsiteError(f"{path}: column '{name}', row {int(np.argmax(empty))}: empty "
                              "value; this column must be filled on every row")
    frame = table.to_pandas()
    for name in ID_COLUMNS:
        frame[name] = frame[name].astype(object).where(frame[name].notna(), None)
    frame["_source"] = str(path)
    return frame
