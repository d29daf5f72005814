"""The home page's model search in real Chromium, on the default site, at phone and
desktop widths: typing keeps only the rows of models whose name, id or organisation
match, the count it announces is the rows left, the query is in the URL (a link opens
the same view), and the box fits a 390 px screen.  Which rows should match is worked
out from content/models.toml, not from the page.  And a trait's old address (named by
its id) takes the browser to its page, now named by its wording."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from browser import REPO, Watch, open_page, photograph

from ffsite.models import load_registry

TABLES = ("personality", "eq-top", "leaderboard")  # every model table of the home page
WIDTHS = {"phone": 390, "desktop": 1440}

# Per table: each row's model (the id its link names) and whether it is hidden; the rows
# a long table folds under "show all" (its later bodies) are searched too.
ROWS = """tables => tables.flatMap(id => {
  const table = document.getElementById(id);
  if (!table) { return []; }
  return [...table.tBodies].flatMap(body => [...body.rows]).map(row => {
    const link = row.cells[0].querySelector('a');
    const page = decodeURIComponent(link.getAttribute('href').split('/').pop());
    return {table: id, model: page.replace(/\\.html$/, ''),
            name: row.cells[0].textContent.trim(), hidden: row.hidden};
  });
})"""


def rows(page) -> list[dict]:
    return page.evaluate(ROWS, list(TABLES))


def matches(model: str, name: str, words: list[str], registry) -> bool:
    entry = registry.get(model)
    text = " ".join([name, model, (entry.organisation or "") if entry else ""]).lower()
    return all(word in text for word in words)


@pytest.fixture
def watched(chromium, default_root):
    contexts = []

    def open_at(width: int):
        context = chromium.new_context(viewport={"width": width, "height": 900})
        watch = Watch(default_root).attach(context)
        contexts.append((context, watch))
        return context.new_page()

    yield open_at
    for context, watch in contexts:
        problems = watch.take()
        context.close()
        assert problems == []


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
def test_model_search_keeps_the_matching_rows(watched, default_root, width):
    registry = load_registry(REPO / "content")
    page = watched(width)
    open_page(page, default_root + "index.html")
    box = page.get_by_label("Find a model")  # the label names the box
    everything = rows(page)
    assert {r["table"] for r in everything} == set(TABLES)
    assert not any(r["hidden"] for r in everything)
    for typed in ("Anthropic", "mistral", "llama 3", "no such model"):
        box.fill(typed)
        shown = rows(page)
        words = typed.lower().split()
        expected = [matches(r["model"], r["name"], words, registry) for r in shown]
        assert [not r["hidden"] for r in shown] == expected, typed
        count = sum(expected)
        status = page.locator(".search-status").text_content()
        assert status == f"{count} of {len(shown)} table rows match", typed
        assert parse_qs(urlsplit(page.url).query)["model"] == [typed]
        if typed == "Anthropic":  # by organisation: Claude models the name never says
            assert count >= 10 and all(
                "claude" in r["name"].lower() for r, keep in zip(shown, expected,
                                                                 strict=True) if keep)
        if typed == "no such model":
            assert count == 0
    # The box fits the screen: no sideways scrolling because of it.
    place = box.bounding_box()
    assert place["x"] >= 0 and place["x"] + place["width"] <= width
    box.fill("mistral")
    photograph(page, f"model-search-{width}.png")
    # A shared link opens the same view; clearing the box shows every row again.
    open_page(page, page.url)
    assert box.input_value() == "mistral"
    assert [not r["hidden"] for r in rows(page)] == [
        matches(r["model"], r["name"], ["mistral"], registry) for r in rows(page)]
    box.fill("")
    assert not any(r["hidden"] for r in rows(page))
    assert "model" not in parse_qs(urlsplit(page.url).query)


def test_an_old_trait_address_takes_the_browser_to_the_new_page(chromium, tiny_root):
    context = chromium.new_context()
    watch = Watch(tiny_root).attach(context)
    page = context.new_page()
    page.goto(tiny_root + "traits/bf731c7f.html")
    page.wait_for_url(tiny_root + "traits/is-more-concise.html", timeout=10_000)
    assert page.locator("h1").text_content() == "is more concise"
    problems = watch.take()
    context.close()
    assert problems == []


def test_without_scripts_there_is_no_search_box_that_does_nothing(chromium, default_root):
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(default_root + "index.html")
    assert page.locator("#model-search").count() == 1
    assert not page.locator("#model-search").is_visible()
    context.close()
