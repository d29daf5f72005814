"""The model filters (organisation, open weights, release years, dataset) in real
Chromium on the default site, at 390 and 1440 px, light and dark: a choice changes the
rows (checked against the registry itself, content/models.toml) and the URL, and the URL
opened afresh restores both; compare's model menus narrow the same way; and without
JavaScript the menus still filter the rows (the generated stylesheet does it), the
unfiltered table being the default."""

from __future__ import annotations

import tomllib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browser import SCHEMES, Watch, open_page

from ffsite._names import safe_name

REPO = Path(__file__).resolve().parents[1]
WIDTHS = (390, 1440)


def registry() -> dict[str, dict]:
    """{page name of a model: its registry entry}."""
    entries = tomllib.loads((REPO / "content" / "models.toml").read_text("utf-8"))["models"]
    return {safe_name(entry["id"]): entry for entry in entries}


# The model of every row of a table, and whether the row shows.
ROWS = r"""(tableId) => [...document.querySelectorAll('#' + tableId + ' tbody tr')].map(row => {
  const link = row.cells[0].querySelector('a');
  const href = link ? link.getAttribute('href') : '';
  return {model: decodeURIComponent(href.split('/').pop().replace(/\.html$/, '')),
          shown: row.getClientRects().length > 0};
})"""

# (page, table, menu, choice as its label, the URL's value, does an entry match)
CASES = [
    ("index.html", "personality", "org", "Anthropic", "Anthropic",
     lambda e: e.get("organisation") == "Anthropic"),
    ("traits/warmth.html", "means", "weights", "open", "open",
     lambda e: e.get("open_weights") is True),
    ("datasets/alpaca_eval.html", "win-rates", "from", "2024", "2024",
     lambda e: str(e.get("released", ""))[:4] >= "2024"),
    ("ratings.html", "indices", "to", "2023", "2023",
     lambda e: "released" in e and str(e["released"])[:4] <= "2023"),
    ("index.html", "personality", "dataset", "EQ-Bench 3", "EQ-Bench 3",
     lambda e: "eqbench3" in e.get("aliases", {})),
]


def table_id(page, wanted: str) -> str:
    """The id of the page's first model table whose id starts with `wanted`."""
    return page.evaluate("""(wanted) => [...document.querySelectorAll('table.data')]
        .map(t => t.id).find(id => id.startsWith(wanted) && document.querySelector(
        '#' + id + ' tr.m'))""", wanted)


def check_rows(page, table: str, match, entries: dict, where: str) -> int:
    rows = page.evaluate(ROWS, table)
    shown = [r["model"] for r in rows if r["shown"]]
    assert shown, f"{where}: the filter left no row"
    assert len(shown) < len(rows), f"{where}: the filter hid no row"
    for model in shown:
        assert model in entries and match(entries[model]), f"{where}: {model} shown"
    for row in rows:
        if not row["shown"] and row["model"] in entries:
            assert not match(entries[row["model"]]), f"{where}: {row['model']} hidden"
    return len(shown)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_filters_change_rows_and_url_and_a_shared_url_restores_them(
        chromium, default_root, width, scheme):
    entries = registry()
    context = chromium.new_context(viewport={"width": width, "height": 844},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for path, prefix, menu, label, value, match in CASES:
            where = f"{path} {menu}={value} at {width}px"
            open_page(page, default_root + path)
            table = table_id(page, prefix)
            assert table, where
            before = page.evaluate(ROWS, table)
            assert all(r["shown"] for r in before[:20])  # unfiltered by default
            page.locator("details.model-filter summary").click()
            page.select_option(f"#f-{menu}", label=label)
            shown = check_rows(page, table, match, entries, where)
            query = parse_qs(urlsplit(page.url).query)
            assert query[menu] == [value], where
            every = page.evaluate("""() => [...document.querySelectorAll('table.data tr.m')]
                .map(row => row.getClientRects().length > 0)""")
            assert page.locator(".filter-count").inner_text().startswith(
                f"{sum(every)} of {len(every)} model rows shown"), where
            # The same URL, opened afresh, restores the choice and the rows.
            shared = page.url
            open_page(page, shared)
            assert page.locator(f"#f-{menu} option:checked").inner_text() == label, where
            assert page.locator("details.model-filter").get_attribute("open") is not None
            assert check_rows(page, table, match, entries, where + " (restored)") == shown
        assert watch.take() == []
    finally:
        context.close()


def test_compare_menus_narrow_to_the_filtered_models(chromium, default_root):
    entries = registry()
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        open_page(page, default_root + "compare.html?org=Anthropic")
        options = page.evaluate("""() => [...document.querySelectorAll('#model-a option')]
            .map(o => ({model: o.value, shown: getComputedStyle(o).display !== 'none'}))""")
        shown = [o["model"] for o in options if o["shown"]]
        assert 0 < len(shown) < len(options)
        assert all(entries[safe_name(m)].get("organisation") == "Anthropic" for m in shown)
        assert "org=Anthropic" in page.url
    finally:
        context.close()


def test_without_javascript_the_menus_still_filter(chromium, default_root):
    entries = registry()
    context = chromium.new_context(viewport={"width": 390, "height": 844},
                                   java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(default_root + "index.html", wait_until="load")
        rows = page.evaluate(ROWS, "personality")
        assert sum(r["shown"] for r in rows) == 20 < len(rows)  # folded, unfiltered
        page.locator("details.model-filter summary").click()
        page.select_option("#f-org", label="Anthropic")
        check_rows(page, "personality", lambda e: e.get("organisation") == "Anthropic",
                   entries, "no JavaScript")
        page.select_option("#f-org", index=0)  # "any": every row again (first 20 shown)
        assert sum(r["shown"] for r in page.evaluate(ROWS, "personality")) == 20
    finally:
        context.close()
