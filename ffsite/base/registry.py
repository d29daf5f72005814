"""Where texts come from: the base-data folder and the loader for each dataset."""

from __future__ import annotations

import os
from pathlib import Path

from ffsite.base import alpaca_eval, hh_rlhf, texts

ENV = "FFSITE_BASE_DATA"
_LOADERS = {alpaca_eval.NAME: alpaca_eval.load_texts, hh_rlhf.NAME: hh_rlhf.load_texts}


def base_dir(option: str | os.PathLike | None = None) -> Path | None:
    """The base-data folder: the option, else $FFSITE_BASE_DATA, else None."""
    chosen = option or os.environ.get(ENV)
    return Path(chosen) if chosen else None


def load_texts(folder: Path | None, dataset: str
               ) -> tuple[dict[str, str], dict[str, str]] | None:
    """(prompts, responses) for `dataset`, or None when the folder lacks them."""
    if folder is None:
        return None
    loader = _LOADERS.get(dataset)
    if loader is not None:
        root = folder / dataset
        if not root.is_dir():
            return None
        return loader(root)
    return texts.read_texts(folder, dataset)
