"""Issue 14, item 6 and reading problems: model metadata in tables, readable trait page
names (and the old ones redirecting), one archive of every download, a description and
link-preview tags on every page, plain-words preferences and run summaries."""

from __future__ import annotations

import io
import re
import zipfile
from html import unescape
from pathlib import Path

import pytest
from helpers import write_test_votes
from hostile_fixture import LABEL
from site_fixture import CONCISE, REPO, VERBOSE, build_tiny, write_content, write_tiny

from ffsite.format import schema
from ffsite.site.archive import write_archive
from ffsite.site.build import build_site
from ffsite.site.examples import preference_wording
from ffsite.site.pages.model_runs import flatten
from ffsite.site.urls import trait_slugs, wording_slug

META = re.compile(r'<meta (?:name|property)="([^"]+)" content="([^"]*)">')


def meta_of(html: str) -> dict[str, str]:
    return {key: unescape(value) for key, value in META.findall(html)}


def pages_of(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text("utf-8")
            for p in sorted(site.rglob("*.html"))}


def is_redirect(html: str) -> bool:
    return 'http-equiv="refresh"' in html


# ------------------------------------------------------------------ trait page names

def test_trait_page_names_are_the_wording_in_safe_characters():
    assert wording_slug("is more verbose") == "is-more-verbose"
    assert wording_slug("Uses more personal pronouns (I, we, you)") == \
        "uses-more-personal-pronouns-i-we-you"
    assert wording_slug("Émotion   ñ") == "emotion-n"  # accents dropped, not the letters
    assert wording_slug("日本語 !!") == ""  # nothing readable left
    # The hostile fixture's wording: tags and quotes are words like any other, and the
    # 63-character result is cut back to 60 at the last whole word.
    assert LABEL.startswith("is <b onclick")
    assert wording_slug(LABEL) == "is-b-onclick-alert-1-evil-b-quoted-script-window-pwned-1"


def test_clashing_wordings_get_their_ids_whatever_the_order():
    traits = {"bp-warmth": "Warmth", "eq-warmth": "warmth!", "t3": "is more verbose",
              "t4": "日本語"}
    named = trait_slugs(traits)
    assert named == trait_slugs(dict(reversed(traits.items())))  # order never matters
    assert named["bp-warmth"] == "warmth-bp-warmth" and named["eq-warmth"] == \
        "warmth-eq-warmth"
    assert named["t3"] == "is-more-verbose"
    assert re.fullmatch(r"trait-[0-9a-f]{8}", named["t4"])
    assert len({n.lower() for n in named.values()}) == len(named)


def test_hostile_trait_pages_have_safe_names(hostile_site):
    names = [p.name for p in (hostile_site / "traits").iterdir()]
    assert names
    for name in names:
        html = (hostile_site / "traits" / name).read_text("utf-8")
        pattern = r"[A-Za-z0-9._-]+\.html" if is_redirect(html) else r"[a-z0-9-]+\.html"
        assert re.fullmatch(pattern, name), name
    assert "is-b-onclick-alert-1-evil-b-quoted-script-window-pwned-1.html" in names


# ------------------------------------------------------------- descriptions, previews

@pytest.fixture(scope="module")
def absolute_site(tmp_path_factory) -> Path:
    """The tiny site published at an absolute address (so pages know their own URL)."""
    return build_tiny(tmp_path_factory.mktemp("absolute"),
                      base_url="https://example.org/ffsite/")


def test_every_page_has_its_own_description_and_preview(absolute_site):
    pages = pages_of(absolute_site)
    descriptions = {}
    for path, html in pages.items():
        meta = meta_of(html)
        assert meta["description"].strip(), path
        if is_redirect(html):
            continue
        title = unescape(re.search(r"<title>(.*?) · ", html).group(1))
        assert meta["og:title"] == meta["twitter:title"] == title, path
        assert meta["og:description"] == meta["description"], path
        assert meta["twitter:card"] == "summary" and meta["og:type"] == "website"
        assert meta["og:url"] == "https://example.org/ffsite/" + path, path
        descriptions[path] = meta["description"]
    # No two pages describe themselves alike; per-item pages name their item.
    assert len(set(descriptions.values())) == len(descriptions)
    assert len(descriptions) >= 14
    assert descriptions["models/m1.html"] == "m1. On this page: traits against the " \
        "reference (d)."
    assert "\u201cis more verbose\u201d" in descriptions["traits/is-more-verbose.html"]
    assert descriptions["datasets/d.html"].startswith("Dataset d: ")


