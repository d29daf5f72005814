"""Feedback Forensics' AnnotatedPairs JSON (format 1.x and 2.x), in and out.

Semantics kept from feedback-forensics so metrics agree with it:
- v2 votes are {"pref": "a" | "b" | null, "no_pref_reason": ...}; v1 uses "text_a"/"text_b".
- models come from response_a/b["model"], overridden by comparison metadata model_a/model_b.
- `metadata.default_annotator` is the preference annotator (else the annotator named
  "preferred_text"); annotators of type "principle" are traits; other annotators are
  further preference annotators; "non_preference_principle" annotators are skipped.
- a repeated comparison id keeps its first occurrence; a comparison with an empty
  response ("", null or "nan") is skipped, as feedback-forensics drops those on load.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import operator
import os
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat
from operator import attrgetter, methodcaller
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd

from ffsite.datasets.texts import text_ids
from ffsite.errors import FfsiteError
from ffsite.format import Annotations, encode_votes, schema
from ffsite.importers._ap_votes import Unsupported, read_votes
from ffsite.importers.result import ImportResult
from ffsite.metrics.combine import combine
from ffsite.traits import trait_set_of

# The preference annotator when a file names none (in ICAI CSV: the `preferred_text`
# column), and the id feedback-forensics gives it: the first 8 hex digits of the MD5 of
# its description, as it names traits (`ffsite.traits.trait_id`).
DEFAULT_ANNOTATOR_DESCRIPTION = (
    "Default annotator from original dataset (from column `preferred_text`)")
DEFAULT_ANNOTATOR = hashlib.md5(DEFAULT_ANNOTATOR_DESCRIPTION.encode("utf-8")).hexdigest()[:8]
TRAIT_SET_IMPORTED = "annotated-pairs"
JUDGE_UNKNOWN = "unknown"


class _Vote(msgspec.Struct, gc=False):
    # A scalar that is not a known preference is kept as an invalid vote (with a note);
    # a list or object is a broken file.
    pref: str | int | float | bool | None = None
    no_pref_reason: str | int | float | bool | None = None


class _Response(msgspec.Struct, gc=False):
    text: Any = None
    model: Any = None


class _Comparison(msgspec.Struct, gc=False):
    """One comparison, its votes left as raw JSON for a columnar read (`_ap_votes`)."""

    id: str | int  # required: a comparison without one cannot be told apart or found
    prompt: Any = None
    response_a: _Response | None = None
    response_b: _Response | None = None
    text_a: Any = None  # format 1.x
    text_b: Any = None
    metadata: dict[str, Any] = {}
    annotations: msgspec.Raw = msgspec.Raw(b"{}")


class _File(msgspec.Struct):
    annotators: dict[str, dict[str, Any]]
    comparisons: list[_Comparison]
    metadata: dict[str, Any] = {}


_FILE = msgspec.json.Decoder(_File)
_VOTES = msgspec.json.Decoder(list[dict[str, _Vote]])
_ONE_VOTES = msgspec.json.Decoder(dict[str, _Vote])


@dataclass
class Parsed:
    """Kept comparisons (the comparison columns without ids of texts, plus `meta.*`),
    their texts, and the votes as positions and codes."""

    comparisons: pd.DataFrame
    prompt_texts: list[str | None]
    response_texts: list[str]  # A and B of each comparison, in turn
    vote_comparison: np.ndarray
    vote_annotator: np.ndarray
    vote_code: np.ndarray
    notes: dict[int, str]
    skipped: dict[str, int]


def _load(path: Path) -> _File:
    """The file decoded; each comparison's votes are found but not yet decoded."""
    try:
        with open(path, "rb") as handle:
            # Mapped rather than read: msgspec parses the page cache in place (0.1 s less
            # for 228 MB), and the votes stay raw slices of it until Arrow parses them.
            size = os.fstat(handle.fileno()).st_size
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        return _FILE.decode(data)
    except FileNotFoundError:
        raise FfsiteError(f"{path}: no such file; check the path") from None
    except msgspec.ValidationError as exc:
        raise FfsiteError(f"{path}: not an AnnotatedPairs file ({exc})") from None
    except msgspec.DecodeError as exc:
        raise FfsiteError(f"{path}: not valid JSON ({exc}); give an AnnotatedPairs "
                          "JSON file") from None
    except RecursionError:
        raise FfsiteError(f"{path}: JSON nested too deeply to read (AnnotatedPairs needs a "
                          "few levels); fix the file") from None


