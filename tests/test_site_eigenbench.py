"""The EigenBench pages, built from the tiny site plus a TEST FIXTURE of simulated judgments
(eigenbench_fixture.py; never real data): pages, navigation, downloads; in real Chromium
on a phone and a desktop, light and dark. Without judgments: no page, no nav entry."""

from __future__ import annotations

import json
import re
from pathlib import Path

import eigenbench_fixture as fixture
import numpy as np
import pandas as pd
import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite._names import safe_name
from ffsite.format.read import read_annotations
from ffsite.metrics import eigenbench as eb
from ffsite.site.build import build_site

N_MODELS = 6
PAGE = f"eigenbench/{safe_name(fixture.CONSTITUTION)}.html"
SLUG = safe_name(fixture.CONSTITUTION)
PHONE, DESKTOP = 390, 1440
REFITS = 60  # the site's `eigenbench_resamples` (200 by default)


@pytest.fixture(scope="module")
def eigen_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("eigen-site")
    annotations = root / "annotations"
    write_tiny(annotations)
    fixture.write_simulated_votes(annotations, fixture.truth(N_MODELS, 2, seed=31), 600,
                                  seed=32)
    content = write_content(root / "content", eigenbench_resamples=REFITS)
    build_site(annotations, root / "site", content=content, templates=REPO / "templates")
    return root / "site"


def nav_labels(html: str) -> list[str]:
    nav = re.search(r"<nav.*?</nav>", html, re.S).group(0)
    return re.findall(r">([^<>]+)</a>", nav)


def test_pages_and_nav_entry_exist_with_judgments(eigen_site):
    assert (eigen_site / "eigenbench.html").is_file()
    page = (eigen_site / PAGE).read_text("utf-8")
    assert "EigenBench" in nav_labels((eigen_site / "index.html").read_text("utf-8"))
    assert "EigenBench" in nav_labels(page)
    assert page.count('<tr') >= 1 + N_MODELS  # ratings header and a row per model
    for name in fixture.names(N_MODELS):
        assert name in page
    overview = (eigen_site / "eigenbench.html").read_text("utf-8")
    assert f'href="{PAGE}"' in overview


def test_the_dataset_page_of_the_judgments_links_the_constitution(eigen_site):
    page = eigen_site / "datasets" / f"{safe_name(fixture.DATASET)}.html"
    html = page.read_text("utf-8")
    assert "These comparisons hold EigenBench judgments" in html
    assert f'<a href="../{PAGE}">{fixture.CONSTITUTION}</a>' in html
    # The other datasets hold none.
    assert "EigenBench judgments" not in (eigen_site / "datasets" / "d.html").read_text()


def test_published_ratings_are_the_fit_of_the_judgments(eigen_site):
    ratings = pd.read_csv(eigen_site / "data" / f"eigenbench/{SLUG}/ratings.csv")
    assert list(ratings.columns) == ["constitution", "model", "elo", "ci_low", "ci_high",
                                     "trust", "rank", "rank_low", "rank_high"]
    # The rank, counted by hand: the place by Elo (1 + the models rated higher), inside
    # its 95% range (test_eigenbench_pages.py rebuilds the ranges from the refits).
    for row in ratings.itertuples():
        assert row.rank == 1 + sum(other.elo > row.elo for other in ratings.itertuples())
        assert row.rank_low <= row.rank <= row.rank_high
    judgments = eb.judgments_from_annotations(
        read_annotations([eigen_site.parent / "annotations"]), fixture.CONSTITUTION)
    direct = eb.eigenbench(judgments, n_bootstrap=REFITS, seed=0)
    np.testing.assert_allclose(ratings["elo"], direct.ratings["elo"], rtol=1e-12)
    # The intervals are those of the site's REFITS refits, and the page says how many.
    np.testing.assert_allclose(ratings[["ci_low", "ci_high"]],
                               direct.ratings[["ci_low", "ci_high"]], rtol=1e-9)
    assert eb.eigenbench(judgments, n_bootstrap=200, seed=0).ratings["ci_low"].tolist() != \
        ratings["ci_low"].tolist()
    assert f"Intervals: 95%, from {REFITS} refits" in (eigen_site / PAGE).read_text("utf-8")
    assert np.sum(10 ** ((ratings["elo"] - 1500) / 400)) == pytest.approx(N_MODELS)
    # every rating's interval is in its cell, rounded as shown
    page = (eigen_site / PAGE).read_text("utf-8")
    for row in ratings.itertuples():
        assert f"{row.ci_low:.0f}–{row.ci_high:.0f}" in page


