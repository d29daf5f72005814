"""The lineage pages, a model page's versions and the home page's largest shifts, on a
small site whose every number is worked out by hand."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pandas as pd
import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite.format import write_scores
from ffsite.models import Registry, load_registry
from ffsite.site import judging
from ffsite.site.build import build_site
from ffsite.site.pages.lineage import releases_marks

REGISTRY = """
[[models]]
id = "a1"
name = "Line One"
released = "2024-01"
family = "Line <A>"

[[models]]
id = "a2"
name = "Line Two"
released = "2024-06-01"
family = "Line <A>"
predecessor = "a1"

[[models]]
id = "a3"
name = "Line Three"
family = "Line <A>"
predecessor = "a2"
"""
# Warmth on four prompts: a2 is a1 + 2 on every prompt (a paired change of exactly +2);
# a3 is a2 +1, -1, +1, -1 (a change of 0 whose paired interval spans -1 to +1); x has no
# family.  a3 has no date: it comes after its predecessor a2.
SCORES = {"a1": (3, 5, 4, 6), "a2": (5, 7, 6, 8), "a3": (6, 6, 7, 7), "x": (1, 9, 2, 8)}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lineage")
    annotations = root / "annotations"
    write_tiny(annotations)
    rows = [{"dataset": "bp", "response_id": f"{m}/p{k}", "prompt_id": f"p{k}", "model": m,
             "condition": "baseline", "judge": "J", "trait_id": "bp-warm",
             "trait": "Warmth: 1 cold; 10 warm", "trait_set": "bp", "scale_min": 1,
             "scale_max": 10, "seed": None, "score": float(score)}
            for m, scores in SCORES.items() for k, score in enumerate(scores)]
    write_scores(pd.DataFrame(rows), annotations / "scores.parquet")
    content = write_content(root / "content", rating_resamples=300)
    (content / "models.toml").write_text(REGISTRY, "utf-8")
    build_site(annotations, root / "site", content=content, templates=REPO / "templates")
    return root / "site"


def cells(html: str, table_id: str) -> list[list[str]]:
    """Each row's visible cell texts ('value | interval' where an interval shows)."""
    table = re.search(rf'<table class="data sortable" id="{re.escape(table_id)}">(.*?)'
                      "</table>", html, re.S).group(1)
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        found = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)
        rows.append([unescape(re.sub(r"<[^>]+>", "", re.sub(
            r'<span class="ci">(.*?)</span>', r" | \1", c))).strip() for c in found])
    return rows


def test_the_family_page_by_hand(site):
    html = (site / "lineage" / "line-a.html").read_text("utf-8")
    assert "<h1>Line &lt;A&gt;: personality across releases</h1>" in html  # escaped
    assert cells(html, "releases")[1:] == [
        ["1", "Line One", "2024-01", "–"], ["2", "Line Two", "2024-06-01", "Line One"],
        ["3", "Line Three", "unknown", "Line Two"]]
    changes = cells(html, "changes-bp")
    assert changes[0][1:] == ["→ Line Two", "→ Line Three"]
    # +2 on every prompt: every resample gives +2, so the interval is [2, 2]: real.
    # a3 - a2: +1, -1, +1, -1 averages 0; resampled means run from -1 to +1: not real.
    assert changes[1][0] == "Warmth" and changes[1][1] == "▲ +2.00 | +2.00 to +2.00"
    value, interval = changes[1][2].split(" | ")
    assert value == "+0.00" and interval.startswith("-") and " to +" in interval
    assert 'class="hp2"' in html  # the real change is coloured
    assert cells(html, "values-bp")[1][1].startswith("4.50 | ")  # a1: (3+5+4+6)/4
    assert "paired intervals" in html and 'id="lineage-bp-j"' in html