def test_a_relative_base_gives_no_page_url(tiny_site):
    meta = meta_of((tiny_site / "index.html").read_text("utf-8"))
    assert "og:url" not in meta and meta["description"]


def test_descriptions_from_data_are_escaped(hostile_site):
    for path, html in pages_of(hostile_site).items():
        for tag in re.findall(r"<meta [^>]*>", html):
            assert "<script" not in tag.lower() and "onclick=\"" not in tag, (path, tag)


# ------------------------------------------------------------------------ archive

def test_the_archive_holds_every_table_and_is_the_same_every_build(tiny_site, tmp_path):
    again = build_tiny(tmp_path)
    archive = (tiny_site / "data" / "ffsite-data.zip").read_bytes()
    assert archive == (again / "data" / "ffsite-data.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        entries = opened.infolist()
        names = [e.filename for e in entries]
        data = sorted(p.relative_to(tiny_site / "data").as_posix()
                      for p in (tiny_site / "data").rglob("*")
                      if p.is_file() and p.name != "ffsite-data.zip"
                      and not p.relative_to(tiny_site / "data").as_posix().startswith(
                          ("explore/", "compare/")))  # the scripts' fetched files, not tables
        assert "models/m1/traits.csv" in data  # per-item folders too
        assert names == ["README.txt", *data]
        assert {e.date_time for e in entries} == {(1980, 1, 1, 0, 0, 0)}
        for name in data:  # each file as published
            assert opened.read(name) == (tiny_site / "data" / name).read_bytes(), name
        readme = opened.read("README.txt").decode("utf-8")
    assert all(f"  {name}: " in readme for name in data)
    assert "  leaderboard.csv: Leaderboard" in readme
    assert "d: no source recorded" in readme  # the tiny dataset credits no source
    size = (tiny_site / "data" / "ffsite-data.zip").stat().st_size
    downloads = (tiny_site / "downloads.html").read_text("utf-8")
    link = re.search(r'<a href="(data/ffsite-data.zip)" download>ffsite-data.zip</a> '
                     r"\((\d+) kB, (\d+) files", downloads)
    assert link and int(link.group(2)) == max(1, round(size / 1000))
    assert int(link.group(3)) == len(data)


def test_the_archive_takes_source_date_epoch(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "b.csv").write_text("x\n1\n")
    (tmp_path / "data" / "a.json").write_text("[]\n")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 22:13:20 UTC
    made = write_archive(tmp_path, {"a": ("Table A", "index.html")}, ["X: credit"])
    with zipfile.ZipFile(tmp_path / made.path) as opened:
        assert [e.filename for e in opened.infolist()] == ["README.txt", "a.json", "b.csv"]
        assert {e.date_time for e in opened.infolist()} == {(2023, 11, 14, 22, 13, 20)}
        readme = opened.read("README.txt").decode()
    assert "  a.json: Table A (shown on index.html)" in readme and "  X: credit" in readme
    assert made.files == 2 and made.size == (tmp_path / made.path).stat().st_size


# --------------------------------------------------------- metadata, reference link

def test_home_links_the_reference_model_to_its_page(tiny_site):
    html = (tiny_site / "index.html").read_text("utf-8")
    assert '<strong><a href="models/R.html">R</a></strong>' in html
    assert "is the reference model" in (tiny_site / "models" / "R.html").read_text("utf-8")


def test_home_leaderboard_has_metadata_columns(tiny_site):
    html = (tiny_site / "index.html").read_text("utf-8")
    table = re.search(r'<table class="data sortable" id="leaderboard">(.*?)</table>', html,
                      re.S).group(1)
    keys = re.findall(r'<th scope="col" data-key="([^"]+)"', table)
    # The facts come last (the numbers first, for a phone).
    assert keys[:2] == ["model", "comparisons"]
    assert keys[-3:] == ["organisation", "open_weights", "released"]
    # The tiny site has no registry: every fact is unknown, and sorts last.
    rows = re.findall(r"<tr[^>]*><th scope=\"row\"[^>]*>.*?</tr>", table, re.S)
    assert rows
    for row in rows:
        cells = re.findall(r"<td([^>]*)>([^<]*)</td>", row)[-3:]
        assert cells == [(' data-v=""', "–")] * 2 + [(' class="date" data-v=""', "–")], row


# ----------------------------------------------------- plain words, not raw keys

def test_preferences_read_as_plain_words():
    judge = "AlpacaEval 2.0 judge (GPT-4 Turbo)"
    assert preference_wording(judge, schema.MISSING, "m", "ref") == \
        "not rated: AlpacaEval 2.0 judge (GPT-4 Turbo) did not rate this pair"
    assert preference_wording(judge, schema.A, "m", "ref") == f"A (m); judge: {judge}"
    assert preference_wording(judge, schema.B, "m", "ref") == f"B (ref); judge: {judge}"
    assert preference_wording(judge, schema.TIE, "m", "ref") == f"a tie; judge: {judge}"
    assert "could not be read" in preference_wording(judge, schema.INVALID, "m", "ref")


def test_tiny_model_pages_name_the_preference_judge_by_its_description(tiny_site):
    html = (tiny_site / "models" / "m1.html").read_text("utf-8")
    shown = re.findall(r"<dt>Preferred</dt><dd>([^<]*)</dd>", html)
    assert shown and all("judge: the first annotator" in s for s in shown), shown
    assert not any(s.split(" ")[0] in schema.VOTE_VALUES[3:] for s in shown)


def test_default_model_pages_say_the_judge_did_not_rate_a_pair(default_site):
    shown = [s for page in (default_site / "models").glob("*.html")
             for s in re.findall(r"<dt>Preferred</dt><dd>([^<]*)</dd>",
                                 page.read_text("utf-8"))]
    assert shown
    assert not any("weighted_alpaca_eval" in s or s.startswith("missing") for s in shown)
    assert "not rated: AlpacaEval 2.0 judge (GPT-4 Turbo) did not rate this pair" in shown
    # A page none of whose pairs the judge rated says so once, above them.
    note = "No preference on these pairs: the preference judge, AlpacaEval 2.0 judge " \
           "(GPT-4 Turbo), did not rate them"
    noted = 0
    for page in (default_site / "models").glob("*.html"):
        html = page.read_text("utf-8")
        verdicts = re.findall(r"<dt>Preferred</dt><dd>([^<]*)</dd>", html)
        unrated = bool(verdicts) and all(v.startswith("not rated: ") for v in verdicts)
        assert (note in html) == unrated, page.name
        noted += unrated
    assert noted >= 10  # about half the AlpacaEval models' pages


def test_run_summaries_are_labelled_and_skip_empty_values():
    summary = {"tool": "ffsite annotate", "model": "m9", "max_tokens": None,
               "complete": True, "invalid_rate": 0.025, "cost_usd": None,
               "cost_source": "", "prompt_tokens": 123456, "seed": 20240,
               "temperature": 0.7, "new_key": "x", "nested": {"depth": 2}}
    assert flatten(summary) == [
        ("Tool", "ffsite annotate"), ("Model", "m9"), ("Complete run", "yes"),
        ("Invalid share", "2.5%"), ("Tokens in", "123,456"), ("Seed", "20240"),
        ("Temperature", "0.7"), ("new key", "x"), ("nested: depth", "2")]


def test_a_contributed_models_run_summary_reads_as_labelled_facts(tmp_path):
    """A file from `ffsite annotate` about one model (m9 against the reference R) carries
    its run summary; the model page shows it with labels, without the empty values."""
    annotations = tmp_path / "annotations"
    write_tiny(annotations)
    comparisons = [{"comparison_id": f"k{i}", "prompt_id": f"q{i}", "model_a": "m9",
                    "model_b": "R", "response_a_id": f"m9/k{i}", "response_b_id": f"R/k{i}"}
                   for i in range(3)]
    votes = [{"comparison_id": f"k{i}", **trait, "judge": "j", "vote": "A"}
             for i in range(3) for trait in (VERBOSE, CONCISE)]
    summary = {"tool": "ffsite annotate", "dataset": "d", "model": "m9", "reference": "R",
               "max_tokens": None, "temperature": 0.0, "cost_usd": None,
               "invalid_rate": 0.0, "votes": 6, "complete": True}
    write_test_votes(annotations / "m9.parquet", comparisons, votes, extra=summary)
    content = write_content(tmp_path / "content")
    build_site(annotations, tmp_path / "site", content=content,
               templates=REPO / "templates")
    html = (tmp_path / "site" / "models" / "m9.html").read_text("utf-8")
    table = re.search(r'<table class="data kv">(.*?)</table>', html, re.S).group(1)
    rows = dict(re.findall(r'<tr><th scope="row">(.*?)</th><td>(.*?)</td></tr>', table))
    assert rows == {"Tool": "ffsite annotate", "Dataset": "d", "Model": "m9",
                    "Reference model": "R", "Temperature": "0", "Invalid share": "0.0%",
                    "Votes": "6", "Complete run": "yes"}
    assert "None" not in table and "max_tokens" not in table
