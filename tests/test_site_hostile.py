"""Hostile text in every field that reaches a page is escaped in the HTML files: no
element, attribute or script of ours comes from data (the fixture: hostile_fixture.py;
in a browser: test_browser_hostile.py)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hostile_fixture import FORMULA_MODEL, MODELS

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


@pytest.fixture
def site(hostile_site):
    return hostile_site


# A chart drawn at build time is an inline <svg> in its holder, made of these elements only.
DRAWING_HOLDERS = {"chart-wide", "chart-narrow"}
DRAWING_TAGS = {"g", "path", "line", "rect", "circle", "text", "tspan", "defs", "clippath",
                "lineargradient", "radialgradient", "stop", "title", "desc"}


class Inspector(HTMLParser):
    """Records everything in a page that could run or load something."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.stack: list[str] = []
        self.classes: list[str] = []  # the class of each element in `stack`
        self.in_script = False
        self.drawings = 0

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "svg" and self.classes and self.classes[-1] in DRAWING_HOLDERS:
            self.drawings += 1
        elif "svg" in self.stack and tag not in DRAWING_TAGS:
            self.problems.append(f"<{tag}> inside a chart's drawing")
        elif tag == "svg":
            self.problems.append("an <svg> outside a chart's drawing")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"event handler {name} on <{tag}>")
            if name in ("href", "src", "action") and value and value.strip().lower(
                    ).startswith(("javascript:", "data:", "vbscript:")):
                self.problems.append(f"<{tag} {name}={value!r}>")
        if tag in ("img", "iframe", "style", "object", "embed", "form") and not (
                tag == "form"
                and names.get("id") in ("compare-form", "explore-form", "viewer-form",
                                    "filter-form")):
            self.problems.append(f"unexpected <{tag}>")
        if tag == "script":
            ours = names.get("type") == "application/json" or (
                names.get("src", "").startswith(("assets/", "../assets/"))
                and "//" not in names.get("src", ""))
            if not ours:
                self.problems.append(f"script {names}")
            self.in_script = True
        if tag not in VOID:
            self.stack.append(tag)
            self.classes.append(names.get("class") or "")

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
            return
        self.stack.pop()
        self.classes.pop()

    def handle_data(self, data):
        if self.in_script and "<" in data:
            self.problems.append("markup inside a script element")


def test_hostile_text_is_inert_on_every_page(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 14
    drawings = 0
    for page in pages:
        inspector = Inspector()
        inspector.feed(page.read_text("utf-8"))
        inspector.close()
        assert inspector.problems == [], page
        assert inspector.stack == [], page  # every element closed: the layout holds
        drawings += inspector.drawings
    assert drawings >= 10  # the charts' drawings were inspected too


def test_hostile_text_is_shown_as_text(site):
    home = (site / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(&#34;model&#34;)&lt;/script&gt;" in home
    model_pages = sorted((site / "models").glob("*.html"))
    assert len(model_pages) == len(MODELS) + 1  # and the reference model's
    assert all(p.name.endswith(".html") and "<" not in p.name for p in model_pages)
    texts = "".join(p.read_text("utf-8") for p in model_pages)
    assert "&lt;script&gt;alert(&#39;prompt&#39;)" in texts  # the prompt, as text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in texts  # a response's raw HTML
    assert "evil.example/x.png" in texts  # shown as text, never loaded
    assert 'href="javascript' not in texts and "../../index.html" not in texts
    assert "cost" in texts and "&lt;img src=x onerror=alert(1)&gt;" in texts  # run summary


def test_dataset_and_metadata_names_are_escaped(site):
    (page,) = (site / "datasets").glob("*.html")
    html = page.read_text("utf-8")
    assert "&lt;img src=x onerror=alert(&#39;dataset&#39;)&gt;" in html
    assert "&lt;i onmouseover=alert(1)&gt;" in html
    assert "&lt;/table&gt;&lt;script&gt;x&lt;/script&gt;" in html


def test_csv_cells_never_start_a_spreadsheet_formula(site):
    """A model named like a formula is defused in every CSV (an apostrophe in front) and
    kept exactly in the JSON files."""
    import csv
    import json

    defused = 0
    for path in sorted((site / "data").rglob("*.csv")):
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.reader(handle):
                for cell in row:
                    defused += cell == "'" + FORMULA_MODEL
                    if cell.startswith("-"):
                        float(cell)  # a negative number, not a formula
                    assert not cell.startswith(("=", "+", "@", "\t", "\r")), (path, cell)
    assert defused > 0
    json_text = "".join(p.read_text(encoding="utf-8") for p in (site / "data").rglob("*.json"))
    assert json.dumps(FORMULA_MODEL)[1:-1] in json_text
    assert json.dumps("'" + FORMULA_MODEL)[1:-1] not in json_text
