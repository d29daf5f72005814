"""Every page reads on a phone (390 px) and a desktop (1440 px), light and dark, measured
in real Chromium on the default site and the tiny site:

- the page is no taller than its content needs (MAX_HEIGHT) and never scrolls sideways;
- no word is broken inside a table cell, headers included, and no column is narrower
  than NARROWEST;
- text columns are left-aligned, numeric columns right-aligned;
- a long or wide table scrolls inside its wrapper with its header row and first column
  fixed (sticky), on an opaque background;
- the agreement heatmap is not clipped: wider than the screen, it scrolls.

Every page is measured on the phone in the light scheme; the main pages (with a model, a
trait and a dataset page) at both widths in both schemes, with screenshots of each
(test-artifacts/screenshots/layout-*.png).  Per-item pages share their templates with
those samples, and a phone is where tables squeeze, so the other 150 are not opened again
at 1440 px.  One browser context per width and scheme, one tab reused for every page; on
the phone in light, the default site's other pages are measured in the session's one
first visit of every page (conftest.default_phone_loads, several tabs at once), which
test_browser_weight measures too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import LAYOUT_CHECKS as FACTS
from browser import TAKE_SCREENSHOTS, Watch, open_page, photograph, site_pages

PHONE, DESKTOP = 390, 1440
WIDTHS = (PHONE, DESKTOP)
# These tests read the default site's one phone visit (conftest.default_phone_loads) and
# the layouts measured here: with pytest-xdist they run in one worker, which makes both
# once (the `layout` fixture picks its site at run time, so conftest cannot see it).
pytestmark = pytest.mark.xdist_group("default-phone-visit")
# Tallest page allowed (px), at either width: long tables scroll inside a wrapper at most
# 80% of the screen tall, per-item downloads and example pairs are folded (<details>).
# Before these changes downloads.html was 98,129 px on a phone, pressure.html 21,932.
# 16,000: a model in five sections and a lineage (Claude 3 Opus: Behavioral Profiling,
# llm-dreams' panel and judges, EQ-Bench 3, its versions, AlpacaEval's text statistics
# with an open example pair) is 15,176 px; model pages' own test allows the same.
MAX_HEIGHT = 16_000
NARROWEST = 40  # px: the narrowest table column allowed
# The main pages: measured in dark too, and photographed.  Per-item pages are found in
# their folders (their names come from the data).
MAIN = ["index.html", "ratings.html", "pressure.html", "communication.html", "eqbench.html",
        "agreement.html", "traits.html", "datasets.html", "compare.html", "downloads.html",
        "about.html", "methodology.html"]
MODEL = "models/claude-3-5-sonnet-20240620.html"  # in two datasets, with example pairs



def _measure(context, root: str, pages: list[str], photographed: set[str],
             suffix: str) -> dict[str, dict]:
    """FACTS of every page, opened one after the other in one tab; a screenshot (the first
    screen) of those in `photographed`, named layout-<page>-<suffix>.png."""
    watch = Watch(root).attach(context)
    page = context.new_page()
    measured = {}
    for path in pages:
        open_page(page, root + path)
        measured[path] = page.evaluate(FACTS)
        measured[path]["problems"] = watch.take()
        if TAKE_SCREENSHOTS and path in photographed:  # the first screen, the first table
            name = path.removesuffix(".html").replace("/", "-")
            photograph(page, f"layout-{name}-{suffix}.png")
            if page.locator(".table-wrap").count():
                page.locator(".table-wrap").first.scroll_into_view_if_needed()
                photograph(page, f"layout-{name}-table-{suffix}.png")
    return measured


def _main_pages(site: Path) -> list[str]:
    """MAIN, the model page and the first trait and dataset pages of `site`."""
    found = [p for p in MAIN if (site / p).is_file()]
    assert found == MAIN, set(MAIN) - set(found)
    for folder in ("traits", "datasets"):
        found.append(f"{folder}/{site_pages(site / folder)[0]}")
    return [*found, MODEL]


def _layout(chromium, site: Path, root: str, everywhere: list[str], phone_only: list[str],
            photographed: set[str]) -> dict:
    """{(width, scheme): {page: facts}}: `everywhere` pages at both widths in both schemes,
    `phone_only` ones on the phone in light (the layout does not depend on the colours)."""
    measured = {}
    for width in WIDTHS:
        for scheme in ("light", "dark"):
            pages = everywhere + (phone_only if (width, scheme) == (PHONE, "light") else [])
            context = chromium.new_context(viewport={"width": width, "height": 900},
                                           color_scheme=scheme)
            try:
                measured[width, scheme] = _measure(context, root, pages, photographed,
                                                   f"{width}-{scheme}")
            finally:
                context.close()
    return measured


@pytest.fixture(scope="module")
def default_layout(chromium, default_site, default_root, default_phone_visit) -> dict:
    """The main pages measured here; on the phone in light, the other pages' FACTS come
    from the session's one first visit of every page (conftest.default_phone_loads, which
    test_browser_weight measures too), with the problems seen in their tab."""
    main = _main_pages(default_site)
    measured = _layout(chromium, default_site, default_root, main, [], set(main))
    loads, _ = default_phone_visit  # (the module runs in the visit's worker: pytestmark)
    for path in site_pages(default_site):
        if path not in main:
            measured[PHONE, "light"][path] = {**loads[path].checks,
                                              "problems": loads[path].problems}
    return measured


@pytest.fixture(scope="module")
def tiny_layout(chromium, tiny_site, tiny_root) -> dict:
    return _layout(chromium, tiny_site, tiny_root, site_pages(tiny_site), [], set())


@pytest.fixture(params=["default", "tiny"])
def layout(request, chromium) -> dict:
    # (`chromium` named here, so conftest sees these as browser tests and runs them with
    # the others: not before them, measuring the default site twice.)
    return request.getfixturevalue(f"{request.param}_layout")


def test_pages_load_cleanly(layout):
    for (width, scheme), pages in layout.items():
        for path, facts in pages.items():
            assert facts["problems"] == [], (path, width, scheme)


def test_the_shared_first_visit_saw_no_problem_outside_its_tabs(default_phone_loads):
    """(Its tabs' problems are each page's, above.)"""
    assert default_phone_loads[1] == []


def test_no_page_is_longer_than_its_content_needs(layout):
    for (width, scheme), pages in layout.items():
        for path, facts in pages.items():
            assert facts["height"] <= MAX_HEIGHT, (path, width, scheme, facts["height"])
            # ... and no page is empty: its main part holds something.
            assert facts["main"] >= 100, (path, width, scheme)


def test_no_page_scrolls_sideways(layout):
    for (width, scheme), pages in layout.items():
        for path, facts in pages.items():
            assert facts["overflow"] <= 0, (path, width, scheme, facts["overflow"])


def test_no_word_is_broken_inside_a_table_cell(layout):
    for (width, scheme), pages in layout.items():
        for path, facts in pages.items():
            assert facts["broken"] == [], (path, width, scheme, facts["broken"][:8])


def test_no_table_column_is_too_narrow_to_read(layout):
    for (width, scheme), pages in layout.items():
        for path, facts in pages.items():
            narrow = [c for c in facts["columns"] if c["width"] < NARROWEST]
            assert narrow == [], (path, width, scheme, narrow[:5])


def test_text_is_left_aligned_and_numbers_right_aligned(layout):
    for (width, scheme), pages in layout.items():
        for path, facts in pages.items():
            assert facts["misaligned"] == [], (path, width, scheme, facts["misaligned"][:5])


def test_the_measurements_cover_the_site(default_layout, default_site):
    """Guards the tests above against measuring nothing: every page at both widths, and
    tables with columns and broken-word checks to run on."""
    assert set(default_layout[PHONE, "light"]) == set(site_pages(default_site))
    for key, pages in default_layout.items():
        assert set(_main_pages(default_site)) <= set(pages), key
    columns = [c for facts in default_layout[PHONE, "light"].values() for c in facts["columns"]]
    assert len(columns) > 1000


# Scrolls a table's wrapper to its far corner (bottom right), with the wrapper in view.
# A table wider than its column scrolls sideways inside its wrapper, and only sideways;
# one that fits is part of the page.  Scroll both ways as a reader would: the wrapper to
# its right end, then the window until the table's middle row is at the top.
SCROLL_TABLE = """id => {
  const table = document.getElementById(id), wrap = table.closest('.table-wrap');
  wrap.scrollLeft = wrap.scrollWidth;
  const rows = table.tBodies[0].rows;
  rows[Math.floor(rows.length / 2)].scrollIntoView({block: 'start'});
  return {right: wrap.scrollLeft, boxScrolls: wrap.scrollHeight > wrap.clientHeight + 1,
          fits: wrap.classList.contains('fits')};
}"""
# Where the header row and first column are once scrolled: the last header cell and a
# row's name in view; whether each is on top where it is drawn (not covered by the cells
# scrolled under it), and whether its background is opaque.
STUCK = """id => {
  const table = document.getElementById(id), wrap = table.closest('.table-wrap');
  const heads = table.tHead.rows[0].cells, rows = table.tBodies[0].rows;
  const box = wrap.getBoundingClientRect();
  const cell = el => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 20),
                                          r.top + r.height / 2);
    return {top: r.top, left: r.left - box.left, onTop: el.contains(hit),
            background: getComputedStyle(el).backgroundColor};
  };
  return {header: cell(heads[heads.length - 1]), corner: cell(heads[0]),
          name: cell(rows[Math.floor(rows.length / 2) + 1].cells[0])};
}"""
# (page, table id, {width: whether it fits its column there}): both kinds at both widths.
STICKY_TABLES = [("index.html", "leaderboard", {390: False, 1440: False}),
                 ("communication.html", "communication", {390: False, 1440: False}),
                 ("traits/warmth.html", "means", {1440: True})]


def _opaque(colour: str) -> bool:
    return colour.startswith("rgb(") or colour.endswith(", 1)")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_header_row_and_first_column_stay_in_view_while_a_table_scrolls(
        chromium, default_root, width, scheme):
    """A wide table scrolls sideways only, its first column staying in view; a table
    that fits is part of the page, its header row sticking to the window's top."""
    context = chromium.new_context(viewport={"width": width, "height": 900},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for path, table, fits in STICKY_TABLES:
            if width not in fits:
                continue
            open_page(page, default_root + path)
            scrolled = page.evaluate(SCROLL_TABLE, table)
            assert not scrolled["boxScrolls"], (path, width, scrolled)
            assert scrolled["fits"] == fits[width], (path, width, scrolled)
            page.wait_for_timeout(50)  # let a frame pass after the scroll
            stuck = page.evaluate(STUCK, table)
            if fits[width]:  # the header row at the window's top, over the rows
                for name in ("header", "corner"):
                    assert abs(stuck[name]["top"]) <= 1, (path, width, name, stuck[name])
                checked = ("header", "corner", "name")
            else:  # scrolled sideways: the first column at the wrapper's left
                assert scrolled["right"] > 50, (path, width, scrolled)
                for name in ("name", "corner"):
                    assert abs(stuck[name]["left"]) <= 1, (path, width, name, stuck[name])
                checked = ("name",)  # the corner has scrolled up out of the window
            for name in checked:
                assert stuck[name]["onTop"], (path, width, scheme, name, stuck[name])
                assert _opaque(stuck[name]["background"]), (path, scheme, name, stuck[name])
            shot = path.removesuffix(".html")
            photograph(page, f"layout-{shot}-scrolled-{width}-{scheme}.png")
        assert watch.take() == []
    finally:
        context.close()


# Two narrow cells: one breaks a word inside (as `overflow-wrap: anywhere` did), one only
# at a hyphen.  The measurement must report the first and pass the second.
PLANTED = """() => {
  const table = document.createElement('table');
  table.className = 'data';
  table.id = 'planted';
  table.innerHTML = '<tbody><tr><td style="overflow-wrap: anywhere; width: 40px; min-width: 0">'
      + 'Comparisons</td><td style="width: 40px; min-width: 0">Meta-Llama</td></tr></tbody>';
  document.querySelector('main').append(table);
}"""


def test_the_broken_word_measurement_sees_a_broken_word(chromium, tiny_root):
    context = chromium.new_context(viewport={"width": PHONE, "height": 900})
    page = context.new_page()
    try:
        open_page(page, tiny_root + "index.html")
        page.evaluate(PLANTED)
        broken = page.evaluate(FACTS)["broken"]
        assert [b for b in broken if "planted" in b] == ["Comparisons in planted: Comparisons"]
        # ... though "Meta-Llama" did wrap, at its hyphen, onto two lines.
        lines = page.evaluate("""() => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelector('#planted td + td'));
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; }""")
        assert lines == 2
    finally:
        context.close()


def test_a_see_example_link_opens_its_folded_example(chromium, default_root):
    """Example pairs after the first are folded; following a link to one opens it, on
    the page (a click) and from another page (the address's #fragment)."""
    context = chromium.new_context(viewport={"width": PHONE, "height": 900})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        open_page(page, default_root + MODEL)
        folded = "id => !document.querySelector('#' + id + ' > details').open"
        assert not page.evaluate(folded, "ex-1") and page.evaluate(folded, "ex-2")
        page.locator('a[href="#ex-2"]').first.click()
        page.wait_for_function("() => document.querySelector('#ex-2 > details').open")
        assert page.locator("#ex-2 .pair").is_visible()
        open_page(page, default_root + MODEL + "#ex-3")
        assert not page.evaluate(folded, "ex-3")
        assert watch.take() == []
    finally:
        context.close()
