"""Write annotation files: validated, sorted, dictionary-encoded, compressed, atomic."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite._atomic import atomic_path
from ffsite.format import _checked, _wide, schema
from ffsite.format._checks import check_votes
from ffsite.format._columns import ColumnReader
from ffsite.format.encode import EncodedVotes, encode_votes

SORT_KEYS = ("dataset", "comparison_id", "role", "judge", "trait_id", "seed")


def file_metadata(kind: str, **fields: Any) -> dict[str, Any]:
    """The JSON document stored under the `ffsite` key of a file's Parquet metadata."""
    return {"format_version": schema.FORMAT_VERSION, "kind": kind,
            **{key: value for key, value in sorted(fields.items()) if value is not None}}


def votes_table(frame: pd.DataFrame | pa.Table) -> pa.Table:
    """Turn a frame with format 1's columns (plus `meta.*`), one row per vote, into a
    sorted Arrow table; a table that already has the exact schema is taken as it is.
    """
    table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(
        frame, preserve_index=False)
    meta = [name for name in table.column_names if name.startswith(schema.META_PREFIX)]
    target = schema.votes_schema(meta)
    if "margin" in table.column_names:  # version 3: kept beside each vote
        target = target.append(pa.field("margin", pa.int8(), nullable=True))
    if table.schema.remove_metadata().equals(target):
        return table
    missing = [name for name in schema.REQUIRED_COLUMNS if name not in table.column_names]
    if missing:
        raise ValueError(f"votes frame lacks columns {missing}")
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


@dataclass(frozen=True)
class Written:
    """What `write_votes` wrote."""

    num_rows: int  # votes
    num_comparisons: int


def write_votes(frame: pd.DataFrame | pa.Table | EncodedVotes, path: str | os.PathLike, *,
                default_preference: Mapping[str, str] | None = None,
                annotators: Mapping[str, str] | None = None,
                extra: Mapping[str, Any] | None = None) -> Written:
    """Validate votes and write them as a format 2 file, atomically.

    Votes come one per row (format 1's long shape, as a DataFrame or Arrow table: checked
    row by row first, so an error names the row) or laid out by `encode.encode_votes`.
    `default_preference` names, per dataset, the preference annotator pages compare with
    when a dataset has several; `annotators` maps preference-annotator ids to a
    description; `extra` is stored verbatim (e.g. the summary of an annotate run).
    """
    metadata = file_metadata(
        schema.KIND_VOTES,
        default_preference=dict(sorted(default_preference.items())) if default_preference
        else None,
        annotators=dict(sorted(annotators.items())) if annotators else None,
        extra=dict(extra) if extra else None,
    )
    encoded = frame if isinstance(frame, EncodedVotes) else _encoded_rows(frame, metadata,
                                                                          str(path))
    metadata["vote_columns"] = encoded.entries
    if any(name.startswith(_wide.MARGIN_PREFIX) for name in encoded.table.column_names):
        metadata["format_version"] = schema.VERSION_3
    # Every rule is checked by the reader's own code, on a second thread while Arrow
    # encodes; the file replaces its target only once the check has passed.  The result
    # is what a read of the file will find, so the first read need not check again.
    with ThreadPoolExecutor(max_workers=1) as pool:
        checking = pool.submit(_wide.unpack, encoded.table, metadata, str(path))

        def remember_checked(written: Path) -> None:
            _checked.store(_checked.digest(written), None, checking.result(), metadata)

        write_parquet(encoded.table, metadata, path, before_replace=remember_checked)
        checked = checking.result()
    return Written(checked.n_votes, checked.n_comparisons)


