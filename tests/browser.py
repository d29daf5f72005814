"""Helpers for the real-browser tests: Debian's Chromium driven by Playwright, a static
server that behaves like GitHub Pages, and a watch on everything a page does wrong.

The browser and the served fixture site are session fixtures in conftest.py.
"""

from __future__ import annotations

import http.server
import mimetypes
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

REPO = Path(__file__).resolve().parents[1]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
# Screenshots for a person to look at are taken only when $FFSITE_SCREENSHOTS is set
# (`photograph`): no assertion reads them, and the suite's 196 of them (32 whole pages up
# to 15,000 px tall) cost Chromium about 60 s of CPU, 8% of the suite (docs/performance.md).
TAKE_SCREENSHOTS = bool(os.environ.get("FFSITE_SCREENSHOTS"))
QUIET = 0.1  # s without a request starting or ending: a first load is over (_FirstLoad)
PREFIX = "/ffsite/"  # the site is served under a subpath, as a project site is
SCHEMES = ("light", "dark")
# Headless, no sandbox (containers), and none of Chromium's own traffic to Google.
# RenderDocument off: a navigation within the site then reuses the tab's frame instead of
# setting up a new one (and Playwright's hooks on it) for every page, which took a third
# of the CPU of opening a page of the default site (docs/performance.md); what a page
# lays out and draws does not depend on it.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-gpu", "--disable-features=RenderDocument"]


# Debian's headless shell first: the same Blink, V8 and Skia as the full browser, without
# the browser's own windows and tab strip (Playwright's own headless default is such a
# shell).  The browser tests took 206 s with it against 311 s with the full browser
# (docs/performance.md).  The full browser is used where the shell is not installed.
CHROMIUM_PATHS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")


def chromium_path() -> str:
    """$FFSITE_CHROMIUM, else the first of CHROMIUM_PATHS installed; fail (never skip) if
    none is."""
    wanted = os.environ.get("FFSITE_CHROMIUM")
    for path in [wanted] if wanted else CHROMIUM_PATHS:
        if Path(path).is_file():
            return path
    pytest.fail(f"Chromium not found at {wanted or ' or '.join(CHROMIUM_PATHS)}: apt-get "
                "install chromium-headless-shell (or chromium), or set FFSITE_CHROMIUM to "
                "its executable")


def launch(playwright):
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS,
                                      headless=True)


class PagesHandler(http.server.BaseHTTPRequestHandler):
    """Like GitHub Pages for a project site: files under the prefix, a folder's
    index.html, and 404.html with status 404 for anything else, at any depth."""

    site: Path
    prefix: str

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        route = unquote(urlsplit(self.path).path)
        target = self.resolve(route)
        status = 200
        if target is None:
            target, status = self.site / "404.html", 404
        body = target.read_bytes()
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        self.send_response(status)
        self.send_header("Content-Type", kind + ("; charset=utf-8" if kind.startswith(
            "text/") or kind.endswith(("javascript", "json")) else ""))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")  # as GitHub Pages sends
        self.end_headers()
        self.wfile.write(body)

    def resolve(self, route: str) -> Path | None:
        if not route.startswith(self.prefix):
            return None
        parts = [p for p in route[len(self.prefix):].split("/") if p]
        if any(p in (".", "..") for p in parts):
            return None
        target = self.site.joinpath(*parts)
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None

    def log_message(self, *args) -> None:
        pass


