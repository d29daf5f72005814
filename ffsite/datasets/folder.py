"""Where texts come from: the base-data folder, and each dataset's texts in it (read by the
dataset's own reader, or from the texts.parquet importers write for any other dataset)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ffsite._cache import cache_root
from ffsite._names import safe_name
from ffsite.datasets import find
from ffsite.errors import FfsiteError, ParameterError

ENV = "FFSITE_BASE_DATA"


def default_cache_dir() -> Path:
    """base-data under the cache root (see ffsite._cache): where `ffsite fetch` puts it."""
    return cache_root() / "base-data"


FETCH_HINT = "run ffsite fetch to download the base datasets"


def base_dir(option: str | os.PathLike | None = None) -> Path | None:
    """The base-data folder: `option`, else $FFSITE_BASE_DATA, else the folder `ffsite
    fetch` downloads into when it exists, else None.

    A folder that does not exist is an error, not "no base data": it is far more often a
    typo than a wish to go without texts, and a command that went on without them would
    quietly publish or write less.
    """
    if option:
        return existing_base_dir(option)
    from_env = os.environ.get(ENV)
    if not from_env:
        fetched = default_cache_dir()  # so `ffsite fetch && ffsite build` just works
        return fetched if fetched.is_dir() else None
    if not Path(from_env).is_dir():
        raise FfsiteError(f"base data {from_env}: no such folder (from {ENV}); fix or unset "
                          f"{ENV}, or {FETCH_HINT}")
    return Path(from_env)


def existing_base_dir(folder: str | os.PathLike) -> Path:
    """`folder` as a Path, checked to be a folder; the error names the `base_data` parameter."""
    if not Path(folder).is_dir():
        raise ParameterError(f"base data {folder}: no such folder (from {{base_data}}); fix "
                             f"the path, or {FETCH_HINT}", "base_data")
    return Path(folder)


def load_texts(folder: Path | None, dataset: str
               ) -> tuple[dict[str, str], dict[str, str]] | None:
    """(prompts, responses) for `dataset`, or None when the folder lacks them."""
    if folder is None:
        return None
    record = find(dataset)
    loader = record.hook("texts") if record else None
    if loader is not None:
        root = folder / dataset
        if not root.is_dir():
            return None
        return loader(root)
    from ffsite.datasets import texts  # pandas: not for every command's options

    return texts.read_texts(folder, dataset)


def is_available(folder: Path | None, dataset: str) -> bool:
    """Whether `folder` holds the texts of `dataset` (without loading them)."""
    if folder is None:
        return False
    record = find(dataset)
    if record is not None and record.texts is not None:
        return (folder / dataset).is_dir()
    from ffsite.datasets.texts import TEXTS_FILE

    return (folder / safe_name(dataset) / TEXTS_FILE).is_file()


def omitted_note(missing: Iterable[str], what: str = "examples") -> str | None:
    """The one line a command prints about base datasets it had to leave out, or None.

    E.g. "examples omitted: base dataset alpaca_eval not available; run ffsite fetch
    alpaca_eval or set FFSITE_BASE_DATA" (one line).
    """
    names = sorted(set(missing))
    if not names:
        return None
    noun = "base dataset" if len(names) == 1 else "base datasets"
    return (f"{what} omitted: {noun} {', '.join(names)} not available; run ffsite fetch "
            f"{' '.join(names)} or set {ENV}")
