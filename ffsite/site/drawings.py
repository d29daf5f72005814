"""Charts drawn at build time, in two widths, so charts read without JavaScript and pages
need no chart library.

The wide drawing fills the chart column on a desktop; the narrow one is laid out for a
phone (long labels cut, legends below, so the plot keeps over half the width), and CSS
shows one or the other.  Both are inlined in the page, so their text and axes take the
page's colour (`currentColor`) in light and dark mode.

A chart with menus is drawn once for every choice of its menus (`choices`): the first
choice is inlined in the page, the others become files the page's script fetches when
the reader picks them, so no choice needs the chart library.

Drawing is ffsite's own (`plot`, `plot_matrix`): about a millisecond a drawing, so
nothing is cached; with many charts a forked child draws half of them.  Each drawing is
checked before it is inlined: well-formed XML made only of drawing elements, no scripts,
links or event attributes, whatever text the data holds.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup

from ffsite.errors import FfsiteError
from ffsite.site.forked import in_halves
from ffsite.site.plot import NARROW, WIDE, rows_chart
from ffsite.site.plot_matrix import matrix

__all__ = ["NARROW", "WIDE", "check", "choices", "draw", "draw_charts", "inline", "menus"]

DRAWING_FONT = "Liberation Sans, Arial, Helvetica, sans-serif"  # plot_text's widths


# --------------------------------------------------------------- a menu's choices

def menus(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The chart's menus: its parameters bound to a list of options."""
    return [p for p in spec.get("params", [])
            if isinstance(p.get("bind"), dict) and "options" in p["bind"]]


def choices(spec: dict[str, Any]) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every choice of the chart's menus that has rows, the first choice (each menu's
    first option) first: (the chosen options, the spec drawn for them: only their rows,
    no menus).  `usermeta.menus` names the row column each menu picks on.  A chart
    without menus is its one choice: ((), spec)."""
    found = menus(spec)
    if not found or "values" not in spec.get("data", {}):
        return [((), spec)]
    columns = [spec.get("usermeta", {}).get("menus", {}).get(p["name"], "") for p in found]
    first = tuple(str(p["value"]) for p in found)
    by_choice: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in spec["data"]["values"]:
        by_choice.setdefault(tuple(str(row.get(c)) for c in columns), []).append(row)
    picked = []
    for values in itertools.product(*(p["bind"]["options"] for p in found)):
        values = tuple(str(v) for v in values)
        chosen = by_choice.get(values, [])
        if not chosen and values != first:
            continue
        drawn = {key: value for key, value in spec.items() if key not in ("data", "params")}
        drawn["data"] = {"values": chosen}
        picked.append((values, drawn))
    picked.sort(key=lambda choice: choice[0] != first)  # stable: the first choice first
    return picked


def draw(spec: dict[str, Any], width: int) -> str:
    """The SVG of one choice of a chart (`choices`), `width` px wide."""
    return matrix(spec, width) if spec["kind"] == "matrix" else rows_chart(spec, width)


# --------------------------------------------------------------- checking, inlining

SVG = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {SVG + tag for tag in ("svg", "g", "path", "line", "rect", "circle",
                                      "text", "tspan", "defs", "clipPath",
                                      "linearGradient", "radialGradient", "stop",
                                      "title", "desc")}


def check(svg: str) -> None:
    """Raise unless `svg` is a drawing and nothing else: known elements, no event
    handlers, no links, no external references."""
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError as exc:
        raise FfsiteError(f"a chart drawing is not well-formed SVG ({exc}); this is a bug "
                          "in ffsite") from None
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


def inline(svg: str, prefix: str) -> Markup:
    """A checked drawing ready to sit in a page: its ids made unique on the page (each
    starts with `prefix`), its font said once, and hidden from screen readers (the
    figure's caption describes it)."""
    check(svg)
    ids = {name: f"{prefix}{n}" for n, name in enumerate(dict.fromkeys(
        re.findall(r' id="([^"]+)"', svg)))}
    svg = re.sub(r' id="([^"]+)"', lambda m: f' id="{ids[m[1]]}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{ids.get(m[1], prefix + m[1])})", svg)
    svg = svg.replace("<svg ", f'<svg font-family="{DRAWING_FONT}" aria-hidden="true" '
                      'focusable="false" ', 1)
    return Markup(svg)  # noqa: S704 (checked above: drawing elements only, text escaped)


# ------------------------------------------------------------------ the site's charts

def draw_charts(charts: Iterable[Any]) -> int:
    """Give each chart (views.Chart) with rows its wide and narrow drawings, of every
    choice of its menus (`Chart.choices`: the first is also `drawing`); with many
    charts a forked child draws every second one (ffsite.site.forked).  Returns how
    many drawings were made."""
    drawn = [chart for chart in charts if "values" in chart.raw.get("data", {})]
    made = 0
    for chart, found in zip(drawn, in_halves(drawn, drawings_of), strict=True):
        chart.choices[:] = found
        chart.drawing.update(found[0][1])
        made += 2 * len(found)
    return made


def drawings_of(chart: Any) -> list[tuple[tuple[str, ...], dict[str, Markup]]]:
    """Every choice of the chart's menus, the first first, with its wide and narrow
    drawings, checked and ready to inline."""
    found = []
    for number, (values, spec) in enumerate(choices(chart.raw)):
        tag = f"{chart.id}-" if not number else f"{chart.id}-{number}-"
        found.append((values, {"wide": inline(draw(spec, WIDE), f"{tag}w-"),
                               "narrow": inline(draw(spec, NARROW), f"{tag}n-")}))
    return found
