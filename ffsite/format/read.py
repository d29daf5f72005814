"""Read and check annotation files.

`read_annotations` turns any number of votes files into one `Annotations` value: a table
of comparisons, a table of annotators and integer-coded votes.  Every rule of the format
is checked here, file by file, and a broken file stops the read with one line naming
the file, the column and the first offending row (0-based, as pandas counts them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite.errors import FfsiteError
from ffsite.format import schema


@dataclass(frozen=True)
class Annotations:
    """Votes from one or more files, merged.

    `comparisons` has one row per (dataset, comparison_id); `annotators` one row per
    (role, judge, trait_id); `votes` one row per vote with integer codes pointing into
    those two tables and the vote code from `schema.VOTE_CODES`.
    """

    comparisons: pd.DataFrame
    annotators: pd.DataFrame
    votes: pd.DataFrame
    default_preference: dict[str, str] = field(default_factory=dict)
    preference_descriptions: dict[str, str] = field(default_factory=dict)
    run_summaries: dict[str, dict] = field(default_factory=dict)
    sources: tuple[str, ...] = ()

    @property
    def meta_columns(self) -> list[str]:
        return [c for c in self.comparisons.columns if c.startswith(schema.META_PREFIX)]

    @property
    def datasets(self) -> list[str]:
        return sorted(self.comparisons["dataset"].unique())

    @property
    def models(self) -> list[str]:
        sides = pd.concat([self.comparisons["model_a"], self.comparisons["model_b"]])
        return sorted(sides.dropna().unique())

    def traits(self) -> pd.DataFrame:
        """One row per trait id: trait_id, trait (wording), trait_set, judges ('+'-joined)."""
        trait_rows = self.annotators[self.annotators["role"] == schema.ROLE_TRAIT]
        if trait_rows.empty:
            return pd.DataFrame(columns=["trait_id", "trait", "trait_set", "judge"])
        grouped = trait_rows.groupby("trait_id", sort=True)
        return pd.DataFrame({
            "trait_id": list(grouped.groups),
            "trait": grouped["trait"].first().to_numpy(),
            "trait_set": grouped["trait_set"].first().to_numpy(),
            "judge": grouped["judge"].agg(lambda j: "+".join(sorted(set(j)))).to_numpy(),
        })


def find_annotation_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Expand folders to the Parquet files under them (any depth), sorted."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.parquet") if p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise FfsiteError(f"{path}: no such file or folder; give annotation files or a "
                              "folder that holds them")
    return found


def read_file_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The `ffsite` metadata of a file; raise FfsiteError if it is not one of ours."""
    try:
        raw = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError) as exc:
        reason = first_line(exc)
        raise FfsiteError(f"{path}: not a readable Parquet file ({reason}); re-export it "
                          "with ffsite import or ffsite annotate") from None
    if schema.METADATA_KEY not in raw:
        raise FfsiteError(f"{path}: Parquet file without ffsite metadata; create annotation "
                          "files with ffsite import or ffsite annotate")
    try:
        metadata = json.loads(raw[schema.METADATA_KEY])
    except ValueError:
        raise FfsiteError(f"{path}: ffsite metadata is not valid JSON") from None
    version = str(metadata.get("format_version"))
    if version != schema.FORMAT_VERSION:
        raise FfsiteError(f"{path}: format_version {version} is not supported (this ffsite "
                          f"reads version {schema.FORMAT_VERSION}); upgrade ffsite or "
                          "re-create the file")
    return metadata


# --------------------------------------------------------------------------- helpers

def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Arrow's can run to many lines)."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list]:
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
    codes = np.empty(len(column), dtype=_narrowest(len(dictionary)))
    position = 0
    for chunk in column.chunks:
        indices = chunk.indices
        if indices.null_count:
            indices = indices.fill_null(-1)
        codes[position:position + len(indices)] = indices.to_numpy(zero_copy_only=False)
        position += len(indices)
    return codes, dictionary.to_pylist()


