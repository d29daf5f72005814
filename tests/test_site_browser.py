"""The site's scripts in real Chromium: charts draw, tables sort by click and keyboard,
the trait filter and the compare page work, and the view lives in the URL.
(The full browser suite is issue 7; this guards the scripts written with the site.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright
from site_fixture import build_tiny

from ffsite.site.serve import make_server, serve_in_background, url_of


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    site = build_tiny(tmp_path_factory.mktemp("browser"))
    server = make_server(site, 0, "/ffsite/")
    serve_in_background(server)
    root = url_of(server, "/ffsite/")
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox"], headless=True)
        page = browser.new_page(color_scheme="dark")
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning")
                else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        # A navigation aborts what the previous page still loads (e.g. its icon): no fault.
        page.on("requestfailed", lambda request: None if request.failure == "net::ERR_ABORTED"
                else problems.append(f"failed {request.url}: {request.failure}"))
        page.on("request", lambda request: None if request.url.startswith(root)
                else problems.append(f"off-site {request.url}"))
        yield page, root, problems, browser, site
        browser.close()
    server.shutdown()
    server.server_close()


def column(page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(f"#{table} tbody tr",
                                     f"rows => rows.map(r => r.cells[{index}].textContent)")


def test_charts_sorting_filter_and_url_state(browser_page):
    page, root, problems, _, _ = browser_page
    page.goto(root + "index.html")
    page.wait_for_selector("#headline svg")
    assert page.locator("#headline svg path, #headline svg line").count() > 2

    header = page.locator('#leaderboard th[data-key="comparisons"]')
    header.locator("button").click()  # numbers sort high to low first
    assert header.get_attribute("aria-sort") == "descending"
    assert column(page, "leaderboard", 1) == ["3", "2"]
    header.locator("button").focus()
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "ascending"
    assert column(page, "leaderboard", 1) == ["2", "3"]
    assert "sort-leaderboard=asc%3Acomparisons" in page.url

    page.fill("#trait-filter", "verbose")
    hidden = page.eval_on_selector_all("#leaderboard thead th.v",
                                       "cells => cells.map(c => c.hidden)")
    assert sorted(hidden) == [False, True]
    assert "traits=verbose" in page.url

    page.goto(page.url)  # the shared link restores the same view
    assert page.locator('#leaderboard th[data-key="comparisons"]').get_attribute(
        "aria-sort") == "ascending"
    assert page.input_value("#trait-filter") == "verbose"
    assert column(page, "leaderboard", 1) == ["2", "3"]
    assert problems == []


def test_compare_page(browser_page):
    page, root, problems, _, _ = browser_page
    page.goto(root + "compare.html?a=m2&b=m1")
    page.wait_for_selector("#compare-chart svg")
    assert page.input_value("#model-a") == "m2"
    rows = page.eval_on_selector_all(
        "#compare tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    # m2 - m1: verbose -1 - 1/3, concise 1 - 0; largest difference first.
    assert rows == [["is more verbose", "-1.00", "+0.33", "-1.33"],
                    ["is more concise", "+1.00", "+0.00", "+1.00"]]
    page.select_option("#model-b", "m2")
    assert "b=m2" in page.url
    assert column(page, "compare", 3) == ["+0.00", "+0.00"]
    assert problems == []


def test_tables_and_text_work_from_a_file_url(browser_page):
    _, _, _, browser, site = browser_page
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    assert page.locator("#leaderboard tbody tr").count() == 2
    colour = page.eval_on_selector("td.hp3", "cell => getComputedStyle(cell).backgroundColor")
    assert colour not in ("", "rgba(0, 0, 0, 0)")  # the stylesheet loaded
    page.click("#leaderboard >> text=m1")
    assert page.url == (site / "models" / "m1.html").as_uri()
    assert "Example pairs" in page.content()
    page.close()
