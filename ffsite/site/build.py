"""`ffsite build`: annotations in, a static site out — deterministic and atomic.

The site is written to a temporary folder beside the target and swapped in only when
every page was written, so a failed build leaves the previous site as it was.  Output
depends on the inputs alone: sorted tables, content-hashed assets, and a "last updated"
date from SOURCE_DATE_EPOCH or the annotation files' git history, never the clock.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from ffsite._cache import cache_root
from ffsite._memory import give_back_freed_memory
from ffsite._stored import kept_in
from ffsite.datasets.folder import existing_base_dir
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import find_annotation_files, read_annotations, read_scores
from ffsite.metrics.judges import separate_judges
from ffsite.models import apply_registry, load_registry, names_seen
from ffsite.progress import Progress
from ffsite.site import swap
from ffsite.site.assets import collect_assets
from ffsite.site.config import load_config
from ffsite.site.context import ResultsCache, SiteContext
from ffsite.site.drawings import draw_charts
from ffsite.site.fingerprint import INPUTS, combined, fingerprint_parts, record, recorded
from ffsite.site.output import SiteOutput, SiteWriter
from ffsite.site.pages import AHEAD, NAV, PAGE_BUILDERS, SIDE_BY_SIDE, visible_nav
from ffsite.site.render import environment
from ffsite.site.rerender import KeptBuild, template_sources
from ffsite.site.side_by_side import build_side_by_side

MARKER = swap.SITE_MARKER  # marks a folder as a built site, so a rebuild may replace it


@dataclass
class BuildResult:
    out: Path
    pages: int
    files: int
    bytes: int
    notes: list[str] = field(default_factory=list)
    current: bool = False  # the site was already built from these inputs: kept


def build_site(annotations: str | os.PathLike, out: str | os.PathLike, *,
               content: str | os.PathLike = "content",
               templates: str | os.PathLike = "templates",
               base_data: str | os.PathLike | None = None,
               progress: Progress | None = None,
               cache: ResultsCache | None = None, force: bool = False) -> BuildResult:
    """Build the site from every annotation file under `annotations` into `out`.
    `cache`: the slowest results of earlier builds made with it, reused while their inputs
    stay the same (`ffsite serve` passes one to every rebuild); None: a fresh one.  A site
    at `out` built from the same inputs (ffsite.site.fingerprint) is kept as it is, unless
    `force`."""
    # Arrow's default allocator (mimalloc) keeps more of what a build frees than the C
    # library's: a cold build of the default site peaked at 1,150-1,190 MB over its two
    # processes with it, 860-1,060 MB without, in the same time (docs/performance.md).
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        return _build_site(annotations, out, content, templates, base_data,
                           progress or Progress(quiet=True), cache, force)
    finally:
        pa.set_memory_pool(previous)


def _build_site(annotations: str | os.PathLike, out: str | os.PathLike,
                content: str | os.PathLike, templates: str | os.PathLike,
                base_data: str | os.PathLike | None, progress: Progress,
                cache: ResultsCache | None, force: bool) -> BuildResult:
    out = Path(out)
    if out.is_symlink():  # build into the folder the link names; the link stays
        out = Path(os.path.realpath(out))
    check_target(out)
    base_dir = existing_base_dir(base_data) if base_data else None
    config = load_config(content)
    env = environment(Path(templates))
    files = find_annotation_files([annotations])
    if not files:
        raise ParameterError(f"{annotations}: no annotation files (.parquet) found; add some "
                             "or pass {annotations} DIR", "annotations")
    updated = last_updated(files)
    parts = fingerprint_parts(files, config.content_dir, Path(templates), base_dir, updated)
    inputs = combined(parts)
    current = None if force else current_site(out, inputs)
    if current is not None:
        progress.step("the site is current: its inputs have not changed")
        return current
    progress.step(f"reading {len(files)} annotation files")
    registry = load_registry(config.content_dir, reference=config.reference_model)
    annotation_data = read_annotations(files)
    scores = read_scores(files)
    registry.check_merges(names_seen(annotation_data, scores))
    annotation_data = separate_judges(apply_registry(annotation_data, registry))
    assets = collect_assets(Path(templates))
    # Read before any page is rendered: an edit saved while this build runs then
    # differs from the record, and `serve --watch` re-renders it (read after the
    # swap, such an edit was recorded as rendered and never shown).
    sources = template_sources(Path(templates)) if cache is not None else {}

    # Every builder computes first; then everything is written, under a lock.
    common = {"site_title": config.title, "nav": NAV, "charts": [], "base_href": None,
              "assets": {name: path for name, (path, _) in assets.items()},
              "last_updated": updated, "site_description": config.description,
              "site_url": config.base_url}
    output = SiteOutput()
    # The slow deterministic fits are kept on disk for the next build (ffsite._stored).
    with kept_in(cache_root() / "results"):
        ctx = SiteContext.create(config, annotation_data, output, progress, base_dir, files,
                                 registry=registry, scores=scores, cache=cache)
        _build_pages(ctx)
        progress.step("drawing the charts")
        draw_charts(c for page in output.pages for c in page.context.get("charts", []))
    give_back_freed_memory()  # what computing the pages freed, before they are written
    common["nav"] = visible_nav(output)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(f"{{out}} {out}: cannot create the folder it goes in "
                             f"({exc.strerror}); pick another {{out}}", "out") from None
    try:
        with swap.locked(out.parent):
            swap.recover(out)
            check_target(out)  # again: another build may have changed it meanwhile
            staging = swap.staging_folder(out)
            try:
                result, page_common = _write(SiteWriter(staging, env, common), output, assets,
                                             progress, BuildResult(out, len(output.pages), 0,
                                                                   0, ctx.notes), inputs)
                swap.swap_in(staging, out)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    except OSError as exc:
        raise ParameterError(f"{out}: writing the site failed ({exc.strerror}); the previous "
                             "site is unchanged; free some space or pick another {out}",
                             "out") from None
    if cache is not None:  # `ffsite serve` re-renders a template edit from this
        cache.site = KeptBuild(out, Path(templates), output, page_common, assets, parts,
                               sources, result)
    return result


def _build_pages(ctx: SiteContext) -> None:
    """Every page builder, in order, while a child computes the slowest tables ahead; a
    run of builders that can be is built two at a time (ffsite.site.side_by_side)."""
    ctx.compute_ahead(AHEAD)
    try:
        for together, run in itertools.groupby(PAGE_BUILDERS, SIDE_BY_SIDE.__contains__):
            builders = list(run)
            if together:
                build_side_by_side(ctx, builders, [SIDE_BY_SIDE[b] for b in builders])
            else:
                for builder in builders:
                    builder(ctx)
    finally:
        ctx.finish_ahead()


def _write(writer: SiteWriter, output: SiteOutput, assets: dict, progress: Progress,
           result: BuildResult, inputs: str) -> tuple[BuildResult, dict]:
    """Every page, table and asset into the staging folder, then the marker and the
    record of the inputs: `result` with the files and bytes counted, and what every
    page's template read besides its own context."""
    common = writer.write_output(output, progress)
    for path, data in assets.values():
        writer.write(path, data)
    writer.write(MARKER, "built by ffsite; `ffsite build` replaces this folder\n")
    written = [p for p in writer.root.rglob("*") if p.is_file()
               and p.name != swap.STAGING_MARKER]  # (not published)
    result = dataclasses.replace(result, files=len(written),
                                 bytes=sum(p.stat().st_size for p in written))
    writer.write(INPUTS, record(inputs, result.pages, result.files, result.bytes,
                                result.notes))
    return result, common