def _narrowest(count: int) -> type:
    """The smallest signed integer type holding codes -1 .. count - 1."""
    for dtype in (np.int8, np.int16, np.int32):
        if count < np.iinfo(dtype).max:
            return dtype
    return np.int64


def _ranks(dictionary: list) -> np.ndarray:
    """Rank of each dictionary value in sorted order, nulls (code -1) ranked last.

    Indexed by code + 1, so `ranks[codes + 1]` works for null codes too.
    """
    order = sorted(range(len(dictionary)), key=lambda i: dictionary[i])
    ranks = np.empty(len(dictionary) + 1, dtype=np.int64)
    ranks[0] = len(dictionary)
    ranks[np.array(order, dtype=np.int64) + 1] = np.arange(len(dictionary))
    return ranks


def _first_rows(groups: np.ndarray, count: int) -> np.ndarray:
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


class _Columns:
    """Columns of one file, each read and coded in turn.

    Memory holds about one column's worth at a time.  For files on disk, the next column
    is read on a second thread while the checks work on the current one (Arrow releases
    the GIL while decoding), which uses both cores.  `only` restricts the columns read.
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
        self._pool = ThreadPoolExecutor(max_workers=1) if parquet is not None else None

    def wanted(self, name: str) -> bool:
        return name in self.selected

    def read_ahead(self, name: str) -> None:
        """Start reading `name` in the background (files on disk only)."""
        if self._pool is not None and name in self.selected and name not in self._futures:
            self._futures[name] = self._pool.submit(self._read, name)

    def plan(self, names: list[str]) -> None:
        """The order columns will be asked for, so each read can start one step early."""
        self._plan = [name for name in names if name in self.selected]
        if self._plan:
            self.read_ahead(self._plan[0])

    def codes(self, name: str) -> tuple[np.ndarray, list]:
        """Codes of `name`; meanwhile start reading the next planned column."""
        if self.table is not None:
            return _codes(self.table.column(name))
        plan = getattr(self, "_plan", [])
        if name in plan and plan.index(name) + 1 < len(plan):
            self.read_ahead(plan[plan.index(name) + 1])
        self.read_ahead(name)
        return self._futures.pop(name).result()

    def close(self) -> None:
        if self._pool is not None:
            for future in self._futures.values():
                future.cancel()
            self._pool.shutdown(wait=True)

    def _read(self, name: str) -> tuple[np.ndarray, list]:
        try:
            # Row group by row group: reading them all at once costs several times more.
            column = pa.chunked_array(
                [chunk for group in range(self.parquet.num_row_groups)
                 for chunk in self.parquet.read_row_group(group, columns=[name]).column(0).chunks],
                type=self.parquet.schema_arrow.field(name).type)
        except (pa.ArrowInvalid, OSError) as exc:
            reason = first_line(exc)
            raise FfsiteError(f"{self.source}: cannot read column '{name}' ({reason}); the "
                              "file may be truncated; re-create it") from None
        return _codes(column)

    def fail(self, column: str, row: int | None, message: str) -> None:
        where = f", row {row}" if row is not None else ""
        raise FfsiteError(f"{self.source}: column '{column}'{where}: {message}")


def check_votes_table(table: pa.Table, metadata: dict[str, Any], source: str
                      ) -> dict[str, Any]:
    """Check an in-memory table (used by the writer before it writes)."""
    return _check_votes(_Columns(source, table=table), metadata)


def _check_votes(check: _Columns, metadata: dict[str, Any]) -> dict[str, Any]:
    """Check every rule of the format; return the coded pieces the reader needs.

    Files written by ffsite are sorted, so each comparison's rows are one run and a
    repeated vote sits next to the original: the checks compare neighbouring rows.  Any
    other order is still read correctly, through slower hashing and sorting.  Rules about
    annotators are checked on the small table of distinct annotators, not per row.
    """
    if metadata.get("kind", schema.KIND_VOTES) != schema.KIND_VOTES:
        raise FfsiteError(f"{check.source}: holds '{metadata.get('kind')}', not votes")
    for name in schema.REQUIRED_COLUMNS:
        if name not in check.names:
            check.fail(name, None, "missing; every votes file needs the columns "
                       + ", ".join(schema.REQUIRED_COLUMNS))
    meta_columns = sorted(c for c in check.names if c.startswith(schema.META_PREFIX))
    per_comparison_columns = [*schema.COMPARISON_COLUMNS[2:], *meta_columns]
    check.plan(["vote", "dataset", "comparison_id", *per_comparison_columns, "role",
                "judge", "trait_id", "trait", "trait_set", "seed"])
    votes = _vote_codes(check)

    runs = _comparison_runs(check)
    per_comparison = {"dataset": (runs.dataset_codes[runs.first], runs.datasets),
                      "comparison_id": (runs.id_codes[runs.first], runs.ids)}
    runs.forget_rows()
    for name in per_comparison_columns:
        if not check.wanted(name):
            if name in schema.COMPARISON_COLUMNS:  # keep the standard columns, empty
                per_comparison[name] = (np.full(len(runs.first), -1, np.int8), [])
            continue
        codes, values = check.codes(name)
        row = runs.first_difference(codes)
        if row >= 0:
            check.fail(name, row, f"comparison '{runs.id_of(row)}' of dataset "
                       f"'{runs.dataset_of(row)}' appears with two different values (rows "
                       f"{runs.owner(row)} and {row}); comparison ids must be unique within "
                       "a dataset")
        per_comparison[name] = (codes[runs.first], values)

    annotators = _Annotators(check)
    for name in ("trait", "trait_set"):
        annotators.add_attribute(name)
    annotators.check_roles_and_traits()

    row = _first_repeated_vote(check, runs, annotators.number) if check.wanted("seed") else -1
    if row >= 0:
        check.fail("seed", row, f"comparison '{runs.id_of(row)}' has two votes from judge "
                   f"'{annotators.judge_of(row)}' with the same seed; give repeated votes "
                   "distinct seeds")
    return {"comparisons": {name: _decode(*pair) for name, pair in per_comparison.items()},
            "annotators": {name: _decode(*pair) for name, pair in annotators.columns.items()},
            "comparison": runs.comparison, "annotator": annotators.number, "vote": votes,
            "n_comparisons": len(runs.first)}


class _Annotators:
    """Annotators are distinct (role, judge, trait_id); rows point to them by number.

    The three columns have small dictionaries, so each row's combination is one integer
    in a small space, numbered through a lookup table in sorted (role, judge, trait_id)
    order — no hashing of 40 million rows.
    """

    def __init__(self, check: _Columns):
        self.check = check
        role_codes, self.roles = _filled(check, "role")
        judge_codes, self.judges = _filled(check, "judge")
        trait_codes, self.trait_ids = check.codes("trait_id")
        sizes = (len(self.roles), len(self.judges) + 1, len(self.trait_ids) + 1)
        dtype = np.int32 if sizes[0] * sizes[1] * sizes[2] < 2**31 else np.int64
        raw = (role_codes.astype(dtype) * sizes[1] + judge_codes + 1) * sizes[2] + trait_codes
        raw += 1
        del role_codes, judge_codes, trait_codes
        present = np.zeros(sizes[0] * sizes[1] * sizes[2], dtype=bool)
        present[raw] = True
        keys = np.flatnonzero(present)
        role, rest = np.divmod(keys, sizes[1] * sizes[2])
        judge, trait = np.divmod(rest, sizes[2])
        role, judge, trait = role, judge - 1, trait - 1
        order = sorted(range(len(keys)), key=lambda i: (
            self.roles[role[i]], self.judges[judge[i]],
            (1, "") if trait[i] < 0 else (0, self.trait_ids[trait[i]])))
        lookup = np.zeros(len(present), dtype=np.int32)
        lookup[keys[order]] = np.arange(len(keys), dtype=np.int32)
        self.number = lookup[raw]
        del raw
        self.count = len(keys)
        self.first = _first_rows(self.number, self.count)
        self.columns = {"role": (role[order].astype(np.int32), self.roles),
                        "judge": (judge[order].astype(np.int32), self.judges),
                        "trait_id": (trait[order].astype(np.int32), self.trait_ids)}

    def is_trait(self) -> np.ndarray:
        codes, values = self.columns["role"]
        return np.array([values[c] == schema.ROLE_TRAIT for c in codes], dtype=bool)

    def add_attribute(self, name: str) -> None:
        """Read a column that must be constant per annotator (trait wording, trait set)."""
        codes, values = self.check.codes(name)
        row = _first_inconsistent(self.number, codes, self.count, len(values))
        if row >= 0:
            self.check.fail(name, row, f"trait '{self.trait_id_of(row)}' has two different "
                            f"{name} values (rows {int(self.first[self.number[row]])} and "
                            f"{row}); give each wording its own trait_id")
        self.columns[name] = (codes[self.first], values)

    def check_roles_and_traits(self) -> None:
        for code, value in enumerate(self.roles):
            if value not in schema.ROLES:
                annotator = int(np.flatnonzero(self.columns["role"][0] == code)[0])
                self.check.fail("role", int(self.first[annotator]), f"'{value}' is not a "
                                "role; allowed: " + ", ".join(schema.ROLES))
        is_trait = self.is_trait()
        for name in schema.TRAIT_COLUMNS:
            empty = is_trait & (self.columns[name][0] < 0)
            if empty.any():
                row = int(self.first[np.flatnonzero(empty)[0]])
                self.check.fail(name, row, "empty on a trait vote; a trait vote records "
                                "trait_id, trait (its wording) and trait_set")
        frame = pd.DataFrame({"trait_id": _decode(*self.columns["trait_id"]),
                              "trait": _decode(*self.columns["trait"])}).dropna()
        wordings = frame.groupby("trait_id", observed=True)["trait"].nunique()
        if (wordings > 1).any():
            trait_id = wordings[wordings > 1].index[0]
            annotator = frame.index[frame["trait_id"].astype(object) == trait_id][-1]
            self.check.fail("trait", int(self.first[annotator]), f"trait '{trait_id}' has two "
                            "different wordings; give each wording its own trait_id")

    def trait_id_of(self, row: int) -> str | None:
        code = self.columns["trait_id"][0][self.number[row]]
        return self.trait_ids[code] if code >= 0 else None

    def judge_of(self, row: int) -> str:
        return self.judges[self.columns["judge"][0][self.number[row]]]


def _filled(check: _Columns, name: str) -> tuple[np.ndarray, list]:
    codes, values = check.codes(name)
    if (codes < 0).any():
        check.fail(name, int(np.argmax(codes < 0)), "empty value; this column must be filled "
                   "on every row")
    return codes, values


def _vote_codes(check: _Columns) -> np.ndarray:
    codes, values = _filled(check, "vote")
    lookup = np.array([schema.VOTE_CODES.get(v, -1) for v in values] or [0], np.int8)
    votes = lookup[codes]
    if (votes < 0).any():
        row = int(np.argmax(votes < 0))
        check.fail("vote", row, f"'{values[codes[row]]}' is not a vote; allowed: "
                   + ", ".join(schema.VOTE_VALUES))
    return votes


class _Runs:
    """Which comparison each row belongs to, and where each comparison starts."""

    def __init__(self, dataset_codes, datasets, id_codes, ids, comparison, first, contiguous):
        self.dataset_codes, self.datasets = dataset_codes, datasets
        self.id_codes, self.ids = id_codes, ids
        self.comparison, self.first, self.contiguous = comparison, first, contiguous

    def forget_rows(self) -> None:
        """Keep only per-comparison codes (messages need no more); frees two row arrays."""
        self.dataset_codes = self.dataset_codes[self.first]
        self.id_codes = self.id_codes[self.first]

    def same_as_previous(self) -> np.ndarray:
        """For rows 1.., whether the row belongs to the same comparison as the row before."""
        return self.comparison[1:] == self.comparison[:-1]

    def first_difference(self, codes: np.ndarray) -> int:
        """First row whose value differs from its comparison's, or -1."""
        if self.contiguous:
            bad = (codes[1:] != codes[:-1]) & self.same_as_previous()
            return int(np.argmax(bad)) + 1 if bad.any() else -1
        bad = codes != codes[self.first[self.comparison]]
        return int(np.argmax(bad)) if bad.any() else -1

    def owner(self, row: int) -> int:
        return int(self.first[self.comparison[row]])

    def id_of(self, row: int) -> str:
        return self.ids[self.id_codes[self.comparison[row]]]

    def dataset_of(self, row: int) -> str:
        return self.datasets[self.dataset_codes[self.comparison[row]]]


