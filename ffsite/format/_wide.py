"""Format 2: one row per comparison, one vote column per annotator (and seed).

Version 1 repeats the comparison's and the annotator's columns on every vote row, so a
reader decodes eight columns of every vote to learn what format 2 says in its shape: a
row is a comparison, a column `vote:<n>` holds the votes of the annotator described by
entry n of the metadata's `vote_columns`.  Reading 4.1M votes this way decodes 41 small
columns of 100k one-byte codes, and a repeated vote (same judge, trait and seed on one
comparison) cannot be written at all.

`encode.encode_votes` lays votes out this way; `unpack` checks a wide table against the
rules (docs/format.md) and returns the same `CodedVotes` as the version 1 reader;
`long_rows` spells a wide table out one row per vote, for people looking at a file.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format._columns import (
    codes_of,
    decode,
    dictionary_array,
    first_bad_text,
    first_empty,
    text_problem,
)
from ffsite.format.coded import CodedVotes

VOTE_PREFIX = "vote:"
NOTE_PREFIX = "note:"
MARGIN_PREFIX = "margin:"
ENTRY_FIELDS = (*schema.ANNOTATOR_COLUMNS, "seed")
_VOTE_DICTIONARY = pa.array(schema.VOTE_VALUES, pa.string())


def vote_array(codes: np.ndarray) -> pa.DictionaryArray:
    """One vote column from vote codes (0: no vote, stored as null)."""
    return dictionary_array(codes.astype(np.int8) - 1, _VOTE_DICTIONARY, pa.int8())


def unpack(table: pa.Table, metadata: dict[str, Any], source: str, *,
           wanted: set[str] | None = None, names: list[str] | None = None) -> CodedVotes:
    """Check a wide table (every rule of format 2) and return its votes, coded.

    `wanted` limits the optional comparison columns, as the version 1 reader's `only`;
    `names` are the file's columns when `table` holds only those read.
    """
    fail = _Failure(source)
    entries = _entries(metadata.get("vote_columns"), fail)
    names = table.column_names if names is None else names
    for name in schema.COMPARISON_COLUMNS:
        if name not in names:
            fail.column(name, None, "missing; every votes file needs the columns "
                        + ", ".join(schema.COMPARISON_COLUMNS) + " and its vote columns")
    for name in names:
        if name.startswith((VOTE_PREFIX, NOTE_PREFIX, MARGIN_PREFIX)):
            number = name.partition(":")[2]
            if not (number.isdigit() and int(number) < len(entries)
                    and name == f"{name.partition(':')[0]}:{int(number)}"):
                fail.column(name, None, f"not one of the {len(entries)} vote columns the "
                            "metadata's vote_columns describes; describe it there or drop it")
    for number in range(len(entries)):
        if f"{VOTE_PREFIX}{number}" not in names:
            fail.column(f"{VOTE_PREFIX}{number}", None, "missing; the metadata's "
                        f"vote_columns[{number}] describes it; add it or drop that entry")

    dataset_codes, datasets = _filled(table, "dataset", fail)
    id_codes, ids = _filled(table, "comparison_id", fail)
    _unique_comparisons(dataset_codes, datasets, id_codes, ids, fail)
    meta_columns = sorted(n for n in names if n.startswith(schema.META_PREFIX))
    comparisons = {"dataset": decode(dataset_codes, datasets),
                   "comparison_id": decode(id_codes, ids)}
    n_comparisons = table.num_rows
    for name in [*schema.COMPARISON_COLUMNS[2:], *meta_columns]:
        if wanted is not None and name not in wanted:
            if name in schema.COMPARISON_COLUMNS:  # keep the standard columns, empty
                comparisons[name] = decode(np.full(n_comparisons, -1, np.int8), [])
            continue
        comparisons[name] = decode(*_text_codes(table, name, fail))

    annotator_of, annotators = _annotators(entries)
    seed_rank = _seed_ranks(entries)
    order = np.lexsort((seed_rank, annotator_of))  # columns in annotator, seed order
    votes = np.zeros((n_comparisons, len(entries)), dtype=np.int8)
    for place, number in enumerate(order.tolist()):
        name = f"{VOTE_PREFIX}{number}"
        codes, values = _text_codes(table, name, fail)
        # -1: not a vote; the last slot is for nulls (code -1): no vote.
        lookup = np.array([schema.VOTE_CODES.get(value, -1) for value in values] + [0],
                          dtype=np.int8)
        column = lookup[codes]
        if (column < 0).any():  # only values in use count: a dictionary may hold others
            row = int(np.argmax(column < 0))
            fail.column(name, row, f"'{values[codes[row]]}' is not a vote; allowed: "
                        + ", ".join(schema.VOTE_VALUES) + " (or empty for no vote)")
        votes[:, place] = column
        if f"{MARGIN_PREFIX}{number}" in names:
            _check_margins(table, number, column, metadata, fail)
    has_vote = votes != 0
    unused = ~has_vote.any(axis=0)
    if n_comparisons and unused.any():  # e.g. every cell of a trait's column emptied
        fail.column(f"{VOTE_PREFIX}{int(order[np.argmax(unused)])}", None, "holds no vote "
                    "at all; drop the column and its vote_columns entry, or the file")
    if has_vote.all():
        comparison = np.repeat(np.arange(n_comparisons, dtype=np.int32), len(entries))
        annotator = np.tile(annotator_of[order].astype(np.int32), n_comparisons)
        vote = votes.reshape(-1)
    else:
        comparison, place = np.nonzero(has_vote)
        comparison = comparison.astype(np.int32)
        annotator = annotator_of[order][place].astype(np.int32)
        vote = votes[has_vote]
    return CodedVotes(comparisons=comparisons, annotators=annotators, comparison=comparison,
                      annotator=annotator, vote=vote)


def _check_margins(table: pa.Table, number: int, votes: np.ndarray, metadata: dict[str, Any],
                   fail: _Failure) -> None:
    """A margin column (version 3): whole numbers in MARGIN_RANGE, beside A/B votes only."""
    name = f"{MARGIN_PREFIX}{number}"
    if str(metadata.get("format_version")) != schema.VERSION_3:
        fail.column(name, None, f"margins need format_version {schema.VERSION_3}; "
                    "re-write the file with this ffsite")
    if name not in table.column_names:
        return  # not read
    column = table.column(name)
    if not pa.types.is_integer(column.type):
        fail.column(name, None, f"holds {column.type}, not whole numbers")
    present = ~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    values = column.fill_null(0).to_numpy(zero_copy_only=False)
    low, high = schema.MARGIN_RANGE
    outside = present & ((values < low) | (values > high))
    if outside.any():
        row = int(np.argmax(outside))
        fail.column(name, row, f"margin {values[row]} is not {low} to {high}")
    undecided = present & (votes != schema.A) & (votes != schema.B)
    if undecided.any():
        fail.column(name, int(np.argmax(undecided)), "a margin beside a vote that is not A "
                    "or B; a margin says how strongly a side was preferred")


class _Failure:
    """One-line errors naming the file and where in it."""

    def __init__(self, source: str):
        self.source = source

    def column(self, name: str, row: int | None, message: str) -> None:
        where = f", row {row}" if row is not None else ""
        raise FfsiteError(f"{self.source}: column '{name}'{where}: {message}")

    def entry(self, number: int | None, message: str) -> None:
        where = "" if number is None else f"[{number}]"
        raise FfsiteError(f"{self.source}: metadata vote_columns{where}: {message}")


def _entries(raw: Any, fail: _Failure) -> list[dict]:
    """The metadata's vote_columns, each checked (rules 4, 5 and 7 of format 2)."""
    if not isinstance(raw, list):
        fail.entry(None, "missing or not a list; a version 2 votes file describes each "
                   "vote column there")
    seen: dict[tuple, int] = {}
    wordings: dict[str, tuple[str, int]] = {}
    for number, entry in enumerate(raw):
        if not isinstance(entry, dict):
            fail.entry(number, "not an object with role, judge, trait_id, trait, "
                       "trait_set and seed")
        extra = sorted(set(entry) - set(ENTRY_FIELDS))
        if extra:
            fail.entry(number, f"unknown key '{extra[0]}'; allowed: " + ", ".join(ENTRY_FIELDS))
        role, judge = entry.get("role"), entry.get("judge")
        if role not in schema.ROLES:
            fail.entry(number, f"role {role!r} is not a role; allowed: "
                       + ", ".join(schema.ROLES))
        if not isinstance(judge, str) or not judge:
            fail.entry(number, "judge is empty; name the annotator or judge")
        for name in ("judge", *schema.TRAIT_COLUMNS):
            problem = text_problem(entry.get(name))
            if problem:
                fail.entry(number, f"{name}: {problem}")
        for name in schema.TRAIT_COLUMNS:
            value = entry.get(name)
            if value is not None and not isinstance(value, str):
                fail.entry(number, f"{name} is not text")
            if role == schema.ROLE_TRAIT and not value:
                fail.entry(number, f"{name} is empty on a trait column; a trait column "
                           "records trait_id, trait (its wording) and trait_set")
        seed = entry.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            fail.entry(number, f"seed {seed!r} is not a whole number or null")
        key = (role, judge, entry.get("trait_id"), seed)
        if key in seen:
            fail.entry(number, f"repeats vote_columns[{seen[key]}] (same role, judge, trait "
                       "and seed); give repeated votes distinct seeds")
        seen[key] = number
        trait_id, wording = entry.get("trait_id"), entry.get("trait")
        if trait_id is not None and wording is not None:
            first = wordings.setdefault(trait_id, (wording, number))
            if first[0] != wording:
                fail.entry(number, f"trait '{trait_id}' has two different wordings (also "
                           f"vote_columns[{first[1]}]); give each wording its own trait_id")
    return raw


