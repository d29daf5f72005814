"""The explorer page in real Chromium: every choice changes the table and goes in the URL,
a reload restores it, the datapoint viewer pages through filtered comparisons, the page
reads without JavaScript, and hostile names and texts stay text.  Numbers on the tiny
site (site_fixture.py) are worked out by hand in the comments."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest
from browser import PagesServer, Watch
from hostile_fixture import RESPONSE_ATTACKS, SCRIPT_MODEL

DRAWN = "document.getElementById('ex-status').textContent.includes('column')"
CELLS = """() => Object.fromEntries([...document.querySelectorAll('#explore-table tbody tr')]
    .map(tr => [tr.querySelector('th').textContent.trim(),
                [...tr.querySelectorAll('td')].map(td => td.firstChild.textContent.trim())]))"""
INTERVALS = """() => [...document.querySelectorAll('#explore-table td')].map(
    td => td.querySelector('.ci') ? td.querySelector('.ci').textContent : '')"""
HEADERS = """() => [...document.querySelectorAll('#explore-table thead th')].slice(1)
    .map(th => th.textContent.trim())"""


@pytest.fixture
def watched(chromium, tiny_root):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    watch = Watch(tiny_root).attach(context)
    yield context.new_page(), watch
    problems = watch.take()
    context.close()
    assert watch.dialogs == [] and problems == []


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def settle(page, check: str) -> None:
    """Wait until the page's script has drawn what `check` (a JS expression) expects.
    As a function: a bare expression would be evaluated with eval, which the page's
    content policy forbids."""
    page.wait_for_function(f"() => {check}", timeout=10_000)


def cells_by_trait(page) -> dict[str, list[str]]:
    """{trait label: cell texts}, with the labels shortened to the trait's last word."""
    return {label.split()[-1]: cells for label, cells in page.evaluate(CELLS).items()}


def test_default_table_reads_without_script_and_the_script_draws_the_same(chromium,
                                                                          tiny_root):
    # R against m1: verbose c1 A=m1, c2 B=m1, c3 B=R -> 2 of 3 for m1: kappa 1/3, +0.33;
    # concise 1 each -> +0.00.  Against m2: verbose 0 of 2 -> -1.00, concise 2 of 2.
    expected = {"verbose": ["+0.33", "-1.00"], "concise": ["+0.00", "+1.00"]}
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(tiny_root + "explore.html")
    assert cells_by_trait(page) == expected
    assert page.evaluate(HEADERS) == ["m1", "m2"]
    intervals = page.evaluate(INTERVALS)
    # m1's verbose strength, one vote added each way: (3 - 2) / 5 = 0.2 ± 1.96 ×
    # sqrt((5/5 - 0.04) / 5) = ± 0.8588, cut at +1.
    assert "-0.66 to +1.00" in intervals and all(intervals)
    assert "need JavaScript" in page.locator("main").inner_text()
    assert page.locator("#explore-form").is_hidden()
    # The judges' side biases moved to the Judges page, which needs no script either.
    page.goto(tiny_root + "judges.html")
    assert page.locator("#bias tbody tr").count() == 3  # j, pj, pj2
    context.close()

    context = chromium.new_context()
    page = context.new_page()
    page.goto(tiny_root + "explore.html")
    settle(page, DRAWN)
    assert cells_by_trait(page) == expected
    assert page.evaluate(HEADERS) == ["m1", "m2"]
    assert page.evaluate(INTERVALS) == intervals  # the script's intervals are the server's
    assert page.locator("#explore-form").is_visible()
    # Busy while it redraws, and no longer once it has: a change of choice sets it again.
    settle(page, "document.querySelector('main').getAttribute('aria-busy') === null")
    page.evaluate("() => { window.busySeen = false; new MutationObserver(records => {"
                  " if (records.some(r => r.attributeName === 'aria-busy')) window.busySeen"
                  " = true; }).observe(document.querySelector('main'), {attributes: true});"
                  " }")
    page.select_option("#ex-metric", index=1)
    settle(page, "window.busySeen && !document.querySelector('main[aria-busy]')")
    context.close()


