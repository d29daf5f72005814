"""Write annotation files: validated, sorted, dictionary-encoded, compressed, atomic."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ffsite._atomic import atomic_path
from ffsite.format import schema

SORT_KEYS = ("dataset", "comparison_id", "role", "judge", "trait_id", "seed")


def file_metadata(kind: str, **fields: Any) -> dict[str, Any]:
    """The JSON document stored under the `ffsite` key of a file's Parquet metadata."""
    return {"format_version": schema.FORMAT_VERSION, "kind": kind,
            **{key: value for key, value in sorted(fields.items()) if value is not None}}


def encode_votes(comparisons: pd.DataFrame, annotators: pd.DataFrame,
                 vote_comparison: np.ndarray, vote_annotator: np.ndarray, vote: np.ndarray,
                 *, seed: np.ndarray | None = None, note: Sequence[str | None] | None = None
                 ) -> pa.Table:
    """Build a sorted, dictionary-encoded votes table without spelling out every row.

    `comparisons` has one row per comparison (the comparison columns and any `meta.*`),
    `annotators` one row per annotator (role, judge, trait_id, trait, trait_set); each vote
    points into them by position, with a vote code from `schema.VOTE_CODES`, an optional
    seed (-1 for none) and an optional note.  Sorting happens on those small tables, so an
    importer with millions of votes never sorts strings per vote.
    """
    n_votes = len(vote)
    comparison_rank = _rank_rows(comparisons, ["dataset", "comparison_id"])
    annotator_rank = _rank_rows(annotators, ["role", "judge", "trait_id"])
    vote_comparison = np.asarray(vote_comparison)
    vote_annotator = np.asarray(vote_annotator)
    order = None if seed is not None else _block_order(comparison_rank, annotator_rank,
                                                       vote_comparison, vote_annotator)
    seed = np.full(n_votes, -1, np.int64) if seed is None else np.asarray(seed, np.int64)
    if order is None:
        order = np.lexsort((seed, annotator_rank[vote_annotator],
                            comparison_rank[vote_comparison]))
    vote_comparison = vote_comparison[order]
    vote_annotator = vote_annotator[order]
    meta_columns = sorted(c for c in comparisons.columns if c.startswith(schema.META_PREFIX))
    target = schema.votes_schema(meta_columns)
    arrays: dict[str, pa.Array] = {}
    for name in (*schema.COMPARISON_COLUMNS, *meta_columns):
        arrays[name] = _dictionary_take(comparisons[name], vote_comparison)
    for name in ("role", "judge", "trait_id", "trait", "trait_set"):
        arrays[name] = _dictionary_take(annotators[name], vote_annotator)
    seed = seed[order]
    arrays["seed"] = pa.array(seed, pa.int64(), mask=seed < 0)
    codes = np.asarray(vote, dtype=np.int32)[order] - 1
    arrays["vote"] = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()),
                                                    pa.array(schema.VOTE_VALUES))
    if note is None:
        arrays["note"] = pa.nulls(n_votes, pa.string()).dictionary_encode()
    else:
        notes = pa.array(list(note), pa.string())
        arrays["note"] = notes.take(pa.array(order)).dictionary_encode()
    return pa.Table.from_arrays([arrays[f.name].cast(f.type) for f in target], schema=target)


def _block_order(comparison_rank: np.ndarray, annotator_rank: np.ndarray,
                 vote_comparison: np.ndarray, vote_annotator: np.ndarray) -> np.ndarray | None:
    """The sorting permutation without sorting every vote, in the usual importer case.

    Importers emit each comparison's votes together, and often every comparison carries
    the same annotators in the same order.  Then sorting the comparisons and the one
    annotator sequence is enough.  Returns None when that shape does not hold.
    """
    n_comparisons = len(comparison_rank)
    if n_comparisons == 0 or len(vote_comparison) % n_comparisons:
        return None
    width = len(vote_comparison) // n_comparisons
    grid = vote_annotator.reshape(n_comparisons, width)
    if not ((vote_comparison.reshape(n_comparisons, width)
             == np.arange(n_comparisons)[:, None]).all() and (grid == grid[0]).all()):
        return None
    within = np.argsort(annotator_rank[grid[0]], kind="stable")
    if len(np.unique(grid[0])) != width:
        return None  # one annotator twice per comparison: leave it to the full sort
    block = np.argsort(comparison_rank, kind="stable")
    return (block[:, None] * width + within[None, :]).reshape(-1)


