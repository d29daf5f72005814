"""The Big Five page and model-page panel, from simulated LMLPA ratings (a test fixture,
lmlpa_fixture.py; never in annotations/), and their absence without ratings.

The fixture: the tiny site (m1, m2 against R) plus ratings of every item for m1 and for
a model with ratings only, by a rater whose name needs escaping, in two runs, half the
answers rated again with the options reversed.  Expected numbers are worked out here from
the rows, not read from ffsite.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser import SCHEMES, PagesServer, Watch, open_page
from lmlpa_fixture import keyed, simulated_rows, write_ratings
from site_fixture import REPO, write_content, write_tiny

from ffsite import bfi
from ffsite.site.build import build_site

RATER = 'rater <b>"&"</b>'
ONLY = "lmlpa-only"
TRAITS = ["Openness", "Conscientiousness", "Extraversion", "Agreeableness", "Neuroticism"]


@pytest.fixture(scope="module")
def rows() -> list[tuple]:
    return simulated_rows(models=("m1", ONLY), rater=RATER, seeds=2, reversed_share=0.5)


@pytest.fixture(scope="module")
def site(tmp_path_factory, rows) -> Path:
    root = tmp_path_factory.mktemp("big-five-site")
    write_tiny(root / "annotations")
    write_ratings(root / "annotations", rows)
    content = write_content(root / "content")
    build_site(root / "annotations", root / "site", content=content,
               templates=REPO / "templates")
    return root / "site"


def expected_scores(rows: list[tuple]) -> pd.DataFrame:
    """Per model and trait: the mean over the kept items of each item's mean over runs,
    reverse-keyed items as 6 - score (normal-order ratings only)."""
    frame = pd.DataFrame(rows, columns=["model", "item", "score", "rater", "seed", "order"])
    frame = frame[frame["order"] == "normal"]
    items = {i.id: i for i in bfi.instrument().items}
    frame = frame[~frame["item"].map(lambda q: items[q].dropped)]
    frame["trait"] = frame["item"].map(lambda q: bfi.instrument().trait_names[items[q].trait])
    frame["keyed"] = [6 - s if items[q].reverse_keyed else s
                      for q, s in zip(frame["item"], frame["score"], strict=True)]
    per_item = frame.groupby(["model", "trait", "item"])["keyed"].mean()
    return per_item.groupby(["model", "trait"]).mean().rename("score").reset_index()


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_page_shows_every_score_with_its_interval(site, rows):
    html = (site / "big-five.html").read_text("utf-8")
    published = pd.DataFrame(json.loads((site / "data" / "big-five.json").read_text("utf-8")))
    expected = expected_scores(rows)
    merged = published.merge(expected, on=["model", "trait"], suffixes=("", "_expected"))
    assert len(merged) == len(published) == 10
    assert np.allclose(merged["score"], merged["score_expected"])
    for row in published.itertuples():
        cell = f"{row.score:.2f}"
        interval = f"{row.ci_low:.2f}–{row.ci_high:.2f}"
        assert re.search(re.escape(cell) + r'<span class="ci">' + re.escape(interval), html), \
            (row.model, row.trait)
    text = text_of(html)
    assert f"Rated by {RATER}" in text  # the rater named, escaped in the HTML
    assert RATER not in html and "&lt;b&gt;" in html  # no live tag
    for name in TRAITS:
        assert name in text
    assert "good from 0.8, acceptable from 0.7, questionable from 0.6, poor below 0.6" in text
    assert "LMLPA" in text and "John & Srivastava 1999" in text
    # Every item listed once, the dropped ones said to be dropped.
    for item in bfi.instrument().items:
        assert item.text in text
    assert text.count("dropped in the final version") == 4


def test_alpha_and_kappa_on_the_page_match_an_independent_computation(site, rows):
    from sklearn.metrics import cohen_kappa_score

    published = pd.DataFrame(json.loads((site / "data" / "big-five.json").read_text("utf-8")))
    frame = pd.DataFrame(rows, columns=["model", "item", "score", "rater", "seed", "order"])
    items = {i.id: i for i in bfi.instrument().items}
    text = text_of((site / "big-five.html").read_text("utf-8"))
    for model, own in frame.groupby("model"):
        own = own[~own["item"].map(lambda q: items[q].dropped)]
        pairs = own[own["order"] == "normal"].merge(own[own["order"] == "reversed"],
                                                    on=["item", "seed"])
        # On the trait's scale: each stored score keyed by the BFI-44 key.
        kappa = cohen_kappa_score(
            [keyed(q, x) for q, x in zip(pairs["item"], pairs["score_x"], strict=True)],
            [keyed(q, y) for q, y in zip(pairs["item"], pairs["score_y"], strict=True)],
            weights="linear", labels=[1, 2, 3, 4, 5])
        mine = published[published["model"] == model].iloc[0]
        assert mine["order_kappa"] == pytest.approx(kappa)
        assert mine["order_pairs"] == len(pairs)
        assert f"{model} {kappa:.2f} {len(pairs)}" in text
    # Alpha across the two models, from the covariance matrix of the keyed item means.
    normal = frame[(frame["order"] == "normal")
                   & ~frame["item"].map(lambda q: items[q].dropped)].copy()
    normal["keyed"] = [6 - s if items[q].reverse_keyed else s
                       for q, s in zip(normal["item"], normal["score"], strict=True)]
    for trait, name in bfi.instrument().trait_names.items():
        matrix = normal[normal["item"].map(lambda q, t=trait: items[q].trait == t)].pivot_table(
            index="model", columns="item", values="keyed", aggfunc="mean").to_numpy()
        cov = np.cov(matrix, rowvar=False)
        k = cov.shape[0]
        alpha = k / (k - 1) * (1 - np.trace(cov) / cov.sum())
        got = published.loc[published["trait"] == name, "alpha"].to_numpy()
        assert got == pytest.approx(alpha)
        word = ("good" if alpha >= 0.8 else "acceptable" if alpha >= 0.7 else
                "questionable" if alpha >= 0.6 else "poor")
        assert re.search(rf"{name} [−-]?[\d.]+ {word} 2 models", text), (name, alpha, word)


def test_model_pages_get_the_panel_only_with_ratings(site):
    for model in ("m1", ONLY):
        html = (site / "models" / f"{model}.html").read_text("utf-8")
        assert 'id="big-five"' in html and 'href="#big-five"' in html
        text = text_of(html)
        assert f"Rater: {RATER}" in text
        assert all(name in text for name in TRAITS)
        assert 'href="../big-five.html"' in html
    for model in ("m2", "R"):
        html = (site / "models" / f"{model}.html").read_text("utf-8")
        assert 'id="big-five"' not in html
    # Every page's navigation links to the Big Five page.
    assert 'href="big-five.html">Big Five</a>' in (site / "index.html").read_text("utf-8")
    # The items are no scored traits of their own: no trait page, no trait-table row.
    traits = json.loads((site / "data" / "traits.json").read_text("utf-8"))
    assert not any(str(t.get("trait_id", "")).startswith("bfi-") for t in traits)
    pages = [p for p in (site / "traits").glob("*.html")  # (old addresses redirect)
             if 'http-equiv="refresh"' not in p.read_text("utf-8")]
    assert len(pages) == 2


def test_no_ratings_no_page_no_panel_no_numbers(tiny_site):
    assert not (tiny_site / "big-five.html").exists()
    assert not (tiny_site / "data" / "big-five.json").exists()
    for page in [tiny_site / "index.html", *sorted((tiny_site / "models").glob("*.html"))]:
        html = page.read_text("utf-8")
        assert "big-five" not in html and "Big Five" not in html, page


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [390, 1440])
def test_big_five_pages_in_chromium(chromium, site, scheme, width):
    server = PagesServer(site)
    context = chromium.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    watch = Watch(server.root).attach(context)
    page = context.new_page()
    try:
        for path in ("big-five.html", "models/m1.html", f"models/{ONLY}.html"):
            open_page(page, server.root + path)
            facts = page.evaluate("""() => ({
              width: document.documentElement.scrollWidth,
              intervals: [...document.querySelectorAll(
                  'table[id^="big-five"] .ci, #big-five .ci')].map(ci => {
                const r = ci.getBoundingClientRect();
                return {text: ci.textContent, shown: r.width > 0 && r.height > 0}; }),
              cells: [...document.querySelectorAll('main td, main th')].filter(
                c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.trim()),
              text: getComputedStyle(document.body).color,
              background: getComputedStyle(document.documentElement).backgroundColor,
            })""")
            where = (path, scheme, width)
            assert watch.take() == [], where
            assert facts["width"] <= width, where  # wide tables scroll in their wrapper
            assert facts["cells"] == [], where
            assert len(facts["intervals"]) >= 5 and all(i["shown"] for i in facts["intervals"])
            assert all(re.fullmatch(r"\d\.\d\d–\d\.\d\d", i["text"]) for i in facts["intervals"])
            assert facts["text"] != facts["background"], where
            dark = sum(int(v) for v in re.findall(r"\d+", facts["background"])[:3]) < 300
            assert dark == (scheme == "dark"), where
    finally:
        context.close()
        server.close()


def test_same_ratings_same_bytes(tmp_path, site, rows):
    """A second build of the same inputs writes the Big Five files byte for byte again."""
    root = tmp_path / "again"
    write_tiny(root / "annotations")
    write_ratings(root / "annotations", rows)
    build_site(root / "annotations", root / "site", content=write_content(root / "content"),
               templates=REPO / "templates")
    for name in ("big-five.html", "data/big-five.json", "data/big-five.csv", "models/m1.html",
                 f"models/{ONLY}.html"):
        assert (root / "site" / name).read_bytes() == (site / name).read_bytes(), name
