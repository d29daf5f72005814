"""Votes from their small parts, laid out as format 2 in memory.

An importer knows its votes as a few tables: one row per comparison (dataset, ids,
models, metadata), one row per annotator (role, judge, trait), and per vote a comparison,
an annotator and a code.  `encode_votes` lays that out as the file will hold it — one row
per comparison, one vote column per annotator and seed — sorting only the small tables,
so an importer with millions of votes never sorts or hashes anything per vote.  The
writer checks the result with the reader's own code (`_wide.unpack`) and writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ffsite._text import CONTROL, MAX_TEXT, text_problem
from ffsite.errors import FfsiteError
from ffsite.format import _wide, schema
from ffsite.format._columns import dictionary_array


@dataclass(frozen=True)
class EncodedVotes:
    """Votes in format 2's shape: the table to write and its `vote_columns` entries."""

    table: pa.Table
    entries: list[dict]

    @property
    def num_rows(self) -> int:
        """The number of votes."""
        return sum(self.table.num_rows - self.table.column(f"{_wide.VOTE_PREFIX}{n}").null_count
                   for n in range(len(self.entries)))

    def to_table(self) -> pa.Table:
        """The votes one per row, in format 1's columns (for looking at them)."""
        return _wide.long_rows(self.table, self.entries)


def _refuse_bad_text(column: str, values: pa.Array, owner: Callable[[int], object],
                     what: str) -> None:
    """A text the readers refuse (too long, control characters) would make a file nobody
    can read: refuse it here, naming the comparison (or annotator) it belongs to."""
    lengths = pc.utf8_length(values).fill_null(0).to_numpy(zero_copy_only=False)
    bad = lengths > MAX_TEXT
    bad |= pc.match_substring_regex(values, CONTROL.pattern).fill_null(False).to_numpy(
        zero_copy_only=False)
    if bad.any():
        code = int(np.argmax(bad))
        raise FfsiteError(f"{what} '{str(owner(code))[:80]}': {column}: "
                          f"{text_problem(values[code].as_py())}")


def encode_votes(comparisons: pd.DataFrame, annotators: pd.DataFrame,
                 vote_comparison: np.ndarray, vote_annotator: np.ndarray, vote: np.ndarray,
                 *, seed: Sequence[int | None] | None = None,
                 note: Sequence[str | None] | None = None,
                 margin: Sequence[int | None] | None = None) -> EncodedVotes:
    """Lay votes out as format 2, sorted, without touching strings per vote.

    `comparisons` has one row per comparison (the comparison columns and any `meta.*`),
    `annotators` one row per annotator (role, judge, trait_id, trait, trait_set); each vote
    points into them by position, with a vote code from `schema.VOTE_CODES`, an optional
    seed (None for none), an optional note and an optional margin (1-5, version 3).
    Comparisons without a vote are left out, as
    a file one row per vote would leave them out.
    """
    vote_comparison, vote_annotator = np.asarray(vote_comparison), np.asarray(vote_annotator)
    vote = np.asarray(vote, dtype=np.int8)
    if len(vote) and (vote.min() < 1 or vote.max() > len(schema.VOTE_VALUES)):
        raise ValueError("vote codes must be 1 .. 6 (schema.VOTE_CODES)")

    used = np.zeros(len(comparisons), dtype=bool)
    used[vote_comparison] = True
    positions = np.flatnonzero(used)
    meta_columns = sorted(c for c in comparisons.columns if c.startswith(schema.META_PREFIX))
    columns = {name: _sorted_codes(comparisons[name].iloc[positions])
               for name in (*schema.COMPARISON_COLUMNS, *meta_columns)}
    for name, (codes, values) in columns.items():
        _refuse_bad_text(name, values, lambda code, c=codes: comparisons["comparison_id"].iloc[
            positions[int(np.argmax(c == code))]], "comparison")
    for name in schema.ANNOTATOR_COLUMNS:
        _refuse_bad_text(name, pa.array(annotators[name], type=pa.string()),
                     lambda code: annotators["judge"].iloc[code], "annotator")
    order = np.lexsort([_missing_last(columns[name][0]) for name in ("comparison_id",
                                                                      "dataset")])
    row_of = np.full(len(comparisons), -1, dtype=np.int32)
    row_of[positions[order]] = np.arange(len(order), dtype=np.int32)

    # A column per distinct (annotator, seed), in (role, judge, trait_id, seed) order;
    # seed rank 0 is "no seed".
    described = [[None if pd.isna(value) else value for value in annotators[name]]
                 for name in ("role", "judge", "trait_id")]
    ranked = sorted(range(len(annotators)),
                    key=lambda i: schema.annotator_order(*(column[i] for column in described)))
    annotator_rank = np.empty(len(annotators), dtype=np.int32)
    annotator_rank[ranked] = np.arange(len(annotators), dtype=np.int32)
    seeds, seed_rank = _seed_ranks(seed)
    cell = annotator_rank[vote_annotator]
    if seeds:
        cell = cell * (len(seeds) + 1) + seed_rank
    present = np.zeros(len(annotators) * (len(seeds) + 1), dtype=bool)
    present[cell] = True
    keys = np.flatnonzero(present)  # the columns, in order
    column_of = np.zeros(len(present), dtype=np.int32)
    column_of[keys] = np.arange(len(keys), dtype=np.int32)
    column = column_of[cell]
    votes = _scatter(vote, column, row_of[vote_comparison], len(keys), len(order))

    by_rank = np.argsort(annotator_rank)
    entries = []
    for key in keys.tolist():
        rank, seed_number = divmod(key, len(seeds) + 1)
        row = annotators.iloc[int(by_rank[rank])]
        entry = {name: None if pd.isna(row[name]) else str(row[name])
                 for name in schema.ANNOTATOR_COLUMNS}
        entry["seed"] = seeds[seed_number - 1] if seed_number else None
        entries.append(entry)

    arrays = {name: dictionary_array(codes[order], dictionary)
              for name, (codes, dictionary) in columns.items()}
    for number in range(len(keys)):
        arrays[f"{_wide.VOTE_PREFIX}{number}"] = _wide.vote_array(votes[number])
    if note is not None:
        arrays.update(_note_columns(note, column, row_of[vote_comparison], votes.shape))
    if margin is not None:
        arrays.update(_margin_columns(margin, column, row_of[vote_comparison], votes.shape))
    return EncodedVotes(pa.table(arrays), entries)


