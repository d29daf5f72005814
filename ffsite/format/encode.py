"""Votes held as their small parts, for writers that have millions of them.

An importer knows its votes as a few tables: one row per comparison (dataset, ids,
models, metadata), one row per annotator (role, judge, trait), and per vote a comparison,
an annotator and a code.  `encode_votes` sorts that into the format's order and keeps it
so: every column is a sorted dictionary of its distinct values plus a code per
comparison or per annotator.  The writer's checks read per-vote codes one column at a
time, so the sixteen per-vote columns of the long shape never sit in memory at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ffsite.format import schema
from ffsite.format._columns import codes_of, dictionary_array, narrowest

ANNOTATOR_COLUMNS = ("role", "judge", "trait_id", "trait", "trait_set")


@dataclass(frozen=True)
class Column:
    """One column: a code per owner (comparison or annotator; -1 for null) into a sorted
    dictionary."""

    owner: str  # "comparison" or "annotator"
    codes: np.ndarray
    dictionary: pa.Array


@dataclass(frozen=True)
class EncodedVotes:
    """A sorted votes table kept as its parts (see the module docstring)."""

    schema: pa.Schema
    columns: dict[str, Column]
    comparison: np.ndarray  # per vote, in the file's order: its comparison's position
    annotator: np.ndarray  # per vote: its annotator's position
    vote: np.ndarray  # per vote: its code (schema.VOTE_CODES)
    seed: np.ndarray | None  # per vote, -1 for none; None when no vote has a seed
    note: pa.Array | None  # per vote; None when no vote has a note

    @property
    def num_rows(self) -> int:
        return len(self.vote)

    @property
    def column_names(self) -> list[str]:
        return self.schema.names

    def codes(self, name: str) -> tuple[np.ndarray, list]:
        """Per-vote codes and distinct values of a column, as `_columns.codes_of` gives."""
        if name in self.columns:
            column = self.columns[name]
            return (column.codes.astype(narrowest(len(column.dictionary)))[self._owners(column)],
                    column.dictionary.to_pylist())
        if name == "vote":
            return (self.vote - 1).astype(np.int8), list(schema.VOTE_VALUES)
        if name == "seed" and self.seed is not None:
            return codes_of(pa.array(self.seed, pa.int64(), mask=self.seed < 0))
        if name == "note" and self.note is not None:
            return codes_of(self.note)
        return np.full(self.num_rows, -1, dtype=np.int8), []

    def to_table(self) -> pa.Table:
        """The votes spelled out, one row per vote (version 1's long shape)."""
        arrays = []
        for field in self.schema:
            name = field.name
            if name in self.columns:
                column = self.columns[name]
                arrays.append(dictionary_array(column.codes[self._owners(column)],
                                                column.dictionary))
            elif name == "vote":
                arrays.append(pa.DictionaryArray.from_arrays(
                    pa.array(self.vote.astype(np.int32) - 1), pa.array(schema.VOTE_VALUES)))
            elif name == "seed":
                arrays.append(pa.nulls(self.num_rows, pa.int64()) if self.seed is None else
                              pa.array(self.seed, pa.int64(), mask=self.seed < 0))
            else:  # note
                notes = pa.nulls(self.num_rows, pa.string()) if self.note is None else \
                    self.note
                arrays.append(notes.dictionary_encode())
        return pa.Table.from_arrays([a.cast(f.type) for a, f in zip(arrays, self.schema,
                                                                    strict=True)],
                                    schema=self.schema)

    def _owners(self, column: Column) -> np.ndarray:
        """Per vote, the position of the row that owns the column's value."""
        return self.comparison if column.owner == "comparison" else self.annotator


def encode_votes(comparisons: pd.DataFrame, annotators: pd.DataFrame,
                 vote_comparison: np.ndarray, vote_annotator: np.ndarray, vote: np.ndarray,
                 *, seed: np.ndarray | None = None, note: Sequence[str | None] | None = None
                 ) -> EncodedVotes:
    """Sort votes into the format's order without spelling out every row.

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
    if seed is not None and (np.asarray(seed) < 0).all():
        seed = None
    order = None
    grid = None if seed is not None else _grid(comparison_rank, annotator_rank,
                                              vote_comparison, vote_annotator)
    if grid is not None:
        comparison_order, annotator_order, within = grid
        width = len(within)
        sorted_comparison = np.repeat(comparison_order.astype(np.int32), width)
        sorted_annotator = np.tile(annotator_order.astype(np.int32), len(comparison_order))
        vote = vote.reshape(-1, width)[comparison_order][:, within].reshape(-1)
        if note is not None:
            order = (comparison_order[:, None] * width + within[None, :]).reshape(-1)
    else:
        seeds = np.full(len(vote), -1, np.int64) if seed is None else np.asarray(seed, np.int64)
        order = np.lexsort((seeds, annotator_rank[vote_annotator],
                            comparison_rank[vote_comparison]))
        sorted_comparison = vote_comparison[order].astype(np.int32)
        sorted_annotator = vote_annotator[order].astype(np.int32)
        vote = vote[order]
        seed = None if seed is None else seeds[order]
    meta_columns = sorted(c for c in comparisons.columns if c.startswith(schema.META_PREFIX))
    columns = {name: Column("comparison", *_sorted_dictionary(comparisons[name]))
               for name in (*schema.COMPARISON_COLUMNS, *meta_columns)}
    columns.update({name: Column("annotator", *_sorted_dictionary(annotators[name]))
                    for name in ANNOTATOR_COLUMNS})
    notes = None if note is None else pa.array(list(note), pa.string()).take(pa.array(order))
    return EncodedVotes(schema.votes_schema(meta_columns), columns, sorted_comparison,
                        sorted_annotator, vote, seed, notes)


def _grid(comparison_rank: np.ndarray, annotator_rank: np.ndarray,
          vote_comparison: np.ndarray, vote_annotator: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """When every comparison carries the same annotators in the same order (the usual
    importer output), sorting the comparisons and that one annotator sequence sorts every
    vote: (comparisons in order, annotators in order, their places within a comparison's
    votes).  None when the votes do not have that shape."""
    n_comparisons = len(comparison_rank)
    if n_comparisons == 0 or len(vote_comparison) == 0 or len(vote_comparison) % n_comparisons:
        return None
    width = len(vote_comparison) // n_comparisons
    grid = vote_annotator.reshape(n_comparisons, width)
    if not ((vote_comparison.reshape(n_comparisons, width)
             == np.arange(n_comparisons)[:, None]).all() and (grid == grid[0]).all()):
        return None
    if len(np.unique(grid[0])) != width:
        return None  # one annotator twice per comparison: leave it to the full sort
    within = np.argsort(annotator_rank[grid[0]], kind="stable")
    return np.argsort(comparison_rank, kind="stable"), grid[0][within], within


def _rank_rows(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Each row's position when the frame is sorted by `keys` (missing values last)."""
    order = frame.reset_index(drop=True).sort_values(keys, kind="stable",
                                                     na_position="last").index.to_numpy()
    rank = np.empty(len(frame), dtype=np.int64)
    rank[order] = np.arange(len(frame))
    return rank


def _sorted_dictionary(values: pd.Series) -> tuple[np.ndarray, pa.Array]:
    """Codes (-1 for null) into the sorted distinct values.

    Sorted, so the bytes written do not depend on the order in which the caller happened
    to list comparisons or annotators.
    """
    encoded = pa.array(values.astype(object), pa.string(), from_pandas=True).dictionary_encode()
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order) + 1, dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    rank[-1] = -1  # null codes (-1) index the last slot
    return (rank[encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)],
            encoded.dictionary.take(pa.array(order)))
