"""Hostile data end to end in real Chromium (the data: hostile_fixture.py): every page
shows the attacks as text, no script from data runs (no dialog, `window.__pwned` stays
undefined, nothing blocked by the content policy), and long strings do not push the page
wider than the window."""

from __future__ import annotations

import pytest
from browser import PagesServer, Watch, open_page, site_pages
from hostile_fixture import (
    DATASET,
    JUDGE,
    LABEL,
    LONG_MODEL,
    META_NAME,
    META_VALUES,
    MODELS,
    PROMPT_START,
    RESPONSE_ATTACKS,
    SCRIPT_MODEL,
    TRAIT_SET,
    WORDING,
)

from ffsite.site.urls import wording_slug

PWNED = "typeof window.__pwned"
TEXT = "document.body.innerText"


@pytest.fixture(scope="module")
def hostile_root(hostile_site):
    server = PagesServer(hostile_site)
    yield server.root
    server.close()


@pytest.fixture
def watched(chromium, hostile_root):
    """A page and the watch on it; at the end, no dialog and no problem at all."""
    context = chromium.new_context()
    watch = Watch(hostile_root).attach(context)
    yield context.new_page(), watch
    problems = watch.take()
    context.close()
    assert watch.dialogs == []
    assert problems == []


def model_pages(page, root: str, site) -> dict[str, str]:
    """model name -> its page, read from each page's heading."""
    names = {}
    for path in site_pages(site):
        if path.startswith("models/"):
            open_page(page, root + path)
            names[page.locator("h1").text_content()] = path
    return names


@pytest.mark.parametrize("policy", ["with", "without"])
def test_no_script_from_data_runs_on_any_page(chromium, hostile_site, hostile_root, policy):
    """With the pages' content security policy, and without it: escaping alone must hold
    (a script that slipped through would run), and with the policy nothing may even try
    (the browser reports a blocked script as a console error)."""
    context = chromium.new_context(bypass_csp=policy == "without")
    watch = Watch(hostile_root).attach(context)
    page = context.new_page()
    pages = site_pages(hostile_site)
    # The fixed pages and one page per model, the reference model's too.
    # 20 site-wide pages, judges.html, sycophancy.html and lineage.html among them.
    assert len(pages) == 20 + len(MODELS) + 1
    for path in pages:
        open_page(page, hostile_root + path)
        for y in range(50, 750, 100):  # hover over whatever is there (onmouseover)
            page.mouse.move(300, y)
        assert page.evaluate(PWNED) == "undefined", path
    open_page(page, hostile_root + "compare.html")
    for model in MODELS:  # the compare page writes the chosen names into the page
        page.select_option("#model-a", model)
        page.select_option("#model-b", MODELS[0])
        assert page.evaluate(PWNED) == "undefined", model
    problems = watch.take()
    context.close()
    assert (watch.dialogs, problems) == ([], [])


def test_model_page_shows_names_prompts_and_responses_as_text(watched, hostile_site,
                                                              hostile_root):
    page, _ = watched
    pages = model_pages(page, hostile_root, hostile_site)
    assert sorted(pages) == sorted([*MODELS, "R"])  # the reference model has one too
    open_page(page, hostile_root + pages[SCRIPT_MODEL])
    text = page.evaluate(TEXT)
    assert page.locator("h1").text_content() == SCRIPT_MODEL
    assert PROMPT_START in text
    for attack in RESPONSE_ATTACKS[0], RESPONSE_ATTACKS[5]:  # raw HTML in a response
        assert attack.split("[")[0].strip() in text
    assert LABEL in text


def test_dataset_and_trait_pages_show_names_as_text(watched, hostile_site, hostile_root):
    page, _ = watched
    (dataset_page,) = [p for p in site_pages(hostile_site) if p.startswith("datasets/")]
    open_page(page, hostile_root + dataset_page)
    text = page.evaluate(TEXT)
    assert page.locator("h1").text_content() == DATASET
    for shown in (JUDGE, META_NAME, META_VALUES[0], META_VALUES[2], LABEL):
        assert shown in text, shown
    open_page(page, hostile_root + f"traits/{wording_slug(LABEL)}.html")
    text = page.evaluate(TEXT)
    assert page.locator("h1").text_content() == LABEL
    for shown in (WORDING, TRAIT_SET, JUDGE, SCRIPT_MODEL):
        assert shown in text, shown


def test_compare_page_shows_names_as_text(watched, hostile_root):
    page, _ = watched
    open_page(page, hostile_root + "compare.html")
    options = page.eval_on_selector_all("#model-a option", "all => all.map(o => o.text)")
    assert sorted(options) == sorted(MODELS)
    page.select_option("#model-a", SCRIPT_MODEL)
    page.select_option("#model-b", LONG_MODEL)
    page.wait_for_function("(names) => { const h = document.querySelector("
                           "'.compare-section thead'); return h && names.every("
                           "n => h.textContent.includes(n)); }",
                           arg=[SCRIPT_MODEL, LONG_MODEL], timeout=10_000)
    headers = page.eval_on_selector_all(".compare-section thead th .label",
                                        "all => all.map(e => e.textContent)")
    assert headers[-2:] == [SCRIPT_MODEL, LONG_MODEL]  # as text, not markup
    assert LABEL in page.evaluate(TEXT)
    # The chart of the differences: a dot per trait, drawn by the page itself.
    assert page.locator(".compare-section .forest-dot").count() == 1


OVERFLOW = """() => ({page: document.documentElement.scrollWidth, window: window.innerWidth,
    widest: Math.max(...[...document.querySelectorAll('main > *')].map(
        e => e.getBoundingClientRect().right))})"""


@pytest.mark.parametrize("width", [1280, 390])
def test_long_strings_do_not_widen_the_page(chromium, hostile_site, hostile_root, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    paths = ["index.html", "compare.html", *[p for p in site_pages(hostile_site)
                                             if p.startswith(("models/", "datasets/"))]]
    for path in paths:
        open_page(page, hostile_root + path)
        sizes = page.evaluate(OVERFLOW)
        assert sizes["page"] <= width and sizes["widest"] <= width, (path, sizes)
    context.close()
