"""Write annotation files: validated, sorted, dictionary-encoded, compressed, atomic."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite._atomic import atomic_path
from ffsite.format import schema

SORT_KEYS = ("dataset", "comparison_id", "role", "judge", "trait_id", "seed")


def file_metadata(kind: str, **fields: Any) -> dict[str, Any]:
    """The JSON document stored under the `ffsite` key of a file's Parquet metadata."""
    return {"format_version": schema.FORMAT_VERSION, "kind": kind,
            **{key: value for key, value in sorted(fields.items()) if value is not None}}


def votes_table(frame: pd.DataFrame | pa.Table) -> pa.Table:
    """Turn a frame with the format's columns (plus `meta.*`) into a sorted Arrow table."""
    table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(
        frame, preserve_index=False)
    missing = [name for name in schema.REQUIRED_COLUMNS if name not in table.column_names]
    if missing:
        raise ValueError(f"votes frame lacks columns {missing}")
    meta_columns = [name for name in table.column_names if name.startswith(schema.META_PREFIX)]
    target = schema.votes_schema(meta_columns)
    plain = []
    for field in target:
        column = table.column(field.name)
        plain.append(column.cast(pa.string() if pa.types.is_dictionary(field.type)
                                 else field.type))
    table = pa.Table.from_arrays(plain, names=target.names)
    table = table.sort_by([(key, "ascending") for key in SORT_KEYS])
    encoded = [table.column(field.name).dictionary_encode().cast(field.type)
               if pa.types.is_dictionary(field.type) else table.column(field.name)
               for field in target]
    return pa.Table.from_arrays(encoded, schema=target)


def write_votes(frame: pd.DataFrame | pa.Table, path: str | os.PathLike, *,
                default_preference: Mapping[str, str] | None = None,
                annotators: Mapping[str, str] | None = None,
                extra: Mapping[str, Any] | None = None) -> pa.Table:
    """Validate and write a votes file atomically; return the table written.

    `default_preference` names, per dataset, the preference annotator pages compare with
    when a dataset has several; `annotators` maps preference-annotator ids to a
    description; `extra` is stored verbatim (e.g. the summary of an annotate run).
    """
    from ffsite.format.read import check_votes_table  # the reader owns the rules

    table = votes_table(frame)
    metadata = file_metadata(
        schema.KIND_VOTES,
        default_preference=dict(sorted(default_preference.items())) if default_preference
        else None,
        annotators=dict(sorted(annotators.items())) if annotators else None,
        extra=dict(extra) if extra else None,
    )
    check_votes_table(table, metadata, str(path))
    _write_table(table, metadata, path)
    return table


def write_response_metrics(frame: pd.DataFrame, path: str | os.PathLike, *,
                           extra: Mapping[str, Any] | None = None) -> None:
    """Write a response-metrics file (one row per response, numbers only)."""
    missing = [name for name in schema.RESPONSE_ID_COLUMNS if name not in frame.columns]
    if missing:
        raise ValueError(f"response-metrics frame lacks columns {missing}")
    frame = frame.sort_values(list(schema.RESPONSE_ID_COLUMNS[:2]), kind="stable")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    columns = []
    for name in table.column_names:
        column = table.column(name)
        if name in schema.RESPONSE_ID_COLUMNS:
            column = column.cast(pa.string()).dictionary_encode()
        columns.append(column)
    table = pa.Table.from_arrays(columns, names=table.column_names)
    _write_table(table, file_metadata(schema.KIND_RESPONSE_METRICS,
                                      extra=dict(extra) if extra else None), path)


def _write_table(table: pa.Table, metadata: dict[str, Any], path: str | os.PathLike) -> None:
    encoded = json.dumps(metadata, sort_keys=True, ensure_ascii=False).encode("utf-8")
    table = table.replace_schema_metadata({schema.METADATA_KEY: encoded})
    with atomic_path(Path(path)) as tmp:
        pq.write_table(table, tmp, compression="zstd", compression_level=9,
                       use_dictionary=True, write_statistics=False,
                       row_group_size=1 << 20)
