"""The Under pressure page and a scored trait's page of the DEFAULT site (the repository's
annotations: Behavioral Profiling's 46 models) in real Chromium, on a phone (390 px) and a
desktop (1440 px), light and dark: no console error or foreign request, no sideways
scrolling of the page, every 95% interval in view and readable, no word broken inside a
table cell, headers wide enough to read; the chart's menus redraw it."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import PAGE_FACTS, SCHEMES, Watch, open_page, photograph
from test_browser_a11y import contrast, effective_background, over, parse_colour

REPO = Path(__file__).resolve().parents[1]
PAGES = {"pressure": "pressure.html", "warmth": "traits/warmth.html"}
WIDTHS = (390, 1440)

# One pass over the page: what the tests check, measured by the browser.
MEASURE = """() => {
  const wrapRect = el => el.closest('.table-wrap').getBoundingClientRect();
  // The rows in view: a long table folds its later rows under "show all" (tbody.more).
  const inView = el => !el.closest('tbody.more');
  const intervals = [...document.querySelectorAll('table.data .ci')].filter(inView).map(ci => {
    const style = getComputedStyle(ci), rect = ci.getBoundingClientRect();
    const cell = ci.closest('td, th').getBoundingClientRect();
    const chain = [];
    for (let e = ci; e; e = e.parentElement) { chain.push(getComputedStyle(e).backgroundColor); }
    return {text: ci.textContent, shown: ci.getClientRects().length > 0 &&
                style.visibility === 'visible' && style.display !== 'none',
            fontSize: parseFloat(style.fontSize), color: style.color,
            opacity: parseFloat(style.opacity), backgrounds: chain,
            inside: rect.left >= cell.left - 0.5 && rect.right <= cell.right + 0.5,
            width: rect.width};
  });
  // A word broken across lines has two client rects.
  const broken = [];
  for (const cell of document.querySelectorAll('table.data td, table.data th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g; let match;
      while ((match = re.exec(node.textContent)) !== null) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) { broken.push(match[0]); }
      }
    }
  }
  const columns = [...document.querySelectorAll('table.data thead th')].map(
      th => th.getBoundingClientRect().width);
  return {
    page: document.documentElement.scrollWidth, window: window.innerWidth,
    // Everything in view but what scrolls inside a table's wrapper.
    widest: Math.max(...[...document.querySelectorAll('main *')]
        .filter(e => !e.parentElement.closest('.table-wrap'))
        .map(e => e.getBoundingClientRect().right)),
    tables: document.querySelectorAll('table.data').length,
    estimates: [...document.querySelectorAll('table.data td[title*="95% interval"]')]
        .filter(inView).length,
    intervals, broken, narrowest: Math.min(...columns),
    stickyFirst: [...document.querySelectorAll('table.data tbody th[scope=row]')].every(
        th => getComputedStyle(th).position === 'sticky'),
    // A wrapper scrolls sideways, or its table fits and is part of the page (.fits).
    wrapsScroll: [...document.querySelectorAll('.table-wrap')].every(w =>
        (getComputedStyle(w).overflowX === 'auto' || w.classList.contains('fits'))
        && wrapRect(w).right <= innerWidth + 0.5),
  };
}"""
# The models a drawing shows: its axis labels that are not numbers (the drawing made at
# build time merges the dots into one path, so the names are what can be counted).
SYMBOLS = ("id => [...document.querySelectorAll('#' + id + ' .chart-wide svg "
           "g.role-axis-label text')].filter(t => !/^[-−+]?[0-9.,]+$/.test(t.textContent))"
           ".length")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_pages_read_on_phone_and_desktop(chromium, default_root, scheme, width):
    context = chromium.new_context(color_scheme=scheme,
                                   viewport={"width": width, "height": 900})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for name, path in PAGES.items():
            open_page(page, default_root + path)
            facts = page.evaluate(MEASURE)
            where = (path, scheme, width)
            assert watch.take() == [], where
            assert facts["page"] <= width and facts["widest"] <= width + 0.5, (where, facts[
                "page"], facts["widest"])
            assert facts["wrapsScroll"] and facts["stickyFirst"], where
            # Every estimate shows its interval: in view, inside its cell, readable.
            intervals = facts["intervals"]
            assert len(intervals) == facts["estimates"] > 100, where
            assert all(i["shown"] and i["inside"] and i["width"] > 10 for i in intervals), where
            assert min(i["fontSize"] for i in intervals) >= 10, where
            ratios = [contrast(over(ratio_colour(i), background(i)), background(i))
                      for i in intervals]
            worst = min(range(len(ratios)), key=ratios.__getitem__)
            assert ratios[worst] >= 4.5, (where, ratios[worst], intervals[worst])
            assert facts["broken"] == [], (where, facts["broken"][:10])
            assert facts["narrowest"] >= 40, (where, facts["narrowest"])
            photograph(page, f"{name}-{scheme}-{width}.png", full_page=width == 390)
    finally:
        context.close()


def background(interval: dict) -> tuple:
    return effective_background(interval["backgrounds"])


def ratio_colour(interval: dict) -> tuple:
    """The interval's text colour with the element's opacity folded into its alpha."""
    red, green, blue, alpha = parse_colour(interval["color"])
    return (red, green, blue, alpha * interval["opacity"])


def test_the_chart_menus_pick_condition_and_trait(chromium, default_root):
    context = chromium.new_context(viewport={"width": 390, "height": 900})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        open_page(page, default_root + PAGES["pressure"])
        menus = page.locator("#pressure-chart select")
        assert menus.count() == 2
        first = [menus.nth(i).input_value() for i in range(2)]
        menus.nth(0).select_option("reminder")
        menus.nth(1).select_option("bp-warmth")
        page.wait_for_function(f"() => ({SYMBOLS})('pressure-chart') === 46")
        # Authority: 45 models (Llama 3 70B Instruct was not run under it).
        menus.nth(0).select_option(first[0])
        menus.nth(1).select_option(first[1])
        page.wait_for_function(f"() => ({SYMBOLS})('pressure-chart') === 45")
        # Each menu is named by its label (the page's script wraps it in a <label>).
        names = page.eval_on_selector_all(
            "#pressure-chart select", "all => all.map(s => s.labels[0].querySelector("
            "'.chart-menu-name').textContent.trim())")
        assert names == ["Condition", "Trait"]
        assert watch.take() == []
    finally:
        context.close()


def test_pressure_page_words_on_the_default_data(chromium, default_root):
    context = chromium.new_context()
    page = context.new_page()
    try:
        open_page(page, default_root + PAGES["pressure"])
        text = page.locator("main").inner_text()
        assert "Claude-4.5-Sonnet + Llama-4-Maverick + DeepSeek-R1" in text
        assert "Behavioral Profiling Framework" in text
        assert "only 13 paired prompts" in text  # the reminder
        for condition in ("Authority", "Urgency", "Reminder", "Minimal steering",
                          "Telemetry"):
            assert page.locator(f"h3:text-is('{condition}')").count() == 1
        # Who bends: 46 models, one column per condition.
        assert page.locator("#who-bends tbody tr").count() == 46
        assert page.locator("#who-bends thead th").count() == 6
    finally:
        context.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_headings_controls_and_heat_colours(chromium, default_root, scheme):
    """The checks test_browser_a11y makes on the fixture site, on these two pages."""
    context = chromium.new_context(color_scheme=scheme)
    page = context.new_page()
    try:
        for path in PAGES.values():
            open_page(page, default_root + path)
            facts = page.evaluate(PAGE_FACTS)
            levels = [h["level"] for h in facts["headings"]]
            assert levels.count(1) == 1 and levels[0] == 1, (path, levels)
            assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), path
            assert all(c["labels"] or c["ariaLabel"] for c in facts["controls"]), path
            assert all(t["caption"] for t in facts["tables"]), path
            for cell in facts["heat"]:
                behind = effective_background(cell["backgrounds"])
                text = over(parse_colour(cell["color"]), behind)
                assert contrast(text, behind) >= 4.5, (path, scheme, cell)
            assert {c["css"].split()[0] for c in facts["heat"]} >= {"hp4", "hn4", "h0"}
    finally:
        context.close()