class PagesServer:
    """Serves `site` at http://127.0.0.1:<free port><prefix> in a background thread."""

    def __init__(self, site: Path, prefix: str = PREFIX) -> None:
        handler = type("Handler", (PagesHandler,), {"site": Path(site), "prefix": prefix})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.root = f"http://127.0.0.1:{self.httpd.server_address[1]}{prefix}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Watch:
    """Everything a page does wrong: console errors and warnings, script errors, failed
    requests, error statuses, requests outside the served site (another host, or this
    host outside the subpath), and dialogs (dismissed)."""

    root: str
    problems: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    expected_status: dict[str, int] = field(default_factory=dict)  # url -> status

    def attach(self, context) -> Watch:
        context.on("console", self._console)
        context.on("weberror", lambda error: self.problems.append(f"script error: "
                                                                  f"{error.error}"))
        context.on("requestfailed", self._failed)
        context.on("response", self._response)
        context.on("request", self._request)
        context.on("dialog", self._dialog)
        return self

    def attach_to_page(self, page) -> Watch:
        """Watch one tab (its problems, told apart from the other tabs'), beside a Watch
        on its context, which handles the dialogs."""
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        page.on("request", self._request)
        return self

    def _console(self, message) -> None:
        if message.location.get("url") in self.expected_status and message.text.startswith(
                "Failed to load resource"):
            return  # Chromium reports every error status, the expected ones too
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _failed(self, request) -> None:
        # Chromium asks for the icon after the page has loaded; going to the next page
        # cancels that request, which is no fault of the site.
        # Likewise a page's own fetches still in flight when the test moves on (the
        # explorer fetches its data after load).
        aborted = request.failure == "net::ERR_ABORTED"
        if not (aborted and ("/favicon" in request.url
                             or request.resource_type in ("fetch", "xhr"))):
            self.problems.append(f"failed {request.url}: {request.failure}")

    def _response(self, response) -> None:
        expected = self.expected_status.get(response.url, 200)
        if response.status >= 400 and response.status != expected:
            self.problems.append(f"HTTP {response.status} {response.url}")

    def _request(self, request) -> None:
        if not request.url.startswith(self.root):
            self.problems.append(f"request outside the site: {request.url}")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def take(self) -> list[str]:
        """The problems so far, and start afresh."""
        found, self.problems = self.problems, []
        return found


