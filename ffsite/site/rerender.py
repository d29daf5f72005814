"""A template edit, re-rendered in place: `ffsite serve --watch` keeps what its last build
computed (`KeptBuild`), and when only files under the templates folder changed it renders
again just the pages whose template uses a changed one (all pages when a static file
changed, since every page names the assets by their hash), in about a second instead of
a whole build.

The result is the site a full build with the edited templates would write, byte for
byte, its record of inputs included (tests/test_site_rerender.py builds both and
compares).  Every page is rendered before any is written, so a template error leaves the
site as it was.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta

from ffsite.errors import FfsiteError
from ffsite.site.assets import collect_assets
from ffsite.site.fingerprint import INPUTS, combined, record, templates_part
from ffsite.site.output import SiteOutput, page_context
from ffsite.site.render import environment, render_all


@dataclass
class KeptBuild:
    """What a build computed and wrote, for re-rendering its pages."""

    out: Path
    templates: Path
    output: SiteOutput
    common: dict[str, Any]  # what every page's template reads besides its own context
    assets: dict[str, tuple[str, bytes]]
    parts: dict[str, str]  # the inputs' hashes (fingerprint_parts)
    sources: dict[str, str]  # every file under the templates folder: its hash
    result: Any  # the build's BuildResult


def template_sources(templates: Path) -> dict[str, str]:
    """{path under the templates folder: SHA-256 of its bytes}."""
    found = {}
    for root, folders, names in os.walk(templates):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(names):
            path = Path(root, name)
            found[path.relative_to(templates).as_posix()] = hashlib.sha256(
                path.read_bytes()).hexdigest()
    return found


# (template name, hash of its source) -> the templates it names: the same source always
# names the same ones.
_REFERENCES: dict[tuple[str, str], frozenset[str]] = {}


def users_of(env: jinja2.Environment, changed: set[str]) -> set[str]:
    """Every template that is, extends, includes or imports a `changed` one, however
    indirectly.  An include by expression (`{% include s.partial %}`: a section's own
    template) is not followed here: `rerender` reads those names from the pages."""
    uses: dict[str, frozenset[str]] = {}
    for name in env.list_templates(filter_func=lambda n: n.endswith(".html")):
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        key = (name, hashlib.sha256(source.encode("utf-8")).hexdigest())
        if key not in _REFERENCES:  # parsing every template on every edit costs 0.2 s
            try:
                named = jinja2.meta.find_referenced_templates(env.parse(source, name))
            except jinja2.TemplateSyntaxError as exc:
                raise FfsiteError(f"{name}: line {exc.lineno}: {exc.message}; fix the "
                                  "template") from None
            _REFERENCES[key] = frozenset(str(n) for n in named if n is not None)
        uses[name] = _REFERENCES[key]
    affected = set(changed)
    while True:
        more = {name for name, used in uses.items() if used & affected} - affected
        if not more:
            return affected
        affected |= more


def _partials(context: dict[str, Any]) -> set[str]:
    """The templates a page includes by name from its context: its sections' partials
    (in lists, or lists of lists, of sections)."""
    found = set()
    for value in context.values():
        if not isinstance(value, list | tuple):
            continue
        for item in value:
            for inner in item if isinstance(item, list | tuple) else (item,):
                partial = getattr(inner, "partial", None)
                if isinstance(partial, str):
                    found.add(partial)
    return found


def rerender(kept: KeptBuild) -> Any:
    """The site at `kept.out` with the pages that use a changed template rendered again
    (the build's BuildResult, updated); `kept` is updated too."""
    sources = template_sources(kept.templates)
    changed = {name for name in sources.keys() | kept.sources.keys()
               if sources.get(name) != kept.sources.get(name)}
    if not changed:
        return kept.result
    env = environment(kept.templates)
    assets = collect_assets(kept.templates)
    common = {**kept.common, "assets": {name: path for name, (path, _) in assets.items()}}
    affected = users_of(env, changed)
    pages = [page for page in kept.output.pages if assets != kept.assets
             or page.template in affected or _partials(page.context) & affected]
    html = list(zip(pages, render_all(env, [(page.template, page_context(page, common))
                                            for page in pages]), strict=True))  # all first
    files, size = kept.result.files, kept.result.bytes  # kept up to date as files change
    for path, data in [*assets.values(), *((page.path, text.encode("utf-8"))
                                          for page, text in html)]:
        files, size = _replace(kept.out / path, data, files, size)
    for stale in {path for path, _ in kept.assets.values()} - {p for p, _ in assets.values()}:
        target = kept.out / stale  # an asset of ours the edit replaced
        if target.is_file():
            files, size = files - 1, size - target.stat().st_size
            target.unlink()
    parts = {**kept.parts, "templates": templates_part(kept.templates)}
    result = dataclasses.replace(kept.result, files=files, bytes=size)
    _replace(kept.out / INPUTS, record(combined(parts), result.pages, result.files,
                                       result.bytes, result.notes).encode("utf-8"), 0, 0)
    kept.sources, kept.assets, kept.common, kept.parts, kept.result = (
        sources, assets, common, parts, result)
    return result


def _replace(target: Path, data: bytes, files: int, size: int) -> tuple[int, int]:
    """Write `target` whole or not at all (the preview server may be reading it); the
    site's count of files and bytes after it."""
    if target.is_file():
        files, size = files - 1, size - target.stat().st_size
    temporary = target.with_name(f".{target.name}.ffsite-new")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary.write_bytes(data)
    os.replace(temporary, target)
    return files + 1, size + len(data)
