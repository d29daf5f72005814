"""A cache of checked votes files, keyed by the file's exact bytes.

Checking every rule on millions of votes takes most of a read.  The result of a check
depends only on the file's bytes (and on which columns were read), so it is stored under
the SHA-256 of those bytes: a file that changes by one byte is checked again from scratch,
and a file that fails its checks is never stored.  The writer stores what it checked
before writing, so the first read of a file ffsite wrote on this machine is a hit too.
An entry for the whole file also answers reads of fewer columns.

Entries hold integer codes and each column's distinct values as JSON (no pickles), in
numpy's .npz; a read decodes only the columns it asks for.
Set FFSITE_NO_CACHE=1 to always check from scratch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ffsite._atomic import atomic_path
from ffsite._cache import cache_root
from ffsite.format import schema
from ffsite.format._columns import narrowest
from ffsite.format.coded import CodedVotes

VERSION = "4"  # bump when what is stored changes shape
KEEP = 32  # entries kept, newest first ...
KEEP_BYTES = 1 << 30  # ... and at most this much in all


def digest(path: str | os.PathLike) -> str | None:
    """SHA-256 of a file's bytes, or None when caching is off."""
    if os.environ.get("FFSITE_NO_CACHE"):
        return None
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def load(file_digest: str | None, columns: Collection[str] | None
         ) -> tuple[CodedVotes, dict[str, Any]] | None:
    """(votes, file metadata) of a file read with `columns` (None: all), or None.

    An entry for exactly those columns answers, else the whole file's entry cut down.
    """
    if file_digest is None:
        return None
    found = _load(_key(file_digest, columns), columns)
    if found is None and columns is not None:
        found = _load(_key(file_digest, None), columns)
    return found


def store(file_digest: str | None, columns: Collection[str] | None, votes: CodedVotes,
          metadata: dict[str, Any]) -> None:
    """Keep a checked file's votes; a cache that cannot be written is skipped."""
    if file_digest is None:
        return
    comparison, runs = _compress(votes.comparison)
    annotator = votes.annotator
    arrays = {"comparison": comparison, "vote": votes.vote,
              "annotator": annotator.astype(narrowest(int(annotator.max(initial=0)) + 1))}
    header: dict[str, Any] = {"metadata": metadata, "comparison_runs": runs,
                              "annotator_dtype": str(annotator.dtype)}
    for table, coded in (("comparisons", votes.comparisons), ("annotators", votes.annotators)):
        header[table] = list(coded)
        for name, column in coded.items():
            arrays[f"{table}.{name}"] = column.codes
            arrays[f"{table}.{name}.values"] = _json_bytes(list(column.categories))
    arrays["header"] = _json_bytes(header)
    folder = _folder()
    with contextlib.suppress(Exception):  # the cache is an optimisation, never an error
        target = folder / f"{_key(file_digest, columns)}.npz"
        with atomic_path(target) as tmp, open(tmp, "wb") as handle:
            np.savez(handle, **arrays)
        _prune(folder)


def _key(file_digest: str, columns: Collection[str] | None) -> str:
    chosen = "*" if columns is None else ",".join(sorted(columns))
    tail = f"|{schema.FORMAT_VERSION}|{VERSION}|{chosen}".encode()
    return hashlib.sha256(file_digest.encode() + tail).hexdigest()


def _folder() -> Path:
    return cache_root() / "checked-votes"


def _load(cache_key: str, columns: Collection[str] | None
          ) -> tuple[CodedVotes, dict[str, Any]] | None:
    path = _folder() / f"{cache_key}.npz"
    try:
        with np.load(path, allow_pickle=False) as stored:
            header = _from_json(stored["header"])
            votes = CodedVotes(
                comparisons=_table(stored, header, "comparisons", columns),
                annotators=_table(stored, header, "annotators", columns),
                comparison=_expand(stored["comparison"], header["comparison_runs"]),
                annotator=stored["annotator"].astype(header["annotator_dtype"]),
                vote=stored["vote"])
    except (OSError, KeyError, ValueError):
        return None
    return votes, header["metadata"]


def _table(stored, header: dict[str, Any], table: str, columns: Collection[str] | None
           ) -> dict[str, pd.Categorical]:
    return {name: _column(stored, f"{table}.{name}", _wanted(table, name, columns))
            for name in header[table] if _wanted(table, name, columns) is not None}


def _wanted(table: str, name: str, columns: Collection[str] | None) -> bool | None:
    """True: decode the column; False: keep it, empty (a standard comparison column
    not asked for); None: leave it out."""
    if columns is None or table == "annotators" or name in ("dataset", "comparison_id"):
        return True
    if name in columns:
        return True
    return False if name in schema.COMPARISON_COLUMNS else None


def _column(stored, name: str, decoded: bool) -> pd.Categorical:
    codes = stored[name]
    if not decoded:
        return pd.Categorical.from_codes(np.full(len(codes), -1, np.int8),
                                         categories=pd.Index([], dtype=object))
    values = _from_json(stored[f"{name}.values"])
    return pd.Categorical.from_codes(codes, categories=pd.Index(values, dtype=object))


def _json_bytes(value: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(value, ensure_ascii=False).encode("utf-8"), np.uint8)


def _from_json(stored: np.ndarray) -> Any:
    return json.loads(stored.tobytes().decode("utf-8"))


def _compress(comparison: np.ndarray) -> tuple[np.ndarray, bool]:
    """Sorted files list each comparison's votes together: store run lengths instead."""
    if len(comparison) and (comparison[1:] >= comparison[:-1]).all():
        return np.bincount(comparison), True
    return comparison, False


def _expand(stored: np.ndarray, runs: bool) -> np.ndarray:
    if not runs:
        return stored
    return np.repeat(np.arange(len(stored), dtype=np.int32), stored)


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    total = 0
    for number, entry in enumerate(entries):
        total += entry.stat().st_size
        if number >= KEEP or (number and total > KEEP_BYTES):
            entry.unlink(missing_ok=True)
