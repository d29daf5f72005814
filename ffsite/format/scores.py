"""Scores files: a judge's number for a trait, per response (format version 3).

One row per response (`dataset, response_id, prompt_id, model, condition, meta.*`) and one
`score:<n>` column per judge, trait and seed, described by entry n of the metadata's
`score_columns` (judge, trait_id, trait, trait_set, scale_min, scale_max, seed); an empty
cell is no score.  docs/format.md states the rules; `read_scores` checks every one of them
and stops at the first broken rule with a line naming the file, the column and the row.

The same shape carries any scale: a panel's 1-10 personality scores (Behavioral
Profiling), an AI rater's 1-5 questionnaire ratings (LMLPA), a 0-100 grade.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format._columns import text_problem, unreadable
from ffsite.format.read import find_annotation_files, read_file_metadata
from ffsite.format.write import file_metadata, write_parquet

SCORE_PREFIX = "score:"
# One row per response: these say which response it is.
RESPONSE_COLUMNS = ("dataset", "response_id", "prompt_id", "model", "condition")
REQUIRED_COLUMNS = ("dataset", "response_id", "prompt_id", "model")
# What describes a score column, in the metadata and in `Scores.columns`.
ENTRY_KEYS = ("judge", "trait_id", "trait", "trait_set", "scale_min", "scale_max", "seed")
# Long shape a writer takes: one row per score.
LONG_COLUMNS = (*RESPONSE_COLUMNS, *ENTRY_KEYS, "score")


@dataclass(frozen=True)
class Scores:
    """Scores from one or more files, merged and checked.

    `responses` has one row per (dataset, response_id); `columns` one row per (judge,
    trait_id, seed) with the trait's wording and scale; each score is `value[k]`, given
    by `judge columns[column[k]]` to response `responses[response[k]]`.
    """

    responses: pd.DataFrame
    columns: pd.DataFrame
    response: np.ndarray  # int64, into responses
    column: np.ndarray  # int64, into columns
    value: np.ndarray  # float64
    judges: dict[str, str]  # judge -> description (e.g. who sits on a panel)

    def __len__(self) -> int:
        return len(self.value)

    def long(self) -> pd.DataFrame:
        """One row per score: the response's columns, the column's entry, `score`."""
        responses = self.responses.iloc[self.response].reset_index(drop=True)
        entries = self.columns.iloc[self.column].reset_index(drop=True)
        return pd.concat([responses, entries, pd.Series(self.value, name="score")], axis=1)

    def traits(self) -> pd.DataFrame:
        """One row per trait id: trait_id, trait, trait_set, scale_min, scale_max, judge
        ('+'-joined when several judges scored it)."""
        grouped = self.columns.groupby("trait_id", sort=True)
        return pd.DataFrame({
            "trait_id": list(grouped.groups),
            "trait": grouped["trait"].first().to_numpy(),
            "trait_set": grouped["trait_set"].first().to_numpy(),
            "scale_min": grouped["scale_min"].first().to_numpy(),
            "scale_max": grouped["scale_max"].first().to_numpy(),
            "judge": grouped["judge"].agg(lambda j: "+".join(sorted(set(j)))).to_numpy(),
        })


# --------------------------------------------------------------------------- writing

def write_scores(frame: pd.DataFrame, path: str | os.PathLike, *,
                 judges: Mapping[str, str] | None = None,
                 extra: Mapping[str, Any] | None = None) -> int:
    """Check scores given one per row (LONG_COLUMNS plus `meta.*`) and write them as a
    scores file, atomically; return how many scores were written.

    `judges` describes judges (a panel's members, a rubric version); `extra` is stored
    verbatim.  Rows are sorted by dataset and response id, columns by judge, trait id
    and seed, so the same scores always give the same bytes.
    """
    source = str(path)
    missing = [name for name in (*REQUIRED_COLUMNS, *ENTRY_KEYS, "score")
               if name not in frame.columns]
    if missing:
        raise ValueError(f"scores frame lacks columns {missing}")
    frame = frame.reset_index(drop=True)
    if "condition" not in frame.columns:
        frame = frame.assign(condition=None)
    meta = sorted(c for c in frame.columns if c.startswith(schema.META_PREFIX))
    response_keys = ["dataset", "response_id"]
    for name in (*RESPONSE_COLUMNS, *meta, "judge", "trait_id", "trait", "trait_set"):
        frame[name] = _strings(frame[name])
    frame["seed"] = pd.array(frame["seed"], dtype="Int64")
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce").astype(float)
    for name in ("scale_min", "scale_max"):
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype(float)

    entries = (frame[list(ENTRY_KEYS)].drop_duplicates(["judge", "trait_id", "seed"])
               .sort_values(["judge", "trait_id", "seed"], na_position="first", kind="stable")
               .reset_index(drop=True))
    entry_list = [_entry(row) for row in entries.itertuples(index=False)]
    _check_entries(entry_list, source, "row of the scores")
    key = pd.MultiIndex.from_frame(entries[["judge", "trait_id", "seed"]].astype(object))
    column = key.get_indexer(pd.MultiIndex.from_frame(
        frame[["judge", "trait_id", "seed"]].astype(object)))
    mismatched = _differs(frame, entries, column, ["trait", "trait_set", "scale_min",
                                                   "scale_max"])
    if mismatched is not None:
        row, name = mismatched
        raise FfsiteError(f"{source}: row {row}: column '{name}' differs from an earlier row "
                          "of the same judge, trait and seed; one trait has one wording "
                          "and one scale")

    responses, response = _distinct(frame[[*RESPONSE_COLUMNS, *meta]], response_keys)
    mismatched = _differs(frame, responses, response, [*RESPONSE_COLUMNS[2:], *meta])
    if mismatched is not None:
        row, name = mismatched
        raise FfsiteError(f"{source}: row {row}: column '{name}' differs from an earlier row "
                          "of the same response; a response has one prompt, model, "
                          "condition and metadata")
    cell = response.astype(np.int64) * len(entries) + column
    repeated = pd.Series(cell).duplicated().to_numpy()
    if repeated.any():
        row = int(np.argmax(repeated))
        raise FfsiteError(f"{source}: row {row}: a second score by judge "
                          f"'{frame['judge'].iat[row]}' for trait '{frame['trait_id'].iat[row]}'"
                          f" on response '{frame['response_id'].iat[row]}' with the same seed;"
                          " give each its own seed or keep one")

    grid = np.full((len(responses), len(entries)), np.nan)
    grid.reshape(-1)[cell] = frame["score"].to_numpy()
    arrays = [pa.array(responses[name].to_numpy(object), pa.string()).dictionary_encode()
              for name in (*RESPONSE_COLUMNS, *meta)]
    arrays += [pa.array(grid[:, n], pa.float64(), mask=np.isnan(grid[:, n]))
               for n in range(len(entries))]
    names = [*RESPONSE_COLUMNS, *meta, *(f"{SCORE_PREFIX}{n}" for n in range(len(entries)))]
    table = pa.Table.from_arrays(arrays, names=names)
    metadata = file_metadata(schema.KIND_SCORES, judges=dict(sorted(judges.items()))
                             if judges else None, extra=dict(extra) if extra else None)
    metadata["format_version"] = schema.VERSION_3
    metadata["score_columns"] = entry_list
    # The reader's own checks, on what is about to be written: a file ffsite writes
    # always reads back.
    unpack(table, metadata, source)
    write_parquet(table, metadata, path)
    return len(frame)


def _strings(column: pd.Series) -> pd.Series:
    """Text with None for missing (pandas' NaN would be written as the text 'nan')."""
    # Not `where(..., None)`: under pandas 3 that fills NaN into text, not None.
    values = column.astype(object)
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        # Text already: each distinct value once (a few hundred in 100,000s of rows).
        codes, uniques = pd.factorize(values)
        texts = np.array([*uniques, None], dtype=object)  # code -1 (missing) -> None
        return pd.Series(texts[codes], index=column.index, dtype=object)
    return pd.Series([None if pd.isna(v) else str(v) for v in values],
                     index=column.index, dtype=object)


def _entry(row: Any) -> dict[str, Any]:
    seed = row.seed
    return {"judge": row.judge, "trait_id": row.trait_id, "trait": row.trait,
            "trait_set": row.trait_set, "scale_min": _number(row.scale_min),
            "scale_max": _number(row.scale_max),
            "seed": None if seed is pd.NA or seed is None else int(seed)}


def _number(value: float) -> int | float:
    """Whole scale ends as integers in the metadata (1, 10 rather than 1.0, 10.0)."""
    return int(value) if math.isfinite(value) and value == int(value) else value


def _distinct(frame: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The first row of each distinct `keys`, sorted by them, and where each row of
    `frame` went."""
    unique = frame.drop_duplicates(keys).sort_values(keys, kind="stable").reset_index(drop=True)
    index = pd.MultiIndex.from_frame(unique[keys]).get_indexer(pd.MultiIndex.from_frame(
        frame[keys]))
    return unique, index


def _differs(frame: pd.DataFrame, unique: pd.DataFrame, index: np.ndarray,
             names: list[str]) -> tuple[int, str] | None:
    """The first (row, column) where `frame` disagrees with the row of `unique` it maps to."""
    for name in names:
        mine = frame[name].to_numpy(object)
        theirs = unique[name].to_numpy(object)[index]
        same = (mine == theirs) | (pd.isna(mine) & pd.isna(theirs))
        if not same.all():
            return int(np.argmin(same)), name
    return None


# --------------------------------------------------------------------------- reading

def read_scores(paths: Iterable[str | os.PathLike]) -> Scores:
    """Every scores file under `paths`, checked and merged (votes files are skipped)."""
    pieces = []
    for path in find_annotation_files(paths):
        metadata = read_file_metadata(path)
        if metadata.get("kind") == schema.KIND_SCORES:
            pieces.append(read_scores_file(path, metadata))
    return merge(pieces)


def read_scores_file(path: str | os.PathLike, metadata: dict[str, Any] | None = None
                     ) -> Scores:
    """One scores file, every rule checked."""
    metadata = metadata if metadata is not None else read_file_metadata(path)
    if metadata.get("kind") != schema.KIND_SCORES:
        raise FfsiteError(f"{path}: holds '{metadata.get('kind')}', not scores")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise unreadable(path, exc) from None
    return unpack(table, metadata, str(path))


def unpack(table: pa.Table, metadata: dict[str, Any], source: str) -> Scores:
    """Check a scores table against the rules and turn it into `Scores`."""
    # long: docs/format.md's rules, checked in the order it states them
    if str(metadata.get("format_version")) != schema.VERSION_3:
        raise FfsiteError(f"{source}: scores need format_version "
                          f"{schema.VERSION_3}, not {metadata.get('format_version')}; "
                          "re-create the file with this ffsite")
    entries = metadata.get("score_columns")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise FfsiteError(f"{source}: metadata 'score_columns' must be a list of objects "
                          "(one per score column); re-create the file")
    _check_entries(entries, source, "score_columns entry")
    judges = metadata.get("judges") or {}
    if not isinstance(judges, dict) or not all(isinstance(v, str) for v in judges.values()):
        raise FfsiteError(f"{source}: metadata 'judges' must map judge names to descriptions")

    names = table.column_names
    for name in REQUIRED_COLUMNS:
        if name not in names:
            raise FfsiteError(f"{source}: column '{name}' missing; a scores file needs "
                              + ", ".join(REQUIRED_COLUMNS))
    described = {f"{SCORE_PREFIX}{n}" for n in range(len(entries))}
    for name in names:
        if name.startswith(SCORE_PREFIX) and name not in described:
            raise FfsiteError(f"{source}: column '{name}' is not described by metadata "
                              "'score_columns'; remove it or describe it")
        if name not in described and name not in RESPONSE_COLUMNS and not name.startswith(
                schema.META_PREFIX):
            raise FfsiteError(f"{source}: unknown column '{name}'; a scores file holds "
                              f"{', '.join(RESPONSE_COLUMNS)}, meta.* and score:<n>")
    for name in sorted(described - set(names)):
        raise FfsiteError(f"{source}: column '{name}' missing; metadata 'score_columns' "
                          "describes it")

    response_names = [n for n in names if n in RESPONSE_COLUMNS or n.startswith(
        schema.META_PREFIX)]
    responses = pd.DataFrame({name: _text_column(table, name, source)
                              for name in response_names})
    if "condition" not in responses.columns:
        responses.insert(4, "condition", None)
    responses = responses[[*RESPONSE_COLUMNS, *sorted(
        n for n in response_names if n.startswith(schema.META_PREFIX))]]
    for name in responses.columns:
        for value in responses[name].dropna().unique():  # distinct values: a few checks
            if text_problem(value):
                row = int(np.argmax((responses[name] == value).to_numpy()))
                raise FfsiteError(f"{source}: column '{name}', row {row}: "
                                  f"{text_problem(value)}")
    for name in ("dataset", "response_id"):
        empty = responses[name].isna().to_numpy() | (responses[name] == "").to_numpy()
        if empty.any():
            raise FfsiteError(f"{source}: column '{name}': row {int(np.argmax(empty))} is "
                              "empty; every response needs a dataset and an id")
    repeated = responses.duplicated(["dataset", "response_id"]).to_numpy()
    if repeated.any():
        row = int(np.argmax(repeated))
        raise FfsiteError(f"{source}: column 'response_id': row {row} repeats response "
                          f"'{responses['response_id'].iat[row]}' of dataset "
                          f"'{responses['dataset'].iat[row]}'; one row per response")

    grid = np.full((table.num_rows, len(entries)), np.nan)
    for n, entry in enumerate(entries):
        name = f"{SCORE_PREFIX}{n}"
        column = table.column(name)
        kind = column.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise FfsiteError(f"{source}: column '{name}' is {kind}, not a number; scores "
                              "are numbers")
        values = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
        present = ~np.isnan(values) if column.null_count == 0 else ~np.asarray(
            column.is_null().to_numpy(zero_copy_only=False), bool)
        values = np.where(present, values, np.nan)
        bad = present & ~np.isfinite(values)
        outside = present & np.isfinite(values) & ((values < entry["scale_min"])
                                                   | (values > entry["scale_max"]))
        if bad.any() or outside.any():
            row = int(np.argmax(bad | outside))
            raise FfsiteError(f"{source}: column '{name}': row {row}: score {values[row]} is "
                              f"outside the scale {entry['scale_min']} to {entry['scale_max']}"
                              f" of trait '{entry['trait_id']}'; fix the score or the scale")
        grid[:, n] = values
    response, column = np.nonzero(~np.isnan(grid))
    columns = pd.DataFrame(entries, columns=list(ENTRY_KEYS))
    columns["seed"] = pd.array(columns["seed"], dtype="Int64")
    for name in ("scale_min", "scale_max"):
        columns[name] = columns[name].astype(float)
    return Scores(responses, columns, response.astype(np.int64), column.astype(np.int64),
                  grid[response, column], dict(judges))


def _text_column(table: pa.Table, name: str, source: str) -> np.ndarray:
    column = table.column(name)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(
            kind)):
        raise FfsiteError(f"{source}: column '{name}' is {column.type}, not text")
    return column.cast(pa.string()).to_numpy(zero_copy_only=False).astype(object)


def _check_entries(entries: list[dict[str, Any]], source: str, what: str) -> None:
    """Rules on what describes a score column: names filled in, a real scale, a whole
    seed, each (judge, trait, seed) once and one wording and scale per trait."""
    seen: dict[tuple, int] = {}
    traits: dict[str, tuple] = {}
    for n, entry in enumerate(entries):
        where = f"{source}: {what} {n}"
        for key in ("judge", "trait_id", "trait"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise FfsiteError(f"{where}: '{key}' must be a non-empty text")
            if text_problem(entry[key]):
                raise FfsiteError(f"{where}: '{key}': {text_problem(entry[key])}")
        if entry.get("trait_set") is not None and not isinstance(entry["trait_set"], str):
            raise FfsiteError(f"{where}: 'trait_set' must be a text")
        low, high = entry.get("scale_min"), entry.get("scale_max")
        if not all(isinstance(v, int | float) and not isinstance(v, bool)
                   and math.isfinite(v) for v in (low, high)) or not low < high:
            raise FfsiteError(f"{where}: the scale needs numbers scale_min < scale_max "
                              f"(got {low!r} and {high!r})")
        seed = entry.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise FfsiteError(f"{where}: 'seed' must be a whole number or null")
        key = (entry["judge"], entry["trait_id"], seed)
        if key in seen:
            raise FfsiteError(f"{where}: judge '{key[0]}', trait '{key[1]}', seed {seed} "
                              f"already described by entry {seen[key]}; one column each")
        seen[key] = n
        trait = (entry["trait"], float(low), float(high))
        if traits.setdefault(entry["trait_id"], trait) != trait:
            raise FfsiteError(f"{where}: trait '{entry['trait_id']}' has another wording or "
                              "scale in an earlier entry; one trait has one of each")


# --------------------------------------------------------------------------- merging

def merge(pieces: list[Scores], sources: list[str] | None = None) -> Scores:
    """Scores of several files as one.  A response may appear in several files (scored
    by different judges) when its columns agree; a trait keeps one wording and scale;
    a (response, judge, trait, seed) is scored once."""
    if not pieces:
        return empty_scores()
    if len(pieces) == 1:
        return pieces[0]
    meta = sorted({c for p in pieces for c in p.responses.columns
                   if c.startswith(schema.META_PREFIX)})
    all_responses = pd.concat([p.responses.reindex(columns=[*RESPONSE_COLUMNS, *meta])
                               for p in pieces], ignore_index=True)
    responses, new_response = _distinct(all_responses, ["dataset", "response_id"])
    clash = _differs(all_responses, responses, new_response, [*RESPONSE_COLUMNS[2:], *meta])
    if clash is not None:
        row, name = clash
        raise FfsiteError(f"response '{all_responses['response_id'].iat[row]}' of dataset "
                          f"'{all_responses['dataset'].iat[row]}' has another '{name}' in "
                          "another scores file; a response is the same everywhere")
    all_columns = pd.concat([p.columns for p in pieces], ignore_index=True)
    entry_keys = ["judge", "trait_id", "seed"]
    columns = all_columns.drop_duplicates(entry_keys).sort_values(
        entry_keys, na_position="first", kind="stable").reset_index(drop=True)
    _check_entries([_entry(row) for row in columns.itertuples(index=False)],
                   "scores files", "column")
    new_column = pd.MultiIndex.from_frame(columns[entry_keys].astype(object)).get_indexer(
        pd.MultiIndex.from_frame(all_columns[entry_keys].astype(object)))
    response_offsets = np.cumsum([0, *(len(p.responses) for p in pieces)])
    column_offsets = np.cumsum([0, *(len(p.columns) for p in pieces)])
    response = np.concatenate([new_response[p.response + response_offsets[i]]
                               for i, p in enumerate(pieces)])
    column = np.concatenate([new_column[p.column + column_offsets[i]]
                             for i, p in enumerate(pieces)])
    value = np.concatenate([p.value for p in pieces])
    cell = response * len(columns) + column
    order = np.argsort(cell, kind="stable")
    repeated = np.flatnonzero(np.diff(cell[order]) == 0)
    if len(repeated):
        k = order[repeated[0]]
        raise FfsiteError(f"response '{responses['response_id'].iat[response[k]]}' has two "
                          f"scores by judge '{columns['judge'].iat[column[k]]}' for trait "
                          f"'{columns['trait_id'].iat[column[k]]}' with the same seed in "
                          "two scores files; keep one")
    judges: dict[str, str] = {}
    for piece in pieces:
        judges.update(piece.judges)
    return Scores(responses, columns, response[order], column[order], value[order],
                  dict(sorted(judges.items())))


def empty_scores() -> Scores:
    return Scores(pd.DataFrame({name: pd.Series(dtype=object) for name in RESPONSE_COLUMNS}),
                  pd.DataFrame({name: pd.Series(dtype=object) for name in ENTRY_KEYS}),
                  np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), {})
