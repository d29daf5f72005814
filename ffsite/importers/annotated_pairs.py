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
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ffsite.base.texts import text_id
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.traits import trait_set_of

DEFAULT_ANNOTATOR_DESCRIPTION = (
    "Default annotator from original dataset (from column `preferred_text`)")
TRAIT_SET_IMPORTED = "annotated-pairs"
JUDGE_UNKNOWN = "unknown"

_REASONS = {"not_applicable": "neither", "neither": "neither", "none": "neither",
            "both": "tie", "tie": "tie", "invalid": "invalid", "missing": "missing"}


@dataclass
class ImportResult:
    """What an importer produced: a votes table plus what goes in the file metadata."""

    table: pa.Table
    default_preference: dict[str, str]
    annotators: dict[str, str] = field(default_factory=dict)
    prompts: dict[str, str] = field(default_factory=dict)
    responses: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    dataset: str = ""


def _short_hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()[:8]


def _load_json(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise FfsiteError(f"{path}: no such file") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise FfsiteError(f"{path}: not valid JSON ({exc}); give an AnnotatedPairs "
                          "JSON file") from None
    if not isinstance(data, dict) or not isinstance(data.get("comparisons"), list) \
            or not isinstance(data.get("annotators"), dict):
        raise FfsiteError(f"{path}: not an AnnotatedPairs file (needs 'annotators' and "
                          "'comparisons')")
    return data


def _vote(annotation: Any, v2: bool) -> tuple[str, str | None]:
    """(vote value, note) for one annotation entry."""
    if not isinstance(annotation, dict) or "pref" not in annotation:
        return "invalid", "annotation without 'pref'"
    pref = annotation["pref"]
    if isinstance(pref, str):
        lowered = pref.lower()
        if lowered in ("a", "text_a"):
            return "A", None
        if lowered in ("b", "text_b"):
            return "B", None
        if lowered in _REASONS:
            return _REASONS[lowered], None
        return "invalid", f"unknown preference {pref!r}"
    if pref is None:
        reason = str(annotation.get("no_pref_reason") or "not_applicable").lower()
        return _REASONS.get(reason, "neither"), None
    return "invalid", f"unknown preference {pref!r}"


def _is_empty(text: Any) -> bool:
    return text is None or text in ("", "nan")


def read_annotated_pairs(path: str | os.PathLike, dataset: str | None = None) -> ImportResult:
    """Parse an AnnotatedPairs file into a votes table (not yet written)."""
    path = Path(path)
    data = _load_json(path)
    metadata = data.get("metadata") or {}
    v2 = str(metadata.get("version", "1.0")).split(".")[0] == "2"
    dataset = dataset or metadata.get("dataset_name") or path.stem
    annotators: dict[str, dict] = data["annotators"]

    default = metadata.get("default_annotator")
    if default not in annotators:
        named = [a for a, info in annotators.items() if info.get("name") == "preferred_text"]
        default = named[0] if named else _short_hash(DEFAULT_ANNOTATOR_DESCRIPTION)

    # One row per annotator we keep: role, judge, trait_id, trait, trait_set.
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
    annotator_ids = list(kept)
    annotator_index = {a: i for i, a in enumerate(annotator_ids)}

    per_comparison: dict[str, list] = {name: [] for name in schema.COMPARISON_COLUMNS}
    meta: dict[str, dict[int, str]] = {}
    vote_comparison: list[int] = []
    vote_annotator: list[int] = []
    vote_value: list[str] = []
    vote_note: list[str | None] = []
    prompts: dict[str, str] = {}
    responses: dict[str, str] = {}
    seen: set[str] = set()
    skipped = {"duplicate": 0, "empty response": 0}

    for comparison in data["comparisons"]:
        comparison_id = str(comparison.get("id"))
        if comparison_id in seen:
            skipped["duplicate"] += 1
            continue
        seen.add(comparison_id)
        if v2:
            response_a = comparison.get("response_a") or {}
            response_b = comparison.get("response_b") or {}
        else:
            response_a = {"text": comparison.get("text_a")}
            response_b = {"text": comparison.get("text_b")}
        text_a, text_b = response_a.get("text"), response_b.get("text")
        if _is_empty(text_a) or _is_empty(text_b):
            skipped["empty response"] += 1
            continue
        comparison_meta = comparison.get("metadata") or {}
        model_a = comparison_meta.get("model_a", response_a.get("model"))
        model_b = comparison_meta.get("model_b", response_b.get("model"))
        prompt = comparison.get("prompt")
        index = len(per_comparison["dataset"])
        prompt_id = text_id("p", str(prompt)) if prompt else None
        response_a_id, response_b_id = text_id("r", str(text_a)), text_id("r", str(text_b))
        if prompt_id:
            prompts[prompt_id] = str(prompt)
        responses[response_a_id], responses[response_b_id] = str(text_a), str(text_b)
        for name, value in (("dataset", dataset), ("comparison_id", comparison_id),
                            ("prompt_id", prompt_id),
                            ("model_a", None if model_a is None else str(model_a)),
                            ("model_b", None if model_b is None else str(model_b)),
                            ("response_a_id", response_a_id),
                            ("response_b_id", response_b_id)):
            per_comparison[name].append(value)
        for key, value in comparison_meta.items():
            if key in ("model_a", "model_b") or value is None:
                continue
            text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
            meta.setdefault(key, {})[index] = text
        for annotator_id, annotation in (comparison.get("annotations") or {}).items():
            position = annotator_index.get(annotator_id)
            if position is None:
                continue
            value, note = _vote(annotation, v2)
            vote_comparison.append(index)
            vote_annotator.append(position)
            vote_value.append(value)
            vote_note.append(note)

    table = _votes_table(per_comparison, meta, kept, annotator_ids, vote_comparison,
                         vote_annotator, vote_value, vote_note)
    return ImportResult(table=table, default_preference={dataset: default},
                        annotators={a: descriptions[a] for a in sorted(descriptions)
                                    if a in kept},
                        prompts=prompts, responses=responses,
                        skipped={k: v for k, v in skipped.items() if v}, dataset=dataset)


def _votes_table(per_comparison: dict[str, list], meta: dict[str, dict[int, str]],
                 kept: dict[str, tuple], annotator_ids: list[str],
                 vote_comparison: list[int], vote_annotator: list[int],
                 vote_value: list[str], vote_note: list[str | None]) -> pa.Table:
    """Build the long table by indexing per-comparison and per-annotator columns."""
    comparison = np.asarray(vote_comparison, dtype=np.int64)
    annotator = np.asarray(vote_annotator, dtype=np.int64)
    columns: dict[str, pa.Array] = {}
    for name, values in per_comparison.items():
        columns[name] = pa.array(values, pa.string()).take(pa.array(comparison))
    fields = ("role", "judge", "trait_id", "trait", "trait_set")
    for position, name in enumerate(fields):
        values = [kept[a][position] for a in annotator_ids]
        columns[name] = pa.array(values, pa.string()).take(pa.array(annotator))
    columns["seed"] = pa.nulls(len(comparison), pa.int64())
    columns["vote"] = pa.array(vote_value, pa.string())
    columns["note"] = pa.array(vote_note, pa.string())
    n_comparisons = len(per_comparison["dataset"])
    for key, values in sorted(meta.items()):
        full = [values.get(i) for i in range(n_comparisons)]
        columns[schema.META_PREFIX + key] = pa.array(full, pa.string()).take(
            pa.array(comparison))
    return pa.table(columns)


# ------------------------------------------------------------------------- export

_EXPORT_REASON = {schema.TIE: "both", schema.NEITHER: "not_applicable",
                  schema.INVALID: "invalid"}


def to_annotated_pairs(annotations: Annotations, *, texts: dict[str, tuple[dict, dict]]
                       | None = None, name: str = "ffsite export") -> dict[str, Any]:
    """AnnotatedPairs v2 for the given annotations (texts filled in where known).

    Each trait becomes a principle annotator keyed by its trait id; each preference
    judge an annotator keyed by its judge id.  When several judges voted on one trait,
    the exported vote is their combination (majority), since AP holds one per annotator.
    """
    from ffsite.metrics.combine import combine

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


def records_frame(result: ImportResult) -> pd.DataFrame:
    """The imported votes as a pandas frame (handy in tests and notebooks)."""
    return result.table.to_pandas()
