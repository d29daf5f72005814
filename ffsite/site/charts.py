"""What each chart shows: a small JSON-able spec per chart, drawn as SVG at build time by
`ffsite.site.plot` (no chart library, at build time or in the reader's browser).

A spec is {"kind", "description", "data": {"values": rows}, ...} with what its kind
needs: the x axis (`x`: the value's field, its interval's fields, title, domain), the
row order (`sort`) and colours.  A chart with menus has `params` (each menu: its name,
first value and options, as a page's script shows them) and `usermeta.menus` (the row
column each menu picks on); every choice is drawn at build time (`drawings.choices`).

Text, axes and outlines use `currentColor`, so a chart takes the page's text colour in
light and dark mode; the mark colours are mid-tones readable on both backgrounds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ffsite.site.output import records

POSITIVE = "#3f7fd0"  # blue: shown more / encouraged
NEGATIVE = "#d4473f"  # red: shown less / discouraged
NEUTRAL = "#8a8a8a"  # a release that did not change for sure
STEP = 16  # pixels per bar or heatmap row
RELATIVE_FLOOR = 0.01


def _spec(kind: str, description: str, rows: list[dict[str, Any]], **parts: Any
          ) -> dict[str, Any]:
    # Four decimals are more than any chart shows; specs (and menus' files) stay small.
    values = [{key: round(value, 4) if isinstance(value, float) else value
               for key, value in row.items()} for row in rows]
    return {"kind": kind, "description": description, "data": {"values": values}, **parts}


def _menu(name: str, label: str, options: list[str], labels: list[str]) -> dict[str, Any]:
    return {"name": name, "value": options[0] if options else "",
            "bind": {"options": list(options), "labels": list(labels), "name": label + " "}}


def _axis(field: str, title: str, low: str | None = "low", high: str | None = "high",
          domain: list[float] | None = None, zero: bool = False, ticks: int | None = None
          ) -> dict[str, Any]:
    return {"field": field, "low": low, "high": high, "title": title, "domain": domain,
            "zero": zero, "ticks": ticks}


def strength_bars(frame: pd.DataFrame, name_title: str, description: str) -> dict[str, Any]:
    """Diverging bars with 95% error bars, one per row of `frame` (columns: name,
    strength, strength_low, strength_high, relevance, valid_votes, num_votes, finding), in
    the frame's order.  Cells that are not findings are drawn faint."""
    rows = records(frame[["name", "strength", "strength_low", "strength_high", "relevance",
                          "valid_votes", "num_votes", "finding"]])
    return _spec("bars", description, rows, name_title=name_title, signed=True,
                 faint="finding", sort=None,
                 x=_axis("strength", "strength", "strength_low", "strength_high",
                         domain=[-1, 1], zero=True, ticks=8))


def agreement_heatmap(frame: pd.DataFrame, order: list[str], description: str
                      ) -> dict[str, Any]:
    """Kappa as colour, relevance overlap as the size of an inner square (FF fig. 11);
    `frame` has one row per unordered pair (trait_a, trait_b, cohens_kappa, overlap,
    both_relevant); both halves of the matrix are drawn."""
    columns = ["trait_a", "trait_b", "cohens_kappa", "overlap", "both_relevant"]
    mirrored = frame[columns].rename(columns={"trait_a": "trait_b", "trait_b": "trait_a"})
    rows = records(pd.concat([frame[columns], mirrored[columns]], ignore_index=True))
    return _spec("matrix", description, rows, x="trait_b", y="trait_a", order=list(order),
                 x_title=None, y_title=None,
                 colour={"field": "cohens_kappa", "title": "kappa", "domain": [-1, 1],
                         "log": False},
                 size={"field": "overlap", "title": "overlap"})


def selectable(frame: pd.DataFrame, options: list[str], labels: list[str], choose: str,
               value_title: str, description: str, interval: bool = False,
               value_format: str = ",.0f") -> dict[str, Any]:
    """One chart for many measures: a menu (`choose`: its label) picks the rows whose
    `key` is the chosen option; each row is a `name` with its `value` (and, with
    `interval`, a dot with a `low`..`high` error bar instead of a bar), highest first.
    (`value_format` is kept for callers; the drawing's axis finds its own digits.)"""
    columns = ["key", "name", "value", *(["low", "high"] if interval else [])]
    axis = (_axis("value", value_title) if interval
            else _axis("value", value_title, None, None, zero=True))
    return _spec("dots" if interval else "bars", description, records(frame[columns]),
                 signed=False, sort="value", x=axis,
                 params=[_menu("pick", choose, options, labels)],
                 usermeta={"menus": {"pick": "key"}})


# ------------------------------------------------- judge scores: dots with 95% intervals

def interval_dots(frame: pd.DataFrame, value_title: str, description: str,
                  signed: bool = False, value_format: str | None = None) -> dict[str, Any]:
    """A dot per row of `frame` (columns name, value, low, high), in the frame's order,
    with its 95% interval as a line; `signed`: a zero line, dots coloured by sign."""
    rows = records(frame[["name", "value", "low", "high"]])
    return _spec("dots", description, rows, signed=signed, sort=None,
                 x=_axis("value", value_title, zero=signed, ticks=6))


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
    return _spec("dots", description, rows, signed=signed, sort="value",
                 x=_axis("value", value_title, zero=signed, ticks=6),
                 params=[_menu(f"pick_{column}", label, options, labels)
                         for column, label, options, labels in menus],
                 usermeta={"menus": {f"pick_{column}": column for column in columns}})


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
    return _spec("releases", description, rows, sort="order",
                 x=_axis("value", value_title, ticks=6),
                 params=[_menu("pick", "Trait", options, labels)],
                 usermeta={"menus": {"pick": "key"}})


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
    return _spec("matrix", description, records(shown), x="model", y="judge",
                 order=list(order), x_title="model judged", y_title="judge",
                 colour={"field": "relative", "title": "trust × N", "domain": None,
                         "log": True})
