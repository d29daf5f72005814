"""A table's body rows as HTML, written in Python: a site has about 160,000 cells, and a
Jinja macro call per cell made rendering the pages the build's slowest step.  The markup
is the one templates/macros.html documents (`table`): text left, numbers right (class
"n"), each cell's sort value in data-v, a rank's 95% range in data-rank, intervals in
view; every text is escaped here."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from ffsite.site.render import breakable


def table_rows(rows: Sequence[Sequence[Any]], columns: Sequence[Any],
               row_facts: dict[str, Any] | None) -> Markup:
    """Each row as <tr>...</tr> and a newline.  A row whose header links to a model page
    carries that model's facts as codes (`row_facts`, by page path), which the filter
    bar's rules match (ffsite/site/filters.py)."""
    numeric = [column.numeric for column in columns]
    html = []
    for row in rows:
        html.append(_row_open(row, row_facts))
        html.extend(cell(c, numeric[i] if i < len(numeric) else False)
                    for i, c in enumerate(row))
        html.append("</tr>\n")
    return Markup("".join(html))  # noqa: S704 (every text escaped in `cell`)


_MARKUP_CHARACTERS = re.compile(r"[&<>\"']").search


def _escaped(value: Any) -> str:
    """`escape(value)` as text, without making a Markup of every number and of every
    string that has nothing to escape (a page has hundreds of thousands)."""
    kind = type(value)
    if kind is str:
        return value if _MARKUP_CHARACTERS(value) is None else str(escape(value))
    if kind is int or kind is float:
        return str(value)
    return str(escape(value))


def _row_open(row: Sequence[Any], row_facts: dict[str, Any] | None) -> str:
    href = (row[0].href if row else None) or ""
    facts = (row_facts.get("models/" + href.rsplit("models/", 1)[-1])
             if row_facts and "models/" in href else None)
    if not facts:
        return "<tr>"
    return (f'<tr class="m" data-org="{_escaped(facts.org)}" data-weights='
            f'"{_escaped(facts.weights)}" data-year="{_escaped(facts.year)}" data-datasets='
            f'"{_escaped(facts.datasets)}">')


def table_cell(c: Any, numeric: bool = False) -> Markup:
    """One cell as HTML, for templates (macros.html `cell`)."""
    return Markup(cell(c, numeric))  # noqa: S704 (every text escaped in `cell`)


def cell(c: Any, numeric: bool = False) -> str:
    """One cell (views.Cell): a row header <th scope="row">, else <td>."""
    tag = "th" if c.header else "td"
    html = [f"<{tag}"]
    if c.header:
        html.append(' scope="row"')
    if c.css:
        html.append(f' class="{_escaped(c.css)}"')
    if c.value is not None:
        html.append(f' data-v="{_escaped(c.value)}"')
    if c.rank_range:
        html.append(f' data-rank="{_escaped(c.rank_range[0])} {_escaped(c.rank_range[1])}"')
    if c.title:
        html.append(f' title="{_escaped(c.title)}"')
    if numeric and not c.header and not c.css:
        html.append(' class="n"')
    text = str(breakable(c.text)) if c.header else _escaped(c.text)
    html.append(f'><a href="{_escaped(c.href)}">{text}</a>' if c.href else f">{text}")
    if c.rank:
        spread = f"–{_escaped(c.rank[2])}" if c.rank[1] != c.rank[2] else ""
        html.append(f' <span class="rank">#{_escaped(c.rank[1])}{spread}</span>')
    if c.interval:
        html.append(f'<span class="ci">{_escaped(c.interval)}</span>')
    if c.badge:
        html.append(f' <span class="badge" title="{_escaped(c.badge_title)}">'
                    f"{_escaped(c.badge)}</span>")
    html.append(f"</{tag}>")
    return "".join(html)