def test_choices_go_in_the_url_and_a_reload_restores_them(watched, tiny_root):
    page, _ = watched
    page.goto(tiny_root + "explore.html")
    settle(page, DRAWN)
    # Pool R and m1: m2 against both.  Verbose: (R, m2) 2 for R, (m1, m2) 1 for m1 -> 0
    # of 3 for m2: -1.00.  Concise: 2 + 1 for m2 -> +1.00.
    page.select_option("#ex-refs", ["R", "m1"])
    settle(page, "document.querySelector('#explore-table caption').textContent"
                 ".includes('R + m1')")
    assert page.evaluate(HEADERS) == ["m2"]
    assert cells_by_trait(page) == {"verbose": ["-1.00"], "concise": ["+1.00"]}
    page.select_option("#ex-metric", "agreement")
    settle(page, "document.querySelector('#explore-table caption').textContent"
                 ".startsWith('Agreement')")
    assert cells_by_trait(page) == {"verbose": ["0.00"], "concise": ["1.00"]}
    # Split by topic: m2 by value (x: c4; y: c5 and c6), then only y.
    page.select_option("#ex-split", "topic")
    settle(page, "document.querySelectorAll('#explore-table thead th').length === 3")
    assert page.evaluate(HEADERS) == ["x", "y"]
    assert page.locator("#ex-target").input_value() == "m2"
    page.uncheck("#ex-values input[value=x]")
    settle(page, "document.querySelectorAll('#explore-table thead th').length === 2")
    assert page.evaluate(HEADERS) == ["y"]
    found = query(page)
    assert found["against"] == ["models"] and found["ref"] == ["R", "m1"]
    assert found["d"] == ["d"] and found["j"] == ["j"] and found["m"] == ["agreement"]
    assert found["split"] == ["topic"] and found["val"] == ["y"] and found["target"] == ["m2"]

    page.reload()
    settle(page, DRAWN)
    assert page.eval_on_selector_all("#ex-refs option:checked", "o => o.map(x => x.value)") \
        == ["R", "m1"]
    assert page.locator("#ex-metric").input_value() == "agreement"
    assert page.locator("#ex-split").input_value() == "topic"
    assert page.locator("#ex-judge").input_value() == "j"
    assert not page.locator("#ex-values input[value=x]").is_checked()
    assert page.evaluate(HEADERS) == ["y"]
    assert cells_by_trait(page) == {"verbose": ["0.00"], "concise": ["1.00"]}

    # Against the preference annotator pj, unsplit: verbose agrees on all 5 comparisons
    # with a preference (+1.00); concise disagrees on 4 of 5 (kappa -1 x relevance 0.8).
    page.select_option("#ex-against", "pref:pj")
    page.select_option("#ex-split", "")
    page.select_option("#ex-metric", "strength")
    settle(page, "document.querySelector('#explore-table caption').textContent"
                 ".startsWith('Strength') && !document.querySelector('#explore-table "
                 "caption').textContent.includes(', by')")
    assert page.evaluate(HEADERS) == ["all"]
    assert cells_by_trait(page) == {"verbose": ["+1.00"], "concise": ["-0.80"]}
    assert query(page)["against"] == ["preference"]
    page.reload()
    settle(page, DRAWN)
    assert page.locator("#ex-against").input_value() == "pref:pj"
    assert cells_by_trait(page) == {"verbose": ["+1.00"], "concise": ["-0.80"]}

    # The other preference annotator, pj2 (B B - A A B): verbose agrees on c2, c5 and
    # disagrees on c1, c4, c6 (kappa -0.2, relevance 1); concise agrees on c1, c4, c6,
    # disagrees on c5, c2 is "neither" (kappa 0.5 x relevance 0.8 = +0.40).
    page.select_option("#ex-against", "pref:pj2")
    settle(page, "document.querySelector('#explore-table caption').textContent"
                 ".includes('annotator pj2')")
    assert cells_by_trait(page) == {"verbose": ["-0.20"], "concise": ["+0.40"]}
    assert query(page)["pj"] == ["pj2"]
    # In the viewer, pj2's own votes say which side agrees: for R vs m1 on verbose, c2.
    page.select_option("#vw-pair", label="R vs m1 (3)")
    verbose = page.eval_on_selector_all(
        "#vw-trait option", "o => o.filter(x => x.text.endsWith('verbose'))[0].value")
    page.select_option("#vw-trait", verbose)
    page.select_option("#vw-vote", "agree")
    settle(page, "document.getElementById('vw-status').textContent.includes('1 of 1')")
    assert page.locator("#vw-point h3").text_content() == "Comparison c2"
    page.reload()
    settle(page, "document.getElementById('vw-status').textContent.includes('1 of 1')")
    assert page.locator("#ex-against").input_value() == "pref:pj2"
    assert page.locator("#vw-point h3").text_content() == "Comparison c2"


def status(page) -> str:
    return page.locator("#vw-status").text_content()