def _comparison_runs(check: _Columns) -> _Runs:
    dataset_codes, datasets = _filled(check, "dataset")
    id_codes, ids = _filled(check, "comparison_id")
    change = np.empty(len(id_codes), dtype=bool)
    change[:1] = True
    np.not_equal(id_codes[1:], id_codes[:-1], out=change[1:])
    change[1:] |= dataset_codes[1:] != dataset_codes[:-1]
    starts = np.flatnonzero(change)
    run_keys = dataset_codes[starts].astype(np.int64) * max(len(ids), 1) + id_codes[starts]
    if (np.diff(run_keys) > 0).all() or len(np.unique(run_keys)) == len(starts):
        comparison = np.cumsum(change, dtype=np.int32) - 1
        return _Runs(dataset_codes, datasets, id_codes, ids, comparison, starts, True)
    key = dataset_codes.astype(np.int64) * max(len(ids), 1) + id_codes
    comparison = pd.factorize(key, sort=False)[0].astype(np.int32)
    first = _first_rows(comparison, int(comparison.max()) + 1)
    return _Runs(dataset_codes, datasets, id_codes, ids, comparison, first, False)


def _first_inconsistent(groups: np.ndarray, codes: np.ndarray, n_groups: int,
                        n_values: int) -> int:
    """First row whose code is not the only code of its group, or -1 (no hashing)."""
    dtype = np.int32 if n_groups * (n_values + 1) < 2**31 else np.int64
    pairs = groups.astype(dtype) * (n_values + 1) + codes
    pairs += 1
    seen = np.zeros(n_groups * (n_values + 1), dtype=bool)
    seen[pairs] = True
    distinct = seen.reshape(n_groups, n_values + 1).sum(axis=1)
    if (distinct <= 1).all():
        return -1
    bad_groups = np.flatnonzero(distinct > 1)
    first = _first_rows(groups, n_groups)
    in_bad = np.isin(groups, bad_groups)
    bad = in_bad & (codes != codes[first[groups]])
    return int(np.argmax(bad))


