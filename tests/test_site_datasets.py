"""The datasets' pages on the default site say what their imports left out, reason by
reason, and lead a dataset with a page of its own there."""

from __future__ import annotations

import html
import json
import re


def _text(default_site, page: str) -> str:
    source = (default_site / page).read_text()
    source = re.sub(r"<script.*?</script>|<style.*?</style>", "", source, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", source)))


def test_left_out_is_said_once_per_reason_naming_each_file(default_site):
    """AlpacaEval: 25 outputs are empty (../shared/data/README.md); each default file
    counts the comparisons it left out for them (the model pairs are fewer: 6)."""
    text = _text(default_site, "datasets/alpaca_eval.html")
    assert ("Left out by the import: comparisons with an empty answer: 6 in the rule "
            "judge's pairs of models, 25 in the preference votes, 25 in the rule judge's "
            "votes." in text)
    assert "(preferences)" not in text and "(model-pairs)" not in text


def test_a_dataset_page_is_titled_by_the_datasets_name(default_site):
    """Its name as readers know it (the dataset's record), the id of the annotation files
    beside the counts."""
    source = (default_site / "datasets" / "hh_rlhf.html").read_text()
    assert "<h1>HH-RLHF</h1>" in source and "<title>HH-RLHF · " in source
    assert "In the annotation files: <code>hh_rlhf</code>." in source


def test_a_dataset_with_its_own_page_links_it(default_site):
    source = (default_site / "datasets" / "eqbench3.html").read_text()
    assert '<a href="../eqbench.html">its own page</a>' in source


def test_a_card_names_who_judged_its_traits_beside_its_preferences(default_site):
    """AlpacaEval's preferences are its GPT-4 Turbo judge's, its ten traits the rule-based
    judge's (rules-1): the card names both, not the preference judge alone."""
    text = _text(default_site, "datasets.html")
    card = text[text.index("AlpacaEval Pairwise votes"):]
    assert ("Judged by preferences: weighted_alpaca_eval_gpt4_turbo; traits: rules-1"
            in card[:1500])


def test_cards_count_what_was_scored_in_its_own_unit(default_site):
    """llm-dreams' judges scored each of 236 models' two answer sets of 15 dreams, and
    poem-eval's judge 115 poems (the data README): the cards count answer sets and
    poems, not 'answers'."""
    text = _text(default_site, "datasets.html")
    assert "472 scored answer sets" in text and "115 scored poems" in text


def test_the_datasets_cards_list_each_datasets_known_defects(default_site, shared_data):
    """Behavioral Profiling's card counts its scores under the rubric's floor and those
    under keys that are none of its nine dimensions (the judges' misspellings, left out),
    both counted here from the base data's contributions files."""
    nine = {"warmth", "formality", "hedging", "aggression", "transgression", "grandiosity",
            "tribalism", "depth", "authenticity"}
    below = misspelt = 0
    for path in sorted((shared_data / "behavioral_profiling" / "contributions").glob("*.json")):
        jobs = json.loads(path.read_text("utf-8"))["job_contributions"]
        for job in jobs.values():
            for scores in job["contributions"].values():
                for key, score in scores.items():
                    if key in nine:
                        below += score["score"] < 1
                    else:
                        misspelt += 1
    page = (default_site / "datasets.html").read_text("utf-8")
    card = page[page.index('id="dataset-behavioral_profiling"'):]
    card = card[:card.index("</article>")]
    assert f"{below} scores below the rubric&#39;s floor of 1" in card
    assert f"{misspelt} scores under keys that are none of its traits" in card
    assert "ribalism (22)" in card
    eq = page[page.index('id="dataset-eqbench3"'):]
    assert "judge verdicts with an error instead of a judgement: 90" in eq[:eq.index(
        "</article>")]
