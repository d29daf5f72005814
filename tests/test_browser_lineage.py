"""Lineage on the default site, in real Chromium: every family with three or more
releases in the judged data has a lineage page that reads on a phone and a desktop,
light and dark (its chart drawn, nothing wider than the screen but tables that scroll),
the lineage index shows its largest shift whole in the first screen, and every one of
its releases' model pages links its earlier and later versions, links that lead to those
versions' pages."""

from __future__ import annotations

import json
import re
import tomllib
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import SCHEMES, Watch, open_page, photograph

REPO = Path(__file__).resolve().parents[1]
WIDTHS = (390, 1440)


def judged_families(site: Path) -> dict[str, list[str]]:
    """{family: its releases with numbers in the judged data}, with three or more:
    families from the registry itself, judged datasets those the lineage download has
    numbers of, a release counted when the registry gives it a name in one of them."""
    registry = tomllib.loads((REPO / "content" / "models.toml").read_text("utf-8"))
    releases = json.loads((site / "data" / "lineage-releases.json").read_text("utf-8"))
    judged = {row["dataset"] for row in releases}
    found = defaultdict(list)
    for entry in registry["models"]:
        if "family" in entry and judged & set(entry.get("aliases", {})):
            found[entry["family"]].append(entry["id"])
    return {family: ids for family, ids in found.items() if len(ids) >= 3}


def family_sizes() -> dict[str, int]:
    """{family: its entries in the registry, in any dataset}."""
    registry = tomllib.loads((REPO / "content" / "models.toml").read_text("utf-8"))
    sizes: dict[str, int] = defaultdict(int)
    for entry in registry["models"]:
        if "family" in entry:
            sizes[entry["family"]] += 1
    return sizes


def test_the_default_site_has_the_families_the_issue_names(default_site):
    families = judged_families(default_site)
    assert len(families) >= 15
    for family in ("Claude Sonnet", "Claude Opus", "Claude Haiku", "Gemini Pro", "GPT-5"):
        assert family in families


PAGE = r"""() => ({
  h1: document.querySelector('h1').textContent,
  wide: document.scrollingElement.scrollWidth - window.innerWidth,
  charts: [...document.querySelectorAll('.chart')].map(c => c.querySelector('svg') !== null),
  tables: document.querySelectorAll('table.data').length,
})"""


# lineage.html's first shift between releases: the change cell (number and interval) and
# the caption of its table, which names the dataset and judge.
FIRST_SHIFT = r"""() => {
  const table = document.querySelector('table[id^="release-shifts-"]');
  const change = table.querySelector('tbody td .ci').closest('td');
  const bottom = el => Math.round(el.getBoundingClientRect().bottom + window.scrollY);
  return {change: bottom(change), right: change.getBoundingClientRect().right,
          text: change.textContent.trim(), caption: table.caption.textContent.trim(),
          captionBottom: bottom(table.caption)};
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_every_families_lineage_page_reads(chromium, default_site, default_root, width,
                                           scheme):
    index = (default_site / "lineage.html").read_text("utf-8")
    links = dict(re.findall(r'<th scope="row"><a href="(lineage/[^"]+)">([^<]+)</a>', index))
    pages = {name: href for href, name in links.items()}
    context = chromium.new_context(viewport={"width": width, "height": 844},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        # The index answers first: its largest shift, judge named above it, is whole in
        # the first screen (844 px), on a phone as on a desktop.
        open_page(page, default_root + "lineage.html")
        first = page.evaluate(FIRST_SHIFT)
        assert re.match(r"[▲▼] [+-]\d", first["text"]), first
        assert ", judged by " in first["caption"], first
        assert first["captionBottom"] < first["change"] <= 844, first
        assert first["right"] <= width, first
        photograph(page, f"lineage-index-{width}-{scheme}.png")
        for family in sorted(judged_families(default_site)):
            assert family in pages, f"{family}: no lineage page"
            open_page(page, default_root + pages[family])
            facts = page.evaluate(PAGE)
            assert facts["h1"].startswith(family), family
            assert facts["charts"] and all(facts["charts"]), family
            assert facts["tables"] >= 3, family  # releases, then changes and numbers
            assert facts["wide"] <= 0, f"{family}: the page scrolls sideways"
            if family == "Claude Sonnet":
                photograph(page, f"lineage-{width}-{scheme}.png")
        assert watch.take() == []
    finally:
        context.close()


class _Versions(HTMLParser):
    """The items of a model page's version list (ol.versions in #versions): each item's
    text, the href of its link (None: no link) and whether it is the page's own (a
    <strong>)."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[dict] = []
        self._in_list = self._in_item = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        found = dict(attrs)
        if tag == "ol" and "versions" in (found.get("class") or "").split():
            self._in_list = True
        elif self._in_list and tag == "li":
            self._in_item = True
            self.items.append({"text": "", "links": [], "own": False})
        elif self._in_item and tag == "a":
            self.items[-1]["links"].append(found.get("href"))
        elif self._in_item and tag == "strong":
            self.items[-1]["own"] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "li":
            self._in_item = False
        elif tag == "ol":
            self._in_list = False

    def handle_data(self, data: str) -> None:
        if self._in_item:
            self.items[-1]["text"] += data


def version_items(page: Path) -> list[dict]:
    parser = _Versions()
    parser.feed(page.read_text("utf-8"))
    return [{**item, "text": " ".join(item["text"].split())} for item in parser.items]


def test_every_release_links_its_earlier_and_later_versions(chromium, default_site,
                                                            default_root):
    """Every release's page lists the family's versions and links each other one, to a
    page that exists (read from the pages' HTML: no script touches the list); a click on
    one link per family, in Chromium, lands on that version's page."""
    sizes = family_sizes()
    families = judged_families(default_site)
    for family, members in sorted(families.items()):
        # The order the pages give, read from the first release's page: every other
        # release's page lists the same versions, in the same order.
        listed = [item["text"].split(" ")[0] for item in version_items(
            default_site / "models" / f"{members[0]}.html")]
        assert len(listed) == sizes[family], family
        for model in members:
            page = default_site / "models" / f"{model}.html"
            items = version_items(page)
            assert [item["text"].split(" ")[0] for item in items] == listed, model
            assert [item["own"] for item in items].count(True) == 1, model
            for item in items:
                if item["own"]:
                    assert item["links"] == [], model
                    continue
                assert len(item["links"]) == 1, f"{model}: no link to {item['text']}"
                assert (page.parent / item["links"][0]).resolve().is_file(), item
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for family, members in sorted(families.items()):
            # Follow one link to another version and land on its page.
            open_page(page, f"{default_root}models/{members[0]}.html")
            assert page.locator("#versions ol.versions li").count() == sizes[family]
            later = page.locator("#versions ol.versions li a").first
            name = later.inner_text()
            later.click()
            page.wait_for_load_state("load")
            assert page.locator("h1").inner_text() == name, family
        assert watch.take() == []
    finally:
        context.close()