def site_pages(site: Path) -> list[str]:
    """Every HTML page of a built site, relative to its top, but the pages that only
    send an old address on to a page that moved (test_site_links checks those)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if 'http-equiv="refresh"' not in p.read_text("utf-8"))


def per_item_sample(site: Path, pages: list[str], per_folder: int = 8) -> list[str]:
    """`pages` with those in folders (per-item pages: models/, traits/, lineage/ ...)
    cut to `per_folder` of each folder, spread over their sizes from the smallest to
    the largest.  Per-item pages share their folder's template; a check that every page
    meets on the phone's first visit (conftest.default_phone_loads) is repeated at other
    widths on this sample."""
    kept, folders = [], {}
    for path in pages:
        if "/" in path:
            folders.setdefault(path.split("/")[0], []).append(path)
        else:
            kept.append(path)
    for members in folders.values():
        by_size = sorted(members, key=lambda p: ((site / p).stat().st_size, p))
        if len(by_size) > per_folder:
            step = (len(by_size) - 1) / (per_folder - 1)
            by_size = [by_size[round(k * step)] for k in range(per_folder)]
        kept += by_size
    return sorted(kept)


# Resolves once every chart on the page is drawn (an SVG with at least one data mark:
# the drawing made at build time, or compare's, drawn in the page) and no part of the
# page says it is still being redrawn (the explorer's table, built after a fetch).
CHARTS_DRAWN = """() => [...document.querySelectorAll('.chart')].every(
    chart => chart.querySelector('svg g.role-mark > *') !== null)
    && document.querySelector('[aria-busy="true"]') === null"""


# Polls `ready` in the page itself and answers with its first truthy value (null after
# the timeout).  One evaluate: Playwright's wait_for_function sets up its own polling
# machinery in every new document, a fifth of the CPU of opening a small page.
IN_PAGE_WAIT = """(timeout) => new Promise(resolve => {
  const check = %s;
  const started = performance.now();
  const poll = () => {
    const value = check();
    if (value) { resolve(value); }
    else if (performance.now() - started > timeout) { resolve(null); }
    else { setTimeout(poll, 20); }
  };
  poll();
})"""


def photograph(target, name: str, **options) -> None:
    """A screenshot of `target` (a Playwright page or locator) as SCREENSHOTS/`name`,
    when $FFSITE_SCREENSHOTS is set; `options` go to its `screenshot`."""
    if not TAKE_SCREENSHOTS:
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    path.unlink(missing_ok=True)
    target.screenshot(path=str(path), **options)


def in_page_wait(page, ready: str, timeout_ms: int = 10_000):
    """The first truthy value of the script `ready` (a function's source), polled in
    the page every 20 ms; None if it has none within `timeout_ms`."""
    return page.evaluate(IN_PAGE_WAIT % ready, timeout_ms)


def open_page(page, url: str) -> None:
    """Go to `url` and wait until its charts are drawn (a page without charts: at once)."""
    page.goto(url, wait_until="load")
    wait_until_drawn(page, url)


def wait_until_drawn(page, url: str) -> None:
    """Wait until the charts of the page opened at `url` are drawn."""
    if in_page_wait(page, CHARTS_DRAWN) is None:
        raise AssertionError(f"{url}: a chart was not drawn within 10 s")


# What the tests need to know about a page, read in one pass after it is drawn.  Colours
# are the browser's computed styles; names are the browser's own accessibility tree.
PAGE_FACTS = """() => {
  const text = el => el ? el.textContent.replace(/\\s+/g, ' ').trim() : '';
  const byIds = ids => (ids || '').split(/\\s+/).filter(Boolean)
      .map(id => text(document.getElementById(id))).join(' ').trim();
  const named = el => ({ariaLabel: el.getAttribute('aria-label') || '',
                        labelledBy: byIds(el.getAttribute('aria-labelledby')),
                        describedBy: byIds(el.getAttribute('aria-describedby'))});
  const shown = el => el.getClientRects().length > 0;
  const backgrounds = el => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) { chain.push(getComputedStyle(e).backgroundColor); }
    return chain;
  };
  return {
    headings: [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map(
        h => ({level: Number(h.tagName[1]), text: text(h)})),
    controls: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .map(c => ({what: c.outerHTML.slice(0, 80), labels: [...c.labels].map(text),
                    ...named(c)})),
    tables: [...document.querySelectorAll('table')].map(
        t => ({id: t.id, caption: text(t.caption), ...named(t)})),
    charts: [...document.querySelectorAll('.chart')].map(c => ({
        id: c.id, role: c.getAttribute('role') || '', ...named(c),
        figcaption: text(c.closest('figure') && c.closest('figure').querySelector('figcaption')),
        marks: c.querySelectorAll('svg g.role-mark > *').length,
        failed: c.textContent.includes('could not be drawn')})),
    sortButtons: [...document.querySelectorAll('table.sortable thead th button')].map(
        b => ({label: text(b.querySelector('.label'))})),
    otherButtons: [...document.querySelectorAll('button')].filter(
        b => !b.closest('table.sortable thead')).map(text),
    heat: [...document.querySelectorAll('.h0, .hp1, .hp2, .hp3, .hp4, .hn1, .hn2, .hn3, .hn4, .nf')]
        .filter(shown).map(el => ({css: el.className, text: text(el),
                                    color: getComputedStyle(el).color,
                                    backgrounds: backgrounds(el)})),
    colours: {background: getComputedStyle(document.documentElement).backgroundColor,
              text: getComputedStyle(document.body).color,
              axisText: [...document.querySelectorAll('.chart svg g.role-axis-label text')]
                  .map(t => getComputedStyle(t).fill)},
  };
}"""
# Roles whose accessible name the tests check (Chromium's names for them).
NAMED_ROLES = {"button", "combobox", "searchbox", "textbox", "listbox", "checkbox", "radio",
               "slider", "spinbutton", "table", "image", "graphics-document", "figure"}


@dataclass
class PageVisit:
    problems: list[str]
    facts: dict
    accessible: list[tuple[str, str]]  # (role, name) of the nodes with NAMED_ROLES


def accessible_names(page) -> list[tuple[str, str]]:
    """(role, name) of every node with one of NAMED_ROLES in Chromium's accessibility tree."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    found = []
    for node in nodes:
        role = node.get("role", {}).get("value")
        if role in NAMED_ROLES and not node.get("ignored"):
            found.append((role, str(node.get("name", {}).get("value", "")).strip()))
    return found