def test_the_overview_leads_with_the_highest_rated_and_its_interval(eigen_site):
    ratings = pd.read_csv(eigen_site / "data" / f"eigenbench/{SLUG}/ratings.csv")
    top = ratings.iloc[0]
    # Counted from the download: the models whose 95% rank range reaches first place.
    first = int((ratings["rank_low"] == 1).sum())
    summary = pd.read_csv(eigen_site / "data" / "eigenbench.csv").iloc[0]
    assert (summary["top_model"], summary["top_elo"], summary["top_ci_low"],
            summary["top_ci_high"], summary["could_be_first"]) == (
        top["model"], top["elo"], top["ci_low"], top["ci_high"], first)
    html = (eigen_site / "eigenbench.html").read_text("utf-8")
    row = re.search(rf'<tr[^>]*><th scope="row"><a href="{PAGE}">.*?</tr>', html, re.S).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    note = "alone first" if first == 1 else f"{first} of {N_MODELS} could be first"
    assert f'{top["model"]}</a><span class="ci">{note}</span>' in cells[0]
    assert cells[1] == f'{top["elo"]:.0f}<span class="ci">{top["ci_low"]:.0f}–' \
                       f'{top["ci_high"]:.0f}</span>'
    # The table comes before the method text: the answer first.
    assert html.index('id="eigenbench-constitutions"') < html.index('id="how"')


def test_model_pages_carry_the_eigenbench_rating(eigen_site):
    ratings = pd.read_csv(eigen_site / "data" / f"eigenbench/{SLUG}/ratings.csv")
    judges = pd.read_csv(eigen_site / "data" / f"eigenbench/{SLUG}/judges.csv")
    for row in ratings.itertuples():
        slug = safe_name(row.model)
        html = (eigen_site / "models" / f"{slug}.html").read_text("utf-8")
        assert 'id="eigenbench"' in html and f'href="../{PAGE}"' in html
        own = pd.read_csv(eigen_site / "data" / "models" / slug / "eigenbench.csv")
        assert own["constitution"].tolist() == [fixture.CONSTITUTION]
        mine = own.iloc[0]
        assert (mine["elo"], mine["ci_low"], mine["ci_high"], mine["rank"]) == (
            row.elo, row.ci_low, row.ci_high, row.rank)
        judge = judges[judges["judge"] == row.model].iloc[0]
        assert mine["self_preference"] == judge["self_preference"]
        assert f"{row.rank} of {N_MODELS}" in html
        assert f"<dt>Name in {fixture.DATASET}</dt>" in html  # the header names its dataset
        # Not also rated as a dataset of judged pairs (plain Bradley-Terry over the
        # pooled judges would ignore the both-orders rule and the trust weighting).
        assert "Elo and strength per criterion" not in html


def test_trust_heatmap_and_downloads(eigen_site):
    page = (eigen_site / PAGE).read_text("utf-8")
    # Drawn at build time: a wide and a phone drawing of one chart, no spec to fetch.
    figure = re.search(r'<div class="chart"[^>]*id="trust-chart".*?</figure>', page, re.S)
    assert figure and figure.group(0).count("<svg") == 2
    trust = pd.read_csv(eigen_site / "data" / f"eigenbench/{SLUG}/trust.csv")
    assert len(trust) == N_MODELS ** 2
    assert trust.groupby("judge")["trust"].sum().to_numpy() == pytest.approx(
        np.ones(N_MODELS))
    np.testing.assert_allclose(trust["relative"], trust["trust"] * N_MODELS)
    judges = pd.read_csv(eigen_site / "data" / f"eigenbench/{SLUG}/judges.csv")
    assert {"self_elo", "others_elo", "self_preference", "agreement",
            "lens_distance", "trust_distance"} <= set(judges.columns)
    for name in ("vectors", "held-out"):
        assert (eigen_site / "data" / f"eigenbench/{SLUG}/{name}.json").is_file()
    downloads = (eigen_site / "downloads.html").read_text("utf-8")
    assert f"eigenbench/{SLUG}/ratings.csv" in downloads


def test_no_judgments_no_page_and_no_nav_entry(tiny_site):
    assert not (tiny_site / "eigenbench.html").exists()
    assert not (tiny_site / "eigenbench").exists()
    assert "EigenBench" not in nav_labels((tiny_site / "index.html").read_text("utf-8"))
    assert not list((tiny_site / "data").glob("eigenbench*"))


def test_the_default_annotations_hold_no_eigenbench_votes():
    # The default site's EigenBench pages come from llm-dreams' scores (derived
    # judgments, tests/test_eigenbench_llm_dreams.py), not from votes asked as pairs.
    found = eb.constitutions(read_annotations([REPO / "annotations"]))
    assert found.empty


