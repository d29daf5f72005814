"""Static files of the site: the theme's own CSS, JavaScript and icons.

Every chart is drawn at build time (drawings.py), every choice of a chart's menus too, so
the site ships no chart library.  File names carry a content hash, so a host may cache
them forever.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ffsite.errors import FfsiteError

STATIC_DIR = "static"  # inside the templates folder: CSS, JS, favicon
ASSETS_DIR = "assets"  # inside the site


def hashed_name(name: str, data: bytes) -> str:
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}-{hashlib.sha256(data).hexdigest()[:10]}{dot}{suffix}"


def collect_assets(templates_dir: Path) -> dict[str, tuple[str, bytes]]:
    """{logical name: (path in the site, bytes)} for every static file."""
    assets: dict[str, bytes] = {}
    static = templates_dir / STATIC_DIR
    if not static.is_dir():
        raise FfsiteError(f"{static}: missing; the templates folder needs static/ with "
                          "site.css, site.js and favicon.svg")
    for path in sorted(static.iterdir()):
        if path.is_file():
            assets[path.name] = path.read_bytes()
    for required in ("site.css", "site.js", "favicon.svg"):
        if required not in assets:
            raise FfsiteError(f"{static / required}: missing; restore it from the repository")
    return {name: (f"{ASSETS_DIR}/{hashed_name(name, data)}", data)
            for name, data in assets.items()}