def _first_repeated_vote(check: _Columns, runs: _Runs, annotator: np.ndarray) -> int:
    """First row that repeats an earlier (comparison, annotator, seed), or -1."""
    seed_codes, seeds = check.codes("seed")
    seed_rank = _ranks(seeds).astype(np.int32)[seed_codes + 1]
    del seed_codes
    if runs.contiguous:
        same = runs.same_as_previous()
        same_annotator = annotator[1:] == annotator[:-1]
        backwards = (annotator[1:] < annotator[:-1]) | (
            same_annotator & (seed_rank[1:] < seed_rank[:-1]))
        if not (same & backwards).any():
            repeat = same & same_annotator & (seed_rank[1:] == seed_rank[:-1])
            return int(np.argmax(repeat)) + 1 if repeat.any() else -1
    key = ((runs.comparison.astype(np.int64) * max(int(annotator.max()) + 1, 1) + annotator)
           * (len(seeds) + 1) + seed_rank)
    order = np.argsort(key, kind="stable")
    repeat = np.flatnonzero(np.diff(key[order]) == 0)
    return int(order[repeat[0] + 1]) if len(repeat) else -1


def _decode(codes: np.ndarray, dictionary: list) -> pd.Categorical:
    """Codes and values as a pandas Categorical."""
    try:
        return pd.Categorical.from_codes(codes, categories=pd.Index(dictionary, dtype=object))
    except ValueError:  # repeated dictionary values (not from ffsite): decode the slow way
        return pd.Categorical(np.array([*dictionary, None], dtype=object)[codes])


