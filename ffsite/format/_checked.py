"""A cache of checked votes files, keyed by the file's exact bytes.

Checking every rule on millions of votes takes most of a read.  The result of a check
depends only on the file's bytes (and on which columns were read), so it is stored under
the SHA-256 of those bytes: a file that changes by one byte is checked again from scratch,
and a file that fails its checks is never stored.  Entries hold integer codes and the
distinct values only (no pickles): numpy's .npz with one JSON document.

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

VERSION = "1"  # bump when the coded pieces change shape
KEEP = 32  # entries kept; the oldest go first


def key(path: str | os.PathLike, columns: Collection[str] | None) -> str | None:
    """The cache key of a file read with `columns`, or None when caching is off."""
    if os.environ.get("FFSITE_NO_CACHE"):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    chosen = "*" if columns is None else ",".join(sorted(columns))
    digest.update(f"|{schema.FORMAT_VERSION}|{VERSION}|{chosen}".encode())
    return digest.hexdigest()


def _folder() -> Path:
    return cache_root() / "checked-votes"


def load(cache_key: str | None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(coded pieces, file metadata) stored under the key, or None."""
    if cache_key is None:
        return None
    path = _folder() / f"{cache_key}.npz"
    try:
        with np.load(path, allow_pickle=False) as stored:
            header = json.loads(bytes(stored["header"]).decode("utf-8"))
            piece: dict[str, Any] = {name: stored[name] for name in
                                     ("comparison", "annotator", "vote")}
            for table in ("comparisons", "annotators"):
                piece[table] = {
                    name: pd.Categorical.from_codes(
                        stored[f"{table}.{name}"],
                        categories=pd.Index(values, dtype=object))
                    for name, values in header[table].items()}
    except (OSError, KeyError, ValueError):
        return None
    piece["n_comparisons"] = header["n_comparisons"]
    return piece, header["metadata"]


def store(cache_key: str | None, piece: dict[str, Any], metadata: dict[str, Any]) -> None:
    """Keep a checked file's pieces; a cache that cannot be written is skipped."""
    if cache_key is None:
        return
    arrays = {name: piece[name] for name in ("comparison", "annotator", "vote")}
    header: dict[str, Any] = {"metadata": metadata, "n_comparisons": piece["n_comparisons"]}
    for table in ("comparisons", "annotators"):
        header[table] = {}
        for name, column in piece[table].items():
            header[table][name] = list(column.categories)
            arrays[f"{table}.{name}"] = column.codes
    encoded = json.dumps(header, ensure_ascii=False).encode("utf-8")
    arrays["header"] = np.frombuffer(encoded, dtype=np.uint8)
    folder = _folder()
    with contextlib.suppress(Exception):  # the cache is an optimisation, never an error
        with atomic_path(folder / f"{cache_key}.npz") as tmp, open(tmp, "wb") as handle:
            np.savez(handle, **arrays)
        entries = sorted(folder.glob("*.npz"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-KEEP]:
            old.unlink(missing_ok=True)