def _encoded_rows(frame: pd.DataFrame | pa.Table, metadata: dict[str, Any], source: str
                  ) -> EncodedVotes:
    """Votes one per row, checked by format 1's rules, then laid out as format 2."""
    table = votes_table(frame)
    rows = ColumnReader(source, table=table)
    votes = check_votes(rows, metadata)
    seed_codes, seeds = rows.codes("seed")
    note_codes, notes = rows.codes("note")
    margin = table.column("margin").to_pandas().astype("Int64") if (
        "margin" in table.column_names) else None
    return encode_votes(
        pd.DataFrame({name: np.asarray(values, dtype=object)
                      for name, values in votes.comparisons.items()}),
        pd.DataFrame({name: np.asarray(values, dtype=object)
                      for name, values in votes.annotators.items()}),
        votes.comparison, votes.annotator, votes.vote,
        seed=np.array([*seeds, None], dtype=object)[seed_codes] if seeds else None,
        note=np.array([*notes, None], dtype=object)[note_codes] if notes else None,
        margin=margin)


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
    write_parquet(table, file_metadata(schema.KIND_RESPONSE_METRICS,
                                       extra=dict(extra) if extra else None), path)


def write_parquet(table: pa.Table, metadata: dict[str, Any],
                  path: str | os.PathLike, *,
                  before_replace: Callable[[Path], None] | None = None) -> None:
    """Write `table` with its `ffsite` metadata, atomically, one row group at a time.

    `before_replace` sees the finished temporary file; if it raises, the target is left
    as it was.

    Each row group gets its own compact dictionaries: a dictionary column carried over
    whole (say 1M comparison ids) would otherwise be stored in full in every row group,
    and readers would spend seconds re-hashing it.
    """
    encoded = json.dumps(metadata, sort_keys=True, ensure_ascii=False).encode("utf-8")
    target = table.schema.with_metadata({schema.METADATA_KEY: encoded})
    starts = range(0, max(table.num_rows, 1), ROW_GROUP_ROWS)

    def row_group(start: int) -> pa.Table:
        part = table.slice(start, ROW_GROUP_ROWS)
        return pa.Table.from_arrays([_compact(column) for column in part.columns],
                                    schema=target)

    # The next row group is spelled out on a second thread while Arrow encodes this one.
    with atomic_path(Path(path)) as tmp, ThreadPoolExecutor(max_workers=1) as pool:
        # zstd level 1: a 4.1M-vote file writes in 0.10 s instead of 0.23 s at level 9 and
        # comes out smaller; the default annotations come out 7% larger.
        with pq.ParquetWriter(tmp, target, compression="zstd", compression_level=1,
                              use_dictionary=True, write_statistics=False) as writer:
            upcoming = pool.submit(row_group, starts[0])
            for number in range(len(starts)):
                part = upcoming.result()
                if number + 1 < len(starts):
                    upcoming = pool.submit(row_group, starts[number + 1])
                writer.write_table(part, row_group_size=ROW_GROUP_ROWS)
        if before_replace is not None:
            before_replace(tmp)


ROW_GROUP_ROWS = 1 << 20  # comparisons (votes files) or responses per row group
SMALL_DICTIONARY = 4096  # larger dictionaries are cut to what each row group uses


def _compact(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A dictionary column of one row group, keeping only the values it uses."""
    if isinstance(column, pa.ChunkedArray):
        column = column.unify_dictionaries().combine_chunks() if (
            pa.types.is_dictionary(column.type) and column.num_chunks != 1) \
            else column.combine_chunks()
    if not pa.types.is_dictionary(column.type):
        return column
    if len(column.dictionary) <= SMALL_DICTIONARY:
        return column  # a few values cost nothing to repeat in every row group
    valid = ~np.asarray(column.indices.is_null())
    indices = column.indices.fill_null(0).to_numpy(zero_copy_only=False)
    present = np.zeros(len(column.dictionary), dtype=bool)
    present[indices[valid]] = True  # dense marks, no sort: dictionaries are small enough
    renumber = (np.cumsum(present) - 1).astype(np.int32)
    return pa.DictionaryArray.from_arrays(
        pa.array(renumber[indices], pa.int32(), mask=~valid if not valid.all() else None),
        column.dictionary.filter(pa.array(present)))
