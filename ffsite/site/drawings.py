"""Charts drawn at build time: every chart's Vega-Lite spec rendered to SVG by vl-convert,
in two widths, so charts read without JavaScript and pages need no chart library.

The wide drawing fills the chart column on a desktop; the narrow one is laid out for a
phone (long labels cut, legends below, so the plot keeps over half the width), and CSS
shows one or the other.  Both are inlined in the page, so their text and axes take the
page's colour (`currentColor`) in light and dark mode.

A chart with menus is drawn once for every choice of its menus (`choices`): the first
choice is inlined in the page, the others become files the page's script fetches when
the reader picks them, so no choice needs the chart library.

A drawing takes 0.03-0.1 s of CPU, so drawings are kept in the cache folder under the
hash of everything that makes them (spec, width, vl-convert and Vega-Lite versions), and
the ones missing are drawn by two worker processes while the build computes the other
pages (vl-convert holds Python's lock while it draws, so threads would not help).  Each
drawing is checked before it is inlined: well-formed XML made only of drawing elements,
no scripts, links or event attributes, whatever text the data holds.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import copy
import hashlib
import itertools
import json
import multiprocessing
import os
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Iterator
from typing import Any

import vl_convert
from markupsafe import Markup

from ffsite._atomic import write_text
from ffsite._cache import cache_root
from ffsite.errors import FfsiteError
from ffsite.site import _draw_worker
from ffsite.site.assets import vegalite_version

WIDE = 992  # px: the chart column's widest (.chart-figure in site.css)
NARROW = 350  # px: a 390 px phone less the page's side padding
NARROW_LABELS = 130  # px: longest axis label on a phone (the plot keeps over half)
# The font vl-convert measures with (Liberation Sans) first, then fonts of the same widths
# (Arial, Helvetica) or close (Roboto, as sans-serif on phones): the labels the build
# laid out fit in the reader's browser too.
DRAWING_FONT = "Liberation Sans, Arial, Helvetica, sans-serif"
DRAWING_VERSION = "2"  # bump when the post-processing below changes
SMALL_MATRIX = 400  # px: a heatmap narrower than this at full width gets larger cells


# --------------------------------------------------------------- a menu's choices

def menus(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The chart's menus: its parameters bound to a list of options."""
    return [p for p in spec.get("params", [])
            if isinstance(p.get("bind"), dict) and "options" in p["bind"]]


def choices(spec: dict[str, Any]) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every choice of the chart's menus that has rows, the first choice (each menu's
    first option) first: (the chosen options, the spec drawn for them: the menus set to
    them, only their rows, the height for those rows).  `usermeta.menus` names the row
    column each menu picks on.  A chart without menus is its one choice: ((), spec)."""
    found = menus(spec)
    if not found or "values" not in spec.get("data", {}):
        return [((), spec)]
    columns = spec.get("usermeta", {}).get("menus", {})
    rows = spec["data"]["values"]
    first = tuple(str(p["value"]) for p in found)
    picked = []
    for values in itertools.product(*(p["bind"]["options"] for p in found)):
        values = tuple(str(v) for v in values)
        chosen = [row for row in rows if all(
            str(row.get(columns.get(p["name"], ""))) == v
            for p, v in zip(found, values, strict=True))]
        if not chosen and values != first:
            continue
        drawn = copy.deepcopy({key: value for key, value in spec.items() if key != "data"})
        drawn["data"] = {"values": chosen}
        for param, value in zip(menus(drawn), values, strict=True):
            param["value"] = value
            del param["bind"]  # a drawing has no menus: the page's own do the choosing
        step = drawn.get("usermeta", {}).get("step")
        if step and "height" in drawn:
            drawn["height"] = step * max(len(chosen), 1)
        picked.append((values, drawn))
    picked.sort(key=lambda choice: choice[0] != first)  # stable: the first choice first
    return picked


# ------------------------------------------------------------------- the two layouts

def layout(spec: dict[str, Any], width: int) -> dict[str, Any]:
    """The chart's spec laid out for a fixed `width` in pixels (page charts otherwise
    take their container's width, which a drawing made at build time does not have)."""
    spec = copy.deepcopy(spec)
    narrow = width < WIDE
    labels = NARROW_LABELS if narrow else 260
    config = spec.setdefault("config", {})
    config["font"] = DRAWING_FONT
    spec["padding"] = {"left": 12, "right": 5, "top": 5, "bottom": 5}  # room to spare
    # Marks carry no ARIA labels: the figure's caption describes the chart, and a label
    # per mark would double the drawing's size.
    for part in ("mark", "axis", "legend"):
        config[part] = {**config.get(part, {}), "aria": False}
    config["axisY"] = {**config.get("axisY", {}), "labelLimit": labels}
    if narrow:  # legends below the plot, short, symbols in rows of three
        config["legend"].update(orient="bottom", gradientLength=110, columns=3)
    if isinstance(spec.get("width"), dict) and "step" in spec["width"]:
        _fit_steps(spec, width, labels)
    else:
        spec["width"] = width
    # Long names are cut by their number of letters (~7 px each), not measured: vl-convert
    # measures text glyph by glyph, reading the font file each time, and cutting by
    # measure tries many lengths; this makes a drawing twice as fast.
    letters = labels // 7
    cut = (f"length(datum.label) > {letters} ? "
           f"substring(datum.label, 0, {letters - 1}) + '…' : datum.label")
    for encoding in _encodings(spec):
        for channel in ("x", "y"):
            field = encoding.get(channel)
            if not isinstance(field, dict) or field.get("type") != "nominal":
                continue
            if field.get("axis", {}) is None:
                continue
            field["axis"] = {**field.get("axis", {}), "labelExpr": cut, "labelLimit": 0}
    return spec


