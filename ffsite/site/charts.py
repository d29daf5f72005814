"""Chart specs (Altair -> Vega-Lite JSON) that pages embed and vega-embed draws as SVG.

Text, axes and outlines use `currentColor`, so a chart takes the page's text colour in
light and dark mode; the mark colours are mid-tones readable on both backgrounds.
Every chart carries a `description` (Vega puts it on the SVG for screen readers).
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import altair as alt
import pandas as pd

from ffsite.site.output import records

POSITIVE = "#3f7fd0"  # blue: shown more / encouraged
NEGATIVE = "#d4473f"  # red: shown less / discouraged
STEP = 16  # pixels per bar or heatmap row

CONFIG: dict[str, Any] = {
    "background": "transparent",
    "view": {"stroke": None},
    "font": "system-ui, sans-serif",
    "axis": {"labelColor": "currentColor", "titleColor": "currentColor",
             "domainColor": "currentColor", "tickColor": "currentColor",
             "gridColor": "rgba(128,128,128,0.35)", "labelLimit": 260, "labelFontSize": 12,
             "titleFontSize": 12},
    # On a phone the library's drawing keeps 60% of the width for the plot.
    "axisY": {"labelLimit": {"expr": "clamp(containerSize()[0] * 0.4, 90, 260)"}},
    "legend": {"labelColor": "currentColor", "titleColor": "currentColor"},
    "title": {"color": "currentColor"},
}


ROWS = alt.NamedData("rows")  # replaced by the chart's rows in `_finish`


def _finish(skeleton: dict[str, Any], description: str,
            rows: list[dict[str, Any]] | None = None, bands: int = 0) -> dict[str, Any]:
    """A copy of a cached spec with this chart's description, rows and, for charts as
    wide as the page, a height of `bands` rows."""
    spec = copy.deepcopy(skeleton)
    spec["description"] = description
    if rows is not None:
        # Four decimals are more than any chart or tooltip shows; pages stay smaller.
        spec["data"] = {"values": [{key: round(value, 4) if isinstance(value, float)
                                    else value for key, value in row.items()}
                                   for row in rows]}
    if bands:
        spec["height"] = bands * spec["usermeta"]["step"]
    return spec


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """Altair builds each kind of chart once (it is slow); pages fill in the data."""
    spec = chart.to_dict(validate=False)
    spec.pop("$schema", None)  # vega-embed does not need it; keeps pages free of other hosts
    spec["config"] = CONFIG
    if spec.get("width") == "container":
        # Fill the page's width.  The height is set from the number of rows (a "step"
        # height would make Vega-Lite warn that it cannot also fit the height).
        spec["autosize"] = {"type": "fit-x", "contains": "padding"}
        spec["usermeta"] = {"step": spec.pop("height")["step"]}
    return spec


def _signed_colour() -> alt.ColorValue:
    return alt.condition("datum.strength >= 0", alt.value(POSITIVE), alt.value(NEGATIVE))


def strength_bars(frame: pd.DataFrame, name_title: str, description: str) -> dict[str, Any]:
    """Diverging bars with 95% error bars, one per row of `frame` (columns: name,
    strength, strength_low, strength_high, relevance, valid_votes, num_votes, finding), in
    the frame's order.  Cells that are not findings are drawn faint."""
    rows = records(frame[["name", "strength", "strength_low", "strength_high", "relevance",
                          "valid_votes", "num_votes", "finding"]])
    return _finish(_strength_bars(name_title), description, rows, bands=len(rows))


@functools.cache
def _strength_bars(name_title: str) -> dict[str, Any]:
    base = alt.Chart(ROWS)
    bars = base.mark_bar().encode(
        x=alt.X("strength:Q", scale=alt.Scale(domain=[-1, 1]), title="strength",
                axis=alt.Axis(tickCount=8)),
        y=alt.Y("name:N", sort=None, title=None),
        color=_signed_colour(),
        opacity=alt.condition("datum.finding", alt.value(1.0), alt.value(0.3)),
        tooltip=[alt.Tooltip("name:N", title=name_title),
                 alt.Tooltip("strength:Q", format="+.3f"),
                 alt.Tooltip("strength_low:Q", title="95% interval from", format="+.3f"),
                 alt.Tooltip("strength_high:Q", title="to", format="+.3f"),
                 alt.Tooltip("relevance:Q", format=".2f"),
                 alt.Tooltip("valid_votes:Q", title="valid votes"),
                 alt.Tooltip("num_votes:Q", title="comparisons")])
    errors = base.mark_rule(color="currentColor", opacity=0.7).encode(
        x="strength_low:Q", x2="strength_high:Q", y=alt.Y("name:N", sort=None))
    zero = base.mark_rule(color="currentColor").encode(x=alt.datum(0))
    return _spec(alt.layer(bars, errors, zero).properties(width="container",
                                                          height=alt.Step(STEP)))


