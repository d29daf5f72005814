"""Model pages: one page per model id, showing every dataset the model is in (tiny
crafted input, numbers worked out by hand).

The tiny votes (site_fixture.py: m1 and m2 against the reference R in dataset "d") plus:

- scores (dataset "bp", judge J, scale 0-10), two prompts, baseline and urgency:

      model   condition  Warmth p1 p2   Formality p1 p2
      M-One   baseline          6  8              2  2
      x       baseline          4  4              5  5
      y       baseline          9  7              3  3
      M-One   urgency           3  5              3  3
      x       urgency           4  4              5  5
      y       urgency           9  8              3  3

- judged pairs without the reference (dataset "pw", trait W):
  "M1 (pairs)" vs p: W says A;  p vs "M1 (pairs)": B;  "M1 (pairs)" vs p: B;  p vs q: A.

models.toml makes m1 (d), M-One (bp) and "M1 (pairs)" (pw) one model, id m1.
"""

from __future__ import annotations

import json
import os
import re
from html import unescape
from pathlib import Path

import pandas as pd
import pytest
from helpers import trait, tree, write_test_votes
from site_fixture import REPO, write_content, write_tiny

from ffsite.format import write_scores
from ffsite.site.build import build_site

NAME = 'Model <One> & "Co"'
REGISTRY = """
[[models]]
id = "m1"
name = 'Model <One> & "Co"'
organisation = "Org <i>"
open_weights = true
released = "2024-05"
aliases = { d = ["m1"], bp = ["M-One"], pw = ["M1 (pairs)"] }
note = "One model, <three> names"
"""
SCORES = {  # (model, condition): {trait: (p1, p2)}
    ("M-One", "baseline"): {"warm": (6, 8), "formal": (2, 2)},
    ("x", "baseline"): {"warm": (4, 4), "formal": (5, 5)},
    ("y", "baseline"): {"warm": (9, 7), "formal": (3, 3)},
    ("M-One", "urgency"): {"warm": (3, 5), "formal": (3, 3)},
    ("x", "urgency"): {"warm": (4, 4), "formal": (5, 5)},
    ("y", "urgency"): {"warm": (9, 8), "formal": (3, 3)},
}
WORDING = {"warm": "Warmth: 1 cold; 10 warm", "formal": "Formality: 1 casual; 10 formal"}
WARM = trait("is warmer")
PAIRS = [("e1", "M1 (pairs)", "p", "A"), ("e2", "p", "M1 (pairs)", "B"),
         ("e3", "M1 (pairs)", "p", "B"), ("e4", "p", "q", "A")]


def write_scores_file(path: Path) -> None:
    rows = []
    for (model, condition), traits in SCORES.items():
        for name, values in traits.items():
            for prompt, score in zip(("p1", "p2"), values, strict=True):
                rows.append({"dataset": "bp", "response_id": f"{condition}/{model}/{prompt}",
                             "prompt_id": prompt, "model": model, "condition": condition,
                             "judge": "J", "trait_id": f"bp-{name}", "trait": WORDING[name],
                             "trait_set": "bp", "scale_min": 0, "scale_max": 10,
                             "seed": None, "score": float(score)})
    write_scores(pd.DataFrame(rows), path, judges={"J": "a panel of two test judges"})


def write_pairs(path: Path) -> None:
    comparisons = [{"comparison_id": cid, "dataset": "pw", "prompt_id": f"s-{cid}",
                    "model_a": a, "model_b": b, "response_a_id": f"{a}/{cid}",
                    "response_b_id": f"{b}/{cid}"} for cid, a, b, _ in PAIRS]
    votes = [{"comparison_id": cid, **WARM, "judge": "jj", "vote": vote}
             for cid, _, _, vote in PAIRS]
    write_test_votes(path, comparisons, votes)


def build_model_pages_site(root: Path) -> Path:
    annotations = root / "annotations"
    write_tiny(annotations)
    write_scores_file(annotations / "scores.parquet")
    write_pairs(annotations / "pairs.parquet")
    content = write_content(root / "content", anchor_model="p", rating_resamples=200)
    (content / "models.toml").write_text(REGISTRY, "utf-8")
    build_site(annotations, root / "site", content=content, templates=REPO / "templates")
    return root / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_model_pages_site(tmp_path_factory.mktemp("model-pages"))


