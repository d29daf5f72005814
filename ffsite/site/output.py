"""The site's output: the pages and data tables builders produce, then the files.

Builders only record what they produce (`SiteOutput`); once every builder has run, the
tables are written as CSV and JSON under data/ and the pages are rendered, each with
`published` (every table, so any page can list them all) and `root`, the relative path
back to the site's top ("" or "../"), so links work under any subpath and from file://.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from ffsite._spreadsheet import FORMULA_STARTS, spreadsheet_safe
from ffsite.errors import FfsiteError
from ffsite.progress import Progress
from ffsite.site.archive import write_archive
from ffsite.site.describe import page_description
from ffsite.site.forked import in_halves
from ffsite.site.render import render_all
from ffsite.site.urls import root


@dataclass(frozen=True)
class Download:
    """A published table: data/<name>.csv and data/<name>.json."""

    name: str
    title: str
    page: str  # the page that shows it

    @property
    def csv(self) -> str:
        return f"data/{self.name}.csv"

    @property
    def json(self) -> str:
        return f"data/{self.name}.json"


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts: Python numbers and strings, NaN as None."""
    names = [str(name) for name in frame.columns]
    columns = [frame[name].tolist() for name in frame.columns]  # Python scalars
    return [{name: _plain(value) for name, value in zip(names, row, strict=True)}
            for row in zip(*columns, strict=True)]


def table_json(frame: pd.DataFrame, columns: list[list[Any]] | None = None) -> str:
    """The JSON of a published table: exactly `json.dumps(records(frame),
    ensure_ascii=False, indent=1, allow_nan=False) + "\n"`, made column by column (with
    an indent, json encodes in Python value by value: 4 s for a site's tables).
    `columns`: each column's `tolist()`, when the caller has them."""
    names = [str(name) for name in frame.columns]
    if columns is None:
        columns = column_lists(frame)
    cells = [_json_cells(values) for values in columns]
    if not names or len(set(names)) < len(names) or any(c is None for c in cells):
        # No columns, a name twice (one key in JSON) or a value of another kind: json's
        # own way, which also raises for what JSON cannot hold.
        return json.dumps(records(frame), ensure_ascii=False, indent=1,
                          allow_nan=False) + "\n"
    if not len(frame):
        return "[]\n"
    # One row's text with a slot per value: one format per row, not one per cell.
    row = " {\n" + ",\n".join("  " + _json_text(name).replace("%", "%%") + ": %s"
                               for name in names) + "\n }"
    return "[\n" + ",\n".join([row % values for values in zip(*cells, strict=True)]) + "\n]\n"


def column_lists(frame: pd.DataFrame) -> list[list[Any]]:
    """Each column's values as Python scalars (`items`: `iloc` per column is ten times
    slower)."""
    return [column.tolist() for _, column in frame.items()]


_json_text = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) uses
_JSON_CONSTANTS = {None: "null", True: "true", False: "false"}


def _json_cells(values: list[Any]) -> list[str] | None:
    """Each value as json writes it (NaN as null, as `records` makes it), or None when a
    value is not a number, text, bool or None (or is infinite: json refuses it)."""
    kinds = set(map(type, values))
    if kinds <= {float}:
        cells = list(map(float.__repr__, values))
        if "inf" in cells or "-inf" in cells:
            return None
        return ["null" if cell == "nan" else cell for cell in cells]
    if kinds <= {int}:
        return list(map(int.__repr__, values))
    if kinds <= {str}:
        return list(map(_json_text, values))
    cells = []
    for value in values:
        kind = type(value)
        if kind is str:
            cells.append(_json_text(value))
        elif kind is bool or value is None:
            cells.append(_JSON_CONSTANTS[value])
        elif kind is int:
            cells.append(int.__repr__(value))
        elif kind is float and math.isfinite(value):
            cells.append(float.__repr__(value))
        elif kind is float and math.isnan(value):
            cells.append("null")
        else:
            return None
    return cells


def _formula_text(frame: pd.DataFrame, columns: list[list[Any]]) -> bool:
    """Whether spreadsheet_safe would change anything: a column name or a text cell
    starting like a formula (each start is one character: the cells' first characters,
    joined, are searched at once)."""
    if any(isinstance(name, str) and name.startswith(FORMULA_STARTS)
           for name in frame.columns):
        return True
    for dtype, values in zip(frame.dtypes.tolist(), columns, strict=True):
        if dtype.kind in "biufcmM":
            continue
        try:
            firsts = "".join([value[:1] for value in values])
        except TypeError:  # not all text
            firsts = "".join([value[:1] for value in values if isinstance(value, str)])
        if any(start in firsts for start in FORMULA_STARTS):
            return True
    return False


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None  # pd.NA: a missing whole number (an Int64 column, e.g. a rank)
    return value


@dataclass(frozen=True)
class Page:
    path: str  # from the site's top
    template: str
    context: dict[str, Any]