def test_viewer_pages_through_filtered_comparisons(watched, tiny_root):
    page, _ = watched
    page.goto(tiny_root + "explore.html?against=models&ref=R&d=d&m=strength")
    settle(page, DRAWN)
    page.select_option("#vw-pair", label="R vs m1 (3)")
    verbose = page.eval_on_selector_all(
        "#vw-trait option", "o => o.filter(x => x.text.endsWith('verbose'))[0].value")
    page.select_option("#vw-trait", verbose)
    # Against R, "agrees" is m1's side: verbose c1 (A = m1) and c2 (B = m1) agree, c3
    # (B = R) disagrees.
    page.select_option("#vw-vote", "disagree")
    settle(page, "document.getElementById('vw-status').textContent.includes('1 of 1')")
    card = page.locator("#vw-point")
    assert card.locator("h3").text_content() == "Comparison c3"
    assert card.locator(".prompt").text_content() == "Prompt of c3?"
    texts = card.locator(".vw-text").all_text_contents()
    assert texts[0].startswith("**m1** answers c3") and texts[1] == "R answers c3."
    assert "verbose: B (disagrees)" in card.inner_text()
    votes = card.locator("table.vw-votes tbody tr").all_inner_texts()
    assert any(row.split("\t")[0] == "pj" and row.endswith("tie") for row in votes)

    page.select_option("#vw-vote", "agree")
    settle(page, "document.getElementById('vw-status').textContent.includes('1 of 2')")
    first = card.locator("h3").text_content()
    assert page.locator("#vw-prev").is_disabled()
    page.click("#vw-next")
    settle(page, "document.getElementById('vw-status').textContent.includes('2 of 2')")
    second = card.locator("h3").text_content()
    assert {first, second} == {"Comparison c1", "Comparison c2"}
    assert page.locator("#vw-next").is_disabled()
    found = query(page)
    assert found["pa"] == ["R"] and found["pb"] == ["m1"] and found["vv"] == ["agree"]
    assert found["vt"] == [verbose] and found["vi"] == ["1"]
    page.reload()
    settle(page, "document.getElementById('vw-status').textContent.includes('2 of 2')")
    assert card.locator("h3").text_content() == second

    # A table cell opens its comparisons: m2's concise cell -> pair (R, m2), concise.
    page.locator("#explore-table tbody tr", has_text="concise").locator("button").nth(1) \
        .click()
    settle(page, "document.getElementById('vw-status').textContent.includes('2 sampled of 2')")
    assert page.locator("#vw-pair option:checked").text_content() == "R vs m2 (2)"
    assert page.locator("#vw-trait option:checked").text_content().endswith("concise")
    assert "1 of 2 shown here" in status(page)

    # The split value filters the viewer: topic y holds c5 only of (R, m2).
    page.select_option("#ex-split", "topic")
    settle(page, "!document.getElementById('vw-value').hidden")
    page.select_option("#vw-value", "y")
    settle(page, "document.getElementById('vw-status').textContent.includes('1 of 1')")
    assert card.locator("h3").text_content() == "Comparison c5"
    assert query(page)["vx"] == ["y"]


def test_dataset_and_judge_on_the_default_site(chromium, default_root):
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    page.goto(default_root + "explore.html")
    settle(page, DRAWN)
    # The explorer opens on judged data (EQ-Bench 3, its judge) with a reference that is
    # in it: numbers on first load, not "No comparisons".
    assert page.locator("#ex-dataset option:checked").text_content() == "eqbench3"
    assert page.locator("#ex-judge").input_value() == "claude-3.7-sonnet"
    assert "No comparisons" not in page.locator("#ex-status").text_content()
    assert len(page.evaluate(HEADERS)) > 5
    page.select_option("#ex-split", "scenario_type")
    settle(page, "!document.getElementById('ex-target').hidden")
    values = page.eval_on_selector_all("#ex-values input", "i => i.map(x => x.value)")
    assert {"analysis", "role-play"} <= set(values)
    assert set(page.evaluate(HEADERS)) <= set(values)
    settle(page, "document.querySelectorAll('#vw-point h4').length > 0")
    assert "reasoning" in page.locator("#vw-point").inner_text()
    found = query(page)
    assert found["d"] == ["eqbench3"] and found["j"] == ["claude-3.7-sonnet"]
    page.reload()
    settle(page, DRAWN)
    assert page.locator("#ex-dataset option:checked").text_content() == "eqbench3"
    assert page.locator("#ex-judge").input_value() == "claude-3.7-sonnet"
    assert page.locator("#ex-split").input_value() == "scenario_type"
    # AlpacaEval: its rules judge, and the viewer shows both responses' texts. The
    # viewer draws once the page's script has fetched the comparison, which may be after
    # the table (a race the full suite on a busy machine lost once).
    page.select_option("#ex-dataset", label="alpaca_eval")
    settle(page, "new URLSearchParams(location.search).get('d') === 'alpaca_eval'")
    settle(page, DRAWN)
    assert page.locator("#ex-judge").input_value() != ""
    settle(page, "document.querySelectorAll('.vw-text').length > 0")
    assert page.locator(".vw-text").count() >= 2
    # a phone: the page never scrolls sideways (the table's wrapper does)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
    assert watch.dialogs == [] and watch.take() == []