def test_model_pages_built_two_at_a_time_are_those_built_in_one_process(site, tmp_path,
                                                                      monkeypatch):
    """With many models (a site's 338) the pages after the first are built in two halves,
    a forked child building the second; here forced with this site's few."""
    from ffsite.site import context
    from ffsite.site.pages import models

    record = tmp_path / "builders.txt"
    page = models._model_page

    def recorded(ctx, model: str) -> None:  # each process says it built a page
        with record.open("a") as handle:
            handle.write(f"{os.getpid()}\n")
        page(ctx, model)

    monkeypatch.setattr(models, "_model_page", recorded)
    monkeypatch.setattr(models, "FORK_FROM", 0)
    monkeypatch.setattr(context, "FORK_FROM_ROWS", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    halves = build_model_pages_site(tmp_path / "halves")
    assert len(set(record.read_text().split())) == 2  # this process and its child
    assert tree(halves) == tree(site)


def html_of(site: Path, page: str) -> str:
    return (site / page).read_text("utf-8")


def section(html: str, section_id: str) -> str:
    """The HTML of <section id=...> up to the next model section (or the page's end)."""
    start = html.index(f'<section class="model-section" id="{section_id}"')
    end = html.find('<section class="model-section"', start + 1)
    return html[start:end if end > 0 else len(html)]


def row(html: str, table_id: str, header: str) -> list[str]:
    """The visible texts of the cells of a table's row, by the row header's text; each
    cell as 'value | interval' when it shows one."""
    table = re.search(rf'<table class="data sortable" id="{table_id}">(.*?)</table>', html,
                      re.S).group(1)
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)
        texts = [unescape(re.sub(r'<span class="ci">(.*?)</span>', r" | \1",
                                 re.sub(r"<(?!span class=\"ci\"|/span)[^>]+>", "", c))).strip()
                 for c in cells]
        if texts and texts[0] == header:
            return texts
    raise AssertionError(f"no row {header!r} in {table_id}")


def listed(html: str) -> list[str]:
    """The sections the "In these datasets" list links to."""
    found = re.search(r'<nav class="in-datasets".*?</nav>', html, re.S)
    return re.findall(r'href="#([^"]+)"', found.group(0)) if found else []


def records(site: Path, name: str) -> list[dict]:
    return json.loads((site / "data" / f"{name}.json").read_text("utf-8"))


def test_every_model_id_of_every_dataset_has_a_page(site):
    pages = sorted(p.name for p in (site / "models").glob("*.html"))
    # m1 once (three datasets' names), the reference R, m2 (votes only), x and y (scores
    # only), p and q (judged pairs only); none under a dataset's own spelling.
    assert pages == ["R.html", "m1.html", "m2.html", "p.html", "q.html", "x.html", "y.html"]


def test_every_link_to_a_model_page_resolves(site):
    for page in site.rglob("*.html"):
        for target in re.findall(r'href="((?:\.\./)?models/[^"#]+)"', page.read_text("utf-8")):
            assert (page.parent / target).resolve().is_file(), (page, target)


def test_header_names_the_model_from_the_registry_escaped(site):
    html = html_of(site, "models/m1.html")
    assert "<h1>Model &lt;One&gt; &amp; &#34;Co&#34;</h1>" in html
    assert "<title>Model &lt;One&gt; &amp; &#34;Co&#34; ·" in html
    facts = dict(re.findall(r"<dt[^>]*>(.*?)</dt><dd[^>]*>(.*?)</dd>", html))
    assert facts == {"Id": "m1", "Organisation": "Org &lt;i&gt;", "Weights": "open (published)",
                     "Released": "2024-05", "Name in bp": "M-One", "Name in d": "m1",
                     "Name in pw": "M1 (pairs)", "Note": "One model, &lt;three&gt; names"}
    assert "<i>" not in html and "<three>" not in html


