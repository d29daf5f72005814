"""The Under pressure page and the pages of scored traits, on the scores of
pressure_fixture.py, whose every number is worked out there by hand."""

from __future__ import annotations

import csv
import json
import re

import pytest
from pressure_fixture import build_pressure, read_tables


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_pressure(tmp_path_factory.mktemp("pressure"))


def html(site, page: str) -> str:
    return (site / page).read_text("utf-8")


def words(site, page: str) -> str:
    """A page's main text, tags removed, spaces collapsed."""
    main = re.search(r"<main[^>]*>(.*)</main>", html(site, page), re.S).group(1)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))
    for mark in ".,:;)":
        text = text.replace(" " + mark, mark)
    return text.replace("( ", "(").replace("&#39;", "'")


def csv_rows(site, name: str) -> list[dict]:
    with (site / "data" / f"{name}.csv").open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def shown(row: list[dict]) -> list[tuple[str, str]]:
    """(value, interval) of every cell of a table row."""
    return [(cell["text"], cell["ci"]) for cell in row]


def test_the_page_is_in_the_navigation_and_links_its_downloads(site):
    page = html(site, "pressure.html")
    assert '<a href="pressure.html" aria-current="page">Under pressure</a>' in page
    assert '<a href="pressure.html">Under pressure</a>' in html(site, "index.html")
    for name in ("pressure-shifts", "pressure-bend"):
        assert f'href="data/{name}.csv"' in page and f'href="data/{name}.json"' in page
    assert 'href="data/pressure-bend.csv"' in html(site, "downloads.html")


def test_who_bends_table_by_hand(site):
    table = read_tables(html(site, "pressure.html"))["who-bends"]
    assert table["header"] == ["Model", "Authority", "Urgency"]
    rows = table["rows"]
    # Bending most under authority first; the registry's name, linked to the model page.
    assert [(r[0]["text"], r[0]["href"]) for r in rows] == [
        ("Alpha One", "models/alpha.html"), ("b", "models/b.html"), ("c", "models/c.html")]
    assert [shown(r)[1:] for r in rows] == [
        [("1.25", "0.50–2.00"), ("0.25", "0.00–0.50")],
        # b was not run under urgency; its authority bend compares a baseline 0.5
        [("1.00 has 0s", "0.50–1.50"), ("–", "")],
        [("0.00", "0.00–0.00"), ("0.00", "0.00–0.00")]]


def test_condition_tables_show_signed_heat_coloured_shifts(site):
    tables = read_tables(html(site, "pressure.html"))
    authority = tables["shifts-authority"]
    assert authority["header"] == ["Model", "Deep", "Warm", "Pairs"]
    assert [[*shown(r), r[1]["css"], r[2]["css"]] for r in authority["rows"]] == [
        [("Alpha One", ""), ("+1.00", "+0.00 to +2.00"), ("-1.50", "-2.00 to -1.00"),
         ("2", ""), "hp4", "hn4"],
        # b's deep shift compares a baseline score of 0.5, under the rubric's floor
        [("b", ""), ("+1.50 has 0s", "+0.00 to +3.00"), ("+0.50", "+0.00 to +1.00"),
         ("2", ""), "hp4", "hp3"],
        [("c", ""), ("+0.00", "+0.00 to +0.00"), ("+0.00", "+0.00 to +0.00"), ("2", ""),
         "h0", "h0"]]
    urgency = tables["shifts-urgency"]
    assert [shown(r)[:3] for r in urgency["rows"]] == [
        [("Alpha One", ""), ("+0.00", "+0.00 to +0.00"), ("+0.50", "+0.00 to +1.00")],
        [("c", ""), ("+0.00", "+0.00 to +0.00"), ("+0.00", "+0.00 to +0.00")]]


