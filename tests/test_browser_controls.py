"""The trait filter and the compare page in real Chromium, and the view kept in the URL:
a link with a view opens that view, and changing the view changes the link.  The numbers
are the tiny fixture's, worked out by hand in site_fixture.py's table:

    m1 vs R: verbose +1 (c1), +1 (c2), -1 (c3) -> +1/3; concise -1, n/a, +1 -> 0
    m2 vs R: verbose -1 (c4), -1 (c5) -> -1;            concise +1, +1 -> +1
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from browser import Watch, open_page

FILTERED = """() => {
  const table = document.getElementById('leaderboard');
  const columns = [...table.tHead.rows[0].cells].map((cell, i) => [cell, i])
      .filter(([cell]) => cell.classList.contains('v'));
  return columns.map(([cell, i]) => ({
      label: cell.querySelector('.label').textContent, hidden: cell.hidden,
      cellsHidden: [...table.tBodies[0].rows].map(row => row.cells[i].hidden)}));
}"""


def column(page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(f"#{table} tbody tr",
                                      f"rows => rows.map(r => r.cells[{index}].textContent)")


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


@pytest.fixture
def page(chromium, tiny_root):
    context = chromium.new_context()
    watch = Watch(tiny_root).attach(context)
    yield context.new_page()
    problems = watch.take()
    context.close()
    assert problems == []


def shown_traits(page) -> list[str]:
    columns = page.evaluate(FILTERED)
    for c in columns:  # a hidden header hides its whole column
        assert c["cellsHidden"] == [c["hidden"]] * len(c["cellsHidden"]), c
    return [c["label"] for c in columns if not c["hidden"]]


def test_trait_filter_hides_columns_and_says_how_many(page, tiny_root):
    open_page(page, tiny_root + "index.html")
    assert shown_traits(page) == ["is more verbose", "is more concise"]
    status = page.locator(".filter-status")
    for typed, shown in [("verbose", ["is more verbose"]), ("CONCISE", ["is more concise"]),
                         ("is more", ["is more verbose", "is more concise"]),
                         ("no such trait", [])]:
        page.fill("#trait-filter", typed)
        assert shown_traits(page) == shown, typed
        assert status.text_content() == f"{len(shown)} of 2 traits shown"
        assert query(page)["traits"] == [typed]
    page.fill("#trait-filter", "")
    assert shown_traits(page) == ["is more verbose", "is more concise"]
    assert status.text_content() == "" and "traits" not in query(page)


def test_home_view_round_trips_through_the_url(page, tiny_root):
    open_page(page, tiny_root + "index.html?traits=concise&sort-leaderboard=asc%3Acomparisons")
    assert page.input_value("#trait-filter") == "concise"
    assert shown_traits(page) == ["is more concise"]
    header = page.locator('#leaderboard th[data-key="comparisons"]')
    assert header.get_attribute("aria-sort") == "ascending"
    assert column(page, "leaderboard", 0) == ["m2", "m1"]  # 2 comparisons, then 3
    page.locator('#leaderboard th[data-key="model"] button').click()
    assert query(page) == {"traits": ["concise"], "sort-leaderboard": ["asc:model"]}
    assert header.get_attribute("aria-sort") is None
    assert column(page, "leaderboard", 0) == ["m1", "m2"]


def compare_rows(page, table: str = "#compare-text") -> list[list[str]]:
    """Each row's cells of a compare section's table as their first line (the value;
    intervals and verdicts follow), once the page's script has drawn it."""
    page.wait_for_function(f"() => document.querySelectorAll('{table} tbody tr').length > 0",
                           timeout=10_000)
    return page.eval_on_selector_all(
        f"{table} tbody tr",
        "rows => rows.map(r => [...r.cells].map(c => c.childNodes[0].textContent))")


def test_compare_page_from_a_link(page, tiny_root):
    open_page(page, tiny_root + "compare.html?a=m2&b=m1")
    assert (page.input_value("#model-a"), page.input_value("#model-b")) == ("m2", "m1")
    # m2 - m1, largest difference first.
    assert compare_rows(page) == [["is more verbose", "-1.33", "-1.00", "+0.33"],
                                  ["is more concise", "+1.00", "+1.00", "+0.00"]]
    assert page.locator("#compare-text thead").text_content().count("m2") == 1
    # The chart of the differences, drawn by the page itself: a dot per trait.
    assert page.locator("#section-text .forest-dot").count() == 2
    # Intervals and verdicts in view: three valid votes each cannot tell m2 from m1.
    verdicts = page.eval_on_selector_all("#compare-text tbody .verdict",
                                         "v => v.map(e => e.textContent)")
    assert verdicts == ["not distinguishable from 0"] * 2
    assert page.locator("#compare-text tbody .ci").count() == 6


def test_compare_page_changes_go_into_the_url_and_back(page, tiny_root):
    open_page(page, tiny_root + "compare.html")
    assert (page.input_value("#model-a"), page.input_value("#model-b")) == ("m1", "m2")
    page.select_option("#model-a", "m2")
    assert query(page) == {"a": ["m2"], "b": ["m2"]}
    assert [row[1] for row in compare_rows(page)] == ["+0.00", "+0.00"]
    page.select_option("#model-b", "m1")
    page.wait_for_function("() => document.querySelector('#compare-text tbody tr td')"
                           ".textContent.startsWith('-1.33')", timeout=10_000)
    page.locator('#compare-text th[data-key="trait"] button').click()
    assert query(page) == {"a": ["m2"], "b": ["m1"], "sort-compare-text": ["asc:trait"]}
    link = page.url
    open_page(page, link)  # the shared link shows the same comparison, sorted the same
    assert compare_rows(page) == [["is more concise", "+1.00", "+1.00", "+0.00"],
                                  ["is more verbose", "-1.33", "-1.00", "+0.33"]]
    assert page.locator('#compare-text th[data-key="trait"]').get_attribute("aria-sort") == \
        "ascending"
    page.click("#compare-text >> text=is more concise")  # trait links work under the subpath
    assert page.url == tiny_root + "traits/is-more-concise.html"
    assert page.locator("h1").text_content() == "is more concise"


def test_compare_page_ignores_unknown_models_in_the_link(page, tiny_root):
    open_page(page, tiny_root + "compare.html?a=nobody&b=%3Cscript%3E")
    assert (page.input_value("#model-a"), page.input_value("#model-b")) == ("m1", "m2")
    assert len(compare_rows(page)) == 2


def test_pages_work_from_a_file_url(chromium, tiny_site):
    page = chromium.new_page()
    page.goto((tiny_site / "index.html").as_uri())
    assert page.locator("#leaderboard tbody tr").count() == 2
    colour = page.eval_on_selector("td.hp3", "cell => getComputedStyle(cell).backgroundColor")
    assert colour not in ("", "rgba(0, 0, 0, 0)")  # the stylesheet loaded
    page.click("#leaderboard >> text=m1")
    assert page.url == (tiny_site / "models" / "m1.html").as_uri()
    assert "Example pairs" in page.content()
    page.close()