def agreement_heatmap(frame: pd.DataFrame, order: list[str], description: str
                      ) -> dict[str, Any]:
    """Kappa as colour, relevance overlap as the size of an inner square (FF fig. 11);
    `frame` has one row per unordered pair (trait_a, trait_b, cohens_kappa, overlap,
    both_relevant); both halves of the matrix are drawn."""
    columns = ["trait_a", "trait_b", "cohens_kappa", "overlap", "both_relevant"]
    mirrored = frame[columns].rename(columns={"trait_a": "trait_b", "trait_b": "trait_a"})
    rows = records(pd.concat([frame[columns], mirrored[columns]], ignore_index=True))
    spec = _finish(_agreement_heatmap(), description, rows)
    for layer in spec["layer"]:
        layer["encoding"]["x"]["sort"] = layer["encoding"]["y"]["sort"] = list(order)
    return spec


@functools.cache
def _agreement_heatmap() -> dict[str, Any]:
    base = alt.Chart(ROWS).encode(
        x=alt.X("trait_b:N", sort=None, title=None, axis=alt.Axis(labelAngle=-60)),
        y=alt.Y("trait_a:N", sort=None, title=None),
        tooltip=[alt.Tooltip("trait_a:N", title="trait"), alt.Tooltip("trait_b:N",
                                                                       title="and"),
                 alt.Tooltip("cohens_kappa:Q", title="kappa", format="+.2f"),
                 alt.Tooltip("overlap:Q", title="overlap", format=".2f"),
                 alt.Tooltip("both_relevant:Q", title="both relevant")])
    cells = base.mark_rect().encode(
        color=alt.Color("cohens_kappa:Q", title="kappa",
                        scale=alt.Scale(scheme="redblue", domain=[-1, 1])))
    squares = base.mark_square(filled=False, color="currentColor", strokeWidth=1).encode(
        size=alt.Size("overlap:Q", title="overlap",
                      scale=alt.Scale(domain=[0, 1], range=[0, (STEP - 3) ** 2])))
    return _spec(alt.layer(cells, squares).properties(width=alt.Step(STEP),
                                                      height=alt.Step(STEP)))


def selectable(frame: pd.DataFrame, options: list[str], labels: list[str], choose: str,
               value_title: str, description: str, interval: bool = False,
               value_format: str = ",.0f") -> dict[str, Any]:
    """One chart for many measures: a menu (`choose`: its label) picks the rows whose
    `key` is the chosen option; each row is a `name` with its `value` (and, with
    `interval`, a dot with a `low`..`high` error bar instead of a bar).  `value_format`
    is d3's format of the interval's bounds in tooltips (",.0f" for Elo, ".2f" for a
    1-10 score)."""
    columns = ["key", "name", "value", *(["low", "high"] if interval else [])]
    bands = int(frame.groupby("key").size().max()) if len(frame) else 1
    spec = _finish(_selectable(value_title, interval, value_format), description,
                   records(frame[columns]), bands)
    (pick,) = spec["params"]
    pick["value"] = options[0] if options else ""
    pick["bind"].update(options=list(options), labels=list(labels), name=choose + " ")
    spec["usermeta"]["menus"] = {"pick": "key"}  # the row column each menu picks on
    return spec


@functools.cache
def _selectable(value_title: str, interval: bool, value_format: str) -> dict[str, Any]:
    pick = alt.param(name="pick", value="", bind=alt.binding_select(options=[""]))
    base = alt.Chart(ROWS).transform_filter("datum.key == pick")
    y = alt.Y("name:N", sort=alt.EncodingSortField("value", order="descending"), title=None)
    tooltip = [alt.Tooltip("name:N", title="model"),
               alt.Tooltip("value:Q", title=value_title, format=",.2f")]
    if interval:
        tooltip += [alt.Tooltip("low:Q", title="95% interval from", format=value_format),
                    alt.Tooltip("high:Q", title="to", format=value_format)]
        layers = [base.mark_rule(color="currentColor", opacity=0.7).encode(
                      x=alt.X("low:Q", title=value_title, scale=alt.Scale(zero=False)),
                      x2="high:Q", y=y),
                  base.mark_circle(color=POSITIVE, size=50, opacity=1).encode(
                      x="value:Q", y=y, tooltip=tooltip)]
    else:
        layers = [base.mark_bar(color=POSITIVE).encode(
            x=alt.X("value:Q", title=value_title), y=y, tooltip=tooltip)]
    return _spec(alt.layer(*layers).add_params(pick).properties(
        width="container", height=alt.Step(STEP)))