@pytest.fixture(scope="module")
def hostile_root(hostile_site):
    server = PagesServer(hostile_site)
    yield server.root
    server.close()


@pytest.mark.parametrize(("scheme", "width"), [("light", 1440), ("dark", 390)])
def test_hostile_names_and_responses_are_text(chromium, hostile_root, scheme, width):
    context = chromium.new_context(color_scheme=scheme, viewport={"width": width,
                                                                  "height": 900})
    watch = Watch(hostile_root).attach(context)
    page = context.new_page()
    page.goto(hostile_root + "explore.html")
    settle(page, DRAWN)
    assert SCRIPT_MODEL in page.evaluate(HEADERS)
    # a very long name is cut in its header (all of it in the title): the table stays short
    assert page.evaluate("document.querySelector('#explore-table thead').offsetHeight") < 500
    page.select_option("#vw-pair", label=f"{SCRIPT_MODEL} vs R (3)" if SCRIPT_MODEL < "R"
                       else f"R vs {SCRIPT_MODEL} (3)")
    settle(page, "document.querySelectorAll('#vw-point .vw-text').length > 0 && document"
                 f".querySelector('#vw-point dl').textContent.includes({json.dumps(SCRIPT_MODEL)})")
    shown = page.locator("#vw-point .vw-text").first.text_content()
    assert RESPONSE_ATTACKS[0] in shown and RESPONSE_ATTACKS[5] in shown
    assert page.locator("#vw-point").inner_text().count(SCRIPT_MODEL) >= 1
    assert page.locator("#vw-point img, #vw-point script, #vw-point iframe, "
                        "#vw-point svg, #vw-point a").count() == 0
    # a hostile reference model goes in the URL and comes back from it
    page.select_option("#ex-refs", [SCRIPT_MODEL])
    settle(page, f"new URLSearchParams(location.search).get('ref') === {SCRIPT_MODEL!r}")
    page.reload()
    settle(page, DRAWN)
    assert page.eval_on_selector_all("#ex-refs option:checked", "o => o.map(x => x.value)") \
        == [SCRIPT_MODEL]
    assert SCRIPT_MODEL in page.locator("#explore-table caption").text_content()
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()
    assert watch.dialogs == [] and watch.take() == []


WEIGHT = """() => [...performance.getEntriesByType('navigation'),
                   ...performance.getEntriesByType('resource')]
    .reduce((sum, e) => sum + (e.encodedBodySize || 0), 0)"""
LAYOUT = """() => ({
    page: document.documentElement.scrollWidth,
    traitColumn: document.querySelector('#explore-table tbody th').getBoundingClientRect().width,
    narrowestCell: Math.min(...[...document.querySelectorAll('#explore-table td')]
        .map(td => td.getBoundingClientRect().width)),
    // a vote ("neither", "A, B") never wraps onto a second line
    brokenVotes: [...document.querySelectorAll('table.vw-votes td:last-child')].filter(td => {
        const range = document.createRange();
        range.selectNodeContents(td);
        return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
    }).length,
    background: getComputedStyle(document.documentElement).backgroundColor,
    controls: [...document.querySelectorAll('#explore-form select, #viewer-form select')]
        .filter(s => s.getClientRects().length).map(s => s.getBoundingClientRect().right)})"""


def brightness(css: str) -> float:
    red, green, blue = (float(part) for part in
                        css[css.index("(") + 1:].rstrip(")").split(",")[:3])
    return (red + green + blue) / 765


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1440])
def test_explore_reads_on_a_phone_and_a_desktop(chromium, default_root, width, scheme):
    from browser import TAKE_SCREENSHOTS, photograph

    context = chromium.new_context(viewport={"width": width, "height": 900},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    page.goto(default_root + "explore.html")
    settle(page, DRAWN)
    settle(page, "document.querySelectorAll('#vw-point .vw-text').length >= 2")
    layout = page.evaluate(LAYOUT)
    assert layout["page"] <= width  # wide tables scroll inside their wrapper
    assert layout["traitColumn"] >= 100 and layout["narrowestCell"] >= 40, layout
    assert max(layout["controls"]) <= width, layout
    assert layout["brokenVotes"] == 0, layout
    assert (brightness(layout["background"]) < 0.3) == (scheme == "dark")
    # the page, its scripts and styles, the dataset's counts and one file of datapoints
    assert page.evaluate(WEIGHT) < 1_000_000
    photograph(page, f"explore-{width}-{scheme}.png")
    if TAKE_SCREENSHOTS:
        page.locator("#vw-point").scroll_into_view_if_needed()
        photograph(page, f"explore-viewer-{width}-{scheme}.png")
    context.close()
    assert watch.dialogs == [] and watch.take() == []
