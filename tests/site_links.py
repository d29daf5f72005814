"""A link checker for a served site: every internal link, asset and anchor must resolve
under the site's subpath, and nothing may load from another host."""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

# Attributes that make the browser fetch something (as opposed to a link to follow).
RESOURCE_ATTRIBUTES = {("script", "src"), ("link", "href"), ("img", "src"),
                       ("iframe", "src"), ("source", "src"), ("video", "src"),
                       ("audio", "src"), ("embed", "src"), ("object", "data"),
                       ("input", "src"), ("image", "href"), ("use", "href"),
                       ("div", "data-vega")}


class PageRefs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()
        self.base: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            if tag == "base" and name == "href":
                self.base = value
            # data-vega: where a chart's script fetches the chart library (site.js).
            elif name in ("href", "src", "data", "action", "srcset", "poster", "data-vega"):
                self.refs.append((tag, name, value))


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


@dataclass
class CrawlResult:
    pages: dict[str, PageRefs] = field(default_factory=dict)  # url -> parsed page
    files: set[str] = field(default_factory=set)  # every URL fetched with status 200
    problems: list[str] = field(default_factory=list)
    external_links: set[str] = field(default_factory=set)


def check_page(url: str, body: bytes, root: str, result: CrawlResult,
               queue: list[tuple[str, bytes]]) -> None:
    """Parse a page; fetch what it references; queue the HTML pages not seen yet."""
    parser = PageRefs()
    parser.feed(body.decode("utf-8"))
    result.pages[url] = parser
    base = urljoin(url, parser.base) if parser.base else url
    host = urlsplit(root).netloc
    for tag, attribute, value in parser.refs:
        target = urljoin(base, value)
        parts = urlsplit(target)
        if parts.scheme in ("mailto",):
            continue
        if parts.scheme not in ("http", "https") or parts.netloc != host:
            if (tag, attribute) in RESOURCE_ATTRIBUTES or tag != "a":
                result.problems.append(f"{url}: <{tag} {attribute}={value!r}> loads from "
                                       "another host")
            else:
                result.external_links.add(target)
            continue
        if not target.startswith(root):
            result.problems.append(f"{url}: {value!r} leaves the site's subpath")
            continue
        address, _ = urldefrag(target)
        if address not in result.files:
            status, kind, content = fetch(address)
            if status != 200:
                result.problems.append(f"{url}: {value!r} -> HTTP {status}")
                continue
            result.files.add(address)
            if kind.startswith("text/html"):
                queue.append((address, content))


def crawl(root: str, start: str = "index.html") -> CrawlResult:
    """Visit every page reachable from root + start; return what was found."""
    result = CrawlResult()
    first = root + start
    status, _, body = fetch(first)
    assert status == 200, f"{first} -> {status}"
    result.files.add(first)
    queue = [(first, body)]
    while queue:
        url, content = queue.pop()
        check_page(url, content, root, result, queue)
    # Anchors: every #fragment must name an element of its page.
    for url, parser in result.pages.items():
        base = urljoin(url, parser.base) if parser.base else url
        for tag, _, value in parser.refs:
            target = urljoin(base, value)
            address, fragment = urldefrag(target)
            if fragment and address in result.pages and tag == "a" \
                    and fragment not in result.pages[address].ids:
                result.problems.append(f"{url}: {value!r}: no element with id {fragment!r}")
    return result