def test_the_lineage_index_and_download(site):
    html = (site / "lineage.html").read_text("utf-8")
    assert cells(html, "families")[1] == ["Line <A>", "3", "bp", "1"]
    assert 'href="lineage/line-a.html"' in html
    changes = json.loads((site / "data" / "lineage-changes.json").read_text("utf-8"))
    assert [(c["earlier"], c["later"], c["method"], c["real"]) for c in changes] == [
        ("a1", "a2", "paired bootstrap", True), ("a2", "a3", "paired bootstrap", False)]
    assert changes[0]["change"] == 2.0 and changes[0]["ci_low"] == changes[0]["ci_high"]


def test_a_model_page_links_its_versions_with_each_change(site):
    html = (site / "models" / "a2.html").read_text("utf-8")
    versions = html[html.index('id="versions"'):]
    assert 'href="#versions"' in html  # listed among the page's sections
    assert re.findall(r'<li>(.*?)</li>', versions.split("</ol>")[0]) == [
        '<a href="../models/a1.html">Line One</a> <span class="date">2024-01</span>',
        '<strong aria-current="true">Line Two</strong> (this page) '
        '<span class="date">2024-06-01</span>',
        '<a href="../models/a3.html">Line Three</a> <span class="date">undated</span>']
    assert 'it replaced <a href="../models/a1.html">Line One</a>' in versions
    assert 'replaced by <a href="../models/a3.html">Line Three</a>' in versions
    table = cells(html, "versions-bp-j")
    assert table[0][1:] == ["Since Line One", "To Line Three"]
    assert table[1][:2] == ["Warmth", "▲ +2.00 | +2.00 to +2.00"]
    assert table[1][2].startswith("+0.00 | -")
    # x has no family: no versions section.
    assert 'id="versions"' not in (site / "models" / "x.html").read_text("utf-8")


@pytest.mark.parametrize("page", ["index.html", "lineage.html"])
def test_the_home_and_lineage_pages_list_only_real_shifts(site, page):
    html = (site / page).read_text("utf-8")
    # One table per dataset and judge, named above its numbers.
    assert re.findall(r'<table[^>]* id="(release-shifts-[^"]*)"', html) == ["release-shifts-bp-j"]
    assert "bp, judged by J" in unescape(re.sub(r"<[^>]+>", "", html))
    rows = cells(html, "release-shifts-bp-j")
    assert rows[1:] == [["Line <A>", "Warmth", "▲ +2.00 | +2.00 to +2.00", "4.50 → 6.50",
                         "Line One → Line Two"]]
    assert "▲/▼: a real change, its 95% interval excluding 0." in html


class _Marked:
    """Just what `releases_marks` reads of a SiteContext: the registry's names and the
    prepared maps of judges, judges' variants, contributions and answer marks."""

    def __init__(self, registry: Registry, prepared: dict) -> None:
        self.registry, self._prepared = registry, prepared

    def prepared(self, prepare):
        return self._prepared.get(prepare, {})


def test_a_shift_marks_a_release_that_judged_its_dataset(tmp_path):
    # a2 is one of Behavioral Profiling's judges (as DeepSeek-R1 is there), a3 a variant
    # of one: the "From → to" cell of a change between them says both, by name.
    (tmp_path / "models.toml").write_text(REGISTRY, "utf-8")
    ctx = _Marked(load_registry(tmp_path), {
        judging.self_judges: {("behavioral_profiling", "a2"): "DeepSeek-R1"},
        judging.variant_judges: {("behavioral_profiling", "a3"): ("DeepSeek-R1", "a2")}})
    marks = releases_marks(ctx, "behavioral_profiling", ("a2", "a3"))
    assert marks["badge"] == "judge · judge's variant"
    assert marks["badge_title"].startswith(
        "Line Two: this model is one of the judges of Behavioral Profiling (DeepSeek-R1): "
        "it scored its own answers too; Line Three: ")
    assert "judge" not in releases_marks(ctx, "behavioral_profiling", ("a1",))
    assert releases_marks(ctx, "llm_dreams", ("a2", "a3")) == {}  # judges of another