def _annotators(entries: list[dict]) -> tuple[np.ndarray, dict[str, pd.Categorical]]:
    """Each column's annotator number, and the annotators (distinct role, judge,
    trait_id) in the version 1 reader's order, as categoricals."""
    keys = sorted({(e["role"], e["judge"], e.get("trait_id")) for e in entries},
                  key=lambda key: schema.annotator_order(*key))
    number = {key: place for place, key in enumerate(keys)}
    annotator_of = np.array([number[(e["role"], e["judge"], e.get("trait_id"))]
                             for e in entries], dtype=np.int32)
    first = {}
    for entry in entries:
        first.setdefault((entry["role"], entry["judge"], entry.get("trait_id")), entry)
    columns = {}
    for name in schema.ANNOTATOR_COLUMNS:
        values = [first[key].get(name) for key in keys]
        distinct = sorted({v for v in values if v is not None})
        code = {value: place for place, value in enumerate(distinct)}
        columns[name] = decode(np.array([code.get(v, -1) for v in values], dtype=np.int32),
                               distinct)
    return annotator_of, columns


def _seed_ranks(entries: list[dict]) -> np.ndarray:
    """Per column, 0 for no seed, else 1 + the seed's rank among the file's seeds."""
    seeds = sorted({e["seed"] for e in entries if e.get("seed") is not None})
    rank = {seed: place + 1 for place, seed in enumerate(seeds)}
    return np.array([rank.get(e.get("seed"), 0) for e in entries], dtype=np.int64)