def test_the_summary_is_computed_from_the_data(site):
    text = words(site, "pressure.html")
    assert "Judged by J: a panel of two judges." in text
    assert "Behavioral Profiling Framework" in text
    assert 'href="https://github.com/nosterb/behavioral-profiling"' in html(site,
                                                                           "pressure.html")
    assert "Every interval comes from 1,000 resamples of the paired prompts" in text
    # Median bend: authority 1.00 (of 1.25, 1.00, 0), urgency 0.12 or 0.13 (of 0.25, 0).
    assert re.search(r"by the median model's bend: Authority 1\.00, Urgency 0\.1[23] points",
                     text)
    assert ("Authority: the user challenges the model's expertise (only 2 paired prompts)"
            in text)
    # Places with their ranges: Alpha One's and b's intervals overlap (either could
    # bend most), c's [0, 0] lies below both (surely last, surely holding best).
    # b's bend compares its baseline deep score of 0.5, under the rubric's floor: marked.
    assert ("Bend most: #1 (1–2) Alpha One 1.25 (0.50–2.00), #2 (1–2) b has 0s 1.00 "
            "(0.50–1.50), #3 c 0.00 (0.00–0.00)") in text
    assert ("Hold best: #1 c 0.00 (0.00–0.00), #2 (2–3) b has 0s 1.00 (0.50–1.50), #3 (2–3) "
            "Alpha One 1.25 (0.50–2.00)") in text
    # Average authority shift: deep (1 + 1.5 + 0) / 3 = +0.83, warm (−1.5 + 0.5 + 0) / 3.
    assert ("Deep rises (+0.83 points on average), for 2 of 3 models (0 clearly: interval "
            "above zero); Warm falls (-0.33 points on average), for 1 of 3 models (1 "
            "clearly: interval below zero)") in text
    # Under urgency warm moves (+0.25 on average), deep not at all: not listed.
    assert ("Traits that move most: Warm rises (+0.25 points on average), for 1 of 2 models "
            "(0 clearly: interval above zero). Across conditions") in text
    # One model in a quarter of three; c bends least under both conditions, alpha most.
    assert ("counting the 1 model that bends least, or most, under each: steadiest under at "
            "least 1 of the 2: c; bending most under at least 1 of the 2: Alpha One") in text


def chart_choices(page: str, chart_id: str) -> dict:
    """A menu chart's menus and the drawing files of its choices (the page's JSON)."""
    return json.loads(re.search(rf'class="chart-choices" data-for="{chart_id}">(.*?)</script>',
                                page, re.S).group(1))


def test_the_chart_has_every_shift_and_both_menus(site):
    page = html(site, "pressure.html")
    menu = chart_choices(page, "pressure-chart")
    condition, trait = menu["menus"]
    assert condition["options"] == ["authority", "urgency"]
    assert condition["labels"] == ["Authority", "Urgency"]
    # Every (condition, trait) with shifts has a drawing: the first in the page, every
    # other as two files (wide, narrow) the menus fetch.
    shifted = {(r["condition"], r["trait_id"]) for r in csv_rows(site, "pressure-shifts")}
    drawn = {tuple(key.split("\u001f")) for key in menu["choices"]} | {
        tuple(menu["first"].split("\u001f"))}
    assert drawn == shifted and len(drawn) == 4
    for files in menu["choices"].values():
        assert set(files) == {"wide", "narrow"}
        for url in files.values():
            assert (site / url).read_text("utf-8").startswith("<svg")
    # The trait that moves most under the first condition is chosen at first.
    assert (condition["value"], trait["value"]) == ("authority", menu["first"].split(
        "\u001f")[1])
    # The drawing in the page is of the first choice: Alpha One's authority shift on it.
    assert "Alpha One" in page.split('id="pressure-chart"')[1].split("</figure>")[0]


def test_scored_trait_page_by_hand(site):
    page = "traits/warm.html"
    text = words(site, page)
    assert "Definition Warm: 1 cold; 10 warm" in text
    assert "Scale 1 to 10" in text and "Judged by J" in text  # the rubric, not 0-10 stored
    assert "J: a panel of two judges." in text
    assert "none of the trait's 16 scores is below 1" in text
    tables = read_tables(html(site, page))
    means = tables["means"]
    assert means["header"] == ["Model", "Mean score", "Rank", "Prompts"]
    # Resampling the two prompts moves no model past another (b 7-7, alpha 3-5, c 1-2):
    # every place is sure.
    assert [(r[0]["href"], *shown(r)[1:]) for r in means["rows"]] == [
        ("../models/b.html", ("7.00", "7.00–7.00"), ("1 of 3", "sure"), ("2", "")),
        ("../models/alpha.html", ("4.00", "3.00–5.00"), ("2 of 3", "sure"), ("2", "")),
        ("../models/c.html", ("1.50", "1.00–2.00"), ("3 of 3", "sure"), ("2", ""))]
    strengths = tables["strengths"]
    assert [(r[0]["text"], *shown(r)[1:]) for r in strengths["rows"]] == [
        ("b", ("+1.00", "+1.00 to +1.00"), ("1.00", ""), ("4", ""), ("0", ""), ("0", ""),
         ("4", "")),
        ("Alpha One", ("+0.00", "+0.00 to +0.00"), ("1.00", ""), ("2", ""), ("0", ""),
         ("2", ""), ("4", "")),
        ("c", ("-1.00", "-1.00 to -1.00"), ("1.00", ""), ("0", ""), ("0", ""), ("4", ""),
         ("4", ""))]
    assert "Against all other models (derived from scores)" in text
    shifts = tables["shifts"]
    assert shifts["header"] == ["Model", "Baseline", "Authority", "Urgency"]
    assert [shown(r) for r in shifts["rows"]] == [
        [("b", ""), ("7.00", "7.00–7.00"), ("+0.50", "+0.00 to +1.00"), ("–", "")],
        [("Alpha One", ""), ("4.00", "3.00–5.00"), ("-1.50", "-2.00 to -1.00"),
         ("+0.50", "+0.00 to +1.00")],
        [("c", ""), ("1.50", "1.00–2.00"), ("+0.00", "+0.00 to +0.00"),
         ("+0.00", "+0.00 to +0.00")]]
    assert 'href="../pressure.html"' in html(site, page)
    assert re.search(r'id="means-chart"[^>]*>\s*<div class="chart-draw"><div class="chart-wide">'
                     r"<svg ", html(site, page))


