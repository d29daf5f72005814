"""Where ffsite keeps things it can recompute: one root for every cache."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """$FFSITE_CACHE_DIR, else $XDG_CACHE_HOME/ffsite, else ~/.cache/ffsite."""
    if os.environ.get("FFSITE_CACHE_DIR"):
        return Path(os.environ["FFSITE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ffsite"
