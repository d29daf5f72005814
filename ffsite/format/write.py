"""Write annotation files: validated, sorted, dictionary-encoded, compressed, atomic."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ffsite._atomic import atomic_path
from ffsite.format import _checked, schema

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
    comparison_rank = _rank_rows(comparisons, ["dataset", "comparison_id"])
    annotator_rank = _rank_rows(annotators, ["role", "judge", "trait_id"])
    vote_comparison = np.asarray(vote_comparison)
    vote_annotator = np.asarray(vote_annotator)
    vote = np.asarray(vote, dtype=np.int8)
    grid = None if seed is not None else _grid(comparison_rank, annotator_rank,
                                              vote_comparison, vote_annotator)
    if grid is not None:
        layout = grid
    else:
        seed = np.full(len(vote), -1, np.int64) if seed is None else np.asarray(seed, np.int64)
        layout = _Sorted(np.lexsort((seed, annotator_rank[vote_annotator],
                                     comparison_rank[vote_comparison])),
                         vote_comparison, vote_annotator)
    meta_columns = sorted(c for c in comparisons.columns if c.startswith(schema.META_PREFIX))
    target = schema.votes_schema(meta_columns)
    arrays: dict[str, pa.Array] = {}
    for name in (*schema.COMPARISON_COLUMNS, *meta_columns):
        arrays[name] = _dictionary_take(comparisons[name], layout.by_comparison)
    for name in ("role", "judge", "trait_id", "trait", "trait_set"):
        arrays[name] = _dictionary_take(annotators[name], layout.by_annotator)
    if seed is None or (seed < 0).all():
        arrays["seed"] = pa.nulls(len(vote), pa.int64())
    else:
        seed = layout.sort(seed)
        arrays["seed"] = pa.array(seed, pa.int64(), mask=seed < 0)
    codes = layout.sort(vote).astype(np.int32) - 1
    arrays["vote"] = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()),
                                                    pa.array(schema.VOTE_VALUES))
    if note is None:
        arrays["note"] = pa.nulls(len(vote), pa.string()).dictionary_encode()
    else:
        notes = pa.array(list(note), pa.string())
        arrays["note"] = notes.take(pa.array(layout.order())).dictionary_encode()
    return pa.Table.from_arrays([arrays[f.name].cast(f.type) for f in target], schema=target)


class _Sorted:
    """Votes in any order, sorted by a full permutation."""

    def __init__(self, order: np.ndarray, vote_comparison: np.ndarray,
                 vote_annotator: np.ndarray):
        self._order = order
        self._comparison = vote_comparison[order]
        self._annotator = vote_annotator[order]

    def by_comparison(self, codes: np.ndarray) -> np.ndarray:
        return codes[self._comparison]

    def by_annotator(self, codes: np.ndarray) -> np.ndarray:
        return codes[self._annotator]

    def sort(self, values: np.ndarray) -> np.ndarray:
        return values[self._order]

    def order(self) -> np.ndarray:
        return self._order


class _Grid:
    """Every comparison carries the same annotators in the same order (the usual importer
    output): sorting the comparisons and that one annotator sequence sorts every vote, and
    per-vote columns are repeats and tiles, not gathers."""

    def __init__(self, comparison_order: np.ndarray, annotators: np.ndarray,
                 within: np.ndarray):
        self.comparison_order = comparison_order
        self.annotators = annotators  # annotator positions, in sorted order
        self.within = within  # their places in each comparison's run of votes

    def by_comparison(self, codes: np.ndarray) -> np.ndarray:
        return np.repeat(codes[self.comparison_order], len(self.within))

    def by_annotator(self, codes: np.ndarray) -> np.ndarray:
        return np.tile(codes[self.annotators], len(self.comparison_order))

    def sort(self, values: np.ndarray) -> np.ndarray:
        width = len(self.within)
        return values.reshape(-1, width)[self.comparison_order][:, self.within].reshape(-1)

    def order(self) -> np.ndarray:
        width = len(self.within)
        return (self.comparison_order[:, None] * width + self.within[None, :]).reshape(-1)


def _grid(comparison_rank: np.ndarray, annotator_rank: np.ndarray,
          vote_comparison: np.ndarray, vote_annotator: np.ndarray) -> _Grid | None:
    """The grid layout of the votes, or None when they do not have that shape."""
    n_comparisons = len(comparison_rank)
    if n_comparisons == 0 or len(vote_comparison) % n_comparisons:
        return None
    width = len(vote_comparison) // n_comparisons
    grid = vote_annotator.reshape(n_comparisons, width)
    if not ((vote_comparison.reshape(n_comparisons, width)
             == np.arange(n_comparisons)[:, None]).all() and (grid == grid[0]).all()):
        return None
    if len(np.unique(grid[0])) != width:
        return None  # one annotator twice per comparison: leave it to the full sort
    within = np.argsort(annotator_rank[grid[0]], kind="stable")
    return _Grid(np.argsort(comparison_rank, kind="stable"), grid[0][within], within)


def _rank_rows(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Each row's position when the frame is sorted by `keys` (missing values last)."""
    order = frame.reset_index(drop=True).sort_values(keys, kind="stable",
                                                     na_position="last").index.to_numpy()
    rank = np.empty(len(frame), dtype=np.int64)
    rank[order] = np.arange(len(frame))
    return rank