_PREFERENCE_CODES = {"a": schema.A, "text_a": schema.A, "b": schema.B, "text_b": schema.B}
_REASON_CODES = {"not_applicable": schema.NEITHER, "neither": schema.NEITHER,
                 "none": schema.NEITHER, "both": schema.TIE, "tie": schema.TIE,
                 "invalid": schema.INVALID, "missing": schema.MISSING}


def _vote_code(pref: Any, reason: Any) -> tuple[int, str | None]:
    """(vote code, note) of one annotation; the note says why a vote is invalid."""
    if pref is None:
        reason = str(reason or "not_applicable").lower()
        return _REASON_CODES.get(reason, schema.NEITHER), None
    if isinstance(pref, str):
        lowered = pref.lower()
        if lowered in _PREFERENCE_CODES:
            return _PREFERENCE_CODES[lowered], None
        if lowered in _REASON_CODES:
            return _REASON_CODES[lowered], None
    return schema.INVALID, f"unknown preference {pref!r}"


def _votes_in_bulk(annotations: list[dict[str, _Vote]], annotator_index: dict[str, int]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, str]]:
    """The general path for votes: typed structs flattened at C speed (map, chain).

    Plain "a"/"b" votes and known no-preference reasons never enter a Python-level
    loop; only unusual entries go through `_vote_code` one by one.
    """
    counts = np.fromiter(map(len, annotations), np.int64, len(annotations))
    values = list(chain.from_iterable(map(dict.values, annotations)))
    positions = _positions(annotations, annotator_index, counts)
    codes = np.fromiter(map(_PLAIN.get, map(attrgetter("pref"), values), repeat(0)), np.int8,
                        len(values))
    rest = np.flatnonzero((codes == 0) & (positions >= 0))
    reasons = [values[i].no_pref_reason if values[i].pref is None else "?"
               for i in rest.tolist()]
    codes[rest] = np.fromiter(map(_REASON_CODES.get, reasons, repeat(0)), np.int8, len(rest))
    notes: dict[int, str] = {}
    for i in rest[codes[rest] == 0].tolist():
        codes[i], note = _vote_code(values[i].pref, values[i].no_pref_reason)
        if note:
            notes[i] = note
    comparison = np.repeat(np.arange(len(annotations)), counts)
    keep = positions >= 0
    if not keep.all():
        kept_rows = np.flatnonzero(keep)
        notes = {int(np.searchsorted(kept_rows, i)): note for i, note in notes.items()}
    return comparison[keep], positions[keep], codes[keep], notes


def _positions(annotations: list[dict[str, _Vote]], annotator_index: dict[str, int],
               counts: np.ndarray) -> np.ndarray:
    """Each annotation's annotator position (-1: an annotator we do not keep).

    Files usually list the same annotators in the same order in every comparison; then one
    comparison's positions, repeated, are everyone's.
    """
    if len(annotations) and (counts == counts[0]).all():
        first = list(annotations[0])
        if all(list(keys) == first for keys in map(dict.keys, annotations)):
            one = np.array([annotator_index.get(key, -1) for key in first], dtype=np.int64)
            return np.tile(one, len(annotations))
    keys = list(chain.from_iterable(annotations))
    return np.fromiter(map(annotator_index.get, keys, repeat(-1)), np.int64, len(keys))


_PLAIN = {"a": schema.A, "b": schema.B, "text_a": schema.A, "text_b": schema.B}