def test_scored_trait_counts_scores_below_the_rubric(site):
    text = words(site, "traits/deep.html")
    assert "1 of the trait's 16 scores are below 1 because a judge of the panel answered 0" \
        in text
    means = read_tables(html(site, "traits/deep.html"))["means"]
    # c scores 9 on both prompts, above everyone in every resample: 1, sure.  b scores
    # 0.5 and 4 (mean 2.25), alpha 2 twice: resampling both prompts as p1, p1 (a quarter
    # of the resamples) puts b below alpha, so both range over places 2-3.
    assert [(r[0]["text"], r[1]["text"], r[1]["ci"], r[2]["text"], r[2]["ci"])
            for r in means["rows"]] == [
        ("c", "9.00", "9.00–9.00", "1 of 3", "sure"),
        ("b", "2.25 has 0s", "0.50–4.00", "2 of 3", "2–3"),
        ("Alpha One", "2.00", "2.00–2.00", "3 of 3", "2–3")]


def test_scored_trait_downloads_say_the_votes_are_derived(site):
    slug = "warm"  # the page name of the wording "Warm: ..."
    strengths = csv_rows(site, f"traits/{slug}/strengths")
    assert {r["votes"] for r in strengths} == {"derived from scores"}
    assert {r["model"]: float(r["strength"]) for r in strengths} == {
        "b": 1.0, "alpha": 0.0, "c": -1.0}
    downloads = html(site, "downloads.html")
    assert "Warm: strength against all other models (derived from scores, J)" in downloads
    means = {r["model"]: r for r in csv_rows(site, f"traits/{slug}/means")}
    assert (float(means["alpha"]["mean"]), means["alpha"]["rank"]) == (4.0, "2")
    shifts = csv_rows(site, f"traits/{slug}/shifts")
    assert sorted((r["condition"], r["model"], float(r["shift"])) for r in shifts) == [
        ("authority", "alpha", -1.5), ("authority", "b", 0.5), ("authority", "c", 0.0),
        ("urgency", "alpha", 0.5), ("urgency", "c", 0.0)]
    page = html(site, f"traits/{slug}.html")
    for name in ("means", "strengths", "shifts"):
        assert f'href="../data/traits/{slug}/{name}.csv"' in page


def test_voted_trait_pages_are_unchanged(site):

    page = html(site, "traits/is-more-verbose.html")
    assert "Across models" in page and 'id="models"' in page


def test_without_scores_the_page_says_so(tiny_site):
    text = words(tiny_site, "pressure.html")
    assert "nothing to compare" in text
    assert 'href="data/pressure-shifts.csv"' in html(tiny_site, "pressure.html")
    assert csv_rows(tiny_site, "pressure-shifts") == []


def test_model_names_from_data_are_escaped(tmp_path):
    hostile = '<script>alert("b")</script>'
    site = build_pressure(tmp_path, names={"b": hostile})
    escaped = "&lt;script&gt;alert(&#34;b&#34;)&lt;/script&gt;"
    for page in ("pressure.html", "traits/warm.html"):
        text = html(site, page)
        assert "<script>alert" not in text, page
        assert escaped in text, page  # in the tables and the summary
        # A chart drawn at build time shows it as escaped text, in the page and in the
        # drawings of a menu's other choices alike.
        assert "&lt;script&gt;alert(" in text.split('class="chart-draw"')[1], page
        for found in re.findall(r'class="chart-choices"[^>]*>(.*?)</script>', text, re.S):
            for files in json.loads(found)["choices"].values():
                for url in files.values():
                    drawing = ((site / page).parent / url).read_text("utf-8")
                    assert "<script" not in drawing


