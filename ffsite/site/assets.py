"""Static files of the site: the theme's own files, and what the build draws charts with.

Every chart is drawn at build time (drawings.py), every choice of a chart's menus too, so
the site ships no chart library.  `chart_bundle` (Vega, Vega-Lite and vega-embed from
vl-convert, pinned to the Vega-Lite version Altair writes) stays for tools that draw
live.  File names carry a content hash, so a host may cache them forever.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from pathlib import Path

import altair as alt
import vl_convert

from ffsite._atomic import write_bytes
from ffsite._cache import cache_root
from ffsite.errors import FfsiteError

STATIC_DIR = "static"  # inside the templates folder: CSS, JS, favicon
ASSETS_DIR = "assets"  # inside the site


@functools.cache
def chart_bundle() -> bytes:
    """Vega + Vega-Lite + vega-embed as one script defining window.vegaEmbed.

    Bundling takes seconds, so the result is kept in a cache folder, one file per
    vl-convert and Vega-Lite version (the bundle depends on nothing else).
    """
    version = vegalite_version()
    cached = cache_root() / f"vega-bundle-{vl_convert.__version__}-{version}.js"
    if cached.is_file():
        return cached.read_bytes()
    bundle = vl_convert.javascript_bundle(vl_version=version).encode("utf-8")
    with contextlib.suppress(FfsiteError):  # no writable cache: bundle again next time
        write_bytes(cached, bundle)
    return bundle


@functools.cache
def vegalite_version() -> str | None:
    """The Vega-Lite version Altair writes, as vl-convert names it ("v6.4.1" -> "6.4"),
    or None for vl-convert's newest (Altair's specs stay compatible within a major)."""
    version = alt.SCHEMA_VERSION.lstrip("v").rsplit(".", 1)[0]
    return version if version in vl_convert.get_vegalite_versions() else None


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
