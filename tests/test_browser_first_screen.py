"""The answer in the first screen of a phone, measured in real Chromium on the default
site (issue 27):

- at 390 x 844, light and dark, the first ranked number with its interval on the home
  page and on every trait page ends within the first 844 px, and so does the name of
  its judge;
- at 390 and 1440 px, light and dark, no header of a numeric column spans more than two
  lines, and no table scrolls inside a box: never up and down, sideways only when it is
  wider than its column;
- the home page's trait cards are each reachable from a list of links, without swiping
  sideways, with and without JavaScript.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import SCHEMES, SCREENSHOTS, Watch, open_page, site_pages

PHONE = {"width": 390, "height": 844}
WIDTHS = (390, 1440)
# The main pages, a model page, a dataset page, a lineage page and trait pages of each
# kind: where the numeric tables are.
SAMPLES = ["index.html", "ratings.html", "pressure.html", "communication.html",
           "eqbench.html", "datasets.html", "compare.html", "lineage.html", "judges.html",
           "models/claude-3-5-sonnet-20240620.html", "models/claude-3.7-sonnet.html",
           "datasets/alpaca_eval.html", "lineage/claude-sonnet.html",
           "traits/warmth.html", "traits/is-more-verbose.html",
           "traits/demonstrated-empathy.html", "traits/resilience.html"]

# The first number shown with its 95% interval (a table cell or a card's line), and the
# judge's name the page gives before it: the home page's line above its cards, a trait
# page's "Judged by" fact.
FIRST = r"""() => {
  const shown = el => el.getClientRects().length > 0;
  const number = [...document.querySelectorAll('main td, main .glance li')]
      .find(el => shown(el) && el.querySelector('.ci, .ci-inline') && /\d/.test(el.textContent));
  const judge = document.querySelector('.judged-line strong')
      || [...document.querySelectorAll('dl.facts dt')].find(dt => /judged by/i.test(dt.textContent))
          ?.nextElementSibling;
  const bottom = el => el ? Math.round(el.getBoundingClientRect().bottom + window.scrollY) : null;
  return {number: bottom(number), text: number ? number.textContent.trim().slice(0, 60) : null,
          judge: bottom(judge), judgeText: judge ? judge.textContent.trim().slice(0, 60) : null};
}"""


def trait_pages(site: Path) -> list[str]:
    return [p for p in site_pages(site) if p.startswith("traits/") and p != "traits.html"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_first_ranked_number_is_in_the_first_screen(chromium, default_site, default_root,
                                                        scheme):
    context = chromium.new_context(viewport=PHONE, color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    pages = ["index.html", *trait_pages(default_site)]
    assert len(pages) > 40
    try:
        for path in pages:
            open_page(page, default_root + path)
            found = page.evaluate(FIRST)
            assert found["number"] is not None, f"{path}: no number with an interval"
            assert found["number"] <= PHONE["height"], (path, found)
            assert found["judge"] is not None and found["judge"] <= PHONE["height"], (path, found)
            if path in ("index.html", "traits/warmth.html"):
                page.screenshot(path=SCREENSHOTS / f"first-screen-{Path(path).stem}-{scheme}.png")
        assert watch.take() == []
    finally:
        context.close()


# Every numeric header's lines (its name's boxes on distinct lines) and every table
# wrapper that scrolls: up and down, or sideways around a table no wider than it.
TABLES = r"""() => {
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


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_numeric_headers_keep_to_two_lines_and_tables_scroll_only_sideways(
        chromium, default_root, width, scheme):
    context = chromium.new_context(viewport={"width": width, "height": 844},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for path in SAMPLES:
            open_page(page, default_root + path)
            facts = page.evaluate(TABLES)
            assert facts["tall"] == [], (path, width, facts["tall"][:5])
            assert facts["boxed"] == [], (path, width, facts["boxed"][:5])
            assert facts["sideways"] <= 0, (path, width)
        assert watch.take() == []
    finally:
        context.close()


CARDS = r"""(listId) => {
  const row = document.getElementById(listId);
  const links = [...row.previousElementSibling.querySelectorAll('a')];
  return {cards: row.querySelectorAll('.glance').length, links: links.length,
          targets: links.map(a => a.getAttribute('href'))};
}"""
IN_VIEW = r"""(id) => {
  const card = document.getElementById(id), r = card.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, width: window.innerWidth,
          height: window.innerHeight, sideways: document.scrollingElement.scrollLeft};
}"""


@pytest.mark.parametrize("scripts", [True, False])
def test_every_trait_card_is_reachable_without_swiping(chromium, default_root, scripts):
    context = chromium.new_context(viewport=PHONE, java_script_enabled=scripts)
    page = context.new_page()
    try:
        page.goto(default_root + "index.html", wait_until="load")
        for row in ("judged-glances", "llm-dreams-glances", "poem-eval-glances",
                    "text-glances"):
            if not page.locator(f"#{row}").count():
                continue
            found = page.evaluate(CARDS, row)
            cards_with_a_signal = found["cards"] - page.locator(
                f"#{row} .glance.no-signal").count()
            assert found["links"] >= cards_with_a_signal >= 2, (row, found)
            # The last card: off the screen to the right until its link is followed.
            last = found["targets"][-1]
            page.locator(f'nav.glance-nav a[href="{last}"]').click()
            for _ in range(30):  # a smooth scroll, with scripts: until it settles
                where = page.evaluate(IN_VIEW, last[1:])
                if where["left"] >= 0 and where["right"] <= where["width"] + 1:
                    break
                page.wait_for_timeout(100)
            assert where["left"] >= 0 and where["right"] <= where["width"] + 1, (row, where)
            assert where["top"] < where["height"] and where["sideways"] == 0, (row, where)
    finally:
        context.close()