def test_in_these_datasets_links_each_section(site):
    html = html_of(site, "models/m1.html")
    anchors = listed(html)
    assert anchors == ["personality", "pairs-pw", "text-statistics"]
    assert all(f'id="{a}"' in html for a in anchors)
    nav = re.search(r'<nav class="in-datasets".*?</nav>', html, re.S).group(0)
    assert "Judged personality (bp)" in nav and "2 traits scored by J on 2 prompts" in nav


def test_each_listed_dataset_leads_with_its_number_by_hand(site):
    """The list at the top of the page: each section's leading number with its interval
    (and rank), worked out below from the same tiny data; the registry's names of the
    model in each dataset and its note fold away under the main facts."""
    html = html_of(site, "models/m1.html")
    nav = re.search(r'<nav class="in-datasets".*?</nav>', html, re.S).group(0)
    items = [unescape(re.sub(r"<[^>]+>", "", li)) for li in re.findall(r"<li>(.*?)</li>",
                                                                       nav, re.S)]
    # bp: m1 is 2nd of 3 on Warmth (mean 7, range 1–2: test below) and 3rd on
    # Formality: Warmth is its highest place.
    assert items[0].endswith("; highest place: Warmth 7.00 (6.00–8.00), #2 of 3 (range 1–2)")
    # pw: Elo on its only criterion, first of three.
    assert re.search(r"; Elo: is warmer \d{4} \(\d+–\d+\), #1 of 3", items[1]), items[1]
    assert "2 traits judged by j in 3 comparisons with R" in items[2]  # its judge named
    # d: is more verbose +0.33 and is more concise (its mirror, -0.33): the first of the
    # two farthest from 0 (idxmax keeps the first, the table's order).
    assert re.search(r"; shown (most|least): is more (verbose|concise) [+-]0\.33 \([+-]",
                     items[2]), items[2]
    details = re.search(r'<details class="model-names">\s*<summary>(.*?)</summary>', html)
    assert details.group(1) == "Names in the datasets, and a note"
    assert html.index('<dt>Released</dt>') < html.index('class="model-names"') < html.index(
        "<dt>Name in bp</dt>")


def test_judged_personality_numbers_by_hand(site):
    html = section(html_of(site, "models/m1.html"), "personality")
    assert "Judge: <strong>J</strong>, a panel of two test judges." in html
    assert "derived from the scores" in html and "among the 3 models" in html
    # Warmth: mean (6 + 8) / 2 = 7; resampling the two prompts gives 6, 7 or 8, while y
    # scores 8 on both: place 2 of 3 (y's 8 is higher), and first in the quarter of the
    # resamples that draw p2 twice (8 ties y's 8): range 1–2. Derived votes: p1 beats x,
    # loses to y; p2 beats both: (3 - 1) / 4 = +0.50; p1 alone gives 0, p2 alone +1.
    assert row(html, "personality-means", "Warmth") == [
        "Warmth", "7.00 | 6.00–8.00", "2 of 3 | 1–2", "+0.50 | +0.00 to +1.00", "2"]
    # Formality: 2 on both prompts, the lowest of three; loses all four derived votes.
    assert row(html, "personality-means", "Formality") == [
        "Formality", "2.00 | 2.00–2.00", "3 of 3 | sure", "-1.00 | -1.00 to -1.00", "2"]


def test_under_pressure_numbers_by_hand(site):
    html = section(html_of(site, "models/m1.html"), "personality")
    assert 'href="../pressure.html"' in html
    # Urgency: Warmth 3 - 6 and 5 - 8 (-3); Formality 3 - 2 twice (+1): bend (3 + 1) / 2
    # = 2, the most of the three (x: 0; y: (0.5 + 0) / 2 = 0.25).
    assert row(html, "bend", "Urgency") == ["Urgency", "2.00 | 2.00–2.00", "1 of 3 | sure",
                                            "2"]
    assert row(html, "shifts", "Warmth") == ["Warmth", "Urgency", "-3.00 | -3.00 to -3.00",
                                             "7.00 → 4.00", "2"]
    assert row(html, "shifts", "Formality") == ["Formality", "Urgency", "+1.00 | +1.00 to +1.00",
                                                "2.00 → 3.00", "2"]