def _text_codes(table: pa.Table, name: str, fail: _Failure) -> tuple[np.ndarray, list]:
    column = table.column(name)
    value_type = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if not (pa.types.is_string(value_type) or pa.types.is_large_string(value_type)
            or pa.types.is_null(value_type)):
        fail.column(name, None, f"holds {value_type}, not text; store it as strings")
    codes, values = codes_of(column)
    bad = first_bad_text(codes, values)
    if bad is not None:
        fail.column(name, *bad)
    return codes, values


def _filled(table: pa.Table, name: str, fail: _Failure) -> tuple[np.ndarray, list]:
    codes, values = _text_codes(table, name, fail)
    row = first_empty(codes, values)
    if row is not None:
        fail.column(name, row, "empty value; this column must be filled on every row")
    return codes, values


def _unique_comparisons(dataset_codes: np.ndarray, datasets: list, id_codes: np.ndarray,
                        ids: list, fail: _Failure) -> None:
    """Rule 6: a comparison id appears once per dataset."""
    key = dataset_codes.astype(np.int64) * max(len(ids), 1) + id_codes
    if len(key) < 2 or (np.diff(key) > 0).all():  # the writer's order: nothing repeats
        return
    order = np.argsort(key, kind="stable")
    repeats = np.flatnonzero(np.diff(key[order]) == 0)
    if len(repeats):
        row = int(order[repeats + 1].min())
        owner = int(order[np.searchsorted(key[order], key[row])])
        fail.column("comparison_id", row, f"comparison '{ids[id_codes[row]]}' of dataset "
                    f"'{datasets[dataset_codes[row]]}' appears twice (rows {owner} and "
                    f"{row}); comparison ids must be unique within a dataset")


