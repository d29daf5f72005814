"""The 404 page as GitHub Pages serves it: for any missing address under the site's
subpath, at any depth, with status 404; it looks like the site and its links lead back
into the site."""

from __future__ import annotations

import pytest
from browser import Watch

LINKS = """() => [...document.querySelectorAll('a[href]')].map(a => a.href)"""
STYLED = """() => getComputedStyle(document.querySelector('header.site')).borderBottomStyle"""


@pytest.mark.parametrize("missing", ["no-such-page.html", "models/gone.html",
                                     "traits/a/b/c/deep.html", "assets/"])
def test_missing_pages_get_the_404_page(chromium, tiny_root, missing):
    context = chromium.new_context()
    watch = Watch(tiny_root).attach(context)
    watch.expected_status[tiny_root + missing] = 404
    page = context.new_page()
    response = page.goto(tiny_root + missing)
    assert response.status == 404
    assert page.locator("h1").text_content() == "Page not found"
    assert page.evaluate(STYLED) == "solid"  # the stylesheet loaded through <base>
    links = page.evaluate(LINKS)
    assert tiny_root + "index.html" in links and tiny_root + "traits.html" in links
    assert all(link.startswith(tiny_root) for link in links), links
    page.locator("main >> text=leaderboard").click()
    page.wait_for_load_state("load")
    assert page.url == tiny_root + "index.html"
    assert page.locator("#leaderboard tbody tr").count() == 2
    problems = watch.take()
    context.close()
    assert problems == []
