"""Every page kind exists, with what it promises (tiny fixture)."""

from __future__ import annotations

import json
import re

import pytest

from ffsite.progress import Progress
from ffsite.site.build import build_site


@pytest.fixture(scope="module")
def site(tiny_site):
    """The session's tiny site (read only)."""
    return tiny_site


def text(site, page: str) -> str:
    return (site / page).read_text("utf-8")


def test_every_page_kind_exists(site):
    for page in ("index.html", "models/m1.html", "models/m2.html", "datasets.html",
                 "datasets/d.html", "traits.html", "traits/is-more-verbose.html",
                 "traits/is-more-concise.html", "compare.html", "agreement.html",
                 "methodology.html", "about.html", "404.html", "downloads.html",
                 "ratings.html", "communication.html", "pressure.html"):
        html = text(site, page)
        assert html.startswith("<!doctype html>") and "<h1>" in html, page
    # The reference has no row of strengths but a page of its own (saying it is the
    # reference), like every model id.
    assert "is the reference model on d" in text(site, "models/R.html")
    assert list((site / "assets").glob("favicon-*.svg"))
    assert 'rel="icon"' in text(site, "index.html")


def test_every_table_is_published_as_csv_and_json_and_listed(site):
    def names(suffix: str) -> set[str]:  # site-wide files and per-item folders alike
        return {p.relative_to(site / "data").as_posix().removesuffix(suffix)
                for p in (site / "data").rglob("*" + suffix)
                if not p.relative_to(site / "data").as_posix().startswith(
                    ("explore/", "compare/"))}

    csvs, jsons = names(".csv"), names(".json")
    assert csvs == jsons and len(csvs) >= 15
    downloads = text(site, "downloads.html")
    for name in csvs:
        assert f'href="data/{name}.csv"' in downloads and f'href="data/{name}.json"' in downloads


def test_each_data_file_is_linked_from_the_page_that_shows_it(site):
    for page, names in {
        "index.html": ["leaderboard", "model-traits"],
        "models/m1.html": ["models/m1/traits", "models/m1/comparisons", "models/m1/ratings",
                           "models/m1/indices"],
        "ratings.html": ["ratings", "indices"],
        "communication.html": ["communication"],
        "datasets/d.html": ["datasets/d/traits", "datasets/d/by-topic",
                            "datasets/d/annotators", "datasets/d/win-rates"],
        "agreement.html": ["trait-agreement"],
        "traits/is-more-verbose.html": ["traits/is-more-verbose/models",
                                        "traits/is-more-verbose/ratings"],
    }.items():
        html = text(site, page)
        prefix = "../" if "/" in page else ""
        for name in names:
            assert f'href="{prefix}data/{name}.csv"' in html, (page, name)


def test_model_page_has_profile_counts_and_examples(site):
    html = text(site, "models/m1.html")
    assert "Most exhibited" in html and "Least exhibited" in html
    assert html.count('<div class="chart-draw">') == 1 and html.count("<svg") == 2
    # Example pairs: prompt and both responses side by side, with the votes, linked
    # from the trait rows.
    assert "Prompt of c1?" in html or "Prompt of c2?" in html
    assert "<strong>m1</strong>" in html  # the response's Markdown was rendered
    anchors = set(re.findall(r'href="#(ex-\d+)"', html))
    assert anchors and all(f'id="{a}"' in html for a in anchors)
    assert "Preferred" in html


def test_dataset_page_sections(site):
    html = text(site, "datasets/d.html")
    for heading in ("What the preference annotations encourage", "Split by metadata",
                    "Annotator groups", "Win rates", "Encouraged most", "Discouraged most"):
        assert heading in html
    assert "the first annotator" in html  # the annotator's description from the file


def test_compare_page_carries_the_strengths(site):
    html = text(site, "compare.html")
    index = json.loads(re.search(r'<script type="application/json" id="compare-index">(.*?)'
                                 r"</script>", html, re.S).group(1))
    assert index["models"] == ["m1", "m2"]
    (text_section,) = [s for s in index["sections"] if s["unit"] == "strength"]
    assert [index["models"][m] for m in text_section["models"]] == ["m1", "m2"]
    assert text_section["paired"]
    data = json.loads((site / text_section["file"]).read_text("utf-8"))
    labels = [label for label, _ in data["traits"]]
    assert data["value"][1][labels.index("is more verbose")] == -1.0
    assert '<select id="model-a" name="a">' in html


