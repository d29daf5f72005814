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
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    else:
        # Several row groups may each bring their own dictionary; make it one.
        column = pa.chunked_array([column]).unify_dictionaries().chunk(0)
    indices = column.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32)
    return indices, column.dictionary.to_pylist()


def _first_rows(groups: np.ndarray, count: int) -> np.ndarray:
    """Row index of the first member of each group 0..count-1."""
    first = np.empty(count, dtype=np.int64)
    order = np.arange(len(groups) - 1, -1, -1)
    first[groups[order]] = order  # reversed, so the first row writes last and wins
    return first


class _Checker:
    """Applies the format's rules to one table, remembering which file it came from."""

    def __init__(self, table: pa.Table, source: str):
        self.table = table
        self.source = source
        self._cache: dict[str, tuple[np.ndarray, list]] = {}

    def fail(self, column: str, row: int | None, message: str) -> None:
        where = f", row {row}" if row is not None else ""
        raise FfsiteError(f"{self.source}: column '{column}'{where}: {message}")

    def codes(self, name: str) -> tuple[np.ndarray, list]:
        if name not in self._cache:
            self._cache[name] = _codes(self.table.column(name))
        return self._cache[name]


def check_votes_table(table: pa.Table, metadata: dict[str, Any], source: str) -> dict[str, Any]:
    """Check every rule of the format; return the coded pieces the reader needs."""
    if metadata.get("kind", schema.KIND_VOTES) != schema.KIND_VOTES:
        raise FfsiteError(f"{source}: holds '{metadata.get('kind')}', not votes")
    check = _Checker(table, source)
    for name in schema.REQUIRED_COLUMNS:
        if name not in table.column_names:
            check.fail(name, None, "missing; every votes file needs the columns "
                       + ", ".join(schema.REQUIRED_COLUMNS))
    for name in schema.NOT_NULL_COLUMNS:
        codes, _ = check.codes(name)
        if (codes < 0).any():
            check.fail(name, int(np.argmax(codes < 0)), "empty value; this column must be "
                       "filled on every row")

    vote_codes, vote_values = check.codes("vote")
    unknown = [i for i, value in enumerate(vote_values) if value not in schema.VOTE_CODES]
    if unknown:
        row = int(np.argmax(np.isin(vote_codes, unknown)))
        check.fail("vote", row, f"'{vote_values[vote_codes[row]]}' is not a vote; allowed: "
                   + ", ".join(schema.VOTE_VALUES))
    lookup = np.array([schema.VOTE_CODES.get(v, 0) for v in vote_values] or [0], np.int8)
    votes = lookup[vote_codes]

    role_codes, role_values = check.codes("role")
    unknown = [i for i, value in enumerate(role_values) if value not in schema.ROLES]
    if unknown:
        row = int(np.argmax(np.isin(role_codes, unknown)))
        check.fail("role", row, f"'{role_values[role_codes[row]]}' is not a role; allowed: "
                   + ", ".join(schema.ROLES))
    is_trait = np.isin(role_codes, [i for i, v in enumerate(role_values)
                                    if v == schema.ROLE_TRAIT])
    for name in schema.TRAIT_COLUMNS:
        codes, _ = check.codes(name)
        bad = is_trait & (codes < 0)
        if bad.any():
            check.fail(name, int(np.argmax(bad)), "empty on a trait vote; a trait vote "
                       "records trait_id, trait (its wording) and trait_set")

    # Comparisons: one per (dataset, comparison_id), identical on all of its rows.
    dataset_codes, datasets = check.codes("dataset")
    id_codes, ids = check.codes("comparison_id")
    key = dataset_codes.astype(np.int64) * max(len(ids), 1) + id_codes
    comparison, _ = pd.factorize(key, sort=False)
    comparison = comparison.astype(np.int32)
    n_comparisons = int(comparison.max()) + 1 if len(comparison) else 0
    first = _first_rows(comparison, n_comparisons)
    meta_columns = sorted(c for c in table.column_names if c.startswith(schema.META_PREFIX))
    for name in (*schema.COMPARISON_COLUMNS[2:], *meta_columns):
        codes, _ = check.codes(name)
        bad = codes != codes[first[comparison]]
        if bad.any():
            row = int(np.argmax(bad))
            check.fail(name, row, f"comparison '{ids[id_codes[row]]}' of dataset "
                       f"'{datasets[dataset_codes[row]]}' appears with two different values "
                       f"(rows {int(first[comparison[row]])} and {row}); comparison ids must be "
                       "unique within a dataset")

    # Annotators: (role, judge, trait_id); one wording per trait id.
    judge_codes, judges = check.codes("judge")
    trait_id_codes, trait_ids = check.codes("trait_id")
    trait_codes, traits = check.codes("trait")
    set_codes, trait_sets = check.codes("trait_set")
    annotator_key = ((role_codes.astype(np.int64) * (len(judges) + 1) + judge_codes)
                     * (len(trait_ids) + 1) + trait_id_codes + 1)
    annotator, _ = pd.factorize(annotator_key, sort=False)
    annotator = annotator.astype(np.int32)
    n_annotators = int(annotator.max()) + 1 if len(annotator) else 0
    first_annotator = _first_rows(annotator, n_annotators)
    for name, codes in (("trait", trait_codes), ("trait_set", set_codes)):
        bad = codes != codes[first_annotator[annotator]]
        if bad.any():
            row = int(np.argmax(bad))
            check.fail(name, row, f"trait '{trait_ids[trait_id_codes[row]]}' has two "
                       f"different {name} values (rows {int(first_annotator[annotator[row]])} "
                       f"and {row}); give each wording its own trait_id")
    wording_per_trait: dict[str, str] = {}
    for row in first_annotator:
        if trait_id_codes[row] < 0:
            continue
        trait_id, wording = trait_ids[trait_id_codes[row]], traits[trait_codes[row]]
        if wording_per_trait.setdefault(trait_id, wording) != wording:
            check.fail("trait", int(row), f"trait '{trait_id}' has two different wordings; "
                       "give each wording its own trait_id")

    seed = table.column("seed").to_numpy(zero_copy_only=False)
    seed = np.where(pd.isna(seed), -1, seed).astype(np.int64) if len(seed) else np.zeros(
        0, np.int64)
    vote_key = pd.Series((comparison.astype(np.int64) * max(n_annotators, 1) + annotator)
                         * 1_000_003 + (seed % 1_000_003))
    repeated = vote_key.duplicated().to_numpy()
    if repeated.any():
        row = int(np.argmax(repeated))
        check.fail("seed", row, f"comparison '{ids[id_codes[row]]}' has two votes from judge "
                   f"'{judges[judge_codes[row]]}' with the same seed; give repeated votes "
                   "distinct seeds")

    def values(codes: np.ndarray, dictionary: list, rows: np.ndarray) -> list:
        picked = codes[rows]
        return [dictionary[c] if c >= 0 else None for c in picked]

    comparisons = {name: values(*check.codes(name), first)
                   for name in (*schema.COMPARISON_COLUMNS, *meta_columns)}
    annotators = {
        "role": values(role_codes, role_values, first_annotator),
        "judge": values(judge_codes, judges, first_annotator),
        "trait_id": values(trait_id_codes, trait_ids, first_annotator),
        "trait": values(trait_codes, traits, first_annotator),
        "trait_set": values(set_codes, trait_sets, first_annotator),
    }
    return {"comparisons": comparisons, "annotators": annotators,
            "comparison": comparison, "annotator": annotator, "seed": seed, "vote": votes}