def read_votes_file(path: str | os.PathLike, columns: Collection[str] | None = None
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read and check one votes file; return (coded pieces, file metadata).

    With `columns`, only those columns (plus the ones every read needs) are read and
    checked — what `ffsite metrics` does; `ffsite validate` and `build` read them all.
    """
    metadata = read_file_metadata(path)
    if metadata.get("kind") != schema.KIND_VOTES:
        raise FfsiteError(f"{path}: holds '{metadata.get('kind')}', not votes")
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        reason = first_line(exc)
        raise FfsiteError(f"{path}: cannot read the Parquet data ({reason}); the file may be "
                          "truncated; re-create it") from None
    only = None if columns is None else {*columns, *ALWAYS_READ}
    reader = _Columns(str(path), parquet=parquet, only=only)
    try:
        return _check_votes(reader, metadata), metadata
    finally:
        reader.close()


ALWAYS_READ = ("dataset", "comparison_id", "role", "judge", "trait_id", "trait", "trait_set",
               "vote")


def read_annotations(paths: Iterable[str | os.PathLike],
                     columns: Collection[str] | None = None) -> Annotations:
    """Read every votes file under `paths` (response-metrics files are skipped).

    `columns` limits the optional columns read (see `read_votes_file`).
    """
    paths = list(paths)
    files = find_annotation_files(paths)
    if not files:  # an empty folder is a mistake, not a data set without votes
        raise FfsiteError("no annotation files (.parquet) in " + ", ".join(map(str, paths))
                          + "; give annotation files or a folder that holds them")
    pieces, sources = [], []
    default_preference: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    summaries: dict[str, dict] = {}
    for path in files:
        if read_file_metadata(path).get("kind") != schema.KIND_VOTES:
            continue
        piece, metadata = read_votes_file(path, columns)
        pieces.append(piece)
        sources.append(str(path))
        default_preference.update(metadata.get("default_preference") or {})
        descriptions.update(metadata.get("annotators") or {})
        if metadata.get("extra"):
            summaries[str(path)] = metadata["extra"]
    if not pieces:
        return _empty_annotations()
    if len(pieces) == 1:
        piece = pieces[0]
        comparisons = pd.DataFrame(piece["comparisons"])
        annotators = _plain(pd.DataFrame(piece["annotators"]))
        votes = pd.DataFrame({"comparison": piece["comparison"],
                              "annotator": piece["annotator"], "vote": piece["vote"]},
                             copy=False)
    else:
        comparisons, annotators, votes = _merge(pieces, sources)
    return Annotations(comparisons=comparisons, annotators=annotators, votes=votes,
                       default_preference=default_preference,
                       preference_descriptions=descriptions, run_summaries=summaries,
                       sources=tuple(sources))


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as plain Python objects (None for missing)."""
    return pd.DataFrame({name: np.asarray(frame[name].astype(object).where(
        frame[name].notna(), None), dtype=object) for name in frame.columns})


def _merge(pieces: list[dict], sources: list[str]
           ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Merge several files: a comparison in two files must be identical in both."""
    frames = []
    for piece, source in zip(pieces, sources, strict=True):
        frame = _plain(pd.DataFrame(piece["comparisons"]))
        frame["_source"] = source
        frames.append(frame)
    comparisons = pd.concat(frames, ignore_index=True)
    key = comparisons["dataset"].astype(str) + "\x00" + comparisons["comparison_id"].astype(str)
    global_comparison = pd.factorize(key, sort=False)[0]
    comparisons["_code"] = global_comparison
    merged = comparisons.drop_duplicates("_code", keep="first").set_index("_code").sort_index()
    for name in [c for c in comparisons.columns if c not in ("_source", "_code")]:
        expected = merged[name].reindex(comparisons["_code"]).to_numpy()
        actual = comparisons[name].to_numpy()
        bad = ~((expected == actual) | (pd.isna(expected) & pd.isna(actual)))
        if bad.any():
            row = int(np.argmax(bad))
            first_source = merged["_source"].iloc[comparisons["_code"].iloc[row]]
            raise FfsiteError(
                f"{comparisons['_source'].iloc[row]}: column '{name}': comparison "
                f"'{comparisons['comparison_id'].iloc[row]}' of dataset "
                f"'{comparisons['dataset'].iloc[row]}' differs from the same comparison in "
                f"{first_source}; comparison ids must be unique within a dataset")
    merged = merged.drop(columns="_source").reset_index(drop=True)
    for name in merged.columns:
        merged[name] = merged[name].astype("category")

    annotators = pd.concat([_plain(pd.DataFrame(p["annotators"])) for p in pieces],
                           ignore_index=True)
    annotator_key = (annotators["role"] + "\x00" + annotators["judge"] + "\x00"
                     + annotators["trait_id"].fillna(""))
    global_annotator = pd.factorize(annotator_key, sort=False)[0]
    annotators["_code"] = global_annotator
    merged_annotators = (annotators.drop_duplicates("_code").set_index("_code").sort_index()
                         .reset_index(drop=True))
    wordings = merged_annotators.dropna(subset=["trait_id"]).groupby("trait_id")["trait"]
    if (wordings.nunique() > 1).any():
        trait_id = wordings.nunique()[wordings.nunique() > 1].index[0]
        raise FfsiteError(f"trait '{trait_id}' has different wordings in different files; "
                          "give each wording its own trait_id")

    votes, offset_c, offset_a = [], 0, 0
    owners = []
    for number, piece in enumerate(pieces):
        n_c, n_a = len(piece["comparisons"]["dataset"]), len(piece["annotators"]["role"])
        c_map = global_comparison[offset_c:offset_c + n_c].astype(np.int32)
        a_map = global_annotator[offset_a:offset_a + n_a].astype(np.int32)
        offset_c, offset_a = offset_c + n_c, offset_a + n_a
        votes.append(pd.DataFrame({"comparison": c_map[piece["comparison"]],
                                   "annotator": a_map[piece["annotator"]],
                                   "vote": piece["vote"]}))
        owners.append(np.full(len(piece["vote"]), number, dtype=np.int16))
    all_votes = pd.concat(votes, ignore_index=True)
    # The same judge voting on the same comparison and trait from two files is a repeat.
    pair = (all_votes["comparison"].to_numpy(np.int64) * len(merged_annotators)
            + all_votes["annotator"].to_numpy())
    owner = np.concatenate(owners)
    order = np.lexsort((owner, pair))
    clash = np.flatnonzero((np.diff(pair[order]) == 0) & (np.diff(owner[order]) != 0))
    if len(clash):
        row = int(order[clash[0] + 1])
        comparison = merged.iloc[int(all_votes["comparison"].iloc[row])]
        raise FfsiteError(f"{sources[owner[row]]}: comparison '{comparison['comparison_id']}' "
                          f"of dataset '{comparison['dataset']}' already has votes from the "
                          f"same judge and trait in {sources[owner[order[clash[0]]]]}; keep "
                          "repeated votes of one judge in one file")
    return merged, merged_annotators, all_votes


def _empty_annotations() -> Annotations:
    comparisons = pd.DataFrame({name: pd.Series(dtype="category")
                                for name in schema.COMPARISON_COLUMNS})
    annotators = pd.DataFrame({name: pd.Series(dtype=object)
                               for name in ("role", "judge", "trait_id", "trait", "trait_set")})
    votes = pd.DataFrame({"comparison": np.zeros(0, np.int32),
                          "annotator": np.zeros(0, np.int32),
                          "vote": np.zeros(0, np.int8)})
    return Annotations(comparisons, annotators, votes)