@dataclass
class SiteOutput:
    """What the page builders produce, in the order they produce it; nothing is written
    until `write_output`."""

    pages: list[Page] = field(default_factory=list)
    tables: list[tuple[Download, pd.DataFrame]] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, text): other data
    sources: list[str] = field(default_factory=list)  # credit lines for the data archive
    # What every page's template may read besides its own context (the model filters'
    # facts and menus, ffsite/site/filters.py).
    globals: dict[str, Any] = field(default_factory=dict)
    _names: dict[str, str] = field(default_factory=dict)  # casefolded name -> title

    def page(self, path: str, template: str, **context: Any) -> None:
        """A page at `path` (relative to the site's top), rendered from `template`."""
        self.pages.append(Page(path, template, context))

    def data(self, name: str, frame: pd.DataFrame, title: str, page: str) -> Download:
        """Publish a table as data/<name>.csv and .json; return its download links.

        A model's, dataset's or trait's own tables go in its folder ("models/<slug>/
        comparisons"), so no name from data can land on another table's file; two tables
        given one name (even differing only in case) stop the build rather than one
        silently overwriting the other."""
        download = Download(name, title, page)
        self.adopt(download, frame)
        return download

    def adopt(self, download: Download, frame: pd.DataFrame) -> None:
        """A table published under `download` (`data`'s, or one a builder made in
        another process): two given one name stop the build."""
        folded = download.name.casefold()
        if folded in self._names:
            raise FfsiteError(f"two tables would both be published as data/{download.name}"
                              f".csv (\"{self._names[folded]}\" and \"{download.title}\"); "
                              "this is a bug: please report it")
        self._names[folded] = download.title
        self.tables.append((download, frame))

    def file(self, path: str, text: str) -> None:
        """Any other file (e.g. JSON a page's script fetches), at `path` from the top."""
        self.files.append((path, text))

    def mark(self) -> tuple:
        """Where the output is now, for `rewind`."""
        return len(self.pages), len(self.tables), len(self.files), dict(self._names)

    def rewind(self, mark: tuple) -> None:
        """Forget every page, table and file added since `mark`."""
        pages, tables, files, names = mark
        del self.pages[pages:], self.tables[tables:], self.files[files:]
        self._names.clear()
        self._names.update(names)

    def since(self, mark: tuple) -> tuple[list[Page], list[tuple[Download, pd.DataFrame]],
                                          list[tuple[str, str]]]:
        """(pages, tables, files) added since `mark`."""
        pages, tables, files, _ = mark
        return self.pages[pages:], self.tables[tables:], self.files[files:]

    @property
    def downloads(self) -> list[Download]:
        return [download for download, _ in self.tables]


@dataclass
class SiteWriter:
    root: Path
    env: jinja2.Environment
    common: dict[str, Any]

    def write(self, path: str, data: bytes | str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    def write_output(self, output: SiteOutput, progress: Progress) -> dict[str, Any]:
        """Every table of `output`, the archive of them all, then every page; returns what
        every page's template read besides its own context (for ffsite.site.rerender)."""
        in_halves(output.tables, self.write_table)  # (half of them by a forked child)
        archive = write_archive(self.root, {d.name: (d.title, d.page)
                                            for d in output.downloads}, output.sources)
        # After the archive: the explorer's and compare's JSON are for their scripts, not
        # downloads.
        for path, text in output.files:
            self.write(path, text)
        common = {**self.common, **output.globals, "archive": archive,
                  "published": sorted(output.downloads, key=lambda d: d.name)}
        for page in output.pages:
            self.write_choices(page)  # (fills the page's chart menus: before it renders)
        pages = render_all(self.env, [(page.template, page_context(page, common))
                                      for page in output.pages])
        for page, html in zip(progress.items("writing pages", output.pages), pages,
                              strict=True):
            self.write(page.path, html)
        return common

    def write_table(self, table: tuple[Download, pd.DataFrame]) -> None:
        """A published table as its CSV and its JSON."""
        download, frame = table
        columns = column_lists(frame)
        # spreadsheet_safe copies the frame; most tables have no text to neutralise.
        safe = spreadsheet_safe(frame) if _formula_text(frame, columns) else frame
        self.write(download.csv, safe.to_csv(index=False, lineterminator="\n"))
        self.write(download.json, table_json(frame, columns))

    def write_choices(self, page: Page) -> None:
        """A chart with menus: every choice but the first (which the page holds) as two
        drawing files, wide and narrow, that the page's script fetches when the reader
        picks it; `chart.menu` tells the script the menus, the first choice and where
        each choice's drawings are.  Files are named by content, so a rebuild writes the
        same names, and pages sharing a drawing share its file."""
        for chart in page.context.get("charts") or []:
            if not chart.has_controls:
                continue
            top = root(page.path)
            found = {}
            for values, drawn in chart.choices[1:]:
                names = {}
                for width, svg in drawn.items():
                    text = str(svg)
                    name = f"assets/drawings/{hashlib.sha256(text.encode()).hexdigest()[:20]}.svg"
                    self.write(name, text + "\n")
                    names[width] = top + name
                found[CHOICE_SEPARATOR.join(values)] = names
            chart.menu.clear()
            chart.menu.update(
                menus=[{"name": p["name"], "label": str(p["bind"].get("name", "")).strip(),
                        "options": [str(o) for o in p["bind"]["options"]],
                        "labels": [str(o) for o in p["bind"].get("labels")
                                   or p["bind"]["options"]],
                        "value": str(p["value"])}
                       for p in chart.raw.get("params", []) if "bind" in p],
                first=CHOICE_SEPARATOR.join(chart.choices[0][0]) if chart.choices else "",
                choices=found)


CHOICE_SEPARATOR = "\u001f"  # between the options of several menus in a choice's key


def page_context(page: Page, common: dict[str, Any]) -> dict[str, Any]:
    """Everything `page`'s template reads: what every page reads, then its own."""
    return {**common, "root": root(page.path), **page.context, **preview(page, common)}


def preview(page: Page, common: dict[str, Any]) -> dict[str, Any]:
    """The page's description and, when the site's address is absolute, its full URL
    (Open Graph wants one; a relative base has none to give)."""
    base = common.get("site_url") or ""
    return {"description": page_description(page.path, page.template, page.context,
                                            common.get("site_description") or ""),
            "page_url": base + page.path if base.startswith(("https://", "http://"))
            else None}