def read_votes_file(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read and check one votes file; return (coded pieces, file metadata)."""
    metadata = read_file_metadata(path)
    if metadata.get("kind") != schema.KIND_VOTES:
        raise FfsiteError(f"{path}: holds '{metadata.get('kind')}', not votes")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FfsiteError(f"{path}: cannot read the Parquet data ({reason}); the file may be "
                          "truncated; re-create it") from None
    return check_votes_table(table, metadata, str(path)), metadata


def read_annotations(paths: Iterable[str | os.PathLike]) -> Annotations:
    """Read every votes file under `paths` (response-metrics files are skipped)."""
    files = find_annotation_files(paths)
    pieces, comparison_frames, annotator_frames = [], [], []
    default_preference: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    summaries: dict[str, dict] = {}
    sources = []
    for path in files:
        if read_file_metadata(path).get("kind") != schema.KIND_VOTES:
            continue
        piece, metadata = read_votes_file(path)
        pieces.append(piece)
        sources.append(str(path))
        frame = pd.DataFrame(piece["comparisons"])
        frame["_source"] = str(path)
        comparison_frames.append(frame)
        annotator_frames.append(pd.DataFrame(piece["annotators"]))
        default_preference.update(metadata.get("default_preference") or {})
        descriptions.update(metadata.get("annotators") or {})
        if metadata.get("extra"):
            summaries[str(path)] = metadata["extra"]
    if not pieces:
        return _empty_annotations()

    comparisons = pd.concat(comparison_frames, ignore_index=True)
    key = comparisons["dataset"].astype(str) + "\x00" + comparisons["comparison_id"].astype(str)
    global_comparison, _ = pd.factorize(key, sort=False)
    comparisons["_code"] = global_comparison
    merged = comparisons.drop_duplicates("_code", keep="first").set_index("_code").sort_index()
    attributes = [c for c in comparisons.columns if c not in ("_source", "_code")]
    for name in attributes:
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

    annotators = pd.concat(annotator_frames, ignore_index=True)
    annotator_key = (annotators["role"] + "\x00" + annotators["judge"] + "\x00"
                     + annotators["trait_id"].fillna(""))
    global_annotator, _ = pd.factorize(annotator_key, sort=False)
    annotators["_code"] = global_annotator
    merged_annotators = (annotators.drop_duplicates("_code").set_index("_code").sort_index()
                         .reset_index(drop=True))
    traits = merged_annotators.dropna(subset=["trait_id"])
    wordings = traits.groupby("trait_id")["trait"].nunique()
    if (wordings > 1).any():
        trait_id = wordings[wordings > 1].index[0]
        raise FfsiteError(f"trait '{trait_id}' has different wordings in different files; "
                          "give each wording its own trait_id")

    offsets_c, offsets_a = 0, 0
    votes = []
    for piece in pieces:
        n_c = len(piece["comparisons"]["dataset"])
        n_a = len(piece["annotators"]["role"])
        c_map = global_comparison[offsets_c:offsets_c + n_c].astype(np.int32)
        a_map = global_annotator[offsets_a:offsets_a + n_a].astype(np.int32)
        offsets_c += n_c
        offsets_a += n_a
        votes.append(pd.DataFrame({
            "comparison": c_map[piece["comparison"]],
            "annotator": a_map[piece["annotator"]],
            "seed": piece["seed"],
            "vote": piece["vote"],
        }))
    all_votes = pd.concat(votes, ignore_index=True) if len(votes) > 1 else votes[0]
    if len(votes) > 1:
        key = ((all_votes["comparison"].to_numpy(np.int64) * len(merged_annotators)
                + all_votes["annotator"].to_numpy()) * 1_000_003
               + all_votes["seed"].to_numpy() % 1_000_003)
        repeated = pd.Series(key).duplicated().to_numpy()
        if repeated.any():
            row = int(np.argmax(repeated))
            comp = merged.iloc[all_votes["comparison"].iloc[row]]
            raise FfsiteError(f"comparison '{comp['comparison_id']}' of dataset "
                              f"'{comp['dataset']}' has the same vote in two files; each "
                              "(judge, trait, seed) may vote once per comparison")
    for name in merged.columns:
        merged[name] = merged[name].astype("category")
    return Annotations(comparisons=merged, annotators=merged_annotators, votes=all_votes,
                       default_preference=default_preference,
                       preference_descriptions=descriptions, run_summaries=summaries,
                       sources=tuple(sources))


def _empty_annotations() -> Annotations:
    comparisons = pd.DataFrame({name: pd.Series(dtype="category")
                                for name in schema.COMPARISON_COLUMNS})
    annotators = pd.DataFrame({name: pd.Series(dtype=object)
                               for name in ("role", "judge", "trait_id", "trait", "trait_set")})
    votes = pd.DataFrame({"comparison": np.zeros(0, np.int32),
                          "annotator": np.zeros(0, np.int32),
                          "seed": np.zeros(0, np.int64), "vote": np.zeros(0, np.int8)})
    return Annotations(comparisons, annotators, votes)
