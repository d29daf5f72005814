"""Heatmaps drawn as SVG: a cell per (row, column) pair coloured on Vega's "redblue"
ramp, an optional inner square whose area is a second value, and their legends (beside
the matrix on a desktop, below it on a phone)."""

from __future__ import annotations

import math
from typing import Any

from ffsite.site.charts import STEP
from ffsite.site.plot import (
    NARROW_LABELS,
    PAD,
    SMALL_MATRIX,
    WIDE,
    WIDE_LABELS,
    frame,
    group,
    is_number,
    label_style,
    paths,
    svg,
    texts,
    tick_label,
)
from ffsite.site.plot_text import FONT_SIZE, cut, fmt, text_width

# ColorBrewer's RdBu (red low, blue high), the stops of Vega's "redblue" scheme.
REDBLUE = ["#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7", "#d1e5f0",
           "#92c5de", "#4393c3", "#2166ac", "#053061"]
SIN = math.sin(math.radians(60))  # column labels are turned 60 degrees
GRADIENT = 16  # px: the colour legend's thickness
LEGEND = 150  # px: the colour legend's length on a desktop (110 on a phone)


def interpolate(t: float) -> str:
    """The colour of the ramp at `t` in [0, 1] (0 dark red, 0.5 near white, 1 dark blue)."""
    t = min(max(t, 0.0), 1.0) * (len(REDBLUE) - 1)
    i = min(int(t), len(REDBLUE) - 2)
    a, b = REDBLUE[i], REDBLUE[i + 1]
    mixed = [int(int(a[k:k + 2], 16) + (int(b[k:k + 2], 16) - int(a[k:k + 2], 16)) * (t - i)
                 + 0.5)
             for k in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def colour_scale(colour: dict[str, Any], values: list[float]
                 ) -> tuple[Any, list[tuple[float, str]]]:
    """(value -> place on the ramp, the legend's labels as (place, text)): linear over the
    domain, or on a log scale with 1 in the middle (halving and doubling look alike)."""
    if not colour.get("log"):
        low, high = colour.get("domain") or (min(values, default=0.0),
                                             max(values, default=1.0))
        span = (high - low) or 1.0
        step = _legend_step(low, high)
        return (lambda v: (v - low) / span,
                [(0.0, tick_label(low, step)), (0.5, tick_label((low + high) / 2, step)),
                 (1.0, tick_label(high, step))])
    logs = [math.log(v) for v in values if v > 0] or [0.0]
    below, above = min(min(logs), -1e-9), max(max(logs), 1e-9)

    def place(v: float) -> float:
        if v <= 0:
            return 0.0
        return 0.5 - 0.5 * math.log(v) / below if v < 1 else 0.5 + 0.5 * math.log(v) / above

    return place, [(0.0, f"{math.exp(below):.2f}"), (0.5, "1.00"),
                   (1.0, f"{math.exp(above):.2f}")]


def _legend_step(low: float, high: float) -> float:
    span = abs(high - low) / 2 or 1.0
    return 10 ** math.floor(math.log10(span))


def _domain(rows: list[dict[str, Any]], field: str, order: list[str]) -> list[str]:
    present = list(dict.fromkeys(str(row[field]) for row in rows if row.get(field) is not None))
    known = set(present)
    return [name for name in order if name in known] + [
        name for name in present if name not in set(order)]


def _cell_step(columns: int, width: int, labels: int) -> int:
    """Cells of STEP px, larger for a small matrix on a desktop, smaller on a phone (so
    the matrix fits beside its labels)."""
    room = (width - labels - 20) // max(columns, 1)
    if width >= WIDE:
        return STEP if columns * STEP >= SMALL_MATRIX else max(STEP, min(48, room))
    return max(4, min(STEP + 8, room))


def matrix(spec: dict[str, Any], width: int) -> str:
    """The heatmap `spec` laid out for `width` px (it may be wider on a desktop when it
    has many columns: the page scales it down)."""
    rows = spec["data"]["values"]
    order = spec.get("order") or []
    xs, ys = _domain(rows, spec["x"], order), _domain(rows, spec["y"], order)
    if set(xs) == set(ys):  # a symmetric matrix: both axes in one order
        ys = xs
    narrow = width < WIDE
    limit = NARROW_LABELS if narrow else WIDE_LABELS
    x_names = [cut(name, limit // 7) for name in xs]
    y_names = [cut(name, limit // 7) for name in ys]
    y_title = 18 if spec.get("y_title") else 0
    step = _cell_step(len(xs), width, limit)
    # Labels no taller than their cells (small cells on a phone), so rows do not overlap.
    font = max(6, min(FONT_SIZE, step))
    left = y_title + min(max((text_width(n, font) for n in y_names), default=0), limit) + 10
    plot_width, plot_height = step * len(xs), step * len(ys)
    under = max((text_width(n, font) for n in x_names), default=0) * SIN + 16 + (
        18 if spec.get("x_title") else 0)
    colour = spec["colour"]
    values = [row[colour["field"]] for row in rows if is_number(row.get(colour["field"]))]
    place, legend_labels = colour_scale(colour, values)
    column = {name: i for i, name in enumerate(xs)}
    line = {name: i for i, name in enumerate(ys)}
    cells: dict[str, list[str]] = {}
    squares: list[str] = []
    for row in rows:
        i, j = column.get(str(row.get(spec["x"]))), line.get(str(row.get(spec["y"])))
        if i is None or j is None:
            continue
        if is_number(row.get(colour["field"])):
            fill = f' fill="{interpolate(place(row[colour["field"]]))}"'
            cells.setdefault(fill, []).append(f"M{i * step},{j * step}h{step}v{step}"
                                              f"h-{step}Z")
        size = spec.get("size")
        if size and is_number(row.get(size["field"])) and row[size["field"]] > 0:
            side = math.sqrt(min(row[size["field"]], 1.0)) * max(1, step - 3)
            corner = (step - side) / 2
            squares.append(f"M{fmt(i * step + corner)},{fmt(j * step + corner)}"
                           f"h{fmt(side)}v{fmt(side)}h{fmt(-side)}Z")
    body = [group("role-mark", paths(cells), "rect"),
            group("role-mark", f'<path d="{"".join(squares)}" fill="none" stroke="currentColor"/>'
                  if squares else "", "symbol"),
            group("role-axis-label", texts([(-6, step * (j + 0.5) + font / 3, name)
                                            for j, name in enumerate(y_names)]),
                  "text", **label_style("end", font)),
            group("role-axis-label", texts([(step * (i + 0.5) + font / 4, plot_height + 8,
                                             name) for i, name in enumerate(x_names)],
                                           rotate=-60),
                  "text", **label_style("end", font))]
    for title, x, y, rotate in ((spec.get("x_title"), plot_width / 2, plot_height + under - 4,
                                 0),
                                (spec.get("y_title"), -left + 12, plot_height / 2, -90)):
        if title:
            body.append(group("role-axis-title", texts([(x, y, title)], rotate=rotate),
                              "text", font_weight="bold", **label_style("middle")))
    length = 110 if narrow else LEGEND
    if narrow:
        legend_at, drawn_width = (-left + 4, plot_height + under + 10), width - 2 * PAD
        legend_height = 52 if spec.get("size") else 44
        height = PAD + plot_height + under + 10 + legend_height + PAD
    else:
        # As wide as the matrix and its legend (a small matrix does not stretch to the
        # column: the plot keeps over half the drawing); a wide one is scaled by the page.
        legend_at = (plot_width + 24, 0)
        drawn_width = left + plot_width + 24 + length + 40
        height = PAD + max(plot_height + under, 110 if spec.get("size") else 60) + PAD
    body.append(_legends(spec, legend_at, length, legend_labels, step, narrow))
    return svg(drawn_width + 2 * PAD, height,
               frame(left + PAD, PAD, plot_width, plot_height, "".join(body)))


def _legends(spec: dict[str, Any], at: tuple[float, float], length: float,
             labels: list[tuple[float, str]], step: int, narrow: bool) -> str:
    x, y = at
    stops = "".join(f'<stop offset="{k / 10:g}" stop-color="{interpolate(k / 10)}"/>'
                    for k in range(11))
    parts = [f'<defs><linearGradient id="gradient" x1="0" x2="1" y1="0" y2="0">{stops}'
             "</linearGradient></defs>",
             group("role-legend-title", texts([(x, y + 10, spec["colour"]["title"])]),
                   "text", font_weight="bold", **label_style("start")),
             f'<path d="M{fmt(x)},{fmt(y + 16)}h{fmt(length)}v{GRADIENT}h{fmt(-length)}Z" '
             'fill="url(#gradient)"/>',
             *(group("role-legend-label", texts([(x + t * length, y + 16 + GRADIENT + 13,
                                                  text)]), "text", **label_style(anchor))
               for (t, text), anchor in zip(labels, ("start", "middle", "end"), strict=True))]
    size = spec.get("size")
    if size:
        sx, sy = (x + length + 30, y) if narrow else (x, y + 62)
        side = max(1, step - 3)
        boxes, names = [], []
        for k, share in enumerate((0.25, 0.5, 1.0)):
            edge = math.sqrt(share) * side
            left = sx + k * (side + 22)
            boxes.append(f"M{fmt(left)},{fmt(sy + 16 + side - edge)}h{fmt(edge)}"
                         f"v{fmt(edge)}h{fmt(-edge)}Z")
            names.append((left + side / 2, sy + 16 + side + 14, f"{share:g}"))
        parts += [group("role-legend-title", texts([(sx, sy + 10, size["title"])]), "text",
                        font_weight="bold", **label_style("start")),
                  f'<path d="{"".join(boxes)}" fill="none" stroke="currentColor"/>',
                  group("role-legend-label", texts(names), "text", **label_style("middle"))]
    return "".join(parts)