def _dictionary_take(values: pd.Series, expand: Callable[[np.ndarray], np.ndarray]
                     ) -> pa.DictionaryArray:
    """Encode the (few) distinct values once, then spread one code per vote with numpy.

    The dictionary is sorted, so the bytes written do not depend on the order in which
    the caller happened to list comparisons or annotators.
    """
    encoded = pa.array(values.astype(object), pa.string(), from_pandas=True).dictionary_encode()
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order) + 1, dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    rank[-1] = -1  # null codes (-1) index the last slot
    codes = rank[encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)]
    missing = codes < 0
    if missing.any():
        return pa.DictionaryArray.from_arrays(
            pa.array(expand(np.where(missing, 0, codes)), pa.int32(), mask=expand(missing)),
            encoded.dictionary.take(pa.array(order)))
    return pa.DictionaryArray.from_arrays(pa.array(expand(codes), pa.int32()),
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
    # Check on a second thread while Arrow encodes (both release the GIL for the heavy
    # parts); the file only replaces its target once the check has passed.
    with ThreadPoolExecutor(max_workers=1) as pool:
        checking = pool.submit(check_votes_table, table, metadata, str(path))

        def remember_checked(written: Path) -> None:
            # These exact bytes were just checked: a first read need not check them again.
            piece = checking.result()
            _checked.store(_checked.digest(written), None, piece, metadata)

        write_parquet(table, metadata, path, before_replace=remember_checked)
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


def write_parquet(table: pa.Table, metadata: dict[str, Any], path: str | os.PathLike, *,
                  before_replace: Callable[[Path], None] | None = None) -> None:
    """Write `table` with its `ffsite` metadata, atomically.

    `before_replace` sees the finished temporary file; if it raises, the target is left
    as it was.

    Each row group gets its own compact dictionaries: a dictionary column carried over
    whole (say 1M comparison ids) would otherwise be stored in full in every row group,
    and readers would spend seconds re-hashing it.
    """
    encoded = json.dumps(metadata, sort_keys=True, ensure_ascii=False).encode("utf-8")
    table = table.replace_schema_metadata({schema.METADATA_KEY: encoded})
    with atomic_path(Path(path)) as tmp:
        with pq.ParquetWriter(tmp, table.schema, compression="zstd", compression_level=9,
                              use_dictionary=True, write_statistics=False) as writer:
            for start in range(0, max(table.num_rows, 1), ROW_GROUP_ROWS):
                part = table.slice(start, ROW_GROUP_ROWS)
                columns = [_compact(column) for column in part.columns]
                writer.write_table(pa.Table.from_arrays(columns, schema=table.schema),
                                   row_group_size=ROW_GROUP_ROWS)
        if before_replace is not None:
            before_replace(tmp)


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