def _seed_ranks(seed: Sequence[int | None] | None) -> tuple[list[int], np.ndarray | None]:
    """The distinct seeds, sorted, and per vote 0 for no seed, else 1 + its seed's rank."""
    if seed is None:
        return [], None
    values = pd.array(seed, dtype="Int64")
    missing = np.asarray(values.isna())
    numbers = values.to_numpy(dtype=np.int64, na_value=0)
    seeds = sorted(set(numbers[~missing].tolist()))
    rank = (np.searchsorted(np.array(seeds, dtype=np.int64), numbers) + 1).astype(np.int32)
    rank[missing] = 0
    return seeds, rank


def _scatter(vote: np.ndarray, column: np.ndarray, row: np.ndarray, n_columns: int,
             n_rows: int) -> np.ndarray:
    """votes[column, row] = vote, refusing two votes in one cell."""
    votes = np.zeros((n_columns, n_rows), dtype=np.int8)  # 0: no vote
    if n_columns and len(vote) == n_columns * n_rows:
        columns, rows = column.reshape(n_rows, n_columns), row.reshape(n_rows, n_columns)
        if ((columns == columns[0]).all() and len(np.unique(columns[0])) == n_columns
                and (rows == rows[:, :1]).all()):
            # Comparison by comparison, the same columns in the same order (the usual
            # import): each comparison is one group, so nothing can collide.
            votes[np.ix_(columns[0], rows[:, 0])] = vote.reshape(n_rows, n_columns).T
            return votes
    votes[column, row] = vote
    if np.count_nonzero(votes) != len(vote):
        raise FfsiteError("two votes of one judge with one seed on the same comparison and "
                          "trait; give repeated votes distinct seeds")
    return votes


def _note_columns(note: Sequence[str | None], column: np.ndarray, row: np.ndarray,
                  shape: tuple[int, int]) -> dict[str, pa.Array]:
    """A `note:<n>` column for each vote column with a note."""
    notes = pa.array(list(note), pa.string()).dictionary_encode()
    codes = notes.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    written = np.full(shape, -1, dtype=np.int64)
    written[column, row] = codes
    return {f"{_wide.NOTE_PREFIX}{number}": dictionary_array(
        written[number], notes.dictionary).dictionary_decode()
        for number in np.flatnonzero((written >= 0).any(axis=1)).tolist()}


def _margin_columns(margin: Sequence[int | None], column: np.ndarray, row: np.ndarray,
                    shape: tuple[int, int]) -> dict[str, pa.Array]:
    """A `margin:<n>` column (int8, null for none) for each vote column with a margin."""
    values = pd.array(margin, dtype="Int64").to_numpy(dtype=np.int64, na_value=0)
    written = np.zeros(shape, dtype=np.int64)
    written[column, row] = values
    return {f"{_wide.MARGIN_PREFIX}{number}": pa.array(
        written[number].astype(np.int8), pa.int8(), mask=written[number] == 0)
        for number in np.flatnonzero((written != 0).any(axis=1)).tolist()}


def _sorted_codes(values: pd.Series) -> tuple[np.ndarray, pa.Array]:
    """Codes (-1 for missing) into the column's distinct values, sorted.

    Sorted, so the bytes written do not depend on the order in which the caller happened
    to list comparisons.
    """
    encoded = pa.Array.from_pandas(values, type=pa.string()).dictionary_encode()
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order) + 1, dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    rank[-1] = -1  # null codes (-1) index the last slot
    return (rank[encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)],
            encoded.dictionary.take(pa.array(order)))


def _missing_last(codes: np.ndarray) -> np.ndarray:
    return np.where(codes < 0, np.iinfo(np.int32).max, codes)