# ------------------------------------------------- judge scores: dots with 95% intervals

def interval_dots(frame: pd.DataFrame, value_title: str, description: str,
                  signed: bool = False, value_format: str | None = None) -> dict[str, Any]:
    """A dot per row of `frame` (columns name, value, low, high), in the frame's order,
    with its 95% interval as a line; `signed`: a zero line, dots coloured by sign.
    `value_format`: d3's format in tooltips (default ".2f", "+.2f" when signed)."""
    rows = records(frame[["name", "value", "low", "high"]])
    return _finish(_interval_dots(value_title, signed, (), value_format), description, rows,
                   bands=len(rows))


def chosen_interval_dots(frame: pd.DataFrame, menus: list[tuple[str, str, list[str],
                                                                   list[str]]],
                         value_title: str, description: str, signed: bool = False
                         ) -> dict[str, Any]:
    """`interval_dots` for one choice of several menus inside the chart: each menu is
    (column of `frame`, its label, options, option labels) and shows the rows whose
    column equals the chosen option, highest value first (the first option is chosen
    at first)."""
    columns = [column for column, *_ in menus]
    rows = records(frame[[*columns, "name", "value", "low", "high"]])
    bands = int(frame.groupby(columns).size().max()) if len(frame) else 1
    spec = _finish(_interval_dots(value_title, signed, tuple(columns), None), description,
                   rows, bands)
    for param, (_, label, options, labels) in zip(spec["params"], menus, strict=True):
        param["value"] = options[0] if options else ""
        param["bind"].update(options=list(options), labels=list(labels), name=label + " ")
    spec["usermeta"]["menus"] = {f"pick_{column}": column for column in columns}
    return spec


@functools.cache
def _interval_dots(value_title: str, signed: bool, menus: tuple[str, ...],
                   value_format: str | None) -> dict[str, Any]:
    params = [alt.param(name=f"pick_{column}", value="",
                        bind=alt.binding_select(options=[""])) for column in menus]
    base = alt.Chart(ROWS)
    if menus:
        base = base.transform_filter(" && ".join(f"datum.{column} == pick_{column}"
                                                 for column in menus))
    # Without menus the frame's order; with them, the chosen rows highest first.  On a
    # phone, long names are cut to 40% of the width, so the dots keep room.
    y = alt.Y("name:N", title=None, sort=alt.EncodingSortField("value", order="descending")
              if menus else None,
              axis=alt.Axis(labelLimit={"expr": "clamp(containerSize()[0] * 0.4, 90, 260)"}))
    number = value_format or ("+.2f" if signed else ".2f")
    tooltip = [alt.Tooltip("name:N", title="model"),
               alt.Tooltip("value:Q", title=value_title, format=number),
               alt.Tooltip("low:Q", title="95% interval from", format=number),
               alt.Tooltip("high:Q", title="to", format=number)]
    colour = (alt.condition("datum.value >= 0", alt.value(POSITIVE), alt.value(NEGATIVE))
              if signed else alt.value(POSITIVE))
    layers = [base.mark_rule(color="currentColor", opacity=0.7).encode(
                  x=alt.X("low:Q", title=value_title, scale=alt.Scale(zero=signed),
                          axis=alt.Axis(tickCount=6)),
                  x2="high:Q", y=y),
              base.mark_circle(size=50, opacity=1).encode(x="value:Q", y=y, color=colour,
                                                          tooltip=tooltip)]
    if signed:
        layers.append(base.mark_rule(color="currentColor", strokeDash=[3, 3]).encode(
            x=alt.datum(0)))
    chart = alt.layer(*layers)
    if params:
        chart = chart.add_params(*params)
    return _spec(chart.properties(width="container", height=alt.Step(STEP)))


