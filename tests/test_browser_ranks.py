"""Issue 25 in real Chromium, on the default site at a phone's and a desktop's width:
ranks that never run against a sorted table's order, cards that say how many share
first place, compare on every model of every dataset, indexes of every dataset, an
explorer with numbers for every dataset it opens, and menu charts that never fetch a
chart library."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from browser import SORTED_RANKS, Watch, open_page

PHONE, DESKTOP = 390, 1440
WIDTHS = [PHONE, DESKTOP]
REPO = Path(__file__).resolve().parents[1]

def misplaced(rows: list[dict]) -> list[tuple]:
    """Rows of a table sorted by its estimate whose rank says something else than the
    order: a shown place outside 1 + the rows with a higher estimate .. the rows with a
    higher or equal one (the sort values are rounded to 4 decimals: rows equal there may
    differ beyond), or a 95% range that does not hold the place.  (Ranges need not grow
    down the table: each is the model's own, and a poorly measured model lower down may
    reach higher places than those above it.)"""
    bad = []
    for row in rows:
        first = 1 + sum(other["value"] > row["value"] for other in rows)
        last = sum(other["value"] >= row["value"] for other in rows)
        place = row["place"] if row["place"] is not None else first
        if not first <= place <= last or not row["range"][0] <= place <= row["range"][1]:
            bad.append(((first, last), row))
    return bad


def ranked_pages(site: Path) -> list[str]:
    """Every page with a table of ranks in the order of an estimate (model pages list a
    model's ranks trait by trait: no order of estimates to check there)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).as_posix().startswith("models/")
                  and re.search(r'data-ranks="|class="rank"', p.read_text("utf-8")))


def watched(chromium, root: str, width: int):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    watch = Watch(root).attach(context)
    page = context.new_page()
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    return context, watch, page, fetched


def test_no_rank_inversion_in_any_sorted_table(default_site, default_phone_loads):
    """On the phone, in the session's one visit of every page (which sorts each table
    once its other measures are taken): sorting and the ranks it reads are the same at
    every width (no script of the site reads the width for a table's rows or cells)."""
    loads, _ = default_phone_loads  # (their problems: test_browser_layout)
    pages = ranked_pages(default_site)
    assert {"index.html", "eqbench.html", "sycophancy.html", "traits/warmth.html"} <= set(
        pages), pages
    checked, bad = 0, []
    for path in pages:
        for series in loads[path].checks["sortedRanks"]:
            assert "missing" not in series, (path, series)
            checked += len(series["rows"])
            bad += [(path, series["table"], series["column"], pair)
                    for pair in misplaced(series["rows"])[:3]]
    assert checked > 2000 and bad == []


def test_the_sorted_eqbench_table_reads_in_order(chromium, default_root):
    """The issue's example: EQ-Bench 3's overall table, sorted by its rating, used to read
    1, 1, 2, 4, 3, 4; its places now grow down the table, each inside its range."""
    context, watch, page, _ = watched(chromium, default_root, DESKTOP)
    try:
        open_page(page, default_root + "eqbench.html")
        (series,) = page.locator("#eq-overall").element_handle().evaluate(SORTED_RANKS)
        ranges = [r["range"] for r in series["rows"]]
        assert len(ranges) == 27
        assert misplaced(series["rows"]) == []
        places = page.evaluate("""() => [...document.querySelectorAll('#eq-overall tbody tr')]
            .map(tr => tr.cells[2].getAttribute('data-v'))""")
        assert places == [str(k) for k in range(1, 28)]
        assert watch.take() == []
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_top_card_says_how_many_share_first_place(chromium, default_site, default_root,
                                                         width):
    context, watch, page, _ = watched(chromium, default_root, width)
    try:
        open_page(page, default_root + "index.html")
        cards = page.evaluate("""() => [...document.querySelectorAll('.glance')]
            .filter(card => card.querySelector('.rank'))
            .map(card => ({trait: card.querySelector('h4').textContent.trim(),
                           labels: [...card.querySelectorAll('.end-label')]
                               .map(l => l.textContent.replace(/\\s+/g, ' ').trim()),
                           ranks: [...card.querySelectorAll('.rank')].map(r => r.textContent),
                           shown: card.getBoundingClientRect().width > 0}))""")
        assert watch.take() == []
    finally:
        context.close()
    assert len(cards) >= 9 + 15 + 6
    for card in cards:
        most, least = card["labels"]
        assert re.search(r"tied: \d+ of \d+ could be first|only one of \d+ could be first",
                         most), card
        assert re.search(r"tied: \d+ of \d+ could be last|only one of \d+ could be last",
                         least), card
        assert card["shown"]
    # The numbers are the downloads': models whose 95% rank range reaches first place.
    means = pd.read_csv(default_site / "data" / "personality.csv")
    warmth = means[means["trait_id"] == "bp-warmth"]
    tied = int((warmth["rank_low"] == 1).sum())
    (card,) = [c for c in cards if c["trait"] == "Warmth"]
    expected = (f"tied: {tied} of {len(warmth)} could be first" if tied > 1
                else f"only one of {len(warmth)} could be first")
    assert expected in card["labels"][0]