def read_annotated_pairs(path: str | os.PathLike, dataset: str | None = None, *,
                         columnar: bool | None = None) -> ImportResult:
    """Parse an AnnotatedPairs file into a votes table (not yet written).

    The votes go through Arrow's JSON reader when the file fits it (`columnar` None: try,
    fall back to typed structs; True/False: force one way, for tests).
    """
    path = Path(path)
    document = _load(path)
    unnamed = next((n for n, c in enumerate(document.comparisons) if c.id == ""), None)
    if unnamed is not None:
        raise FfsiteError(f"{path}: comparison {unnamed} (counting from 0) has an empty id; "
                          "give every comparison a non-empty id")
    metadata = document.metadata
    version = str(metadata.get("version", "2.0"))
    if version.split(".")[0] not in ("1", "2"):  # a newer format may mean other things
        raise FfsiteError(f"{path}: AnnotatedPairs version {version} is not supported (ffsite "
                          "reads 1.x and 2.x); save it in format 2.0 or upgrade ffsite")
    dataset = str(dataset or metadata.get("dataset_name") or path.stem)
    annotators = document.annotators

    default = metadata.get("default_annotator")
    if default not in annotators:
        named = [a for a, info in annotators.items() if info.get("name") == "preferred_text"]
        default = named[0] if named else DEFAULT_ANNOTATOR

    kept: dict[str, tuple[str, str, str | None, str | None, str | None]] = {}
    descriptions: dict[str, str] = {}
    for annotator_id, info in annotators.items():
        kind = info.get("type")
        if annotator_id == default or kind not in ("principle", "non_preference_principle"):
            kept[annotator_id] = (schema.ROLE_PREFERENCE, annotator_id, None, None, None)
            descriptions[annotator_id] = str(info.get("description") or info.get("name")
                                             or annotator_id)
        elif kind == "principle":
            wording = str(info.get("description") or annotator_id)
            judge = str(info.get("model") or info.get("judge") or JUDGE_UNKNOWN)
            kept[annotator_id] = (schema.ROLE_TRAIT, judge, annotator_id, wording,
                                  trait_set_of(wording) or TRAIT_SET_IMPORTED)
    annotator_index = {a: i for i, a in enumerate(kept)}

    parsed = _parse(path, document.comparisons, dataset, annotator_index, columnar)
    if not len(parsed.comparisons):
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(parsed.skipped.items()) if n)
        raise FfsiteError(f"{path}: no comparison to import ({why or 'the file has none'}); "
                          "each comparison needs an id and two non-empty responses")
    if not len(parsed.vote_code):
        raise FfsiteError(f"{path}: no votes to import: none of the {len(parsed.comparisons)} "
                          "comparisons has an annotation by an annotator the file lists; "
                          "check the comparisons' \"annotations\" and the file's \"annotators\"")
    prompt_texts, response_texts = parsed.prompt_texts, parsed.response_texts
    prompt_ids = [None if text is None else pid for pid, text in zip(
        text_ids("p", [text or "" for text in prompt_texts]), prompt_texts, strict=True)]
    response_ids = text_ids("r", response_texts)
    comparisons = parsed.comparisons
    comparisons["prompt_id"] = prompt_ids
    comparisons["response_a_id"] = response_ids[0::2]
    comparisons["response_b_id"] = response_ids[1::2]
    notes = parsed.notes
    table = encode_votes(
        comparisons, pd.DataFrame(list(kept.values()), columns=list(schema.ANNOTATOR_COLUMNS)),
        parsed.vote_comparison, parsed.vote_annotator, parsed.vote_code,
        note=[notes.get(i) for i in range(len(parsed.vote_code))] if notes else None)
    return ImportResult(table=table, default_preference={dataset: default},
                        annotators={a: descriptions[a] for a in sorted(descriptions)},
                        prompts={pid: text for pid, text in zip(prompt_ids, prompt_texts,
                                                                strict=True) if pid},
                        responses=dict(zip(response_ids, response_texts, strict=True)),
                        skipped={k: v for k, v in parsed.skipped.items() if v},
                        dataset=dataset)


def _parse(path: Path, comparisons: list[_Comparison], dataset: str,
           annotator_index: dict[str, int], columnar: bool | None) -> Parsed:
    """Comparison columns from the decoded structs; votes through Arrow when they fit."""
    frame, kept, prompt_texts, response_texts, skipped = _comparison_columns(comparisons,
                                                                            dataset)
    raws = [comparisons[i].annotations for i in kept.tolist()] \
        if len(kept) < len(comparisons) else list(map(attrgetter("annotations"), comparisons))
    votes = None
    if columnar is not False and raws:
        try:
            votes = read_votes(raws, annotator_index, _vote_code)
        except Unsupported:
            if columnar:
                raise
    if votes is None:
        try:
            decoded = _VOTES.decode(b"[" + b",".join(raws) + b"]")
        except msgspec.ValidationError:
            raise _bad_votes(path, [comparisons[i] for i in kept.tolist()]) from None
        votes = _votes_in_bulk(decoded, annotator_index)
    return Parsed(frame, prompt_texts, response_texts, *votes, skipped)