def test_about_credits_sources_and_judges(site):
    html = text(site, "about.html")
    for needle in ("CC BY-NC 4.0", "MIT", "Apache-2.0", "rule-based judge",
                   "AlpacaEval 2.0 judge", "crowdworkers"):
        assert needle in html
    # The judges of this build, read from the files.
    assert re.search(r"<th scope=\"row\">pj2</th><td>preference votes</td>", html)
    assert re.search(r"<th scope=\"row\">j</th><td>trait votes</td>", html)


def test_404_links_through_the_base_url(site):
    html = text(site, "404.html")
    assert '<base href="/ffsite/">' in html and 'href="index.html"' in html


def test_missing_texts_are_reported_once(tmp_path, capsys):
    from site_fixture import REPO, write_content, write_tiny

    write_tiny(tmp_path / "annotations")
    (tmp_path / "nothing-here").mkdir()  # a base-data folder without this dataset's texts
    result = build_site(tmp_path / "annotations", tmp_path / "site",
                        content=write_content(tmp_path / "content"),
                        templates=REPO / "templates", base_data=tmp_path / "nothing-here",
                        progress=Progress(quiet=True))
    assert result.notes == ["examples omitted: base dataset d not available; run ffsite "
                            "fetch or pass --base-data DIR"]
    html = (tmp_path / "site" / "models" / "m1.html").read_text("utf-8")
    assert "Example pairs" not in html and "see example" not in html


def csv_rows(site, name: str) -> list[dict]:
    import csv

    with open(site / "data" / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_communication_traits_page(site):
    rows = {row["model"]: row for row in csv_rows(site, "communication")}
    assert list(next(iter(rows.values())))[:4] == ["model", "responses", "empty", "words"]
    assert float(rows["m1"]["words"]) == 20 and float(rows["m2"]["words"]) == 5
    assert float(rows["m1"]["ends_with_question"]) == 0.25
    html = text(site, "communication.html")
    assert "Ends with a question" in html and "25.0%" in html
    model = text(site, "models/m1.html")
    assert "Communication traits" in model and ">20<" in model  # m1's words beside R's 8


def test_ratings_page_and_model_ratings(site):
    ratings = csv_rows(site, "ratings")
    assert {row["model"] for row in ratings} == {"m1", "m2", "R"}
    for row in ratings:
        assert float(row["ci_low"]) <= float(row["elo"]) <= float(row["ci_high"])
        if row["model"] == "R":
            assert float(row["elo"]) == 1000.0  # the anchor, exactly
    assert csv_rows(site, "indices")
    page = text(site, "ratings.html")
    assert "Index scores" in page
    # The index bounds put every member trait at its Elo bounds at once: a sensitivity
    # range, and the page never calls it a 95% interval.
    cells = page[page.index('id="indices"'):]
    cells = cells[cells.index("<tbody>"):cells.index("</table>")]
    assert "interval" not in cells and "range with every member trait" in cells
    assert "A sensitivity range, not a 95% interval" in page
    model = text(site, "models/m1.html")
    assert "Elo rating per trait" in model and "Index scores" in model
    assert "a sensitivity range, not a 95% interval" in model  # the column's title


def test_downloads_are_grouped_by_page_and_per_item_pages_folded(site):
    """Each table once, under the page that shows it; a model's tables in a <details>
    named after the model (the words its tables' titles share)."""
    downloads = text(site, "downloads.html")
    names = {p.stem for p in (site / "data").glob("*.csv")}
    for name in names:
        assert downloads.count(f'href="data/{name}.csv"') == 1, name
    folded = re.findall(r'<details class="download-page">\s*<summary>(.*?) <span', downloads)
    assert "m1" in folded and folded.count("m1") == 1
    model = downloads[downloads.index("<summary>m1 "):]
    model = model[:model.index("</details>")]
    assert 'href="data/models/m1/traits.csv"' in model and 'href="models/m1.html"' in model