def current_site(out: Path, inputs: str) -> BuildResult | None:
    """The site at `out`, when it was built from inputs with this fingerprint."""
    found = recorded(out) if (out / MARKER).is_file() else None
    if found is None or found.get("fingerprint") != inputs:
        return None
    return BuildResult(out, int(found["pages"]), int(found["files"]), int(found["bytes"]),
                       [str(note) for note in found.get("notes", [])], current=True)


def check_target(out: Path) -> None:
    """Refuse to replace a folder that is not a site we built (e.g. `--out .`)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ParameterError(f"{{out}} {out}: exists and is not a folder; pick another {{out}}",
                             "out")
    if (out / MARKER).is_file() or not any(out.iterdir()):
        return
    raise ParameterError(f"{{out}} {out}: folder exists and was not built by ffsite; remove "
                         "it or pick another {out}", "out")


def last_updated(files: list[Path]) -> str | None:
    """The date (UTC) of SOURCE_DATE_EPOCH, else of the newest commit touching `files`."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        epoch = _git_commit_time(files)
    if not epoch:
        return None
    try:
        moment = dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC)
    except (ValueError, OverflowError, OSError):
        raise FfsiteError(f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix time in seconds; "
                          "unset it or fix it") from None
    return moment.strftime("%Y-%m-%d")


def _git_commit_time(files: list[Path]) -> str | None:
    folder = files[0].resolve().parent
    try:
        done = subprocess.run(["git", "log", "-1", "--format=%ct", "--",
                               *[str(f.resolve()) for f in files]],
                              cwd=folder, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None  # not a git checkout, or no git: no date rather than the clock's
    return done.stdout.strip() or None
