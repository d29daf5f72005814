"""The EQ-Bench 3 page and a criterion's trait page on the default site, in real Chromium:
phone and desktop, light and dark; no sideways page scroll, no console error or foreign
request, every interval laid out in view and legible (WCAG contrast 4.5:1, in heat cells
too), no word broken inside a table cell, headings in order, the criterion menu redraws
the chart."""

from __future__ import annotations

import pytest

PHONE, DESKTOP = 390, 1440
PAGES = {"eqbench.html": ["eq-overall", "eq-elo", "eq-strength"],
         "traits/overall-eq.html": ["eq-trait-elo", "eq-trait-strength"]}

FACTS = """tables => ({
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    intervals: tables.map(id => [...document.querySelectorAll('#' + id + ' tbody .ci')].map(
        e => { const r = e.getBoundingClientRect();
               return [r.width, r.height, getComputedStyle(e).visibility]; })),
    // Words broken across lines inside a table cell: a word (a run of letters and digits)
    // with two boxes on different lines.  A name may wrap at a hyphen ("DeepSeek-" / "R1");
    // a label cut short by an ellipsis has two boxes on one line.
    broken: [...document.querySelectorAll('table.data th, table.data td')].flatMap(cell => {
        const found = [];
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const vertical = !getComputedStyle(node.parentElement).writingMode
                .startsWith('horizontal');
            for (const match of node.textContent.matchAll(/[\\p{L}\\p{N}]+/gu)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + match[0].length);
                const boxes = [...range.getClientRects()];
                if (boxes.some(a => boxes.some(b => vertical ? b.left >= a.right - 0.5
                                                             : b.top >= a.bottom - 0.5))) {
                    found.push(match[0]);
                }
            }
        }
        return found; }),
    narrowest: Math.min(...[...document.querySelectorAll('table.data tbody tr:first-child > *')]
        .map(e => e.getBoundingClientRect().width)),
    charts: [...document.querySelectorAll('.chart')].map(
        c => c.querySelectorAll('svg g.role-mark > *').length),
    reasoning: document.querySelectorAll('.reasoning .md').length,
    headings: [...document.querySelectorAll('main h1, main h2, main h3, main h4')].map(
        h => Number(h.tagName[1])),
    unlabelled: [...document.querySelectorAll('select, input')].filter(
        c => c.labels.length === 0 && !c.getAttribute('aria-label')).length,
    // Every interval's colour and the backgrounds behind it (heat cells colour some).
    ink: [...document.querySelectorAll('table.data tbody .ci')].map(el => {
        const chain = [];
        for (let e = el; e; e = e.parentElement) chain.push(getComputedStyle(e).backgroundColor);
        return {color: getComputedStyle(el).color, opacity: getComputedStyle(el).opacity,
                chain}; }),
})"""


def ink_contrast(ink: dict) -> float:
    """WCAG contrast of an interval's text against what lies behind it."""
    from test_browser_a11y import contrast, effective_background, over, parse_colour

    background = effective_background(ink["chain"])
    red, green, blue, alpha = parse_colour(ink["color"])
    return contrast(over((red, green, blue, alpha * float(ink["opacity"])), background),
                    background)


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_eqbench_pages_read_on_phone_and_desktop(chromium, default_root, width, scheme):
    from browser import TAKE_SCREENSHOTS, Watch, open_page, photograph

    context = chromium.new_context(viewport={"width": width, "height": 900},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for path, tables in PAGES.items():
            open_page(page, default_root + path)
            facts = page.evaluate(FACTS, tables)
            assert watch.take() == [], path
            assert facts["overflow"] <= 0, f"{path} scrolls sideways"
            for table, intervals in zip(tables, facts["intervals"], strict=True):
                # 26 models (27 names, two of them one model in the registry).
                assert len(intervals) >= 26, (path, table)
                assert all(w > 20 and h > 5 and v == "visible" for w, h, v in intervals), (
                    path, table)
            assert facts["broken"] == [], (path, facts["broken"][:10])
            assert facts["narrowest"] >= 24, (path, facts["narrowest"])
            assert all(marks > 0 for marks in facts["charts"]), path
            levels = facts["headings"]
            assert levels.count(1) == 1 and all(b - a <= 1 for a, b in zip(
                levels, levels[1:], strict=False)), (path, levels)
            assert facts["unlabelled"] == 0, path
            assert min(ink_contrast(ink) for ink in facts["ink"]) >= 4.5, (path, scheme)
            name = path.replace("/", "-").removesuffix(".html")
            photograph(page, f"{name}-{width}-{scheme}.png")
        # The last page opened was the trait page; eqbench.html has the examples.
        open_page(page, default_root + "eqbench.html")
        assert page.evaluate(FACTS, [])["reasoning"] == 4  # two pairs, both orders
        if TAKE_SCREENSHOTS:
            page.locator("#examples").scroll_into_view_if_needed()
            photograph(page, f"eqbench-examples-{width}-{scheme}.png")
        assert watch.take() == []
    finally:
        context.close()


def test_the_criterion_menu_redraws_the_chart(chromium, default_root):
    from browser import Watch, open_page

    context = chromium.new_context(viewport={"width": DESKTOP, "height": 900})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        open_page(page, default_root + "eqbench.html")
        menu = page.locator("#eq-criterion-chart select")
        options = menu.locator("option").all_text_contents()
        assert options[0] == "Overall EQ" and len(options) == 14
        # Every criterion was drawn at build time: a choice swaps in its drawing.
        labels = """() => [...document.querySelectorAll(
            '#eq-criterion-chart .chart-wide svg g.role-axis-label text')].map(
            t => t.textContent)"""
        before = page.evaluate(labels)
        assert len(before) > 27
        menu.select_option(label="Theory of mind")
        page.wait_for_function(f"before => ({labels})().join() !== before.join()",
                               arg=before, timeout=5000)
        assert page.evaluate(labels) != before  # the models re-sorted by the new criterion
        assert "eq-criterion-chart.pick=eq-theory_of_mind" in page.url
        assert watch.take() == []
    finally:
        context.close()
