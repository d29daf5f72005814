"""AnnotatedPairs comparisons read as columns by Arrow's JSON reader: the fast path.

Arrow's C++ reader turns the comparisons into typed columns on several threads, so no
Python object is made per vote.  It gives exactly what the general path (typed structs,
one object per comparison) gives, or raises `Unsupported` when a file uses something
only the general path handles faithfully — values of mixed types, numbers or lists as
metadata, an explicit null model in metadata — and the importer falls back to it.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import msgspec
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ffsite.format import schema

if TYPE_CHECKING:
    from ffsite.importers.annotated_pairs import Parsed


class Unsupported(Exception):
    """The file needs the general path."""


def parse_columns(raws: list[msgspec.Raw], dataset: str,
                  annotator_index: dict[str, int]) -> Parsed:
    from ffsite.importers import annotated_pairs as ap  # shares its rules and codes

    if not raws:
        raise Unsupported("no comparisons")
    try:
        table = pj.read_json(io.BytesIO(b"\n".join(raws)),
                             read_options=pj.ReadOptions(block_size=1 << 24),
                             parse_options=pj.ParseOptions(newlines_in_values=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise Unsupported(str(exc)) from None
    if table.num_rows != len(raws):
        raise Unsupported("row count")
    table = table.combine_chunks()

    ids = _ids(table)
    text_a, model_a = _side(table, "a")
    text_b, model_b = _side(table, "b")
    duplicate = pd.Series(ids).duplicated(keep="first").to_numpy()
    empty = _empty(text_a) | _empty(text_b)
    kept = np.flatnonzero(~duplicate & ~empty)
    skipped = {"duplicate": int(duplicate.sum()), "empty response": int((~duplicate & empty).sum())}

    metadata = _column(table, "metadata")
    model_a = _model(metadata, "model_a", model_a)
    model_b = _model(metadata, "model_b", model_b)
    prompt = _strings(_column(table, "prompt"), len(ids))
    prompt = np.where(prompt == "", None, prompt)

    frame = pd.DataFrame({
        "dataset": dataset, "comparison_id": ids[kept], "prompt_id": None,
        "model_a": model_a[kept], "model_b": model_b[kept],
        "response_a_id": None, "response_b_id": None}, dtype=object)
    for name, values in _metadata_columns(metadata, kept):
        frame[schema.META_PREFIX + name] = values
    response_texts = np.empty(2 * len(kept), dtype=object)
    response_texts[0::2], response_texts[1::2] = text_a[kept], text_b[kept]

    comparison, annotator, code, notes = _votes(_column(table, "annotations"), kept,
                                                annotator_index, ap)
    return ap.Parsed(frame, list(prompt[kept]), list(response_texts), comparison, annotator,
                     code, notes, {k: v for k, v in skipped.items()})


# --------------------------------------------------------------------------- columns

def _column(container: pa.Table | pa.StructArray | None, name: str) -> pa.Array | None:
    """A top-level column or a struct field, or None when the files never have it."""
    if container is None:
        return None
    if isinstance(container, pa.Table):
        return container.column(name).chunk(0) if name in container.column_names else None
    if container.type.get_field_index(name) < 0:
        return None
    return pc.struct_field(container, name)  # null where the struct itself is null


def _strings(array: pa.Array | None, length: int) -> np.ndarray:
    """Object array of str/None; anything but strings goes to the general path."""
    if array is None or pa.types.is_null(array.type):
        return np.full(length, None, dtype=object)
    if not pa.types.is_string(array.type) and not pa.types.is_large_string(array.type):
        raise Unsupported(f"{array.type} values")
    return array.to_numpy(zero_copy_only=False).astype(object)


def _ids(table: pa.Table) -> np.ndarray:
    column = _column(table, "id")
    if column is None or column.null_count:
        raise Unsupported("missing ids")
    if pa.types.is_integer(column.type):  # str(5) == "5", as the general path does
        column = column.cast(pa.string())
    return _strings(column, len(column))


def _side(table: pa.Table, side: str) -> tuple[np.ndarray, np.ndarray]:
    """Text and model of one side: response_<side> when given, else v1's text_<side>."""
    n = table.num_rows
    response = _column(table, f"response_{side}")
    plain_text = _strings(_column(table, f"text_{side}"), n)
    if response is None:
        return plain_text, np.full(n, None, dtype=object)
    if not pa.types.is_struct(response.type):
        raise Unsupported("response is not an object")
    given = np.asarray(response.is_valid())
    text = _strings(_column(response, "text"), n)
    model = _strings(_column(response, "model"), n)
    return (np.where(given, text, plain_text).astype(object),
            np.where(given, model, None).astype(object))


def _empty(texts: np.ndarray) -> np.ndarray:
    return pd.isna(texts) | np.isin(texts, ["", "nan"])