def every_model() -> set[str]:
    """The registry id of every model of every dataset, read from the annotation files
    (independently of the compare page)."""
    from ffsite.format import find_annotation_files, read_annotations, read_scores
    from ffsite.models import apply_registry, load_registry

    files = find_annotation_files([REPO / "annotations"])
    registry = load_registry(REPO / "content", reference="gpt4_1106_preview")
    votes = apply_registry(read_annotations(files), registry)
    scores = read_scores(files)
    found = set(votes.comparisons["model_a"].dropna()) | set(votes.comparisons["model_b"]
                                                             .dropna())
    scored = scores.responses[["dataset", "model"]].dropna().drop_duplicates()
    found |= {m for m in registry.ids(scored["dataset"], scored["model"]) if m}
    return found - {"", None}


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_offers_every_model_of_every_dataset(chromium, default_root, width):
    context, watch, page, fetched = watched(chromium, default_root, width)
    try:
        open_page(page, default_root + "compare.html?a=claude-3.7-sonnet&b=gpt-4.1")
        page.wait_for_function("() => document.querySelectorAll('#compare-sections "
                               "table tbody tr').length > 0", timeout=15_000)
        options = page.evaluate("() => [...document.querySelectorAll('#model-a option')]"
                                ".map(o => o.value)")
        sections = page.evaluate("""() => [...document.querySelectorAll('.compare-section')]
            .map(s => ({title: s.querySelector('h2').textContent,
                        rows: s.querySelectorAll('tbody tr').length,
                        verdicts: s.querySelectorAll('.verdict').length,
                        dots: s.querySelectorAll('.forest-dot').length}))""")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - "
                                 "document.documentElement.clientWidth")
        assert watch.take() == []
    finally:
        context.close()
    assert set(options) == every_model() and len(options) == len(set(options))
    titles = {s["title"] for s in sections}
    # Claude 3.7 Sonnet and GPT-4.1 are both in Behavioral Profiling and EQ-Bench 3.
    assert {"Behavioral Profiling", "EQ-Bench 3"} <= titles, titles
    for section in sections:
        assert section["rows"] > 0 and section["verdicts"] == section["rows"] == \
            section["dots"], section
    assert not [url for url in fetched if "/assets/vega" in url]
    assert overflow == 0


@pytest.mark.parametrize("width", WIDTHS)
def test_the_datasets_and_traits_indexes_list_every_dataset(chromium, default_site,
                                                             default_root, width):
    from ffsite.datasets import DATASETS

    traits = pd.read_csv(default_site / "data" / "traits.csv")
    context, watch, page, _ = watched(chromium, default_root, width)
    try:
        open_page(page, default_root + "datasets.html")
        cards = page.evaluate("""() => [...document.querySelectorAll('.dataset-card')]
            .map(c => ({id: c.id, name: c.querySelector('h2').textContent.trim(),
                        text: c.textContent}))""")
        open_page(page, default_root + "traits.html")
        rows = page.evaluate("""() => [...document.querySelectorAll('#trait-index tbody tr')]
            .map(tr => [...tr.cells].map(c => c.textContent.trim()))""")
        assert watch.take() == []
    finally:
        context.close()
    present = {d.id for d in DATASETS if (REPO / "annotations" / d.id).is_dir()}
    assert {c["id"] for c in cards} == {f"dataset-{d}" for d in present}
    names = {d.id: d.name for d in DATASETS}
    assert {c["name"] for c in cards} == {names[d] for d in present}
    for card in cards:
        assert "Judged by" in card["text"] and "trait" in card["text"]
    # Judged datasets come first; the rules judge's text statistics last.
    assert cards[0]["name"] in ("Behavioral Profiling", "EQ-Bench 3")
    assert len(rows) == len(traits) and {r[0] for r in rows} == set(traits["trait"])
    listed = {name for r in rows for name in r[1].split(", ")}
    assert {names[d] for d in present if d != "hh_rlhf"} <= listed | {"HH-RLHF"}
    # Judged traits lead; no trait set is shown by its code.
    assert rows[0][3] != "rules-1" and rows[-1][3] == "rules-1"
    codes = set(traits["trait_set"])
    assert not [r for r in rows if r[2] in codes]


