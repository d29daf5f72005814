"""Charts drawn as SVG from their rows (`ffsite.site.charts` specs), at a fixed width.

Two layouts of one chart: WIDE fills the page's chart column on a desktop; NARROW is
laid out for a phone (long labels cut, legends below), and CSS shows one or the other.
Text, axes and outlines are `currentColor`, so a drawing inlined in a page takes the
page's colours in light and dark mode.  Marks drawn alike are one path (a chart's
hundred dots cost a few bytes each); class names follow Vega's (`role-mark`,
`role-axis-label`, `role-frame root`), which the page's tests and readers' tools know.

Text is laid out with Liberation Sans's widths (`plot_text`), the font named first on
the drawing; Arial and Helvetica have the same widths.
"""

from __future__ import annotations

import math
from typing import Any

from ffsite.site.charts import NEGATIVE, NEUTRAL, POSITIVE, STEP
from ffsite.site.plot_text import FONT_SIZE, cut, escape, fmt, text_width

WIDE = 992  # px: the chart column's widest (.chart-figure in site.css)
NARROW = 350  # px: a 390 px phone less the page's side padding
NARROW_LABELS = 130  # px: longest axis label on a phone (the plot keeps over half)
WIDE_LABELS = 260
SMALL_MATRIX = 400  # px: a heatmap narrower than this at full width gets larger cells
GRID = "rgba(128,128,128,0.35)"
PAD = 5  # px round the drawing
AXIS_HEIGHT = 38  # px under the plot: ticks, their labels, the axis title
RELEASE_STEP = STEP + 6



# ------------------------------------------------------------------------- pieces

def svg(width: float, height: float, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="marks" width="{fmt(width)}" '
            f'height="{fmt(height)}" viewBox="0 0 {fmt(width)} {fmt(height)}">{body}</svg>')


def frame(left: float, top: float, plot_width: float, plot_height: float, body: str) -> str:
    """The plot's group: its background path is the plot's area (tests measure it)."""
    return (f'<g class="mark-group role-frame root"><g transform="translate({fmt(left)},'
            f'{fmt(top)})"><path class="background" fill="none" d="M0,0h{fmt(plot_width)}'
            f'v{fmt(plot_height)}h-{fmt(plot_width)}Z"/>{body}</g></g>')


def group(role: str, body: str, mark: str = "path", **attributes: str) -> str:
    if not body:
        return ""
    extra = "".join(f' {name.replace("_", "-")}="{value}"'
                    for name, value in attributes.items())
    return f'<g class="mark-{mark} {role}"{extra}>{body}</g>'


def paths(styled: dict[str, list[str]]) -> str:
    """One path per style, its outlines joined (in the order they were drawn)."""
    return "".join(f'<path d="{"".join(d)}"{style}/>' for style, d in styled.items() if d)


def texts(items: list[tuple[float, float, str]], rotate: int = 0) -> str:
    if rotate:
        return "".join(f'<text transform="translate({fmt(x)},{fmt(y)}) rotate({rotate})">'
                       f"{escape(label)}</text>" for x, y, label in items)
    return "".join(f'<text x="{fmt(x)}" y="{fmt(y)}">{escape(label)}</text>'
                   for x, y, label in items)


def _circle(x: float, y: float, radius: float) -> str:
    r = fmt(radius)
    across = fmt(2 * radius)
    return f"M{fmt(x + radius)},{fmt(y)}a{r},{r},0,1,1,-{across},0a{r},{r},0,1,1,{across},0"


def label_style(anchor: str, size: int = FONT_SIZE) -> dict[str, str]:
    return {"font_size": str(size), "fill": "currentColor", "text_anchor": anchor}


# ------------------------------------------------------------------- the x axis

