"""Served under /ffsite/ by a real local HTTP server, every internal link, asset and
anchor of the built site resolves, and no page loads anything from another host."""

from __future__ import annotations

import re

import pytest
from site_links import crawl, fetch

from ffsite.site.serve import make_server, serve_in_background, url_of

PREFIX = "/ffsite/"


@pytest.fixture(scope="module")
def served(tiny_site):
    site = tiny_site  # the session's tiny site, served read-only
    server = make_server(site, 0, PREFIX)
    serve_in_background(server)
    yield site, url_of(server, PREFIX)
    server.shutdown()
    server.server_close()


def test_every_link_and_asset_resolves_under_a_subpath(served):
    site, root = served
    result = crawl(root)
    assert result.problems == []
    # Every file of the site is reachable by following links from the home page (the
    # 404 page is served by the host instead; pages that moved only by old links).
    moved = set(redirects(site))
    on_disk = {root + p.relative_to(site).as_posix() for p in site.rglob("*")
               if p.is_file() and not p.name.startswith(".") and p.name != "404.html"
               and p.relative_to(site).as_posix() not in moved
               and not p.relative_to(site).as_posix().startswith(("data/explore/",
                                                                 "assets/charts/"))}
    # (data/explore/ holds the explorer's JSON, fetched by its script, and assets/charts/
    # the rows of menu charts, fetched by the chart library: not linked; checked below.)
    assert on_disk - result.files == set()
    assert len(result.pages) == len(list(site.rglob("*.html"))) - 1 - len(moved)
    # External links are links (credits), never resources.
    assert all(link.startswith("https://github.com/") for link in result.external_links)


def test_no_page_references_another_host(served):
    site, _ = served
    for page in site.rglob("*.html"):
        html = page.read_text("utf-8")
        for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", html):
            assert "http:" not in tag and "https:" not in tag and "//" not in tag, (page, tag)
        for spec in re.findall(r'class="chart-spec"[^>]*>(.*?)</script>', html, re.S):
            assert "http" not in spec and "//" not in spec, page
            # The one thing a spec may load: its own rows, a file of this site.
            for url in re.findall(r'"url":\s*"([^"]*)"', spec):
                assert re.fullmatch(r"(\.\./)*assets/charts/[0-9a-f]{20}\.json", url), url
                assert (page.parent / url).resolve().is_file(), (page, url)
    css = next((site / "assets").glob("site-*.css")).read_text("utf-8")
    assert "url(" not in css and "@import" not in css


def test_unknown_address_gets_the_404_page_whose_links_work(served):
    _, root = served
    status, kind, body = fetch(root + "models/no-such-model.html")
    assert status == 404 and kind.startswith("text/html")
    assert b"Page not found" in body
    result = crawl(root, start="404.html")
    assert result.problems == []


def test_outside_the_subpath_is_not_served(served):
    _, root = served
    status, _, _ = fetch(root.replace(PREFIX, "/") + "index.html")
    assert status == 404


def redirects(site) -> dict[str, str]:
    """{page that moved: the address its refresh sends the reader to}."""
    found = {}
    for page in site.rglob("*.html"):
        refresh = re.search(r'<meta http-equiv="refresh" content="0; url=([^"]+)">',
                            page.read_text("utf-8"))
        if refresh:
            found[page.relative_to(site).as_posix()] = refresh.group(1)
    return found


def test_old_trait_addresses_lead_to_the_renamed_pages(served):
    """Trait pages were named by trait id (a hash for the tiny site's traits); those
    addresses still answer, with a page that sends the reader to the new one."""
    site, root = served
    moved = redirects(site)
    assert set(moved) == {"traits/11bb8171.html", "traits/bf731c7f.html"}
    assert moved["traits/11bb8171.html"] == "is-more-verbose.html"
    for old, target in moved.items():
        status, _, body = fetch(root + old)
        assert status == 200 and f'<a href="{target}">'.encode() in body
        status, _, body = fetch(root + "traits/" + target)
        assert status == 200 and b"<h1>is more" in body
        result = crawl(root, start=old)  # its link resolves like any other
        assert result.problems == []