def _rank_rows(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Each row's position when the frame is sorted by `keys` (missing values last)."""
    order = frame.reset_index(drop=True).sort_values(keys, kind="stable",
                                                     na_position="last").index.to_numpy()
    rank = np.empty(len(frame), dtype=np.int64)
    rank[order] = np.arange(len(frame))
    return rank


def _dictionary_take(values: pd.Series, rows: np.ndarray) -> pa.DictionaryArray:
    """Encode the (few) distinct values once, then pick one code per vote with numpy.

    The dictionary is sorted, so the bytes written do not depend on the order in which
    the caller happened to list comparisons or annotators.
    """
    encoded = pa.array(values.astype(object), pa.string(), from_pandas=True).dictionary_encode()
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order) + 1, dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    rank[-1] = -1  # null codes (-1) index the last slot
    codes = rank[encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)]
    picked = codes[rows]
    missing = picked < 0
    return pa.DictionaryArray.from_arrays(
        pa.array(np.where(missing, 0, picked) if missing.any() else picked, pa.int32(),
                 mask=missing if missing.any() else None),
        encoded.dictionary.take(pa.array(order)))


def votes_table(frame: pd.DataFrame | pa.Table) -> pa.Table:
    """Turn a frame with the format's columns (plus `meta.*`) into a sorted Arrow table.

    A table that already has the exact schema (from `encode_votes`) is taken as it is.
    """
    table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(
        frame, preserve_index=False)
    meta = [name for name in table.column_names if name.startswith(schema.META_PREFIX)]
    if table.schema.remove_metadata().equals(schema.votes_schema(meta)):
        return table
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
    write_parquet(table, metadata, path)
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
    write_parquet(table, file_metadata(schema.KIND_RESPONSE_METRICS,
                                       extra=dict(extra) if extra else None), path)


def write_parquet(table: pa.Table, metadata: dict[str, Any], path: str | os.PathLike) -> None:
    """Write `table` with its `ffsite` metadata, atomically.

    Each row group gets its own compact dictionaries: a dictionary column carried over
    whole (say 1M comparison ids) would otherwise be stored in full in every row group,
    and readers would spend seconds re-hashing it.
    """
    encoded = json.dumps(metadata, sort_keys=True, ensure_ascii=False).encode("utf-8")
    table = table.replace_schema_metadata({schema.METADATA_KEY: encoded})
    with atomic_path(Path(path)) as tmp, pq.ParquetWriter(
            tmp, table.schema, compression="zstd", compression_level=9, use_dictionary=True,
            write_statistics=False) as writer:
        for start in range(0, max(table.num_rows, 1), ROW_GROUP_ROWS):
            part = table.slice(start, ROW_GROUP_ROWS)
            columns = [_compact(column) for column in part.columns]
            writer.write_table(pa.Table.from_arrays(columns, schema=table.schema),
                               row_group_size=ROW_GROUP_ROWS)


ROW_GROUP_ROWS = 1 << 20
SMALL_DICTIONARY = 4096


def _compact(column: pa.ChunkedArray) -> pa.Array:
    """A dictionary column of one row group, keeping only the values it uses."""
    if not pa.types.is_dictionary(column.type):
        return column.combine_chunks()
    column = column.unify_dictionaries().combine_chunks() if column.num_chunks != 1 \
        else column.chunk(0)
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
