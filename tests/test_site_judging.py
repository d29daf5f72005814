"""Wherever the default site lists a model's numbers on a dataset it also judged, the
entry says so (the "judge" mark): the pressure and sycophancy tables, and EQ-Bench 3's
example where its judge, Claude 3.7 Sonnet, is one of the two sides."""

from __future__ import annotations

import re
from html import unescape

import pytest

# The judges that are rated models, by their display names (content/models.toml):
# Behavioral Profiling's panel (its README) and EQ-Bench 3's judge.
PANEL = {"Claude 4.5 Sonnet", "Llama 4 Maverick (17B active)", "DeepSeek-R1"}
EQ_JUDGE = "Claude 3.7 Sonnet"


def _row_headers(page_html: str) -> list[tuple[str, str]]:
    """(model name, its badges' text) of every table row headed by a model link."""
    return re.findall(r'<th scope="row"[^>]*><a href="[^"]*models/[^"]*">([^<]*)</a>'
                      r'((?: <span class="badge"[^>]*>[^<]*</span>)*)', page_html)


@pytest.mark.parametrize(("page", "table_id", "judges"), [
    ("pressure.html", "who-bends", PANEL), ("pressure.html", "shifts-urgency", PANEL),
    ("sycophancy.html", "bend-authority", PANEL),  # Behavioral Profiling's
    ("sycophancy.html", "trait-eqbench3", {EQ_JUDGE})])
def test_tables_mark_the_judges_own_rows(default_site, page, table_id, judges):
    html = (default_site / page).read_text()
    table = html[html.index(f'id="{table_id}"'):]
    rows = _row_headers(table[:table.index("</table>")])
    assert {name for name, _ in rows} >= judges
    for name, badges in rows:  # (a judge of another dataset is a plain model here)
        assert ("judge</span>" in badges) == (name in judges), (name, badges)


def test_an_example_where_the_judge_is_a_side_says_so(default_site):
    html = (default_site / "eqbench.html").read_text()
    for article in re.findall(r'<article class="example".*?</article>', html, flags=re.S):
        sides = re.search(r"<summary><h3>[^:]*: (.*?) vs (.*?)</h3>", article).groups()
        said = f"{EQ_JUDGE} is this dataset's judge: here it judged its own transcript"
        assert (said in article.replace("&#39;", "'")) == (EQ_JUDGE in sides), sides


def test_ratings_and_pressure_summaries_name_the_self_judges(default_site):
    ratings = re.sub(r"\s+", " ", (default_site / "ratings.html").read_text())
    section = ratings[ratings.index('id="ratings-behavioral_profiling"'):]
    section = section[:section.index("</section>")]
    for name in sorted(PANEL):
        assert name in section[section.index('<span class="badge">judge</span>'):], name
    # Votes derived from scores: the intervals resample prompts, one prompt's matches
    # together (they share its answers).
    assert "these intervals and rank ranges resample the prompts" in section
    assert "narrower than the data allow" not in ratings
    eq = ratings[ratings.index('id="ratings-eqbench3"'):]
    eq = eq[:eq.index("</section>")]
    assert f'<span class="badge">judge</span> {EQ_JUDGE} is rated here' in eq
    assert "resample the prompts" not in eq  # the judge's own verdicts
    pressure = (default_site / "pressure.html").read_text()
    most = re.findall(r"<li>Bend most: (.*?)</li>", pressure)
    assert most and any("DeepSeek-R1" in line for line in most)
    for line in most:
        for name in re.findall(r'<a href="[^"]*">([^<]*)</a>', line):
            marked = re.search(re.escape(name) + r'</a> <span class="badge"[^>]*>'
                               r'(?:[^<]* · )?judge(?: · [^<]*)?</span>', line)
            assert bool(marked) == (name in PANEL), (name, line)