def test_judged_pairs_numbers_by_hand(site):
    html = section(html_of(site, "models/m1.html"), "pairs-pw")
    # W: m1 favoured in e1 (A) and e2 (B), p in e3: (2 - 1) / 3 against all others.
    cells = row(html, "pairs-pairs-pw", "is warmer")
    assert cells[3].startswith("+0.33 | ") and cells[4:] == ["3", "3"]
    elo, interval = cells[1].split(" | ")
    assert float(elo) > 1000 and re.fullmatch(r"\d+–\d+", interval)  # won 2 of 3 against p
    # First of three by Elo; the range over the refits holds that place.
    place, spread = cells[2].split(" | ")
    assert place == "1 of 3" and (spread == "sure" or re.fullmatch(r"1–[23]", spread))
    assert 'fixed at 1000' in html and '<a href="../models/p.html">p</a>' in html


def test_text_statistics_against_the_reference_kept(site):
    html = section(html_of(site, "models/m1.html"), "text-statistics")
    # Not the rule-based judge: no claim of "text statistics".
    assert "Traits against the reference (d)" in html and "Text statistics" not in html
    # Verbose for m1 vs R: c1 and c2 agree, c3 disagrees: (2 - 1) / 3.
    cells = row(html, "traits", "is more verbose")
    assert cells[1].startswith("+0.33 | ")
    assert 'href="../models/R.html"' in html


def test_downloads_hold_the_same_numbers(site):
    html = html_of(site, "models/m1.html")
    for name in ("models/m1/personality", "models/m1/bend", "models/m1/pressure",
                 "models/m1/dataset-pw", "models/m1/traits", "models/m1/comparisons"):
        assert f'href="../data/{name}.csv"' in html, name
    warm = next(r for r in records(site, "models/m1/personality") if r["trait_id"] == "bp-warm")
    assert (warm["model"], warm["source_model"], warm["mean"], warm["ci_low"],
            warm["ci_high"], warm["rank"], warm["rank_low"], warm["rank_high"],
            warm["models_ranked"], warm["strength_derived_from_scores"], warm["derived_wins"],
            warm["derived_losses"]) == ("m1", "M-One", 7.0, 6.0, 8.0, 2, 1, 2, 3, 0.5, 3, 1)
    shift = next(r for r in records(site, "models/m1/pressure") if r["trait_id"] == "bp-warm")
    assert (shift["condition"], shift["shift"], shift["n_pairs"]) == ("urgency", -3.0, 2)
    (bend,) = records(site, "models/m1/bend")
    assert (bend["bend"], bend["rank"], bend["models_compared"]) == (2.0, 1, 3)
    (pairs,) = records(site, "models/m1/dataset-pw")
    assert pairs["valid_votes"] == 3 and pairs["strength"] == pytest.approx(1 / 3)


def test_a_model_without_registry_entry_gets_its_own_page(site):
    html = html_of(site, "models/x.html")
    assert "<h1>x</h1>" in html
    facts = dict(re.findall(r"<dt[^>]*>(.*?)</dt><dd[^>]*>(.*?)</dd>", html))
    # What the registry would say is unknown, and says so rather than vanishing.
    assert facts == {"Id": "x", "Organisation": "unknown", "Weights": "unknown",
                     "Released": "unknown", "Name in bp": "x"}
    # Scores only: no section, table or heading for data it does not have.
    assert listed(html) == ["personality"]
    assert 'id="text-statistics"' not in html and "pairs-pw" not in html
    assert "Most exhibited" not in html
    # x scored 4 on Warmth (last of 3) and lost every derived vote; it never moves.
    assert row(html, "personality-means", "Warmth") == [
        "Warmth", "4.00 | 4.00–4.00", "3 of 3 | sure", "-1.00 | -1.00 to -1.00", "2"]
    # Its bend 0 (0–0) is below m1's 2 (2–2) and y's 0.25 (0–0.5): place 3 of 3. Drawn
    # from y's interval, y falls below 0 in about 2.5% of the draws, right at the edge of
    # the 95% range: the range is 2–3 or, when fewer draws fall there, sure.
    urgency = row(html, "bend", "Urgency")
    assert urgency[:2] == ["Urgency", "0.00 | 0.00–0.00"] and urgency[3] == "2"
    assert urgency[2] in ("3 of 3 | sure", "3 of 3 | 2–3")