def release_dots(frame: pd.DataFrame, options: list[str], labels: list[str],
                 value_title: str, description: str, value_format: str = ".2f"
                 ) -> dict[str, Any]:
    """A family's releases on one chosen trait (a menu inside the chart picks `key`),
    earliest at the top: a dot per release with its 95% interval as a line, the dots
    joined in release order.  `frame`: key, name, order, value, low, high, change (the
    change from the previous release, or NaN) and mark ("up", "down": a real change;
    "" otherwise), whose colour the dot takes."""
    columns = ["key", "name", "order", "value", "low", "high", "change", "mark"]
    rows = records(frame[columns].astype({"change": object}).where(
        frame[columns].notna(), None))
    bands = int(frame.groupby("key").size().max()) if len(frame) else 1
    spec = _finish(_release_dots(value_title, value_format), description, rows, bands)
    (pick,) = spec["params"]
    pick["value"] = options[0] if options else ""
    pick["bind"].update(options=list(options), labels=list(labels), name="Trait ")
    spec["usermeta"]["menus"] = {"pick": "key"}  # each trait's releases drawn at build time
    return spec


@functools.cache
def _release_dots(value_title: str, value_format: str) -> dict[str, Any]:
    pick = alt.param(name="pick", value="", bind=alt.binding_select(options=[""]))
    base = alt.Chart(ROWS).transform_filter("datum.key == pick")
    y = alt.Y("name:N", title=None, sort=alt.EncodingSortField("order", order="ascending"),
              axis=alt.Axis(labelLimit={"expr": "clamp(containerSize()[0] * 0.4, 90, 260)"}))
    x = alt.X("value:Q", title=value_title, scale=alt.Scale(zero=False),
              axis=alt.Axis(tickCount=6))
    tooltip = [alt.Tooltip("name:N", title="release"),
               alt.Tooltip("value:Q", title=value_title, format=value_format),
               alt.Tooltip("low:Q", title="95% interval from", format=value_format),
               alt.Tooltip("high:Q", title="to", format=value_format),
               alt.Tooltip("change:Q", title="change from the previous release",
                           format="+" + value_format)]
    colour = alt.Color("mark:N", legend=None, scale=alt.Scale(
        domain=["up", "down", ""], range=[POSITIVE, NEGATIVE, "#8a8a8a"]))
    layers = [base.mark_line(color="currentColor", opacity=0.35).encode(
                  x="value:Q", y=y, order=alt.Order("order:Q")),
              base.mark_rule(color="currentColor", opacity=0.7).encode(x=alt.X(
                  "low:Q", title=value_title, scale=alt.Scale(zero=False)), x2="high:Q", y=y),
              base.mark_circle(size=70, opacity=1).encode(x=x, y=y, color=colour,
                                                          tooltip=tooltip)]
    return _spec(alt.layer(*layers).add_params(pick).properties(
        width="container", height=alt.Step(STEP + 6)))


def trust_heatmap(frame: pd.DataFrame, order: list[str], description: str
                  ) -> dict[str, Any]:
    """EigenBench's trust matrix: a row per judge, a column per model judged; colour is
    the relative trust N x T_ij (1: the judge's even share; blue above, red below, on a
    log scale so halving and doubling look alike). `frame` has judge, model, trust,
    relative."""
    # The log colour scale needs positive values, and rows keep four decimals: a judge
    # that all but never prefers a model (10^-12) would round to 0.  Colours saturate at
    # 1/100 and 100 times an even share; the download keeps the exact numbers.
    shown = frame[["judge", "model", "trust", "relative"]].assign(
        relative=frame["relative"].clip(RELATIVE_FLOOR, 1 / RELATIVE_FLOOR))
    spec = _finish(_trust_heatmap(), description, records(shown))
    spec["encoding"]["x"]["sort"] = spec["encoding"]["y"]["sort"] = list(order)
    return spec


RELATIVE_FLOOR = 0.01


@functools.cache
def _trust_heatmap() -> dict[str, Any]:
    chart = alt.Chart(ROWS).mark_rect().encode(
        x=alt.X("model:N", sort=None, title="model judged", axis=alt.Axis(labelAngle=-60)),
        y=alt.Y("judge:N", sort=None, title="judge"),
        color=alt.Color("relative:Q", title="trust × N",
                        scale=alt.Scale(type="log", scheme="redblue", domainMid=1),
                        legend=alt.Legend(format=".2f")),
        tooltip=[alt.Tooltip("judge:N"), alt.Tooltip("model:N", title="trusts"),
                 alt.Tooltip("trust:Q", title="trust T", format=".3f"),
                 alt.Tooltip("relative:Q", title="trust × N", format=".2f")])
    return _spec(chart.properties(width=alt.Step(STEP), height=alt.Step(STEP)))