def test_the_sycophancy_page_names_its_judges(default_site):
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (default_site / "sycophancy.html"
                                                          ).read_text())).replace("&#39;", "'")
    assert "Judged by Claude-4.5-Sonnet + Llama-4-Maverick + DeepSeek-R1. The bend" in text
    assert "from the judge's (claude-3.7-sonnet) verdicts on this criterion" in text


def test_bends_resting_on_scores_below_the_floor_are_marked(default_site, shared_data):
    """Under authority and at baseline, some models' panel scores lie below the rubric's
    floor of 1 (a judge answered 0), counted here from the raw contributions over the
    nine traits: the sycophancy page's bend cell of each such model says how many, and
    no other is marked."""
    import json

    import pandas as pd

    nine = {"warmth", "formality", "hedging", "aggression", "transgression", "grandiosity",
            "tribalism", "depth", "authenticity"}
    below: dict[str, int] = {}
    # A bend compares the scores under authority with those at baseline: both count.
    for condition in ("authority", "baseline"):
        jobs = json.loads((shared_data / "behavioral_profiling" / "contributions" /
                           f"{condition}.json").read_text())["job_contributions"]
        for job in jobs.values():
            for model, scores in job["contributions"].items():
                for dimension, entry in scores.items():
                    if dimension in nine and entry["score"] < 1:
                        below[model] = below.get(model, 0) + 1
    assert sum(below.values()) > 20
    bends = pd.read_csv(default_site / "data" /
                        "sycophancy-behavioral-profiling-authority.csv")
    html = (default_site / "sycophancy.html").read_text()
    table = html[html.index('id="bend-authority"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r'<tr[^>]*><th scope="row"[^>]*><a href="[^"]*models/([^"]+)\.html">'
                      r'.*?</tr>', table, flags=re.S)
    assert len(rows) == len(bends)
    for row in bends.itertuples():
        cells = table[table.index(f'models/{row.model}.html"'):]
        cells = cells[:cells.index("</tr>")]
        found = re.search(r'title="(\d+) of the \d+ scores behind this bend lie below', cells)
        assert (int(found.group(1)) if found else 0) == below.get(row.source_model, 0), \
            row.model


def test_alpaca_evals_judge_is_its_reference_and_every_preference_section_says_so(
        default_site, shared_data):
    """AlpacaEval 2.0's annotator (GPT-4 Turbo) compares every answer with its reference,
    gpt4_1106_preview, the same GPT-4 Turbo: each preference sets the judge's own answer
    against another model's.  Checked in the base data: every judged pair has the
    reference as generator_1 and the one annotator."""
    import json
    for path in sorted((shared_data / "alpaca_eval" / "judge_annotations").glob("*.json")):
        judged = json.loads(path.read_text("utf-8"))
        assert {(j["generator_1"], j["annotator"]) for j in judged} == {
            ("gpt4_1106_preview", "weighted_alpaca_eval_gpt4_turbo")}, path.name
    said = ("The judge of AlpacaEval's preferences (weighted_alpaca_eval_gpt4_turbo) is its "
            "reference model, gpt4_1106_preview, itself")
    page = unescape((default_site / "datasets" / "alpaca_eval.html").read_text("utf-8"))
    for heading in ("<h2>Win rates</h2>", "<h2>What the preference annotations encourage</h2>"):
        start = page.index(heading)  # the note, before the section's table
        assert said in page[start:page.index("<table", start)], heading
    start = page.index('id="length-control"')
    assert said in page[start:page.index("</section>", start)]
    assert said in unescape((default_site / "models" / "gpt4_1106_preview.html").read_text())
    judges = (default_site / "judges.html").read_text("utf-8")
    row = re.search(r'<th scope="row">AlpacaEval</th>.*?</tr>', judges, re.S).group(0)
    assert "1 of 2: GPT-4 Turbo (1106 preview)" in re.sub(r"<[^>]+>", "", row)
    # HH-RLHF's preferences are crowdworkers': nothing to say there.
    assert "is its reference model" not in (
        default_site / "datasets" / "hh_rlhf.html").read_text("utf-8")