def _bad_votes(path: Path, comparisons: list[_Comparison]) -> FfsiteError:
    """The error naming the first comparison whose votes are not AnnotatedPairs votes."""
    for comparison in comparisons:
        try:
            _ONE_VOTES.decode(comparison.annotations)
        except msgspec.ValidationError as exc:
            return FfsiteError(
                f"{path}: comparison '{comparison.id}': annotations: {exc} (each annotation "
                'is an object such as {"pref": "a"} or {"pref": null, "no_pref_reason": '
                '"tie"}); fix that comparison')
    return FfsiteError(f"{path}: the comparisons' annotations are not AnnotatedPairs votes")


def _column(comparisons: list, name: str) -> np.ndarray:
    """One attribute of every comparison, as an object array."""
    return np.fromiter(map(attrgetter(name), comparisons), object, len(comparisons))


def _as_text(values: np.ndarray) -> np.ndarray:
    """str() of every value but None, as the general reading of JSON values."""
    values = values.copy()
    given = pd.notna(values)
    values[given] = list(map(str, values[given]))
    return values


def _is_empty(texts: np.ndarray) -> np.ndarray:
    """Missing, "" or "nan": responses feedback-forensics drops on load."""
    return pd.isna(texts) | pd.Series(texts, dtype=object).isin(["", "nan"]).to_numpy()


def _comparison_columns(comparisons: list[_Comparison], dataset: str
                        ) -> tuple[pd.DataFrame, np.ndarray, list, list, dict[str, int]]:
    """The kept comparisons' columns, their positions, prompt texts, response texts
    (A and B in turn) and the skipped counts, computed over all comparisons at once.

    A repeated id keeps its first comparison; a comparison with an empty response is
    skipped; metadata model_a/model_b win over the responses' models.
    """
    n = len(comparisons)
    ids = np.array(list(map(str, map(attrgetter("id"), comparisons))), dtype=object)
    duplicate = pd.Series(ids, dtype=object).duplicated(keep="first").to_numpy()
    metas = _column(comparisons, "metadata")
    texts, models = {}, {}
    for side in ("a", "b"):
        response = _column(comparisons, f"response_{side}")
        given = pd.notna(response)
        texts[side] = _column(comparisons, f"text_{side}")
        texts[side][given] = list(map(attrgetter("text"), response[given]))
        models[side] = np.full(n, None, dtype=object)
        models[side][given] = list(map(attrgetter("model"), response[given]))
        named = np.fromiter(map(operator.contains, metas, repeat(f"model_{side}")), bool, n)
        models[side][named] = list(map(methodcaller("get", f"model_{side}"), metas[named]))
    empty = _is_empty(texts["a"]) | _is_empty(texts["b"])
    kept = np.flatnonzero(~duplicate & ~empty)
    skipped = {"duplicate": int(duplicate.sum()),
               "empty response": int((~duplicate & empty).sum())}

    frame = pd.DataFrame({
        "dataset": dataset, "comparison_id": ids[kept], "prompt_id": None,
        "model_a": _as_text(models["a"][kept]), "model_b": _as_text(models["b"][kept]),
        "response_a_id": None, "response_b_id": None}, dtype=object)
    kept_metas = metas[kept]
    keys = set().union(*kept_metas) - {"model_a", "model_b"}
    for key in sorted(keys):
        values = np.fromiter(map(methodcaller("get", key), kept_metas), object, len(kept))
        spelled = pd.notna(values) & ~np.fromiter(map(isinstance, values, repeat(str)), bool,
                                                  len(values))
        values[spelled] = list(map(partial(json.dumps, sort_keys=True), values[spelled]))
        if pd.notna(values).any():
            frame[schema.META_PREFIX + key] = values
    prompts = _column(comparisons, "prompt")[kept]
    truthy = np.fromiter(map(bool, prompts), bool, len(prompts))
    prompt_texts = np.full(len(kept), None, dtype=object)
    prompt_texts[truthy] = list(map(str, prompts[truthy]))
    response_texts = np.empty(2 * len(kept), dtype=object)
    response_texts[0::2] = _as_text(texts["a"][kept])
    response_texts[1::2] = _as_text(texts["b"][kept])
    return frame, kept, list(prompt_texts), list(response_texts), skipped


