"""Read and check annotation files.

`read_annotations` turns any number of votes files into one `Annotations` value: a table
of comparisons, a table of annotators and integer-coded votes (`read_votes_file` reads one
file as `CodedVotes`).  Every rule of the format is checked here, file by file (version 2
by `_wide.unpack`, version 1 by `_checks`), and
a broken file stops the read with one line naming the file, the column and the first
offending row (0-based, as pandas counts them).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite._read import loads_json
from ffsite.errors import FfsiteError
from ffsite.format import _checked, _wide, schema
from ffsite.format._checks import check_votes
from ffsite.format._columns import ColumnReader, first_line, unreadable
from ffsite.format.coded import CodedVotes

__all__ = ["Annotations", "compared_models", "find_annotation_files", "read_annotations",
           "read_file_metadata", "read_votes_file", "vote_rows"]


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

    @functools.cached_property
    def preference_votes(self) -> pd.DataFrame:
        """The votes of preference annotators only (a small share), found once."""
        is_preference = (self.annotators["role"] == schema.ROLE_PREFERENCE).to_numpy()
        rows = np.flatnonzero(is_preference[self.votes["annotator"].to_numpy()])
        return self.votes.iloc[rows].reset_index(drop=True)

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

    def where(self, mask: np.ndarray) -> Annotations:
        """The comparisons where `mask` is true and their votes (every annotator kept)."""
        mask = np.asarray(mask, dtype=bool)
        renumber = np.cumsum(mask) - 1
        comparison = self.votes["comparison"].to_numpy()
        keep = mask[comparison]
        votes = pd.DataFrame({"comparison": renumber[comparison[keep]].astype(np.int32),
                              "annotator": self.votes["annotator"].to_numpy()[keep],
                              "vote": self.votes["vote"].to_numpy()[keep]})
        comparisons = self.comparisons[mask].reset_index(drop=True)
        for name in comparisons.columns:
            if isinstance(comparisons[name].dtype, pd.CategoricalDtype):
                comparisons[name] = comparisons[name].cat.remove_unused_categories()
        return replace(self, comparisons=comparisons, votes=votes)

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
            found.extend(_parquet_files_under(path))
        elif path.is_file():
            found.append(path)
        else:
            raise FfsiteError(f"{path}: no such file or folder; give annotation files or a "
                              "folder that holds them")
    return found


def _parquet_files_under(folder: Path) -> list[Path]:
    """Every *.parquet file under `folder`, sorted.  A folder that cannot be listed or a
    *.parquet name that is not a readable file (a dangling link) stops the read: skipping
    it would quietly leave its votes out of every table."""
    def refuse(error: OSError) -> None:
        raise FfsiteError(f"{error.filename}: cannot list this folder ({error.strerror}); "
                          "fix its permissions or move it out of the annotations") from None

    found = []
    for parent, _, names in os.walk(folder, onerror=refuse):
        for name in names:
            if name.endswith(".parquet"):
                file = Path(parent) / name
                if not file.is_file():
                    raise FfsiteError(f"{file}: not a readable file (a broken link?); fix it "
                                      "or remove it from the annotations")
                found.append(file)
    return sorted(found)


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
    text = raw[schema.METADATA_KEY]
    if len(text) > MAX_METADATA_BYTES:
        raise FfsiteError(f"{path}: ffsite metadata is {len(text):,} bytes, more than the "
                          f"{MAX_METADATA_BYTES:,} allowed; re-create the file")
    metadata = loads_json(text, source=f"{path}: ffsite metadata",
                          hint="re-create the file with ffsite import or ffsite annotate")
    if not isinstance(metadata, dict):
        raise FfsiteError(f"{path}: ffsite metadata is a JSON {_json_type(metadata)}, not an "
                          "object; re-create the file with ffsite import or ffsite annotate")
    version = str(metadata.get("format_version"))
    if version not in schema.READABLE_VERSIONS:
        raise FfsiteError(f"{path}: format_version {version} is not supported (this ffsite "
                          f"reads versions {', '.join(schema.READABLE_VERSIONS)}); "
                          "upgrade ffsite or re-create the file")
    kind = metadata.get("kind")
    if kind not in schema.KINDS:
        raise FfsiteError(f"{path}: kind {json.dumps(kind)} is not one of "
                          f"{', '.join(schema.KINDS)}; fix the file's metadata or remove the "
                          "file")
    for key, shape in _METADATA_SHAPES.items():
        if key in metadata and metadata[key] is not None and not shape(metadata[key]):
            raise FfsiteError(f"{path}: metadata field '{key}' is a JSON "
                              f"{_json_type(metadata[key])}, not {_METADATA_WORDS[key]}; "
                              "re-create the file with ffsite import or ffsite annotate")
    return metadata


MAX_METADATA_BYTES = 16 * 2**20  # far above any real file's; a bound on what we parse


def _names_to_text(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _list_of_objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


# The optional metadata fields readers use, and the JSON shape each must have.
_METADATA_SHAPES = {"annotators": _names_to_text, "default_preference": _names_to_text,
                    "extra": lambda value: isinstance(value, dict),
                    "vote_columns": _list_of_objects, "score_columns": _list_of_objects}
_METADATA_WORDS = {"annotators": "an object of texts", "default_preference":
                   "an object of texts", "extra": "an object",
                   "vote_columns": "a list of objects", "score_columns": "a list of objects"}


def _json_type(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def read_votes_file(path: str | os.PathLike, columns: Collection[str] | None = None, *,
                    use_cache: bool = True) -> tuple[CodedVotes, dict[str, Any]]:
    """Read and check one votes file; return (its votes, coded; the file's metadata).

    With `columns`, only those columns (plus the ones every read needs) are read and
    checked — what `ffsite metrics` does; `ffsite validate` and `build` read them all.
    A file whose exact bytes were checked before comes from the cache (`_checked`).
    """
    metadata = read_file_metadata(path)
    if metadata.get("kind") != schema.KIND_VOTES:
        raise FfsiteError(f"{path}: holds '{metadata.get('kind')}', not votes")
    only = None if columns is None else {*columns, *ALWAYS_READ}
    file_digest = _checked.digest(path) if use_cache else None
    cached = _checked.load(file_digest, only)
    if cached is not None:
        return cached
    if str(metadata.get("format_version")) == "1":
        votes = _read_long(path, metadata, only)
    else:
        votes = _read_wide(path, metadata, only)
    _checked.store(file_digest, only, votes, metadata)
    return votes, metadata


def _read_long(path: str | os.PathLike, metadata: dict[str, Any],
               only: set[str] | None) -> CodedVotes:
    """A version 1 file (one row per vote), column by column."""
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise unreadable(path, exc) from None
    reader = ColumnReader(str(path), parquet=parquet, only=only)
    try:
        return check_votes(reader, metadata)
    finally:
        reader.close()


def _read_wide(path: str | os.PathLike, metadata: dict[str, Any],
               only: set[str] | None) -> CodedVotes:
    """A version 2 file (one row per comparison), in one read."""
    try:
        file_schema = pq.read_schema(path)
        names = file_schema.names
        # Only text columns are read as dictionaries (Arrow refuses other types there);
        # a column of another type reaches the checks, which name it.
        text = [f.name for f in file_schema if not f.name.startswith(_wide.VOTE_PREFIX)
                and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))]
        read = [name for name in names if name.startswith(_wide.VOTE_PREFIX)
                or name in ("dataset", "comparison_id")
                or (not name.startswith(_wide.NOTE_PREFIX) and (only is None or name in only))]
        parquet = pq.ParquetFile(path, read_dictionary=text)
        table = parquet.read(columns=read, use_threads=True)
    except (pa.ArrowInvalid, OSError) as exc:
        raise unreadable(path, exc) from None
    return _wide.unpack(table, metadata, str(path), wanted=only, names=names)


def vote_rows(path: str | os.PathLike) -> pa.Table:
    """One row per vote with format 1's columns (plain strings; seed int64), from a file
    of either version, in the file's order (comparisons, then annotators and seeds).  For
    looking inside a file: it is read as stored, without the checks (`read_annotations`
    checks)."""
    metadata = read_file_metadata(path)
    table = pq.read_table(path)
    if str(metadata.get("format_version")) == "1":
        return _wide.plain_long(table)
    return _wide.long_rows(table, metadata.get("vote_columns") or [])


def compared_models(path: str | os.PathLike) -> set[str]:
    """The models a votes file compares: every value of its model_a and model_b columns,
    read as stored (`read_annotations` checks them)."""
    sides = pq.read_table(path, columns=["model_a", "model_b"])
    return {m for column in sides.columns for m in column.unique().to_pylist() if m}


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
    per_file: list[CodedVotes] = []
    sources: list[str] = []
    default_preference: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    summaries: dict[str, dict] = {}
    for path in files:
        if read_file_metadata(path).get("kind") != schema.KIND_VOTES:
            continue
        coded, metadata = read_votes_file(path, columns)
        per_file.append(coded)
        sources.append(str(path))
        default_preference.update(metadata.get("default_preference") or {})
        descriptions.update(metadata.get("annotators") or {})
        if metadata.get("extra"):
            summaries[str(path)] = metadata["extra"]
    if not per_file:
        return _empty_annotations()
    if len(per_file) == 1:
        coded = per_file[0]
        comparisons = pd.DataFrame(coded.comparisons)
        annotators = _plain(pd.DataFrame(coded.annotators))
        votes = pd.DataFrame({"comparison": coded.comparison, "annotator": coded.annotator,
                              "vote": coded.vote}, copy=False)
    else:
        comparisons, annotators, votes = _merge(per_file, sources)
    return Annotations(comparisons=comparisons, annotators=annotators, votes=votes,
                       default_preference=default_preference,
                       preference_descriptions=descriptions, run_summaries=summaries,
                       sources=tuple(sources))


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as plain Python objects (None for missing)."""
    return pd.DataFrame({name: np.asarray(frame[name].astype(object).where(
        frame[name].notna(), None), dtype=object) for name in frame.columns})


def _merge(per_file: list[CodedVotes], sources: list[str]
           ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Merge several files: a comparison in two files must be identical in both."""
    frames = []
    for coded, source in zip(per_file, sources, strict=True):
        frame = _plain(pd.DataFrame(coded.comparisons))
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

    annotators = pd.concat([_plain(pd.DataFrame(coded.annotators)) for coded in per_file],
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
    for number, coded in enumerate(per_file):
        n_c, n_a = coded.n_comparisons, coded.n_annotators
        c_map = global_comparison[offset_c:offset_c + n_c].astype(np.int32)
        a_map = global_annotator[offset_a:offset_a + n_a].astype(np.int32)
        offset_c, offset_a = offset_c + n_c, offset_a + n_a
        votes.append(pd.DataFrame({"comparison": c_map[coded.comparison],
                                   "annotator": a_map[coded.annotator],
                                   "vote": coded.vote}))
        owners.append(np.full(coded.n_votes, number, dtype=np.int16))
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
                               for name in schema.ANNOTATOR_COLUMNS})
    votes = pd.DataFrame({"comparison": np.zeros(0, np.int32),
                          "annotator": np.zeros(0, np.int32),
                          "vote": np.zeros(0, np.int8)})
    return Annotations(comparisons, annotators, votes)