def visit_pages(browser, site: Path, root: str, scheme: str) -> dict[str, PageVisit]:
    """Open every page of `site` (served at `root`) once in `scheme`; record what the
    tests check: problems seen while loading, PAGE_FACTS and the accessible names."""
    context = browser.new_context(color_scheme=scheme)
    watch = Watch(root).attach(context)
    page = context.new_page()
    visits = {}
    try:
        for path in site_pages(site):
            open_page(page, root + path)
            visits[path] = PageVisit([], page.evaluate(PAGE_FACTS), accessible_names(page))
            visits[path].problems = watch.take()
    finally:
        context.close()
    return visits


# ------------------------------------------------------------------ layout
# Everything test_browser_layout.py measures on one page, once it is drawn: height,
# sideways overflow, words broken inside table cells, column widths, alignment.
LAYOUT_CHECKS = r"""() => {
  const shown = el => el.getClientRects().length > 0
      && getComputedStyle(el).visibility === 'visible';
  const tables = [...document.querySelectorAll('table.data')].filter(shown);
  const where = el => (el.closest('table').id || 'table') + ': '
      + el.textContent.replace(/\s+/g, ' ').trim().slice(0, 40);
  // A word, a run of letters and digits, is broken when two of its boxes lie on different
  // lines (one wholly below the other; beside it, in vertical text).  A line may still
  // end at a space, a hyphen or a slash: those separate words.  Text laid out in a 1 px
  // box is for screen readers only and is skipped, and so is text laid out in one box:
  // on one line, none of its words can be broken (most cells; measuring each of their
  // words took a third of a phone visit's page).
  const broken = [];
  const whole = document.createRange();
  for (const cell of tables.flatMap(t => [...t.querySelectorAll('th, td')]).filter(shown)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const holder = node.parentElement, box = holder.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      whole.selectNodeContents(node);
      if (whole.getClientRects().length <= 1) continue;
      const vertical = !getComputedStyle(holder).writingMode.startsWith('horizontal');
      for (const m of node.textContent.matchAll(/[\p{L}\p{N}]+/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const boxes = [...range.getClientRects()].filter(b => b.width > 0 && b.height > 0);
        const apart = boxes.some(a => boxes.some(b => vertical ? b.left >= a.right - 0.5
                                                               : b.top >= a.bottom - 0.5));
        if (apart) broken.push(m[0] + ' in ' + where(cell));
      }
    }
  }
  // Column widths: the cells of each table's first body row.
  const columns = tables.flatMap(t => t.tBodies.length && t.tBodies[0].rows.length
      ? [...t.tBodies[0].rows[0].cells].filter(shown).map(
          c => ({width: c.getBoundingClientRect().width, where: where(c)})) : []);
  // Alignment of the first rows' cells, by their column's header: numeric
  // (data-type="num") right, text left; the first column is left when it names the row
  // (a th), right when it is a number (a td: EigenBench's held-out d).
  const misaligned = [];
  for (const t of tables.filter(t => t.tHead && t.tBodies.length)) {
    const heads = [...t.tHead.rows[0].cells];
    for (const row of [...t.tBodies[0].rows].slice(0, 3)) {
      [...row.cells].forEach((cell, i) => {
        if (!heads[i] || !shown(cell) || cell.textContent.trim() === '') return;
        const numeric = (i > 0 || cell.tagName === 'TD')
            && heads[i].getAttribute('data-type') === 'num';
        const align = getComputedStyle(cell).textAlign;
        const ok = numeric ? align === 'right' : ['left', 'start'].includes(align);
        if (!ok) misaligned.push(`${where(cell)} (${numeric ? 'number' : 'text'}: ${align})`);
      });
    }
  }
  return {
    height: document.documentElement.scrollHeight,
    main: document.querySelector('main').getBoundingClientRect().height,
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    broken, columns, misaligned,
  };
}"""


