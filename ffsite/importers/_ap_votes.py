"""AnnotatedPairs votes read as columns by Arrow's JSON reader: the fast path.

Each comparison's `annotations` object arrives as raw JSON; joined one per line, Arrow's
C++ reader turns them into one struct column per annotator on both cores, so no Python
object is made per vote.  A file whose votes Arrow cannot type (say a preference that is
a string in one comparison and a number in another) raises `Unsupported`, and the
importer decodes its votes as typed structs instead.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from operator import methodcaller

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ffsite.format import codes_of

VoteCode = Callable[[object, object], tuple[int, str | None]]


class Unsupported(Exception):
    """The votes need the general path."""


def read_votes(raws: Sequence[msgspec.Raw], annotator_index: dict[str, int],
               vote_code: VoteCode) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, str]]:
    """Votes in comparison-major order: (comparison, annotator position, code), and notes
    keyed by vote number.  `vote_code(pref, reason)` decides one distinct pair."""
    annotations = _annotations(raws)
    entries, fields = [], []
    for name in annotations.column_names:
        entry = annotations.column(name)  # chunked: Arrow's reader parses blocks in parallel
        if name not in annotator_index or pa.types.is_null(entry.type):
            continue
        if not pa.types.is_struct(entry.type):
            raise Unsupported("an annotation is not an object")
        entries.append(entry)
        fields.append(name)
    n = len(raws)
    pref_codes, prefs = _encoded([_child(entry, "pref") for entry in entries], n)
    reason_codes, reasons = _encoded([_child(entry, "no_pref_reason") for entry in entries], n)
    pair = (pref_codes + 1) * (len(reasons) + 1) + reason_codes + 1
    decided, unknown = _decide(pair, prefs, reasons, vote_code)
    codes = decided[pair]  # one row per annotator field, one column per comparison
    for column, entry in enumerate(entries):
        if entry.null_count:
            codes[column, ~np.asarray(entry.is_valid())] = 0  # 0: no vote
    positions = np.array([annotator_index[name] for name in fields], dtype=np.int32)
    by_comparison = codes.T  # comparison-major, the order votes are numbered in
    has_vote = None if by_comparison.all() else by_comparison != 0
    if has_vote is None:  # every annotator voted on every comparison: no search
        comparison = np.repeat(np.arange(n, dtype=np.int32), len(fields))
        annotator = np.tile(positions, n)
        flat = by_comparison.reshape(-1)
    else:
        comparison, column_of_vote = np.nonzero(has_vote)
        comparison, annotator = comparison.astype(np.int32), positions[column_of_vote]
        flat = by_comparison[has_vote]
    notes = _notes(unknown, pair, codes, has_vote, prefs, pref_codes) if unknown.any() else {}
    return comparison, annotator, flat, notes


def _notes(unknown: np.ndarray, pair: np.ndarray, codes: np.ndarray,
           has_vote: np.ndarray | None, prefs: list, pref_codes: np.ndarray
           ) -> dict[int, str]:
    """Notes on the votes whose preference was not understood, keyed by vote number."""
    columns, rows = np.nonzero(unknown[pair] & (codes != 0))
    if has_vote is None:
        numbers = rows * codes.shape[0] + columns
    else:
        numbers = (np.cumsum(has_vote, axis=None).reshape(has_vote.shape) - 1)[rows, columns]
    return {int(number): f"unknown preference {prefs[pref_codes[column, row]]!r}"
            for number, column, row in zip(numbers, columns, rows, strict=True)}


def _annotations(raws: Sequence[msgspec.Raw]) -> pa.Table:
    """One row per comparison, one struct column per annotator key."""
    try:
        return _one_per_line(b"\n".join(raws), len(raws))
    except Unsupported:
        # Pretty-printed votes span lines (a line then holds part of an object, which
        # Arrow rejects).  A literal newline in valid JSON is whitespace: flatten them.
        flat = map(methodcaller("replace", b"\n", b" "), map(bytes, raws))
        return _one_per_line(b"\n".join(flat), len(raws))


def _one_per_line(lines: bytes, count: int) -> pa.Table:
    try:
        table = pj.read_json(io.BytesIO(lines), read_options=pj.ReadOptions(block_size=1 << 24),
                             parse_options=pj.ParseOptions(newlines_in_values=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise Unsupported(str(exc)) from None
    if table.num_rows != count:
        raise Unsupported("row count")
    return table


def _child(entry: pa.ChunkedArray, name: str) -> pa.ChunkedArray | None:
    if entry.type.get_field_index(name) < 0:
        return None
    child = pc.struct_field(entry, name)
    if pa.types.is_null(child.type):
        return None
    if not pa.types.is_string(child.type) and not pa.types.is_large_string(child.type):
        raise Unsupported(f"{child.type} values")
    return child


def _encoded(arrays: list[pa.ChunkedArray | None], length: int) -> tuple[np.ndarray, list]:
    """Codes (-1 for null) of several string columns, one row each, into one shared
    dictionary, and its values.  Each column is hashed on its own, on both cores (Arrow
    releases the GIL), and the small dictionaries are unified after."""
    strings = [pa.nulls(length, pa.string()) if array is None else array.cast(pa.string())
               for array in arrays]
    with ThreadPoolExecutor(max_workers=2) as pool:
        encoded = list(pool.map(pc.dictionary_encode, strings))
    chunks = [chunk for column in encoded for chunk in getattr(column, "chunks", [column])]
    codes, values = codes_of(pa.chunked_array(chunks, pa.dictionary(pa.int32(), pa.string())))
    return codes.astype(np.int32).reshape(len(arrays), length), values


def _decide(pair: np.ndarray, prefs: list, reasons: list, vote_code: VoteCode
            ) -> tuple[np.ndarray, np.ndarray]:
    """The vote code of each (preference, reason) pair that occurs, decided once per pair,
    and whether the preference was not understood (such votes are invalid and get a
    note).  Pairs are numbered (preference code + 1) * (len(reasons) + 1) + reason code + 1,
    a small dense space: no sorting."""
    width = len(reasons) + 1
    decided = np.zeros((len(prefs) + 1) * width, dtype=np.int8)
    unknown = np.zeros(len(decided), dtype=bool)
    seen = np.zeros(len(decided), dtype=bool)
    seen[pair] = True
    for key in np.flatnonzero(seen).tolist():
        value = prefs[key // width - 1] if key // width else None
        why = reasons[key % width - 1] if key % width else None
        decided[key], note = vote_code(value, why)
        unknown[key] = note is not None
    return decided, unknown
