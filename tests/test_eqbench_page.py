"""The EQ-Bench 3 page and the criteria's trait pages, on a tiny crafted EQ-Bench file
whose numbers are worked out by hand; the judge's-reasoning reader on the real file.

Three models, five pairs, each judged in both orders (seed 0: the test model x/y/z
shown first).  Overall EQ, both orders together:

    pair            scenario       overall EQ (order 1, order 2)   together
    1:x:y:1         1  role-play   x +++,   x ++++                 x
    1:x:z:1         1  role-play   x +++++, x +++++                x
    1:y:z:1         1  role-play   y ++,    y ++                   y
    401:x:y:1       401 analysis   x ++++,  x +++                  x
    401:z:y:1       401 analysis   z ++,    y ++                   tie (the orders disagree)

Theory of mind (asked in analysis scenarios only; the last pair's judge skipped it): y
won 401:x:y:1 in both orders.  On the analysis pairs alone y's strength is 1/2, x's −1/1.

Strength against the other models (shown more − shown less) / comparisons: x 3/3 = +1,
y (1 − 2)/4 = −0.25, z (0 − 2)/3 = −2/3.  The anchor y is at Elo 1000; x above, z below.
Examples: clear verdicts ("+++" or more in each order) are 1:x:y:1, 1:x:z:1 and
401:x:y:1; on the role-play scenario 1:x:y:1 wins over the wider 1:x:z:1 because x and y
are closer in Elo than x and z.  One more entry carries an error (left out).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite.datasets.eqbench3.importer import import_eqbench3
from ffsite.datasets.eqbench3.reader import COMPARISONS_FILE, PROMPTS_FILE, read_reasoning
from ffsite.format import write_votes

FIRST, SECOND = "A0493:test / A0488:other", "A0493:other / A0488:test"
HOSTILE = "Plainly <script>alert('judge')</script> **x** is warmer."


def entry(scenario: str, test: str, other: str, order: str, reasoning: str, **criteria
          ) -> dict:
    return {"scenario_id": scenario,
            "pair": {"test_model": test, "neighbor_model": other, "iteration_index": "1"},
            "order": order,
            "judge_response": {"chain_of_thought_reasoning": reasoning, **criteria}}


def verdicts(test_wins: bool, margin: int, order: str) -> str:
    """The code of the side that won: the test model is A0493 when shown first."""
    test_code, other_code = ("A0493", "A0488") if order == FIRST else ("A0488", "A0493")
    return (test_code if test_wins else other_code) + "+" * margin


def pair(scenario: str, test: str, other: str, overall: tuple, extra: dict | None = None,
         reasoning: tuple[str, str] = ("", "")) -> list[dict]:
    """Both orders of a pair; `overall` = ((test wins?, margin) in order 1, in order 2);
    `extra` = {criterion: the same for it}."""
    entries = []
    for k, order in enumerate((FIRST, SECOND)):
        criteria = {"overall_eq": verdicts(*overall[k], order)}
        for name, said in (extra or {}).items():
            criteria[name] = verdicts(*said[k], order)
        text = reasoning[k] or f"Reasoning {scenario}:{test}:{other} order {k + 1}."
        entries.append(entry(scenario, test, other, order, text, **criteria))
    return entries


ENTRIES = [
    *pair("1", "x", "y", ((True, 3), (True, 4)),
          {"demonstrated_empathy": ((True, 2), (False, 1))},
          reasoning=(HOSTILE, "In this order A0493 is y.")),
    *pair("1", "x", "z", ((True, 5), (True, 5))),
    *pair("1", "y", "z", ((True, 2), (True, 2))),
    *pair("401", "x", "y", ((True, 4), (True, 3)), {"theory_of_mind": ((False, 2),
                                                                        (False, 3))}),
    *pair("401", "z", "y", ((True, 2), (False, 2)), {"incisiveness": ((True, 1), (True, 1))}),
    {"scenario_id": "401", "pair": {"test_model": "x", "neighbor_model": "z",
                                    "iteration_index": "1"},
     "order": "reversed", "error": "Judge Error: unterminated string"},
]

PROMPTS = """######## 1 | Work Dilemma | Blamed at work
####### Prompt1
You are blamed for <b>the thefts</b> at work. What now?
####### Prompt2
Your friend covers for you.
######## 401 | Analysis | A chat log
####### Prompt1
Analyse what goes on in this chat.
"""


def write_eq(base: Path, annotations: Path, entries: list[dict] = ENTRIES) -> None:
    folder = base / "eqbench3"
    folder.mkdir(parents=True)
    with gzip.open(folder / COMPARISONS_FILE, "wt", encoding="utf-8") as handle:
        json.dump({"__metadata__": {"global_pairwise_comparisons": entries}}, handle)
    (folder / PROMPTS_FILE).write_text(PROMPTS, "utf-8")
    imported = import_eqbench3(folder / COMPARISONS_FILE)
    # As ffsite default-annotations writes it: the left-out count in the metadata.
    write_votes(imported.table, annotations / "eqbench3.parquet", extra={
        "source": "eqbench3", "judge": "claude-3.7-sonnet",
        "left_out": dict(imported.skipped)})


def build(root: Path, *, with_base: bool, entries: list[dict] = ENTRIES) -> Path:
    from ffsite.site.build import build_site

    annotations, base = root / "annotations", root / "base"
    write_tiny(annotations)  # the site's reference model R lives here
    write_eq(base, annotations, entries)
    content = write_content(root / "content", anchor_model="y", rating_resamples=200)
    build_site(annotations, root / "site", content=content, templates=REPO / "templates",
               base_data=base if with_base else None)
    return root / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("eq"), with_base=True)


def table(site: Path, name: str) -> pd.DataFrame:
    return pd.DataFrame(json.loads((site / "data" / f"{name}.json").read_text("utf-8")))


def section(html: str, start: str, end: str) -> str:
    found = html[html.index(start):]
    return found[:found.index(end)]


def test_ratings_put_the_anchor_at_1000_and_the_winner_first(site):
    ratings = table(site, "eqbench3-ratings")
    overall = ratings[ratings["trait_id"] == "eq-overall_eq"].set_index("model")
    assert list(overall.sort_values("elo", ascending=False).index) == ["x", "y", "z"]
    anchor = overall.loc["y"]
    assert (anchor["elo"], anchor["ci_low"], anchor["ci_high"]) == (1000, 1000, 1000)
    assert set(ratings["anchor"]) == {"y"} and set(ratings["judge"]) == {"claude-3.7-sonnet"}
    assert overall.loc["x", "n"] == 3 and overall.loc["y", "n"] == 4  # comparisons
    # Criteria carry their scenario type: theory of mind only in analysis scenarios.
    types = dict(zip(ratings["trait_id"], ratings["scenario_type"], strict=True))
    assert types["eq-theory_of_mind"] == "analysis"
    assert types["eq-overall_eq"] == "both"
    html = (site / "eqbench.html").read_text("utf-8")
    ranking = section(html, 'id="eq-overall"', "</table>")
    assert ranking.index(">x<") < ranking.index(">y<") < ranking.index(">z<")
    assert '1000<span class="ci">fixed (anchor)</span>' in ranking  # y, the anchor


def test_strength_against_the_other_models_by_hand(site):
    strength = table(site, "eqbench3-strength")
    overall = strength[strength["trait_id"] == "eq-overall_eq"].set_index("model")
    assert overall.loc["x", "strength"] == pytest.approx(1.0)
    assert overall.loc["y", "strength"] == pytest.approx(-0.25)
    assert overall.loc["z", "strength"] == pytest.approx(-2 / 3)
    assert list(overall["num_votes"].loc[["x", "y", "z"]]) == [3, 4, 3]
    # The split on 401:z:y:1 is a tie: not a valid vote.
    assert list(overall["valid_votes"].loc[["x", "y", "z"]]) == [3, 3, 2]
    # Demonstrated empathy: the only pair judged on it split, so nobody shows it more.
    empathy = strength[strength["trait_id"] == "eq-demonstrated_empathy"]
    assert set(empathy["valid_votes"]) == {0}
    html = (site / "eqbench.html").read_text("utf-8")
    cells = section(html, 'id="eq-strength"', "</table>")
    assert '+1.00<span class="ci">' in cells  # x on overall EQ, its interval in view


def test_the_page_names_judge_source_counts_and_anchor(site):
    html = (site / "eqbench.html").read_text("utf-8")
    assert "Claude 3.7 Sonnet" in html and "claude-3.7-sonnet" in html
    assert 'href="https://github.com/EQ-bench/eqbench3"' in html and "MIT" in html
    assert "10 verdicts on 5 pairs; 1 verdict where the judge returned an error" in html
    assert 'anchored at 1000 on <strong><a href="models/y.html">y</a></strong>' in html
    assert "transcripts themselves are not public" in html
    # Every Elo cell of the models x criteria table shows its interval.
    elo = section(html, 'id="eq-elo"', "</table>")
    assert elo.count('<span class="ci">') == elo.count("<td data-v=")
    # The criteria say which scenario type asks them.
    criteria = section(html, 'id="eq-criteria"', "</table>")
    assert "Theory of mind</a></th><td>analysis</td>" in criteria
    assert "Demonstrated empathy</a></th><td>role-play</td>" in criteria
    assert "Overall EQ</a></th><td>both types</td>" in criteria
    nav = section(html, '<nav aria-label="Main">', "</nav>")
    assert '<a href="eqbench.html" aria-current="page">EQ-Bench 3</a>' in nav


def test_examples_show_the_prompt_and_the_judges_reasoning_escaped(site):
    html = (site / "eqbench.html").read_text("utf-8")
    role_play = section(html, 'id="example-role-play"', "</article>")
    # The closest-rated clear verdict (x vs y), not the widest (x vs z).
    assert "Role-play scenario 1: x vs y</h3>" in role_play
    assert ">x</a> and <a" in role_play and ">y</a>.</p>" in role_play
    assert 'with 7 "+" in all' in role_play
    # The scenario prompt (both turns), its HTML shown as text.
    assert "Turn 2:" in role_play and "&lt;b&gt;the thefts&lt;/b&gt;" in role_play
    # The judge's reasoning: Markdown rendered, HTML escaped, never run.
    assert "&lt;script&gt;alert(" in role_play and "<script>alert" not in html
    assert "<strong>x</strong> is warmer" in role_play
    assert "A0493 = x (shown first); A0488 = y (shown second)" in role_play
    assert "A0493 = y (shown first); A0488 = x (shown second)" in role_play
    assert "In this order A0493 is y." in role_play
    # Every criterion of the pair, in each order: the empathy split is a tie.
    assert "x ++</td><td>y +</td><td>tie (the orders disagree)</td>" in role_play
    analysis = section(html, 'id="example-analysis"', "</article>")
    assert "Analysis scenario 401:" in analysis and "Reasoning 401:x:y order 2." in analysis
    assert "y ++</td><td>y +++</td><td>y</td>" in analysis  # theory of mind


def test_trait_page_of_a_criterion(site):
    html = (site / "traits" / "theory-of-mind.html").read_text("utf-8")
    assert "<h1>Theory of mind</h1>" in html and "analysis scenarios" in html
    assert "Claude 3.7 Sonnet" in html and 'href="../eqbench.html"' in html
    elo = section(html, 'id="eq-trait-elo"', "</table>")
    # Only the analysis pairs ask it: y won its one comparison with x.
    assert elo.index(">y<") < elo.index(">x<") and ">z<" not in elo
    assert '1000<span class="ci">fixed (anchor)</span>' in elo
    strength = table(site, "traits/theory-of-mind/strength").set_index("model")
    assert strength.loc["y", "strength"] == pytest.approx(0.5)  # 1 of its 2 comparisons
    assert strength.loc["x", "strength"] == pytest.approx(-1.0)
    # Only the analysis pairs count (all of y's pairs would make it 1/4).
    assert strength.loc["y", "num_votes"] == 2
    # z's only analysis pair is the one whose judge skipped it: no vote, so no row.
    assert "z" not in strength.index
    assert 'id="eq-trait-elo-chart"' in html and 'id="eq-trait-strength-chart"' in html
    ratings = table(site, "traits/theory-of-mind/ratings")
    assert set(ratings["model"]) == {"x", "y"}


def test_downloads_are_listed(site):
    downloads = (site / "downloads.html").read_text("utf-8")
    for name in ("eqbench3-ratings", "eqbench3-strength", "eqbench3-criteria",
                 "traits/overall-eq/ratings", "traits/overall-eq/strength"):
        assert f'href="data/{name}.csv"' in downloads, name
    # The judge's reasoning is base data: no published table holds it.
    for path in (site / "data").glob("*.json"):
        assert "warmer" not in path.read_text("utf-8"), path


def test_without_base_data_examples_are_omitted(tmp_path):
    site = build(tmp_path, with_base=False)
    html = (site / "eqbench.html").read_text("utf-8")
    assert "Examples omitted" in html and 'class="example"' not in html
    assert "Reasoning" not in html and "thefts" not in html
    assert (site / "data" / "eqbench3-ratings.json").is_file()


def test_a_site_without_eqbench_says_so(tiny_site):
    html = (tiny_site / "eqbench.html").read_text("utf-8")
    assert "hold no EQ-Bench 3 votes" in html


# --------------------------------------------------------------- the reasoning reader

def test_reasoning_reader_by_hand(tmp_path):
    base = tmp_path / "base"
    write_eq(base, tmp_path)
    found = read_reasoning(base / "eqbench3" / COMPARISONS_FILE)
    assert len(found) == 10  # the error entry has none
    first = found[("1:x:y:1", 0)]
    assert (first.text, first.first, first.second) == (HOSTILE, "A0493", "A0488")
    assert found[("1:x:y:1", 1)].text == "In this order A0493 is y."


def test_reasoning_reader_on_the_real_file(shared_data):
    path = shared_data / "eqbench3" / COMPARISONS_FILE
    found = read_reasoning(path)
    imported = import_eqbench3(path).table
    # One reasoning per judged verdict, keyed as the votes are.
    verdict_keys = set(zip(imported["comparison_id"], imported["seed"], strict=True))
    assert set(found) == verdict_keys and len(found) == 6362
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        entries = json.load(handle)["__metadata__"]["global_pairwise_comparisons"]
    sample = entries[0]  # scenario 404, the test model shown first
    key = (f"{sample['scenario_id']}:{sample['pair']['test_model']}:"
           f"{sample['pair']['neighbor_model']}:1", 0)
    assert sample["order"] == FIRST
    assert found[key].text == sample["judge_response"]["chain_of_thought_reasoning"]
    assert (found[key].first, found[key].second) == ("A0493", "A0488")


def test_reasoning_is_not_in_the_annotations():
    """The reasoning stays base data: the committed votes file has none."""
    import pyarrow.parquet as pq

    table = pq.read_table(REPO / "annotations" / "eqbench3" / "votes.parquet")
    assert not [n for n in table.column_names if n.startswith("note:")]


def test_a_hostile_model_name_stays_text(tmp_path):
    """A model named like markup is shown as text in tables, examples and charts."""
    hostile = '<img src=x onerror="alert(1)">'
    renamed = [{**e, "pair": {k: hostile if v == "z" else v for k, v in e["pair"].items()}}
               for e in ENTRIES]
    site = build(tmp_path, with_base=True, entries=renamed)
    for page in ("eqbench.html", "traits/overall-eq.html"):
        html = (site / page).read_text("utf-8")
        assert "<img" not in html, page
        assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html, page
