"""Read and check annotation files.

`read_annotations` turns any number of votes files into one `Annotations` value: a table
of comparisons, a table of annotators and integer-coded votes.  Every rule of the format
is checked here, file by file, and a broken file stops the read with one line naming
the file, the column and the first offending row (0-based, as pandas counts them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
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
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
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

def _codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list]:
    """Integer codes (-1 for null) and the distinct values of a column."""
    if isinstance(column, pa.ChunkedArray):
        if pa.types.is_dictionary(column.type):
            # Several row groups may each bring their own dictionary; make it one.
            column = column.unify_dictionaries()
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    indices = column.indices
    if indices.null_count:
        indices = indices.fill_null(-1)
    codes = indices.to_numpy(zero_copy_only=False)
    dictionary = column.dictionary.to_pylist()
    return codes.astype(np.int32, copy=False), dictionary


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
    """Row index of the first member of each group 0..count-1."""
    first = np.empty(count, dtype=np.int64)
    order = np.arange(len(groups) - 1, -1, -1)
    first[groups[order]] = order  # reversed, so the first row writes last and wins
    return first


class _Columns:
    """Columns of one file, read one at a time so memory holds one column at once."""

    def __init__(self, source: str, table: pa.Table | None = None,
                 parquet: pq.ParquetFile | None = None):
        self.source = source
        self.table = table
        self.parquet = parquet
        self.names = table.column_names if table is not None else parquet.schema_arrow.names

    def codes(self, name: str) -> tuple[np.ndarray, list]:
        if self.table is not None:
            return _codes(self.table.column(name))
        try:
            column = self.parquet.read(columns=[name]).column(0)
        except (pa.ArrowInvalid, OSError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise FfsiteError(f"{self.source}: cannot read column '{name}' ({reason}); the "
                              "file may be truncated; re-create it") from None
        return _codes(column)

    def fail(self, column: str, row: int | None, message: str) -> None:
        where = f", row {row}" if row is not None else ""
        raise FfsiteError(f"{self.source}: column '{column}'{where}: {message}")


def check_votes_table(table: pa.Table, metadata: dict[str, Any], source: str) -> dict[str, Any]:
    """Check an in-memory table (used by the writer before it writes)."""
    return _check_votes(_Columns(source, table=table), metadata)


def _check_votes(columns: _Columns, metadata: dict[str, Any]) -> dict[str, Any]:
    """Check every rule of the format; return the coded pieces the reader needs."""
    check = columns
    if metadata.get("kind", schema.KIND_VOTES) != schema.KIND_VOTES:
        raise FfsiteError(f"{check.source}: holds '{metadata.get('kind')}', not votes")
    for name in schema.REQUIRED_COLUMNS:
        if name not in check.names:
            check.fail(name, None, "missing; every votes file needs the columns "
                       + ", ".join(schema.REQUIRED_COLUMNS))
    small: dict[str, tuple[np.ndarray, list]] = {}
    for name in ("dataset", "role", "judge", "vote"):
        codes, values = small[name] = check.codes(name)
        if (codes < 0).any():
            check.fail(name, int(np.argmax(codes < 0)), "empty value; this column must be "
                       "filled on every row")

    vote_codes, vote_values = small["vote"]
    lookup = np.array([schema.VOTE_CODES.get(v, -1) for v in vote_values] or [0], np.int8)
    votes = lookup[vote_codes]
    if (votes < 0).any():
        row = int(np.argmax(votes < 0))
        check.fail("vote", row, f"'{vote_values[vote_codes[row]]}' is not a vote; allowed: "
                   + ", ".join(schema.VOTE_VALUES))
    del small["vote"], vote_codes

    role_codes, role_values = small["role"]
    role_ok = np.array([v in schema.ROLES for v in role_values] or [True])
    if not role_ok[role_codes].all():
        row = int(np.argmax(~role_ok[role_codes]))
        check.fail("role", row, f"'{role_values[role_codes[row]]}' is not a role; allowed: "
                   + ", ".join(schema.ROLES))
    is_trait = np.array([v == schema.ROLE_TRAIT for v in role_values] or [False])[role_codes]

    # Comparisons: one per (dataset, comparison_id).  Files written by ffsite keep each
    # comparison's rows together, so runs of equal ids are the comparisons; otherwise hash.
    dataset_codes, datasets = small["dataset"]
    id_codes, ids = check.codes("comparison_id")
    if (id_codes < 0).any():
        check.fail("comparison_id", int(np.argmax(id_codes < 0)), "empty value; this column "
                   "must be filled on every row")
    n_rows = len(id_codes)
    change = np.empty(n_rows, dtype=bool)
    change[:1] = True
    np.not_equal(id_codes[1:], id_codes[:-1], out=change[1:])
    change[1:] |= dataset_codes[1:] != dataset_codes[:-1]
    starts = np.flatnonzero(change)
    run_keys = dataset_codes[starts].astype(np.int64) * max(len(ids), 1) + id_codes[starts]
    if len(np.unique(run_keys)) == len(starts):
        comparison = (np.cumsum(change) - 1).astype(np.int32)
        first = starts
    else:
        key = dataset_codes.astype(np.int64) * max(len(ids), 1) + id_codes
        comparison = pd.factorize(key, sort=False)[0].astype(np.int32)
        first = _first_rows(comparison, int(comparison.max()) + 1)
    del change
    n_comparisons = len(first)
    per_comparison: dict[str, tuple[np.ndarray, list]] = {
        "dataset": (dataset_codes[first], datasets), "comparison_id": (id_codes[first], ids)}
    del id_codes
    meta_columns = sorted(c for c in check.names if c.startswith(schema.META_PREFIX))
    owner = first[comparison]
    for name in (*schema.COMPARISON_COLUMNS[2:], *meta_columns):
        codes, values = check.codes(name)
        bad = codes != codes[owner]
        if bad.any():
            row = int(np.argmax(bad))
            comparison_id = per_comparison["comparison_id"][1][
                per_comparison["comparison_id"][0][comparison[row]]]
            check.fail(name, row, f"comparison '{comparison_id}' of dataset "
                       f"'{datasets[dataset_codes[row]]}' appears with two different values "
                       f"(rows {int(owner[row])} and {row}); comparison ids must be "
                       "unique within a dataset")
        per_comparison[name] = (codes[first], values)
    del owner

    # Annotators: (role, judge, trait_id), numbered in sorted order through a dense table.
    judge_codes, judges = small["judge"]
    trait_id_codes, trait_ids = check.codes("trait_id")
    bad = is_trait & (trait_id_codes < 0)
    if bad.any():
        check.fail("trait_id", int(np.argmax(bad)), "empty on a trait vote; a trait vote "
                   "records trait_id, trait (its wording) and trait_set")
    role_rank, judge_rank, trait_rank = (_ranks(role_values), _ranks(judges),
                                         _ranks(trait_ids))
    space = (len(role_values) + 1) * (len(judges) + 1) * (len(trait_ids) + 1)
    dense = ((role_rank[role_codes + 1] * (len(judges) + 1) + judge_rank[judge_codes + 1])
             * (len(trait_ids) + 1) + trait_rank[trait_id_codes + 1])
    present = np.zeros(space, dtype=bool)
    present[dense] = True
    number = np.cumsum(present) - 1
    annotator = number[dense].astype(np.int32)
    del dense
    n_annotators = int(present.sum())
    first_annotator = _first_rows(annotator, n_annotators)
    annotator_columns = {"role": (role_codes[first_annotator], role_values),
                         "judge": (judge_codes[first_annotator], judges),
                         "trait_id": (trait_id_codes[first_annotator], trait_ids)}
    del role_codes, judge_codes, trait_id_codes
    for name in ("trait", "trait_set"):
        codes, values = check.codes(name)
        bad = is_trait & (codes < 0)
        if bad.any():
            check.fail(name, int(np.argmax(bad)), "empty on a trait vote; a trait vote "
                       "records trait_id, trait (its wording) and trait_set")
        bad = codes != codes[first_annotator[annotator]]
        if bad.any():
            row = int(np.argmax(bad))
            trait_id = trait_ids[annotator_columns["trait_id"][0][annotator[row]]]
            check.fail(name, row, f"trait '{trait_id}' has two different {name} values "
                       f"(rows {int(first_annotator[annotator[row]])} and {row}); give each "
                       "wording its own trait_id")
        annotator_columns[name] = (codes[first_annotator], values)
    del is_trait
    wordings = pd.DataFrame({
        "trait_id": _decode(*annotator_columns["trait_id"]),
        "trait": _decode(*annotator_columns["trait"])}).dropna()
    repeated = wordings.groupby("trait_id")["trait"].nunique()
    if (repeated > 1).any():
        trait_id = repeated[repeated > 1].index[0]
        rows = np.flatnonzero(np.asarray(_decode(*annotator_columns["trait_id"]),
                                         dtype=object) == trait_id)
        check.fail("trait", int(first_annotator[rows[-1]]), f"trait '{trait_id}' has two "
                   "different wordings; give each wording its own trait_id")

    # One vote per (comparison, annotator, seed): in a sorted file repeats sit side by side.
    seed_codes, seeds = check.codes("seed")
    seed_rank = _ranks(seeds)
    key = ((comparison.astype(np.int64) * n_annotators + annotator) * (len(seeds) + 1)
           + seed_rank[seed_codes + 1])
    del seed_codes
    steps = np.diff(key)
    if (steps < 0).any():
        order = np.argsort(key, kind="stable")
        repeat = np.flatnonzero(np.diff(key[order]) == 0)
        row = int(order[repeat[0] + 1]) if len(repeat) else -1
    else:
        repeat = np.flatnonzero(steps == 0)
        row = int(repeat[0] + 1) if len(repeat) else -1
    if row >= 0:
        comparison_id = ids[per_comparison["comparison_id"][0][comparison[row]]]
        judge = judges[annotator_columns["judge"][0][annotator[row]]]
        check.fail("seed", row, f"comparison '{comparison_id}' has two votes from judge "
                   f"'{judge}' with the same seed; give repeated votes distinct seeds")
    del key, steps

    return {"comparisons": {name: _decode(*pair) for name, pair in per_comparison.items()},
            "annotators": {name: _decode(*pair) for name, pair in annotator_columns.items()},
            "comparison": comparison, "annotator": annotator, "vote": votes,
            "n_comparisons": n_comparisons}


def _decode(codes: np.ndarray, dictionary: list) -> pd.Categorical:
    """Codes and values as a pandas Categorical (values are unique after unification)."""
    if len(set(dictionary)) != len(dictionary):
        values = np.array(dictionary + [None], dtype=object)[codes]
        return pd.Categorical(values)
    return pd.Categorical.from_codes(codes, categories=pd.Index(dictionary, dtype=object))


def read_votes_file(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read and check one votes file; return (coded pieces, file metadata)."""
    metadata = read_file_metadata(path)
    if metadata.get("kind") != schema.KIND_VOTES:
        raise FfsiteError(f"{path}: holds '{metadata.get('kind')}', not votes")
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FfsiteError(f"{path}: cannot read the Parquet data ({reason}); the file may be "
                          "truncated; re-create it") from None
    return _check_votes(_Columns(str(path), parquet=parquet), metadata), metadata


def read_annotations(paths: Iterable[str | os.PathLike]) -> Annotations:
    """Read every votes file under `paths` (response-metrics files are skipped)."""
    pieces, sources = [], []
    default_preference: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    summaries: dict[str, dict] = {}
    for path in find_annotation_files(paths):
        if read_file_metadata(path).get("kind") != schema.KIND_VOTES:
            continue
        piece, metadata = read_votes_file(path)
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
                              "annotator": piece["annotator"], "vote": piece["vote"]})
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