# test_browser_first_screen.py's two measures (issue 27):
# The first number shown with its 95% interval (a table cell or a card's line), and the
# judge's name the page gives before it: the home page's line above its cards, a trait
# page's "Judged by" fact.
FIRST_RANKED = r"""() => {
  const shown = el => el.getClientRects().length > 0;
  const number = [...document.querySelectorAll('main td, main .glance li, main ul.traits li')]
      .find(el => shown(el) && !el.querySelector('li') && el.querySelector('.ci, .ci-inline')
            && /\d/.test(el.textContent));  // (an item, not a list of them: its own bottom)
  const judge = document.querySelector('.judged-line strong')
      || [...document.querySelectorAll('dl.facts dt')].find(dt => /judged by/i.test(dt.textContent))
          ?.nextElementSibling;
  const bottom = el => el ? Math.round(el.getBoundingClientRect().bottom + window.scrollY) : null;
  // The first rank with its range: where its right edge is, with the table at rest.
  const rank = [...document.querySelectorAll('main td[data-rank]')].find(shown);
  // A model page's list of datasets: the first with its leading number and interval.
  const headline = [...document.querySelectorAll('main .headlines li')]
      .find(li => shown(li) && li.querySelector('.num') && li.querySelector('.ci-inline'));
  return {number: bottom(number), text: number ? number.textContent.trim().slice(0, 60) : null,
          headline: bottom(headline),
          headlineText: headline ? headline.textContent.replace(/\s+/g, ' ').trim() : null,
          judge: bottom(judge), judgeText: judge ? judge.textContent.trim().slice(0, 60) : null,
          rank: bottom(rank), rankRight: rank ? rank.getBoundingClientRect().right : null,
          rankText: rank ? rank.textContent.trim().slice(0, 60) : null};
}"""


# Every numeric header's lines (its name's boxes on distinct lines) and every table
# wrapper that scrolls: up and down, or sideways around a table no wider than it.
TABLE_BOXES = r"""() => {
  const shown = el => el.getClientRects().length > 0;
  const tall = [];
  for (const th of document.querySelectorAll('table.data thead th[data-type="num"]:not(.v)')) {
    const label = th.querySelector('.label');
    if (!label || !shown(th)) continue;
    const range = document.createRange();
    range.selectNodeContents(label);
    // The sort arrow follows the name after a no-break space: it never starts a line.
    const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
        .map(r => Math.round(r.top)));
    if (lines.size > 2) {
      tall.push((th.closest('table').id || 'table') + ': ' + label.textContent.trim());
    }
  }
  const boxed = [];
  for (const wrap of document.querySelectorAll('.table-wrap')) {
    const table = wrap.querySelector('table');
    if (!table || !shown(wrap)) continue;
    if (wrap.scrollHeight > wrap.clientHeight + 1) boxed.push(table.id + ': scrolls up and down');
    if (wrap.scrollWidth > wrap.clientWidth + 1 && table.offsetWidth <= wrap.clientWidth + 1)
      boxed.push(table.id + ': scrolls sideways but fits');
  }
  return {tall, boxed, sideways: document.scrollingElement.scrollWidth - window.innerWidth};
}"""