def _model(metadata: pa.Array | None, name: str, from_response: np.ndarray) -> np.ndarray:
    """metadata.model_x wins over response_x.model, as in the general path."""
    given = _column(metadata, name) if metadata is not None else None
    if given is None:
        return from_response
    values = _strings(given, len(from_response))
    # A key present with null overrides the response's model; Arrow cannot tell that
    # apart from an absent key, so leave such files to the general path.
    if (pd.isna(values) & pd.notna(from_response) & np.asarray(metadata.is_valid())).any():
        raise Unsupported("null model in metadata")
    return np.where(pd.notna(values), values, from_response).astype(object)


def _metadata_columns(metadata: pa.Array | None, kept: np.ndarray):
    """(name, values) of every metadata key with a value in a kept comparison."""
    if metadata is None:
        return
    if not pa.types.is_struct(metadata.type):
        raise Unsupported("metadata is not an object")
    for field in sorted(metadata.type, key=lambda f: f.name):
        if field.name in ("model_a", "model_b") or pa.types.is_null(field.type):
            continue
        child = _column(metadata, field.name).take(pa.array(kept))
        if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            values = child.to_numpy(zero_copy_only=False).astype(object)
        elif pa.types.is_integer(field.type) or pa.types.is_boolean(field.type):
            values = np.array([None if v is None else json.dumps(v)
                               for v in child.to_pylist()], dtype=object)
        else:  # floats, lists, objects: their JSON spelling is the general path's job
            raise Unsupported(f"metadata {field.name}: {field.type}")
        if pd.notna(values).any():
            yield field.name, values


# ----------------------------------------------------------------------------- votes

def _votes(annotations: pa.Array | None, kept: np.ndarray, annotator_index: dict[str, int],
           ap) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, str]]:
    """Votes in comparison-major order: (comparison, annotator position, code), notes."""
    empty = np.zeros(0, np.int64)
    if annotations is None or pa.types.is_null(annotations.type):
        return empty, empty, np.zeros(0, np.int8), {}
    if not pa.types.is_struct(annotations.type):
        raise Unsupported("annotations is not an object")
    fields = [f.name for f in annotations.type if f.name in annotator_index]
    codes = np.zeros((len(kept), len(fields)), dtype=np.int8)  # 0: no vote
    note_cells: dict[tuple[int, int], str] = {}
    every_row = len(kept) == len(annotations)  # then kept is 0..n-1: nothing to pick
    rows = pa.array(kept)
    for column, name in enumerate(fields):
        entry = pc.struct_field(annotations, name)
        if not every_row:
            entry = entry.take(rows)
        if pa.types.is_null(entry.type):
            continue
        if not pa.types.is_struct(entry.type):
            raise Unsupported("an annotation is not an object")
        decided, unknown = _decide(_column(entry, "pref"), _column(entry, "no_pref_reason"),
                                   len(kept), ap)
        codes[:, column] = np.where(np.asarray(entry.is_valid()), decided, 0)
        for row in np.flatnonzero(unknown & (codes[:, column] != 0)).tolist():
            note_cells[(row, column)] = unknown_note(entry, row)
    has_vote = codes != 0
    comparison, column_of_vote = np.nonzero(has_vote)
    positions = np.array([annotator_index[name] for name in fields], dtype=np.int64)
    annotator = positions[column_of_vote] if len(fields) else empty
    vote_number = np.cumsum(has_vote.reshape(-1)) - 1
    notes = {int(vote_number[row * len(fields) + column]): note
             for (row, column), note in note_cells.items()}
    return comparison.astype(np.int64), annotator, codes[has_vote], notes


def unknown_note(entry: pa.StructArray, row: int) -> str:
    return f"unknown preference {_column(entry, 'pref')[row].as_py()!r}"


def _encoded(array: pa.Array | None, length: int) -> tuple[np.ndarray, list]:
    """Dictionary codes (-1 for null) and values of a string column, in Arrow."""
    if array is None or pa.types.is_null(array.type):
        return np.full(length, -1, dtype=np.int32), []
    if not pa.types.is_string(array.type) and not pa.types.is_large_string(array.type):
        raise Unsupported(f"{array.type} values")
    encoded = array.dictionary_encode()
    return (encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32),
            encoded.dictionary.to_pylist())


def _decide(pref: pa.Array | None, reason: pa.Array | None, length: int, ap
            ) -> tuple[np.ndarray, np.ndarray]:
    """Vote codes, deciding once per distinct (preference, reason) pair, and where a
    preference was not understood (those votes are invalid and get a note)."""
    pref_codes, prefs = _encoded(pref, length)
    reason_codes, reasons = _encoded(reason, length)
    width = len(reasons) + 1
    pair = (pref_codes + 1) * width + reason_codes + 1  # a small dense space: no sorting
    decided = np.zeros((len(prefs) + 1) * width, dtype=np.int8)
    unknown = np.zeros(len(decided), dtype=bool)
    seen = np.zeros(len(decided), dtype=bool)
    seen[pair] = True
    for key in np.flatnonzero(seen).tolist():
        value = prefs[key // width - 1] if key // width else None
        why = reasons[key % width - 1] if key % width else None
        decided[key], note = ap._vote_code(ap._Vote(pref=value, no_pref_reason=why))
        unknown[key] = note is not None
    return decided[pair], unknown[pair]