LAYOUT = """() => ({
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    // the drawing on screen: its cells, counted as outlines (cells of one colour are
    // drawn as one path of several outlines)
    marks: [...document.querySelectorAll('.chart')].map(
        c => [...c.querySelectorAll('svg g.role-mark > *')].filter(
            m => m.getClientRects().length > 0).map(
            m => ((m.getAttribute('d') || 'M').match(/M/g) || []).length).reduce(
            (a, b) => a + b, 0)),
    background: getComputedStyle(document.documentElement).backgroundColor,
    intervals: [...document.querySelectorAll('#eigenbench-ratings tbody .ci')].length,
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_in_chromium_phone_and_desktop(chromium, eigen_site, scheme):
    from browser import PagesServer, Watch, open_page

    server = PagesServer(eigen_site)
    context = chromium.new_context(color_scheme=scheme)
    watch = Watch(server.root).attach(context)
    try:
        page = context.new_page()
        seen = {}
        for width in (PHONE, DESKTOP):
            page.set_viewport_size({"width": width, "height": 900})
            for path in ("eigenbench.html", PAGE):
                open_page(page, server.root + path)
                seen[(width, path)] = page.evaluate(LAYOUT)
        assert watch.take() == []
    finally:
        context.close()
        server.close()
    for (width, path), facts in seen.items():
        assert facts["overflow"] <= 0, (width, path, facts)
        if path == PAGE:
            assert facts["marks"] == [N_MODELS ** 2]
            assert facts["intervals"] == 2 * N_MODELS  # each Elo's interval, each rank's range
    dark = seen[(PHONE, PAGE)]["background"]
    assert (dark != "rgb(255, 255, 255)") == (scheme == "dark")


def test_a_rebuild_gives_byte_identical_eigenbench_files(eigen_site, tmp_path):
    root = eigen_site.parent
    build_site(root / "annotations", tmp_path / "again", content=root / "content",
               templates=REPO / "templates")
    produced = sorted(p.relative_to(eigen_site) for p in [
        *eigen_site.glob("eigenbench*"), *eigen_site.glob("eigenbench/*"),
        *(eigen_site / "data").glob("eigenbench*"),
        *(eigen_site / "data").rglob("eigenbench/*/*")] if p.is_file())
    assert len(produced) >= 2 + 2 * 6  # two pages, six tables as CSV and JSON
    for path in produced:
        assert (tmp_path / "again" / path).read_bytes() == (eigen_site / path).read_bytes()


def test_hostile_names_are_escaped(tmp_path):
    from ffsite.format.write import write_votes

    hostile = {"sim-model-00": "<script>alert(1)</script>", "sim-model-01": '"><img src=x>',
               "sim-model-02": "../../etc/passwd"}
    frame = fixture.vote_frame(fixture.truth(4, 2, seed=41), 300, seed=42)
    for column in ("model_a", "model_b", "judge"):
        frame[column] = frame[column].replace(hostile)
    frame["trait_set"] = "<b>kind</b> & co"
    annotations = tmp_path / "annotations"
    write_tiny(annotations)
    write_votes(frame, annotations / "hostile.parquet")
    site = tmp_path / "site"
    build_site(annotations, site, content=write_content(tmp_path / "content"),
               templates=REPO / "templates")
    pages = [p for p in (site / "eigenbench").glob("*.html")]
    assert len(pages) == 1 and pages[0].resolve().parent == (site / "eigenbench").resolve()
    for page in (pages[0], site / "eigenbench.html"):
        html = page.read_text("utf-8")
        assert "<script>alert" not in html and "<img src=x>" not in html
        assert "<b>kind</b>" not in html
        assert "&lt;b&gt;kind&lt;/b&gt; &amp; co" in html
    ratings = next((site / "data").glob("eigenbench/*/ratings.json"))
    assert set(hostile.values()) <= {row["model"] for row in json.loads(ratings.read_text())}


def test_trust_heatmap_draws_every_cell_of_extreme_trust():
    """A judge that all but never prefers a model (trust 10^-12, which the chart's four
    decimals would round to 0 on a log scale) still gets its cell: colours saturate."""
    from ffsite.site import charts, drawings

    trust = (1e-12, 0.5, 0.5 - 1e-12)
    frame = pd.DataFrame([{"judge": judge, "model": model, "trust": t, "relative": 3 * t}
                          for judge in "abc" for model, t in zip("abc", trust, strict=True)])
    svg = drawings.draw(charts.trust_heatmap(frame, list("abc"), "test"), drawings.WIDE)
    cells = re.search(r'<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)</g>', svg, re.S)
    assert cells is not None  # cells of one colour are one path: count their outlines
    assert sum(d.count("Z") for d in re.findall(r' d="([^"]*)"', cells.group(1))) == 9