# test_browser_ranks.py's:
# In the page: sort a table by a column (clicking its button as a reader would, until it
# says descending), then read each row's estimate (data-v) and rank range: from a rank
# column's data-rank, or from the "#a–b" of a cell's own rank.
SORTED_RANKS = """(table) => {
  const headers = [...table.tHead.rows[0].cells];
  const sortBy = (header) => {
    const button = header.querySelector('button');
    for (let i = 0; i < 3 && header.getAttribute('aria-sort') !== 'descending'; i++) {
      button.click();
    }
  };
  const found = [];
  // "#3 (2–6)": place 3, range 2-6; "#3": place 3 and nothing else; "#2–6": the range
  // alone (the leaderboard's cells), its place the row's in the sorted table.
  const rankOf = (text) => {
    let m = text.match(/#(\\d+) \\((\\d+)–(\\d+)\\)/);
    if (m) { return {place: Number(m[1]), range: [Number(m[2]), Number(m[3])]}; }
    m = text.match(/#(\\d+)–(\\d+)/);
    if (m) { return {place: null, range: [Number(m[1]), Number(m[2])]}; }
    m = text.match(/#(\\d+)/);
    return m ? {place: Number(m[1]), range: [Number(m[1]), Number(m[1])]} : null;
  };
  headers.forEach((header, column) => {
    const ranks = header.getAttribute('data-ranks');
    const cellRanks = [...table.tBodies].flatMap(b => [...b.rows]).some(
        row => row.cells[column] && row.cells[column].querySelector('.rank'));
    if (!ranks && !cellRanks) { return; }
    const by = ranks ? headers.findIndex(h => h.getAttribute('data-key') === ranks) : column;
    if (by < 0) { found.push({missing: ranks}); return; }
    sortBy(headers[by]);
    const rows = [...table.tBodies].flatMap(b => [...b.rows]).map(row => {
      const value = row.cells[by] && row.cells[by].getAttribute('data-v');
      const cell = row.cells[column];
      let range = null, place = null;
      if (ranks && cell && cell.getAttribute('data-rank')) {
        range = cell.getAttribute('data-rank').split(' ').map(Number);
        place = Number(cell.getAttribute('data-v'));
      } else if (!ranks && cell && cell.querySelector('.rank')) {
        const read = rankOf(cell.querySelector('.rank').textContent);
        if (read) { range = read.range; place = read.place; }
      }
      return {value: value === null ? null : Number(value), range: range, place: place};
    }).filter(r => r.value !== null && r.range !== null);
    found.push({table: table.id, column: headers[column].getAttribute('data-key'),
                rows: rows});
  });
  return found;
}"""


# What the session's first visit of every page on the phone (conftest.default_phone_visit)
# measures on each: the layout, the first screen and, last (it sorts the tables), the
# ranks in sorted tables outside the model pages (a model's ranks are listed trait by
# trait, in no order of estimates), so that none of them opens every page again.
PHONE_VISIT_CHECKS = (
    f"() => ({{...({LAYOUT_CHECKS})(), firstRanked: ({FIRST_RANKED})(), "
    f"tableBoxes: ({TABLE_BOXES})(), sortedRanks: location.pathname.includes('/models/') "
    f"? [] : [...document.querySelectorAll('table.sortable')].flatMap({SORTED_RANKS})}})")

# ------------------------------------------------------------------ page weight
# What a reader's browser fetches the first time it opens a page (nothing cached), and
# how the page lays out: the same numbers benchmarks/bench_pages.py prints.

LAYOUT_FACTS = """() => {
  const doc = document.documentElement;
  const shown = el => el.getClientRects().length > 0;
  const drawings = [...document.querySelectorAll('.chart svg')].filter(shown).map(svg => {
    const box = svg.getBoundingClientRect();
    const holder = svg.closest('.chart').getBoundingClientRect();
    const view = svg.querySelector('g.role-frame.root > g > path.background');
    return {chart: svg.closest('.chart').id, width: box.width,
            plot: view ? view.getBoundingClientRect().width : 0,
            left: box.left - holder.left, right: holder.right - box.right};
  });
  return {height: doc.scrollHeight, overflow: doc.scrollWidth - doc.clientWidth,
          drawings: drawings};
}"""


@dataclass
class Load:
    url: str
    bytes: int  # every response body fetched while the page loaded
    requests: list[str]
    height: int  # px, the whole page
    overflow: int  # px the page is wider than the window (0: none)
    drawings: list[dict]  # the charts' visible SVGs: width, plot width, room each side
    checks: dict | None = None  # what first_loads' `checks` script returned on the page
    problems: list[str] | None = None  # what first_loads' watch on the tab saw meanwhile


