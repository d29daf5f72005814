"""ICAI's CSV input format: text_a, text_b, preferred_text (+ model_a, model_b,
prompt or input; every other column becomes a metadata column)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets.texts import text_id
from ffsite.errors import FfsiteError
from ffsite.format import encode_votes, schema
from ffsite.importers.annotated_pairs import DEFAULT_ANNOTATOR, DEFAULT_ANNOTATOR_DESCRIPTION
from ffsite.importers.result import ImportResult

REQUIRED = ("text_a", "text_b", "preferred_text")

_PREFERENCES = {"text_a": schema.A, "a": schema.A, "text_b": schema.B, "b": schema.B,
                "tie": schema.TIE, "both": schema.TIE, "neither": schema.NEITHER,
                "invalid": schema.INVALID}


def read_icai_csv(path: str | os.PathLike, dataset: str | None = None) -> ImportResult:
    path = Path(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise FfsiteError(f"{path}: no such file; check the path") from None
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise FfsiteError(f"{path}: not a readable CSV file ({exc}); fix it or save it "
                          "again as CSV") from None
    frame = frame.loc[:, ~frame.columns.duplicated()]
    for column in REQUIRED:
        if column not in frame.columns:
            raise FfsiteError(f"{path}: column '{column}' is missing; an ICAI CSV needs "
                              + ", ".join(REQUIRED))
    dataset = dataset or path.stem
    judge = DEFAULT_ANNOTATOR
    prompt_column = next((c for c in ("prompt", "input") if c in frame.columns), None)
    id_column = "index" if "index" in frame.columns else None
    meta_columns = [c for c in frame.columns
                    if c not in (*REQUIRED, "model_a", "model_b", prompt_column, id_column)]

    per_comparison: dict[str, list] = {name: [] for name in schema.COMPARISON_COLUMNS}
    meta: dict[str, dict[int, str]] = {c: {} for c in meta_columns}
    votes, prompts, responses = [], {}, {}
    seen: set[str] = set()
    kept_rows = []
    for row_number, row in enumerate(frame.to_dict("records")):
        comparison_id = row[id_column] if id_column else str(row_number)
        if comparison_id in seen:
            raise FfsiteError(f"{path}: column '{id_column}', row {row_number}: comparison "
                              f"id '{comparison_id}' repeats; ids must be unique")
        seen.add(comparison_id)
        preference = _PREFERENCES.get(row["preferred_text"].strip().lower())
        if preference is None:
            raise FfsiteError(f"{path}: column 'preferred_text', row {row_number}: "
                              f"'{row['preferred_text']}' is not text_a, text_b or tie")
        index = len(kept_rows)
        kept_rows.append(row_number)
        prompt = row.get(prompt_column) if prompt_column else None
        prompt_id = text_id("p", prompt) if prompt else None
        if prompt_id:
            prompts[prompt_id] = prompt
        ids = []
        for side in ("a", "b"):
            response_id = text_id("r", row[f"text_{side}"])
            responses[response_id] = row[f"text_{side}"]
            ids.append(response_id)
        for name, value in (("dataset", dataset), ("comparison_id", comparison_id),
                            ("prompt_id", prompt_id),
                            ("model_a", row.get("model_a") or None),
                            ("model_b", row.get("model_b") or None),
                            ("response_a_id", ids[0]), ("response_b_id", ids[1])):
            per_comparison[name].append(value)
        for column in meta_columns:
            if row[column] != "":
                meta[column][index] = row[column]
        votes.append(preference)
    comparisons = pd.DataFrame(per_comparison, dtype=object)
    for column, values in meta.items():
        if values:
            comparisons[schema.META_PREFIX + column] = pd.Series(values, dtype=object).reindex(
                range(len(comparisons)))
    annotators = pd.DataFrame([(schema.ROLE_PREFERENCE, judge, None, None, None)],
                              columns=list(schema.ANNOTATOR_COLUMNS))
    table = encode_votes(comparisons, annotators, np.arange(len(votes)),
                         np.zeros(len(votes), np.int64), np.asarray(votes, np.int8))
    return ImportResult(table=table, default_preference={dataset: judge},
                        annotators={judge: DEFAULT_ANNOTATOR_DESCRIPTION},
                        prompts=prompts, responses=responses, dataset=dataset)