# ------------------------------------------------------------------------- export

_EXPORT_REASON = {schema.TIE: "both", schema.NEITHER: "not_applicable",
                  schema.INVALID: "invalid"}


def to_annotated_pairs(annotations: Annotations, *, texts: dict[str, tuple[dict, dict]]
                       | None = None, name: str = "ffsite export") -> dict[str, Any]:
    """AnnotatedPairs v2 for the given annotations (texts filled in where known).

    Each trait becomes a principle annotator keyed by its trait id; each preference
    judge an annotator keyed by its judge id.  Repeated votes on one trait are exported
    combined (majority): AP holds one per annotator (`ffsite export` separates judges).
    """
    texts = texts or {}
    comparisons = annotations.comparisons
    annotators = annotations.annotators
    is_trait = (annotators["role"] == schema.ROLE_TRAIT).to_numpy()
    ap_id = np.where(is_trait, annotators["trait_id"].fillna("").to_numpy(),
                     annotators["judge"].to_numpy())
    ap_ids, ap_code = np.unique(ap_id, return_inverse=True)
    votes = annotations.votes
    keys = (votes["comparison"].to_numpy(np.int64) * len(ap_ids)
            + ap_code[votes["annotator"].to_numpy()])
    keys, codes = combine(keys, votes["vote"].to_numpy())

    ap_annotators: dict[str, dict] = {}
    for row, identifier in zip(annotators.itertuples(), ap_id, strict=True):
        if identifier in ap_annotators:
            continue
        if row.role == schema.ROLE_TRAIT:
            ap_annotators[identifier] = {"description": row.trait, "type": "principle"}
        else:
            ap_annotators[identifier] = {
                "name": row.judge, "type": "unknown",
                "description": annotations.preference_descriptions.get(row.judge, row.judge)}
    datasets = annotations.datasets
    default = annotations.default_preference.get(datasets[0]) if datasets else None
    if default is None:
        preference = annotators.loc[~is_trait, "judge"]
        default = preference.iloc[0] if len(preference) else None

    per_comparison: list[dict[str, Any]] = []
    for values in comparisons.astype(object).to_dict("records"):
        prompts, responses = texts.get(values["dataset"], ({}, {}))
        entry: dict[str, Any] = {
            "id": values["comparison_id"],
            "prompt": prompts.get(values["prompt_id"]),
            "response_a": {"text": responses.get(values["response_a_id"], "")},
            "response_b": {"text": responses.get(values["response_b_id"], "")},
            "annotations": {},
        }
        for side in ("a", "b"):
            model = values[f"model_{side}"]
            if isinstance(model, str):
                entry[f"response_{side}"]["model"] = model
        metadata = {}
        for column in annotations.meta_columns:
            value = values.get(column)
            if isinstance(value, str):
                metadata[column[len(schema.META_PREFIX):]] = value
        if len(datasets) > 1:
            metadata["dataset"] = values["dataset"]
        if metadata:
            entry["metadata"] = metadata
        per_comparison.append(entry)
    comparison_of = keys // len(ap_ids)
    annotator_of = keys % len(ap_ids)
    for comparison, annotator, code in zip(comparison_of.tolist(), annotator_of.tolist(),
                                           codes.tolist(), strict=True):
        if code == schema.MISSING:
            continue
        if code in (schema.A, schema.B):
            vote: dict[str, Any] = {"pref": "a" if code == schema.A else "b"}
        else:
            vote = {"pref": None, "no_pref_reason": _EXPORT_REASON[code]}
        per_comparison[comparison]["annotations"][str(ap_ids[annotator])] = vote
    meta_keys = sorted({k for c in per_comparison for k in c.get("metadata", {})})
    return {
        "metadata": {"version": "2.0", "description": "Exported by ffsite",
                     "dataset_name": name, "default_annotator": default,
                     "available_metadata_keys_per_comparison": meta_keys},
        "annotators": ap_annotators,
        "comparisons": per_comparison,
    }