# Measures a page in the page itself, once it has loaded and its charts are drawn, into
# window.__ffsiteLoad: every tab of first_loads lays out and measures on its own while
# the test reads another tab (measured from Python, one tab at a time, most of the
# phone visit's 520 pages waited for the Python side; 2.2x slower).
MEASURE_ON_LOAD = """window.addEventListener('load', () => {
  const drawn = %s, facts = %s, checks = %s;
  const measure = () => {
    if (!drawn()) return setTimeout(measure, 20);
    window.__ffsiteLoad = {facts: facts(), checks: checks ? checks() : null};
  };
  measure();
});"""
MEASURED = "() => window.__ffsiteLoad"


class _Tab:
    """One tab of first_loads, the browser cache off, opening its pages one by one."""

    def __init__(self, context, checks: str | None, watch: Watch | None) -> None:
        self.page = context.new_page()
        self.watch = watch.attach_to_page(self.page) if watch else None
        self.page.add_init_script(MEASURE_ON_LOAD % (CHARTS_DRAWN, LAYOUT_FACTS,
                                                     checks or "null"))
        self.session = context.new_cdp_session(self.page)
        self.session.send("Network.enable")
        self.session.send("Network.setCacheDisabled", {"cacheDisabled": True})
        self.page.on("request", self._started)
        self.page.on("requestfinished", self._finished)
        self.page.on("requestfailed", self._ended)
        self.url, self.finished, self.in_flight, self.last_event = "", [], 0, 0.0

    def _started(self, _request) -> None:
        self.in_flight, self.last_event = self.in_flight + 1, time.monotonic()

    def _ended(self, _request) -> None:
        self.in_flight, self.last_event = self.in_flight - 1, time.monotonic()

    def _finished(self, request) -> None:
        self.finished.append(request)
        self._ended(request)

    def open(self, url: str) -> None:
        """Start loading `url` (it loads while other tabs are measured)."""
        self.url, self.finished, self.in_flight = url, [], 0
        self.last_event = time.monotonic()
        self.page.goto(url, wait_until="commit")

    def measure(self) -> Load:
        """Wait until the page has measured itself and the network is quiet: its Load."""
        self.page.wait_for_load_state("load")
        measured = in_page_wait(self.page, MEASURED)
        if measured is None:
            raise AssertionError(f"{self.url}: a chart was not drawn within 10 s")
        self._wait_until_quiet()
        facts = measured["facts"]
        return Load(self.url, sum(request.sizes()["responseBodySize"]
                                  for request in self.finished),
                    [request.url for request in self.finished], facts["height"],
                    facts["overflow"], facts["drawings"], measured["checks"],
                    self.watch.take() if self.watch else None)

    def _wait_until_quiet(self) -> None:
        """Until no request of the page is under way and none started or ended for
        QUIET seconds (Playwright's "networkidle" waits half a second, for each of 520
        pages); the page's requests are counted as their events arrive while it waits."""
        deadline = time.monotonic() + 10
        while self.in_flight or time.monotonic() - self.last_event < QUIET:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.url}: {self.in_flight} requests still under "
                                     "way after 10 s")
            self.page.wait_for_timeout(20)

    def close(self) -> None:
        self.session.detach()
        self.page.close()


def first_loads(context, urls: list[str], tabs: int = 6, checks: str | None = None,
                root: str | None = None) -> dict[str, Load]:
    """Every URL opened as a first visit (the browser cache off) in `tabs` tabs of
    `context` at once, measured once its charts are drawn and the network is quiet: a
    tab opens the next URL as soon as its page is measured.  `checks`: a script whose
    result goes in each Load's `checks`; `root`: watch each tab (Watch(root)) for the
    Load's `problems`."""
    open_tabs = [_Tab(context, checks, Watch(root) if root else None)
                 for _ in range(min(tabs, len(urls)))]
    loads: dict[str, Load] = {}
    waiting = iter(urls)
    try:
        under_way = []
        for tab, url in zip(open_tabs, waiting, strict=False):
            tab.open(url)
            under_way.append(tab)
        while under_way:
            tab = under_way.pop(0)
            loads[tab.url] = tab.measure()
            url = next(waiting, None)
            if url is not None:
                tab.open(url)
                under_way.append(tab)
    finally:
        for tab in open_tabs:
            tab.close()
    return loads