def long_rows(table: pa.Table, entries: list[dict]) -> pa.Table:
    """One row per vote with format 1's columns as plain strings (seed: int64), comparison
    by comparison and, within one, in the order of the vote columns."""
    n_rows = table.num_rows
    votes = np.zeros((len(entries), n_rows), dtype=np.int8)  # 0: no vote
    for number in range(len(entries)):
        codes, values = codes_of(table.column(f"{VOTE_PREFIX}{number}"))
        votes[number] = np.array([schema.VOTE_CODES.get(v, 0) for v in values] + [0],
                                 dtype=np.int8)[codes]
    comparison, column = np.nonzero(votes.T)  # comparison-major
    compared = [n for n in table.column_names
                if not n.startswith((VOTE_PREFIX, NOTE_PREFIX, MARGIN_PREFIX))]
    rows = table.select(compared).take(pa.array(comparison))
    columns = {name: _plain(rows.column(name)) for name in compared}
    for name in ENTRY_FIELDS:
        values = pa.array([entry.get(name) for entry in entries],
                          pa.int64() if name == "seed" else pa.string())
        columns[name] = values.take(pa.array(column))
    columns["vote"] = dictionary_array(votes[column, comparison].astype(np.int32) - 1,
                                       _VOTE_DICTIONARY).dictionary_decode()
    columns["note"] = _notes(table, len(entries), comparison, column)
    meta = sorted(n for n in compared if n.startswith(schema.META_PREFIX))
    names = schema.votes_schema(meta).names
    if any(name.startswith(MARGIN_PREFIX) for name in table.column_names):
        columns["margin"] = _margins(table, len(entries), comparison, column)
        names.append("margin")
    return pa.table({name: columns[name] for name in names})


def _notes(table: pa.Table, n_columns: int, comparison: np.ndarray, column: np.ndarray
           ) -> pa.Array:
    """Each vote's note, from the `note:<n>` columns there are."""
    notes = np.full((n_columns, table.num_rows), None, dtype=object)
    present = [n for n in range(n_columns) if f"{NOTE_PREFIX}{n}" in table.column_names]
    if not present:
        return pa.nulls(len(comparison), pa.string())
    for number in present:
        notes[number] = table.column(f"{NOTE_PREFIX}{number}").to_pylist()
    return pa.array(notes[column, comparison], pa.string())


def _margins(table: pa.Table, n_columns: int, comparison: np.ndarray, column: np.ndarray
             ) -> pa.Array:
    """Each vote's margin (0 in the grid, null in the result, for none)."""
    margins = np.zeros((n_columns, table.num_rows), dtype=np.int8)
    for number in range(n_columns):
        name = f"{MARGIN_PREFIX}{number}"
        if name in table.column_names:
            margins[number] = table.column(name).fill_null(0).to_numpy(zero_copy_only=False)
    values = margins[column, comparison]
    return pa.array(values, pa.int8(), mask=values == 0)


def plain_long(table: pa.Table) -> pa.Table:
    """A version 1 table (one row per vote) with plain string columns, as `long_rows`."""
    return pa.table({name: _plain(table.column(name)) for name in table.column_names})


def _plain(column: pa.ChunkedArray) -> pa.Array:
    column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    return column if column.type == pa.int64() else column.cast(pa.string())