@pytest.mark.parametrize("width", WIDTHS)
def test_explore_shows_numbers_on_first_load_for_every_dataset(chromium, default_root,
                                                               width):
    context, watch, page, _ = watched(chromium, default_root, width)
    try:
        open_page(page, default_root + "explore.html")
        page.wait_for_function("() => document.querySelectorAll('#explore-table tbody td')"
                               ".length > 0", timeout=15_000)
        names = page.evaluate("() => JSON.parse(document.getElementById('explore-index')"
                              ".textContent).datasets.map(d => d.name)")
        opened = page.evaluate("() => document.getElementById('ex-dataset').selectedOptions[0]"
                               ".textContent")
        # The headline data: a dataset an LLM judged, not the rules judge's statistics.
        assert opened == "eqbench3"
        for name in names:
            for how in ("address", "menu"):
                if how == "address":
                    open_page(page, default_root + f"explore.html?d={name}")
                else:
                    open_page(page, default_root + "explore.html")
                    page.select_option("#ex-dataset", label=name)
                # Until numbers are in the cells (the table may be laid out before they
                # are), or the status says why there are none.
                page.wait_for_function(
                    "() => [...document.querySelectorAll('#explore-table td .cell-button')]"
                    ".some(b => /\\d/.test(b.textContent)) "
                    "|| /No comparisons|Choose|no preference/.test("
                    "document.getElementById('ex-status').textContent)", timeout=15_000)
                status = page.locator("#ex-status").text_content()
                numbers = page.evaluate("() => [...document.querySelectorAll("
                                        "'#explore-table td .cell-button')].filter("
                                        "b => /\\d/.test(b.textContent)).length")
                assert numbers > 0 and "No comparisons" not in status, (name, how, status)
        assert watch.take() == []
    finally:
        context.close()


MENU_PAGES = ["index.html", "ratings.html", "eqbench.html", "pressure.html",
              "communication.html"]


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_a_menu_change_fetches_no_chart_library(chromium, default_root, width):
    context, watch, page, fetched = watched(chromium, default_root, width)
    try:
        for path in MENU_PAGES:
            open_page(page, default_root + path)
            charts = page.evaluate("() => [...document.querySelectorAll("
                                   "'.chart[data-interactive=\"menus\"]')].map(c => c.id)")
            assert charts, path
            for chart in charts:
                menu = page.locator(f"#{chart} .chart-menus select").first
                options = menu.evaluate("s => [...s.options].map(o => o.value)")
                before = page.locator(f"#{chart} .chart-wide svg").inner_html()
                menu.select_option(options[-1])
                page.wait_for_function(
                    f"(before) => document.querySelector('#{chart} .chart-wide svg')"
                    ".innerHTML !== before", arg=before, timeout=10_000)
                after = page.locator(f"#{chart} .chart-wide svg").inner_html()
                assert "role-mark" in after
                # The choice is in the address: opened again, the page shows it.
                assert f"{chart}." in page.url
                open_page(page, page.url)
                page.wait_for_function(
                    f"(after) => document.querySelector('#{chart} .chart-wide svg')"
                    ".innerHTML === after", arg=after, timeout=10_000)
                assert page.locator(f"#{chart} .chart-menus select").first.input_value() \
                    == options[-1]
                open_page(page, default_root + path)
        assert watch.take() == []
    finally:
        context.close()
    assert not [url for url in fetched if "/assets/vega" in url]
    assert [url for url in fetched if "/assets/drawings/" in url]


@pytest.mark.parametrize("width", WIDTHS)
def test_sycophancy_is_found_from_the_home_page(chromium, default_root, width):
    context, watch, page, _ = watched(chromium, default_root, width)
    try:
        open_page(page, default_root + "index.html")
        page.get_by_role("link", name="Sycophancy").first.click()
        page.wait_for_load_state("load")
        assert page.url.endswith("sycophancy.html")
        headings = page.evaluate("() => [...document.querySelectorAll('h2')].map(h => "
                                 "h.textContent)")
        tables = page.evaluate("() => [...document.querySelectorAll('table')].map(t => "
                               "[...t.tBodies].reduce((n, b) => n + b.rows.length, 0))")
        text = page.locator("main").text_content()
        assert watch.take() == []
    finally:
        context.close()
    assert "Authority: Behavioral Profiling" in headings
    assert "Validating or challenging: EQ-Bench 3" in headings
    assert "What none of it measures" in headings and len(tables) >= 3 and min(tables) > 20
    assert "agrees with user even if factually incorrect" in text
    assert "ffsite annotate --model" in text