def _encodings(spec: dict[str, Any]) -> Iterable[dict[str, Any]]:
    for part in [spec, *spec.get("layer", [])]:
        if "encoding" in part:
            yield part["encoding"]


def _fit_steps(spec: dict[str, Any], width: int, labels: int) -> None:
    """A heatmap (one band per trait on both axes) sized so it fits `width` beside its
    labels: smaller cells on a phone, with the inner squares scaled to match."""
    columns = next((len(e["x"]["sort"]) for e in _encodings(spec)
                    if isinstance(e.get("x", {}).get("sort"), list)), 0)
    if not columns:
        return
    if width >= WIDE:
        # A small matrix (EigenBench's eight judges) gets cells large enough for the plot
        # to hold at least half the drawing beside its labels and legend.
        if columns * spec["width"]["step"] >= SMALL_MATRIX:
            return
        step = max(spec["width"]["step"], min(48, (width - labels - 20) // columns))
    else:
        step = max(4, min(spec["width"]["step"] + 8, (width - labels - 20) // columns))
    spec["width"] = {"step": step}
    spec["height"] = {"step": step}
    for encoding in _encodings(spec):
        size = encoding.get("size", {}).get("scale")
        if size and "range" in size:
            size["range"] = [0, max(1, step - 3) ** 2]


# ------------------------------------------------------------------------ rendering

def _spec_text(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _key(spec_json: str, vl_version: str | None) -> str:
    made_by = f"{vl_convert.__version__}|{vl_version}|{DRAWING_VERSION}|"
    return hashlib.sha256((made_by + spec_json).encode("utf-8")).hexdigest()


def _cached(key: str) -> str | None:
    path = cache_root() / "drawings" / f"{key}.svg"
    return path.read_text("utf-8") if path.is_file() else None


def _keep(key: str, svg: str) -> None:
    with contextlib.suppress(FfsiteError, OSError):  # no writable cache: draw again
        write_text(cache_root() / "drawings" / f"{key}.svg", svg)


POOL_FROM = 24  # drawings to make before worker processes pay for their start


class Background:
    """Draws charts in worker processes while the build goes on computing pages: each
    chart is sent as soon as it exists (`views.chart` calls `request`).  The workers
    start once POOL_FROM drawings are waiting; a small site draws in the build."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.vl_version = vegalite_version()
        self.waiting: dict[str, str] = {}  # key: spec text, before the workers start
        self.pending: dict[str, concurrent.futures.Future[str]] = {}

    def request(self, spec: dict[str, Any]) -> None:
        for (_, drawn), width in itertools.product(choices(spec), (WIDE, NARROW)):
            text = _spec_text(layout(drawn, width))
            key = _key(text, self.vl_version)
            if key in self.pending or key in self.waiting or _cached(key) is not None:
                continue
            if self.pool is not None:
                self.pending[key] = self.pool.submit(_draw_worker.render, text,
                                                     self.vl_version)
            else:
                self.waiting[key] = text
        if self.pool is None and len(self.waiting) >= POOL_FROM:
            # Spawned, not forked: vl-convert's JavaScript runtime has threads of its own.
            self.pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"))
            for key, text in self.waiting.items():
                self.pending[key] = self.pool.submit(_draw_worker.render, text,
                                                     self.vl_version)
            self.waiting.clear()

    def finish(self) -> dict[str, str]:
        """{key: svg} of every drawing the workers made, once all are done (kept in the
        cache).  A drawing they did not make is left out: the build draws it itself, and
        reports the error if there is one."""
        drawn = {}
        try:
            for key, future in self.pending.items():
                with contextlib.suppress(Exception):
                    drawn[key] = future.result()
        finally:
            self.close()
        for key, svg in drawn.items():
            _keep(key, svg)
        return drawn

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


_background: Background | None = None


@contextlib.contextmanager
def in_background(workers: int | None = None) -> Iterator[Background | None]:
    """While inside, charts are drawn by worker processes as they are made (with fewer
    than two processors, or `workers` 0, nothing happens in the background)."""
    global _background
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    if workers < 1 or (os.cpu_count() or 1) < 2:
        yield None
        return
    _background = Background(workers)
    try:
        yield _background
    finally:
        background, _background = _background, None
        background.close()


def request(spec: dict[str, Any]) -> None:
    """Start drawing `spec` now if a build is drawing in the background."""
    if _background is not None and "values" in spec.get("data", {}):
        _background.request(spec)


def render_all(specs: list[dict[str, Any]], ready: dict[str, str] | None = None
               ) -> list[str]:
    """The SVG of each spec (already laid out): drawn in the background (`ready`), kept
    in the cache, or drawn now."""
    vl_version = vegalite_version()
    keys = [_key(_spec_text(spec), vl_version) for spec in specs]
    found = dict(ready or {})
    for key, spec in zip(keys, specs, strict=True):
        if key not in found:
            found[key] = _cached(key) or ""
        if not found[key]:
            found[key] = _draw_worker.render(_spec_text(spec), vl_version)
            _keep(key, found[key])
    return [found[key] for key in keys]


# --------------------------------------------------------------- checking, inlining

SVG = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {SVG + tag for tag in ("svg", "g", "path", "line", "rect", "circle",
                                      "text", "tspan", "defs", "clipPath",
                                      "linearGradient", "radialGradient", "stop",
                                      "title", "desc")}
NUMBER = re.compile(r"(\d+\.\d)\d+")  # coordinates to a tenth of a pixel
# What a drawing made for a browser needs and a still one does not: default values,
# empty backgrounds, hit-testing, ARIA of marks hidden anyway (the root is hidden).
NEEDLESS = re.compile(r'<path class="background" aria-hidden="true" d="M0,0h0v0h0Z"'
                      r' pointer-events="none"/>| opacity="1"| stroke-width="1"'
                      r'| pointer-events="none"| aria-hidden="true"| role="graphics-object"'
                      r'| aria-roledescription="[^"]*"')
GEOMETRY = re.compile(r' (d|transform|x|y|x1|x2|y1|y2|width|height|viewBox)="([^"]*)"')


def check(svg: str) -> None:
    """Raise unless `svg` is a drawing and nothing else: known elements, no event
    handlers, no links, no external references."""
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError as exc:
        raise FfsiteError(f"a chart drawing is not well-formed SVG ({exc}); this is a bug "
                          "in ffsite or vl-convert") from None
    for element in root.iter():
        if element.tag not in ALLOWED_TAGS:
            raise FfsiteError(f"a chart drawing holds <{element.tag}>; refusing to inline it")
        for name, value in element.attrib.items():
            lowered = value.lower()
            if (name.lower().startswith("on") or "href" in name.lower()
                    or "javascript:" in lowered
                    or re.search(r"url\(\s*(?!#)", lowered)):
                raise FfsiteError(f"a chart drawing has {name}={value!r}; refusing to "
                                  "inline it")


def _shorten(match: re.Match[str]) -> str:
    return f' {match[1]}="{NUMBER.sub(_tenth, match[2])}"'


def _tenth(match: re.Match[str]) -> str:
    return match[1]


CIRCLE = re.compile(r'd="M([\d.]+),0A\1,\1,0,1,1,-\1,0A\1,\1,0,1,1,\1,0"')
PLACED = re.compile(r'<path transform="translate\((-?[\d.]+),(-?[\d.]+)\)" d="M(-?[\d.]+),'
                    r'(-?[\d.]+)([a-z][^"A-Z]*)"')
PATH = re.compile(r'<path d="([^"]*)"([^>]*)/>')


def _relative_circle(match: re.Match[str]) -> str:
    radius = float(match[1])
    return (f'd="M{match[1]},0a{match[1]},{match[1]},0,1,1,{_short(-2 * radius)},0'
            f'a{match[1]},{match[1]},0,1,1,{_short(2 * radius)},0"')


def _short(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _unplace(match: re.Match[str]) -> str:
    """A path moved by a translation whose outline is relative after its first point:
    the translation folded into that point (so equal paths can be merged)."""
    x = float(match[1]) + float(match[3])
    y = float(match[2]) + float(match[4])
    return f'<path d="M{_short(x)},{_short(y)}{match[5]}"'


MARKS = re.compile(r'(<g class="mark-\w+ role-[\w-]+[^"]*">)((?:<path d="[^"]*"[^>]*/>)+)</g>')
LINE = re.compile(r'<line transform="translate\((-?[\d.]+),(-?[\d.]+)\)" x2="(-?[\d.]+)" '
                  r'y2="(-?[\d.]+)"')
FONT = f' font-family="{DRAWING_FONT}"'  # on every text: said once, on the root


def _line_path(match: re.Match[str]) -> str:
    return f'<path d="M{match[1]},{match[2]}l{match[3]},{match[4]}"'


def _merge_paths(svg: str) -> str:
    """The paths of a mark drawn alike (same fill, opacity...) as one path: a chart's
    hundreds of ticks or dots cost a few bytes each instead of a whole element.  (Where
    marks of two colours overlap, the one drawn on top may change.)"""
    def merge(match: re.Match[str]) -> str:
        outlines: dict[str, list[str]] = {}
        for path in PATH.finditer(match[2]):
            outlines.setdefault(path[2], []).append(path[1])
        merged = "".join(f'<path d="{"".join(d)}"{style}/>' for style, d in outlines.items())
        return f"{match[1]}{merged}</g>"

    return MARKS.sub(merge, svg)


def inline(svg: str, prefix: str) -> Markup:
    """A checked drawing ready to sit in a page: ids made unique on the page, numbers
    shortened, the XML preamble dropped and hidden from screen readers (the figure's
    caption describes it)."""
    check(svg)
    svg = NEEDLESS.sub("", svg)
    svg = GEOMETRY.sub(_shorten, svg)
    svg = CIRCLE.sub(_relative_circle, svg)
    svg = _merge_paths(PLACED.sub(_unplace, LINE.sub(_line_path, svg)))
    svg = svg.replace(FONT, "").replace("<svg ", f"<svg{FONT} ", 1)
    check(svg)
    # The renderer numbers ids (gradient_0, gradient_1, ...) across every drawing its
    # process made, so a drawing's ids depend on what was drawn before it, and on what
    # the cache held: numbered again here, in order of appearance, the page is the same.
    ids = {name: f"{prefix}{n}" for n, name in enumerate(dict.fromkeys(
        re.findall(r' id="([^"]+)"', svg)))}
    svg = re.sub(r' id="([^"]+)"', lambda m: f' id="{ids[m[1]]}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{ids.get(m[1], prefix + m[1])})", svg)
    svg = svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1)
    return Markup(svg)  # noqa: S704 (checked above: drawing elements only, text escaped)


# ------------------------------------------------------------------ the site's charts

def draw_charts(charts: Iterable[Any], ready: dict[str, str] | None = None) -> int:
    """Give each chart (views.Chart) with rows its wide and narrow drawings, of every
    choice of its menus (`Chart.choices`: the first is also `drawing`).  Returns how
    many drawings were made."""
    todo = [(c, choices(c.raw)) for c in charts if "values" in c.raw.get("data", {})]
    specs = [layout(drawn, width) for _, found in todo for _, drawn in found
             for width in (WIDE, NARROW)]
    svgs = iter(render_all(specs, ready))
    for chart, found in todo:
        chart.choices.clear()
        for number, (values, _) in enumerate(found):
            wide, narrow = next(svgs), next(svgs)
            tag = f"{chart.id}-" if not number else f"{chart.id}-{number}-"
            drawn = {"wide": inline(wide, f"{tag}w-"), "narrow": inline(narrow, f"{tag}n-")}
            chart.choices.append((values, drawn))
            if not number:
                chart.drawing.update(drawn)
    return len(specs)