def test_votes_only_and_pairs_only_models(site):
    m2 = html_of(site, "models/m2.html")
    assert listed(m2) == ["text-statistics"]
    assert 'id="personality"' not in m2 and "pairs-pw" not in m2
    q = html_of(site, "models/q.html")
    assert listed(q) == ["pairs-pw"] and 'id="personality"' not in q
    assert 'id="text-statistics"' not in q


def test_the_reference_model_has_a_page_saying_what_it_is(site):
    html = html_of(site, "models/R.html")
    assert "<h1>R</h1>" in html
    text = section(html, "text-statistics")
    assert "is the reference model on d" in text and "no strengths of its own" in text
    assert "5 comparisons in all). On the" in text  # c1 to c5; R anchors the ratings
    assert 'id="traits"' not in text
    assert row(text, "comparisons", "d") == ["d", "5"]


def test_home_tables_show_what_the_registry_knows(site):
    """m1's entry: organisation 'Org <i>', open weights, released 2024-05; x and m2 have
    no entry, so every fact is unknown ('–'), never guessed."""
    html = html_of(site, "index.html")
    # (Last in each row: on a phone the numbers come first.)
    assert row(html, "leaderboard", "m1")[-3:] == ["Org <i>", "open", "2024-05"]
    assert row(html, "leaderboard", "m2")[-3:] == ["–", "–", "–"]
    assert row(html, "personality", NAME)[-3:] == ["Org <i>", "open", "2024-05"]
    assert row(html, "personality", "x")[-3:] == ["–", "–", "–"]
    assert "Org &lt;i&gt;" in html and "Org <i>" not in html  # escaped, as all data
    models = {r["model"]: r for r in records(site, "models")}
    assert (models["m1"]["organisation"], models["m1"]["open_weights"],
            models["m1"]["released"]) == ("Org <i>", True, "2024-05")
    assert (models["m2"]["organisation"], models["m2"]["open_weights"]) == (None, None)
    facts = dict(re.findall(r"<dt[^>]*>(.*?)</dt><dd[^>]*>(.*?)</dd>",
                            html_of(site, "models/m1.html")))
    assert (facts["Organisation"], facts["Weights"], facts["Released"]) == (
        "Org &lt;i&gt;", "open (published)", "2024-05")



def test_a_models_elo_ranks_count_the_models_each_trait_rates(default_site):
    """On a model page the Elo table lists many traits: each rank is "k of n" with n the
    models that trait rates and k one more than those rated above it, both counted here
    from the trait's own published table (a model page once said "58 of 10", counting
    the page's traits)."""
    page = (default_site / "models" / "Meta-Llama-3-70B-Instruct.html").read_text()
    table = page[page.index('id="ratings"'):]
    table = table[table.index("<tbody"):table.index("</table>")]
    rows = re.findall(r'<a href="\.\./traits/([^"]+)\.html">[^<]*</a></th>'
                      r'<td data-v="([-0-9.e]+)"[^>]*>.*?<td data-v="\d+"[^>]*>(\d+) of (\d+)',
                      table)
    assert len(rows) == table.count("<tr") == 10
    for slug, elo, place, of in rows:
        board = pd.read_csv(default_site / "data" / "traits" / slug / "ratings.csv")
        mine = board.loc[board["model"] == "Meta-Llama-3-70B-Instruct", "elo"].iat[0]
        assert float(elo) == pytest.approx(mine, abs=1e-3), slug
        assert int(of) == len(board) == 67, slug  # AlpacaEval's rated models
        assert int(place) == 1 + int((board["elo"] > mine).sum()), slug