def _step(low: float, high: float, count: int) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about `count` ticks."""
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    error = raw / power
    factor = 10 if error >= math.sqrt(50) else 5 if error >= math.sqrt(10) else (
        2 if error >= math.sqrt(2) else 1)
    return factor * power


def nice_ticks(low: float, high: float, count: int) -> tuple[float, float, list[float]]:
    """The domain widened to round numbers and its ticks (as d3's linear scale does)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        low, high = 0.0, 1.0
    if high <= low:
        spread = abs(low) * 0.1 or 1.0
        low, high = low - spread, high + spread
    for _ in range(2):  # a wider domain can ask for a larger step
        step = _step(low, high, count)
        # (rounded: 27 * 0.1 is 2.7000000000000002)
        low = round(math.floor(low / step) * step, 12)
        high = round(math.ceil(high / step) * step, 12)
    first = round(low / step)
    ticks = [round((first + i) * step, 12) for i in range(round((high - low) / step) + 1)]
    return low, high, ticks


def tick_label(value: float, step: float) -> str:
    digits = max(0, math.ceil(-math.log10(step) - 1e-9))
    text = f"{value:,.{digits}f}"
    if float(text.replace(",", "")) == 0:
        text = text.lstrip("-")
    return text.replace("-", "\u2212")


def _x_axis(x: dict[str, Any], rows: list[dict[str, Any]], plot_width: float
            ) -> tuple[float, float, list[float]]:
    if x.get("domain"):
        low, high = x["domain"]
    else:
        values = [row[field] for row in rows for field in (x["field"], x["low"], x["high"])
                  if field and isinstance(row.get(field), int | float)
                  and math.isfinite(row[field])]
        low, high = (min(values), max(values)) if values else (0.0, 1.0)
        if x.get("zero"):
            low, high = min(low, 0.0), max(high, 0.0)
    count = min(x.get("ticks") or math.ceil(plot_width / 40), max(2, int(plot_width // 45)))
    return nice_ticks(low, high, count)


def _draw_x_axis(ticks: list[float], scale: Any, plot_width: float, plot_height: float,
                 title: str | None) -> str:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    xs = [scale(t) for t in ticks]
    grid = "".join(f"M{fmt(x)},0v{fmt(plot_height)}" for x in xs)
    marks = "".join(f"M{fmt(x)},{fmt(plot_height)}v5" for x in xs)
    labels = [(x, plot_height + 18, tick_label(t, step)) for x, t in zip(xs, ticks,
                                                                          strict=True)]
    parts = [group("role-axis-grid", f'<path d="{grid}" stroke="{GRID}"/>', "rule"),
             group("role-axis-domain", f'<path d="M0,{fmt(plot_height)}h{fmt(plot_width)}"'
                    ' stroke="currentColor"/>', "rule"),
             group("role-axis-tick", f'<path d="{marks}" stroke="currentColor"/>', "rule"),
             group("role-axis-label", texts(labels), "text", **label_style("middle"))]
    if title:
        parts.append(group("role-axis-title", texts([(plot_width / 2, plot_height + 34,
                                                        title)]), "text",
                            font_weight="bold", **label_style("middle")))
    return "".join(parts)


# ---------------------------------------------------- a row per name: bars and dots

def _ordered(spec: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [row for row in spec["data"]["values"] if row.get("name") is not None]
    sort = spec.get("sort")
    field = spec["x"]["field"]
    if sort == "value":  # highest first; rows without a value last
        rows = sorted(rows, key=lambda row: -row[field] if is_number(row.get(field))
                      else math.inf)
    elif sort == "order":
        rows = sorted(rows, key=lambda row: row.get("order") or 0)
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault(str(row["name"]), row)
    return list(seen.values())


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        math.isfinite(value))


def rows_chart(spec: dict[str, Any], width: int) -> str:
    """A chart of a row per name (bars, dots or releases), `width` px wide: one choice of
    its menus, only its rows."""
    rows = _ordered(spec)
    narrow = width < WIDE
    limit = NARROW_LABELS if narrow else WIDE_LABELS
    names = [cut(str(row["name"]), limit // 7) for row in rows]
    left = min(max([text_width(name) for name in names], default=0), limit) + 12
    step = RELEASE_STEP if spec["kind"] == "releases" else STEP
    plot_width = width - left - 2 * PAD - 8
    plot_height = step * max(len(rows), 1)
    x = spec["x"]
    low, high, ticks = _x_axis(x, rows, plot_width)
    # The last tick's label is centred on the plot's right edge: room for its half.
    step_of_ticks = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    overhang = text_width(tick_label(ticks[-1], step_of_ticks)) / 2 - 8
    plot_width -= max(0.0, overhang)

    def scale(value: float) -> float:
        return (value - low) / (high - low) * plot_width

    middles = [step * (i + 0.5) for i in range(len(rows))]
    body = [_draw_x_axis(ticks, scale, plot_width, plot_height, x.get("title")),
            group("role-axis-label", texts([(-8, y + 4, name) for y, name in
                                              zip(middles, names, strict=True)]),
                   "text", **label_style("end"))]
    body.append(_marks(spec, rows, middles, scale, step, plot_height))
    height = PAD + plot_height + AXIS_HEIGHT + PAD
    return svg(width, height, frame(left + PAD, PAD, plot_width, plot_height,
                                      "".join(body)))


def _colour(spec: dict[str, Any], row: dict[str, Any], value: float) -> str:
    if spec["kind"] == "releases":
        return {"up": POSITIVE, "down": NEGATIVE}.get(row.get("mark") or "", NEUTRAL)
    if spec.get("signed"):
        return POSITIVE if value >= 0 else NEGATIVE
    return POSITIVE


def _marks(spec: dict[str, Any], rows: list[dict[str, Any]], middles: list[float],
           scale: Any, step: float, plot_height: float) -> str:
    x = spec["x"]
    field, low_field, high_field = x["field"], x["low"], x["high"]
    fills: dict[str, list[str]] = {}
    rules: list[str] = []
    line: list[tuple[float, float]] = []
    for row, y in zip(rows, middles, strict=True):
        value = row.get(field)
        if low_field and is_number(row.get(low_field)) and is_number(row.get(high_field)):
            x1, x2 = scale(row[low_field]), scale(row[high_field])
            rules.append(f"M{fmt(x1)},{fmt(y)}h{fmt(x2 - x1)}")
        if not is_number(value):
            continue
        style = f' fill="{_colour(spec, row, value)}"'
        if spec["kind"] == "bars":
            if spec.get("faint") and not row.get(spec["faint"]):
                style += ' fill-opacity="0.3"'
            start, end = sorted((scale(0.0), scale(value)))
            outline = (f"M{fmt(start)},{fmt(y - step / 2 + 1)}h{fmt(end - start)}"
                       f"v{fmt(step - 2)}h{fmt(start - end)}Z")
        else:
            radius = 4.7 if spec["kind"] == "releases" else 4.0
            outline = _circle(scale(value), y, radius)
            line.append((scale(value), y))
        fills.setdefault(style, []).append(outline)
    parts = []
    if spec["kind"] == "releases" and len(line) > 1:
        joined = "L".join(f"{fmt(px)},{fmt(py)}" for px, py in line)
        parts.append(group("role-mark", f'<path d="M{joined}" fill="none" '
                            'stroke="currentColor" stroke-opacity="0.35"/>', "line"))
    parts.append(group("role-mark", paths(fills), "rect" if spec["kind"] == "bars"
                        else "symbol"))
    parts.append(group("role-mark", f'<path d="{"".join(rules)}" stroke="currentColor" '
                        'stroke-opacity="0.7"/>' if rules else "", "rule"))
    if spec.get("signed"):
        dash = ' stroke-dasharray="3,3"' if spec["kind"] != "bars" else ""
        parts.append(group("role-mark", f'<path d="M{fmt(scale(0.0))},0'
                            f'v{fmt(plot_height)}" stroke="currentColor"{dash}/>', "rule"))
    return "".join(parts)