def test_a_floor_note_claims_a_download_count_only_where_the_download_has_it(default_site):
    """The "has 0s" note says the table's download counts the scores under the rubric's
    floor only on tables whose download has below_rubric_floor (the means); the bends,
    shifts and lineage tables' downloads do not, and their notes say the mark's title
    counts them instead."""
    claim = "as does this table&#39;s download (below_rubric_floor)"
    claimed = plain = 0
    for path in sorted(default_site.rglob("*.html")):
        page = path.read_text("utf-8")
        if "the mark&#39;s title counts them" not in page:
            continue
        for block in page.split('<div class="table-block">')[1:]:
            if "the mark&#39;s title counts them" not in block:
                continue
            link = re.search(r'href="([^"]+\.csv)"', block)
            if link is None:  # no download (the lineage's values): none to claim
                assert claim not in block, path.name
                plain += 1
                continue
            header = (path.parent / link.group(1)).resolve().read_text("utf-8").splitlines()[0]
            assert (claim in block) == ("below_rubric_floor" in header.split(",")), (
                path.name, link.group(1))
            claimed += claim in block
            plain += claim not in block
    assert claimed >= 5 and plain >= 3  # trait pages and the home table; pressure, lineage


def test_shifts_and_glances_carry_the_floor_mark_where_scores_under_it_lie(default_site,
                                                                         shared_data):
    """A shift under a condition compares the trait's scores under it with those at
    baseline on the same scenarios: marked "has 0s" exactly when a panel score under 1
    lies on a scenario the model answered under both (counted here from the base data's
    contributions files, a job's scenario read from its name: job_<scenario>[_<condition>]
    _<date>_<time>); the home cards mark the means the same way (Llama 3 70B's
    tribalism: 18 of its 50 baseline scores).  Under Reminder (13 scenarios) most
    baseline 0s lie elsewhere: counting all of them marked 14 shifts, 5 are right."""
    def scores(condition: str) -> dict[str, dict]:
        jobs = json.loads((shared_data / "behavioral_profiling" / "contributions" /
                           f"{condition}.json").read_text("utf-8"))["job_contributions"]
        return {re.sub(r"_\d{8}_\d{6}$", "", name.removeprefix("job_")).replace(
            f"_{condition}", ""): job["contributions"] for name, job in jobs.items()}

    def floored(condition: str) -> set[tuple[str, str]]:
        base, other = scores("baseline"), scores(condition)
        return {(model, dimension) for side in (base, other)
                for scenario, answers in side.items()
                for model, by_trait in answers.items()
                for dimension, score in by_trait.items()
                if score["score"] < 1 and model in base.get(scenario, {})
                and model in other.get(scenario, {})}

    assert len(floored("reminder")) == 5
    floored = floored("authority")
    with open(default_site / "data" / "pressure-shifts.csv", newline="",
              encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["condition"] == "authority"]
    expected = {(r["model"], r["trait_id"]): (r["source_model"],
                                              r["trait_id"].removeprefix("bp-")) in floored
                for r in rows}
    assert 0 < sum(expected.values()) < len(expected)
    page = (default_site / "pressure.html").read_text("utf-8")
    start = page.index('id="shifts-authority"')
    table = page[start:page.index("</table>", start)]
    keys = re.findall(r'<th[^>]*data-key="([^"]+)"', table)
    checked = 0
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]:
        model = re.search(r'<a href="models/([^"]+)\.html"', row).group(1)
        for key, cell in zip(keys[1:], re.findall(r"<td[^>]*>.*?</td>", row, re.S),
                             strict=False):
            if key.startswith("t-") and (model, key[2:]) in expected:
                assert ("has 0s" in cell) == expected[(model, key[2:])], (model, key)
                checked += 1
    assert checked == len(expected)
    home = (default_site / "index.html").read_text("utf-8")
    card = home[home.index('traits/tribalism.html">Tribalism</a>'):]
    least = card[card.index("Least"):card.index("</ul>", card.index("Least"))]
    assert re.search(r"Llama 3 70B Instruct</a> <span class=\"badge\" title=\"18 of the 50 "
                     r"scores behind this mean", least), least[:600]


def test_the_glance_names_each_place_with_the_range_the_sycophancy_page_gives(default_site):
    """"Bend most" under Authority: each model's place and 95% range, the same as the
    sycophancy page's download gives the same bends (one draw of the intervals)."""
    with open(default_site / "data" / "sycophancy-behavioral-profiling-authority.csv",
              newline="", encoding="utf-8") as handle:
        ranks = {r["model"]: (int(r["rank"]), int(r["rank_low"]), int(r["rank_high"]))
                 for r in csv.DictReader(handle)}
    page = (default_site / "pressure.html").read_text("utf-8")
    line = re.findall(r"<li>Bend most: (.*?)</li>", page)[0]  # Authority comes first
    found = re.findall(r'<span class="rank">#(\d+)(?: \((\d+)–(\d+)\))?</span> '
                       r'<a href="models/([^"]+)\.html"', line)
    assert len(found) == 3
    for rank, low, high, model in found:
        low, high = (low, high) if low else (rank, rank)
        assert (int(rank), int(low), int(high)) == ranks[model], model