def test_a_model_compared_on_fewer_prompts_says_so(default_site, shared_data):
    """gemma-2b-it's empty outputs are left out with their comparisons (the data README:
    22 of AlpacaEval's 25 empty outputs are gemma-2b-it's): its page says how many of the
    805 instructions it is compared on, counted here from the raw outputs."""
    outputs = json.loads((shared_data / "alpaca_eval" / "model_outputs" / "gemma-2b-it.json"
                          ).read_text())
    reference = json.loads((shared_data / "alpaca_eval" / "model_outputs"
                            / "gpt4_1106_preview.json").read_text())
    empty = {o["instruction"] for o in outputs if not o["output"].strip()} | {
        o["instruction"] for o in reference if not o["output"].strip()}
    instructions = {o["instruction"] for o in outputs}
    assert (len(instructions), len(empty)) == (805, 22)
    text = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (
        default_site / "models" / "gemma-2b-it.html").read_text())))
    assert ("AlpacaEval: 783 of the 805 prompts compared with the reference are compared "
            "for this model; the others are missing" in text)
    # A model with every instruction compared carries no such note.
    assert "prompts compared with the reference are compared for this model" not in (
        default_site / "models" / "Meta-Llama-3-70B-Instruct.html").read_text()


def test_a_section_without_derived_votes_shows_no_strength_column(default_site):
    """Votes are derived from Behavioral Profiling's shared prompts, not from llm-dreams'
    repeated answer sets: gpt-4.1's page shows the strength column in the first section
    only, never an empty one."""
    page = (default_site / "models" / "gpt-4.1.html").read_text()
    sections = re.findall(r'<section class="model-section" id="personality[^"]*".*?</section>',
                          page, flags=re.S)
    by_heading = {re.search(r"<h2[^>]*>([^<]*)</h2>", s).group(1): s for s in sections}
    assert "Strength vs others" in by_heading["Judged personality (Behavioral Profiling)"]
    dreams = by_heading["Judged personality (llm-dreams)"]
    assert "Strength vs others" not in dreams and "derived from the scores" not in dreams


def test_a_leading_number_a_model_gave_itself_says_so(default_site):
    """Claude 3.7 Sonnet is EQ-Bench 3's judge; Claude 4.5 Sonnet one of Behavioral
    Profiling's three, and Claude 4.5 Sonnet (thinking) its variant (the registry's
    variant_of): the leading numbers they helped give their own weights' answers carry
    the badge, the others none."""
    def items(model: str) -> dict[str, str]:
        html = html_of(default_site, f"models/{model}.html")
        nav = re.search(r'<nav class="in-datasets".*?</nav>', html, re.S).group(0)
        return {re.search(r'href="#([^"]+)"', li).group(1): unescape(li)
                for li in re.findall(r"<li>(.*?)</li>", nav, re.S)}

    sonnet = items("claude-3.7-sonnet")
    assert "one of the judges of EQ-Bench 3 (claude-3.7-sonnet)" in sonnet["eqbench"]
    assert '">judge</span>' in sonnet["eqbench"]
    assert 'class="badge"' not in sonnet["personality"]  # Behavioral Profiling: not a judge
    newer = items("claude-4.5-sonnet")
    assert "one of the judges of Behavioral Profiling (Claude-4.5-Sonnet)" in newer[
        "personality"]
    thinking = items("claude-4.5-sonnet-thinking")
    assert '">judge\'s variant</span>' in thinking["personality"]
    assert ("a variant of Claude 4.5 Sonnet (the same model in another setting), one of the "
            "judges of Behavioral Profiling (Claude-4.5-Sonnet)") in thinking["personality"]
    page = unescape(html_of(default_site, "models/claude-4.5-sonnet-thinking.html"))
    assert "This model is a variant of Claude 4.5 Sonnet" in page  # its section's note
    ratings = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(
        html_of(default_site, "ratings.html"))))
    assert ("judge's variant Claude 4.5 Sonnet (thinking) is a variant of a judge (the same "
            "model in another setting)") in ratings
    # Compare marks it too (its script says so under each section the judge rated).
    compare = html_of(default_site, "compare.html")
    index = json.loads(re.search(r'<script type="application/json" id="compare-index">(.*?)'
                                 r"</script>", compare, re.S).group(1))
    code = index["models"].index("claude-4.5-sonnet-thinking")
    marked = [s["id"] for s in index["sections"] if code in s["variantJudged"]]
    assert marked and all(s.startswith("behavioral_profiling") for s in marked), marked
    assert not any(code in s["selfJudged"] for s in index["sections"])
