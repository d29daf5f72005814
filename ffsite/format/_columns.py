"""Columns of votes one per row (a version 1 file, or a writer's long frame) as integer
codes: the version 1 reader's raw material; `codes_of` and `dictionary_array` serve both
versions.

Every string column becomes codes into its distinct values (dictionary encoding), in the
narrowest integer type that fits.  `ColumnReader` hands out one column at a time while
the next ones are read on other threads, so memory holds a few columns' worth.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite._text import text_problem
from ffsite.errors import FfsiteError


def unreadable(path, exc: BaseException) -> FfsiteError:
    """The error for a Parquet file Arrow cannot read (often a truncated copy)."""
    return FfsiteError(f"{path}: cannot read the Parquet data ({first_line(exc)}); the file "
                       "may be truncated; re-create it")


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Arrow's can run to many lines)."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def codes_of(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list]:
    """Integer codes (-1 for null) and the distinct values of a column.

    Codes use the narrowest integer type that fits, so 40 million votes of a column
    with a handful of values take 40 MB, not 160.
    """
    if column.null_count == len(column):  # e.g. no seeds at all: nothing to encode
        return np.full(len(column), -1, dtype=np.int8), []
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    # Row groups each bring their own dictionary; map them onto one.
    column = column.unify_dictionaries()
    dictionary = column.chunk(0).dictionary
    codes = np.empty(len(column), dtype=narrowest(len(dictionary)))
    position = 0
    for chunk in column.chunks:
        indices = chunk.indices
        if indices.null_count:
            indices = indices.fill_null(-1)
        codes[position:position + len(indices)] = indices.to_numpy(zero_copy_only=False)
        position += len(indices)
    return codes, dictionary.to_pylist()


def dictionary_array(codes: np.ndarray, dictionary: pa.Array,
                     index_type: pa.DataType | None = None) -> pa.DictionaryArray:
    """The inverse of `codes_of`: codes (-1 for null) and values as an Arrow array.

    Null slots point at entry 0, not -1: some readers look up indices before validity.
    """
    index_type = index_type or pa.int32()
    missing = codes < 0
    if missing.any():
        return pa.DictionaryArray.from_arrays(
            pa.array(np.where(missing, 0, codes), index_type, mask=missing), dictionary)
    return pa.DictionaryArray.from_arrays(pa.array(codes, index_type), dictionary)


def narrowest(count: int) -> type:
    """The smallest signed integer type holding codes -1 .. count - 1."""
    for dtype in (np.int8, np.int16, np.int32):
        if count < np.iinfo(dtype).max:
            return dtype
    return np.int64


def ranks(dictionary: list) -> np.ndarray:
    """Rank of each dictionary value in sorted order, nulls (code -1) ranked last.

    Indexed by code + 1, so `ranks[codes + 1]` works for null codes too.
    """
    order = sorted(range(len(dictionary)), key=lambda i: dictionary[i])
    ranks = np.empty(len(dictionary) + 1, dtype=np.int64)
    ranks[0] = len(dictionary)
    ranks[np.array(order, dtype=np.int64) + 1] = np.arange(len(dictionary))
    return ranks


def first_rows(groups: np.ndarray, count: int) -> np.ndarray:
    """Row index of the first member of each group 0..count-1.

    Groups such as annotators all show up early, so look at a prefix first and scan the
    whole array only if some group is still missing.
    """
    for end in (min(len(groups), 1 << 16), len(groups)):
        first = np.full(count, -1, dtype=np.int64)
        order = np.arange(end - 1, -1, -1)
        first[groups[:end][order]] = order  # reversed: the earliest row writes last, wins
        if (first >= 0).all():
            return first
    return first


AHEAD = 2  # columns read ahead of the checks, each on its own thread


class ColumnReader:
    """Columns of one file, each read and coded in turn.

    For files on disk, the next AHEAD planned columns are read on their own threads while
    the checks work on the current one (Arrow releases the GIL while decoding), which
    keeps both cores busy; memory holds about AHEAD + 1 columns' worth at a time.  `only`
    restricts the columns read.
    """

    def __init__(self, source: str, table: pa.Table | None = None,
                 parquet: pq.ParquetFile | None = None, only: Collection[str] | None = None):
        self.source = source
        self.table = table
        self.parquet = parquet
        names = table.column_names if table is not None else parquet.schema_arrow.names
        self.names = names
        self.selected = set(names) if only is None else set(names) & set(only)
        self._futures: dict[str, Future] = {}
        self._pool = ThreadPoolExecutor(max_workers=AHEAD) if parquet is not None else None
        self._local = threading.local()

    def wanted(self, name: str) -> bool:
        return name in self.selected

    def read_ahead(self, name: str) -> None:
        """Start reading `name` in the background (files on disk only)."""
        if self._pool is not None and name in self.selected and name not in self._futures:
            self._futures[name] = self._pool.submit(self._read, name)

    def plan(self, names: list[str]) -> None:
        """The order columns will be asked for, so reads can start AHEAD steps early."""
        self._plan = [name for name in names if name in self.selected]
        for upcoming in self._plan[:AHEAD]:
            self.read_ahead(upcoming)

    def codes(self, name: str) -> tuple[np.ndarray, list]:
        """Codes of `name` (refused if a text is too long); meanwhile start reading the
        next planned columns."""
        if self.table is not None:
            codes, values = codes_of(self.table.column(name))
        else:
            plan = getattr(self, "_plan", [])
            if name in plan:
                for upcoming in plan[plan.index(name) + 1:plan.index(name) + 1 + AHEAD]:
                    self.read_ahead(upcoming)
            self.read_ahead(name)
            codes, values = self._futures.pop(name).result()
        bad = first_bad_text(codes, values)
        if bad is not None:
            self.fail(name, *bad)
        return codes, values

    def close(self) -> None:
        if self._pool is not None:
            for future in self._futures.values():
                future.cancel()
            self._pool.shutdown(wait=True)

    def _read(self, name: str) -> tuple[np.ndarray, list]:
        try:
            # Each thread reads through its own handle: one ParquetFile read from two
            # threads at once can hang.
            if not hasattr(self._local, "parquet"):
                self._local.parquet = pq.ParquetFile(self.source)
            parquet = self._local.parquet
            # Row group by row group: reading them all at once costs several times more.
            # Without Arrow's own threads: ours already keep both cores busy, and more
            # threads than cores made a 4.1M-vote read 15 ms slower.
            column = pa.chunked_array(
                [chunk for group in range(parquet.num_row_groups)
                 for chunk in parquet.read_row_group(group, columns=[name],
                                                     use_threads=False).column(0).chunks],
                type=parquet.schema_arrow.field(name).type)
        except (pa.ArrowInvalid, OSError) as exc:
            reason = first_line(exc)
            raise FfsiteError(f"{self.source}: cannot read column '{name}' ({reason}); the "
                              "file may be truncated; re-create it") from None
        return codes_of(column)

    def fail(self, column: str, row: int | None, message: str) -> None:
        where = f", row {row}" if row is not None else ""
        raise FfsiteError(f"{self.source}: column '{column}'{where}: {message}")


def decode(codes: np.ndarray, dictionary: list) -> pd.Categorical:
    """Codes and values as a pandas Categorical."""
    try:
        return pd.Categorical.from_codes(codes, categories=pd.Index(dictionary, dtype=object))
    except ValueError:  # repeated dictionary values (not from ffsite): decode the slow way
        return pd.Categorical(np.array([*dictionary, None], dtype=object)[codes])


def first_empty(codes: np.ndarray, values: list) -> int | None:
    """The first row that is null or the empty string, or None."""
    empty = codes < 0
    if "" in values:
        empty = empty | (codes == values.index(""))
    return int(np.argmax(empty)) if empty.any() else None


def first_bad_text(codes: np.ndarray, values: list) -> tuple[int, str] | None:
    """(row, why) of the first row whose text `text_problem` refuses, or None.  Checked
    on the distinct values, so a column of millions of rows costs a handful of checks."""
    for code, value in enumerate(values):
        problem = text_problem(value)
        if problem:
            return int(np.argmax(codes == code)), problem
    return None
