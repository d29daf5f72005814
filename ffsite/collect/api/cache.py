"""On-disk cache of answered API calls: one JSON file per call, written atomically.

The key is a SHA-256 over everything that decides a call's answer (see `call_key`), so
a rerun — after Ctrl-C, `kill -9` or a budget stop — finds every finished call and pays
for none of them again.  Only answers are stored (text, finish reason, token usage,
provider cost, attempts); failed calls are never stored, so a rerun tries them again.
Nothing from the request headers (the API key) reaches an entry.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ffsite._cache import cache_root
from ffsite.collect.api.client import LOGGER
from ffsite.errors import ParameterError

log = logging.getLogger(LOGGER)


def default_cache_dir() -> Path:
    # "annotate": the folder's name from before the other methods came, kept so that no
    # answered call in a user's cache is paid for again.
    return cache_root() / "annotate"


def call_key(**fields: Any) -> str:
    """Hex SHA-256 of the fields as canonical JSON (sorted keys, no whitespace)."""
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# What an entry holds (`calls.cache_entry`), and the types a reader may rely on.
_FIELDS = {"content": (str,), "finish_reason": (str, type(None)), "prompt_tokens": (int,),
           "completion_tokens": (int,), "provider_cost": (int, float, type(None)),
           "attempts": (int,)}


def _whole(entry: object) -> bool:
    return isinstance(entry, dict) and all(
        isinstance(entry.get(name), kinds) and not isinstance(entry.get(name), bool)
        for name, kinds in _FIELDS.items())


class Cache:
    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self._folders: set[Path] = set()
        self._written = 0
        self.damaged = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry, or None when absent; a damaged entry (not JSON, the wrong shape) is
        a miss too, counted in `damaged` and logged, so the call is made again."""
        path = self._path(key)
        try:
            entry = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError):
            entry = None
        if not _whole(entry):
            self.damaged += 1
            log.warning("damaged cache entry %s ignored; the call is made again", path)
            return None
        return entry

    def answered_on(self, keys: Iterable[str]) -> str | None:
        """The day (UTC, YYYY-MM-DD) the latest of these entries was written: when the
        run behind them ended, read from the cache (a resumed run says what an
        uninterrupted one does); None when none is there."""
        latest = None
        for key in keys:
            try:
                written = self._path(key).stat().st_mtime
            except OSError:
                continue
            latest = written if latest is None else max(latest, written)
        if latest is None:
            return None
        return dt.datetime.fromtimestamp(latest, tz=dt.UTC).strftime("%Y-%m-%d")

    def __contains__(self, key: str) -> bool:
        return self._path(key).is_file()

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Write beside the entry, then rename over it: a reader (or a rerun after
        `kill -9`) sees the whole entry or none.  Leaner than `ffsite._atomic` because a
        run writes hundreds of entries a second."""
        path = self._path(key)
        if path.parent not in self._folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(path.parent)
        self._written += 1
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{self._written}.tmp")
        try:
            with open(tmp, "xb") as handle:
                handle.write(json.dumps(entry, sort_keys=True, ensure_ascii=False).encode())
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise ParameterError(f"{path}: cannot write the cache entry ({exc.strerror}); "
                                 "free some space or pick another {cache_dir}",
                                 "cache_dir") from None
