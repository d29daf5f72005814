"""Sorting, on every sortable table of every page, in real Chromium: a click and the
keyboard (Enter, Space) order the rows and set aria-sort; the sort goes into the URL and
a page opened with that URL shows the same order.  The expected order is worked out here
from the cells' values (numbers high to low first, text A to Z first, blanks last)."""

from __future__ import annotations

import re

from browser import Watch, open_page, site_pages

ROWS = """id => [...document.getElementById(id).tBodies].flatMap(b => [...b.rows]).map(
    row => [...row.cells].map(cell => cell.hasAttribute('data-v')
        ? cell.getAttribute('data-v') : cell.textContent.trim()))"""
HEADERS = """id => [...document.getElementById(id).tHead.rows[0].cells].map(cell => ({
    key: cell.dataset.key, numeric: cell.dataset.type === 'num',
    sortable: cell.querySelector('button') !== null, sort: cell.getAttribute('aria-sort')}))"""
NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def sort_value(text: str, numeric: bool):
    """What a cell sorts by; None for a blank (JavaScript's parseFloat for numbers)."""
    if not numeric:
        return text.lower() if text else None
    match = NUMBER.match(text)
    return float(match.group(0)) if match else None


def expected_order(rows: list[list[str]], column: int, numeric: bool, direction: str
                   ) -> list[list[str]]:
    """`rows` sorted by `column` (stable: ties keep their order); blanks always last."""
    keyed = [(sort_value(row[column], numeric), row) for row in rows]
    present = sorted([k for k in keyed if k[0] is not None], key=lambda k: k[0],
                     reverse=direction == "descending")
    return [row for _, row in present] + [row for value, row in keyed if value is None]


def test_expected_order_by_hand():
    rows = [["a", "2"], ["B", ""], ["c", "10"], ["d", "2"]]
    assert expected_order(rows, 1, True, "descending") == [
        ["c", "10"], ["a", "2"], ["d", "2"], ["B", ""]]
    assert expected_order(rows, 0, False, "descending") == [
        ["d", "2"], ["c", "10"], ["B", ""], ["a", "2"]]


def sortable_tables(page) -> list[str]:
    return page.eval_on_selector_all("table.sortable", "tables => tables.map(t => t.id)")


def columns_to_try(headers: list[dict]) -> list[int]:
    """A text column, and the first and last number columns (every one would be slow)."""
    text = [i for i, h in enumerate(headers) if h["sortable"] and not h["numeric"]]
    numbers = [i for i, h in enumerate(headers) if h["sortable"] and h["numeric"]]
    return sorted(set(text[:1] + numbers[:1] + numbers[-1:]))


def check_sort(page, table: str, column: int, header: dict, direction: str,
               before: list[list[str]], how: str) -> list[list[str]]:
    """After a click or key press: the rows, aria-sort and the URL are as expected."""
    rows, headers = page.evaluate(f"id => [({ROWS})(id), ({HEADERS})(id)]", table)
    where = (page.url, table, header["key"], how)
    assert rows == expected_order(before, column, header["numeric"], direction), where
    sorts = [h["sort"] for h in headers]
    assert sorts == [direction if i == column else None for i in range(len(sorts))], where
    short = "asc" if direction == "ascending" else "desc"
    assert f"sort-{table}={short}%3A{header['key']}" in page.url, where
    return rows


def test_every_table_sorts_by_click_and_keyboard_and_keeps_it_in_the_url(
        chromium, tiny_site, tiny_root):
    context = chromium.new_context()
    watch = Watch(tiny_root).attach(context)
    page = context.new_page()
    checked = 0
    for path in site_pages(tiny_site):
        open_page(page, tiny_root + path)
        last_sort = {}
        originals = {}
        for table in sortable_tables(page):
            rows = originals[table] = page.evaluate(ROWS, table)
            headers = page.evaluate(HEADERS, table)
            for column in columns_to_try(headers):
                header = headers[column]
                button = page.locator(f"#{table} thead th").nth(column).locator("button")
                first = "descending" if header["numeric"] else "ascending"
                second = "ascending" if header["numeric"] else "descending"
                button.click()
                rows = check_sort(page, table, column, header, first, rows, "click")
                button.focus()
                page.keyboard.press("Enter" if column % 2 else "Space")
                rows = check_sort(page, table, column, header, second, rows, "keyboard")
                last_sort[table] = (column, header, second)
                checked += 1
        open_page(page, page.url)  # the shared link: every table sorted as it was left
        for table, (column, header, direction) in last_sort.items():
            assert page.evaluate(ROWS, table) == expected_order(
                originals[table], column, header["numeric"], direction), (path, table)
            assert page.evaluate(HEADERS, table)[column]["sort"] == direction, (path, table)
        assert watch.take() == [], path
    context.close()
    assert checked > 50
