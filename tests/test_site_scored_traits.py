"""A scored trait's page says what its numbers are: the rubric's scale, how its intervals
were made (a bootstrap over the prompts, or over a model's few repeated answers), what a
rank is. Checked on the default site against the raw data."""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest


def _text(default_site, page: str) -> str:
    source = (default_site / page).read_text()
    source = re.sub(r"<script.*?</script>|<style.*?</style>", "", source, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", source)))


def _scale(text: str) -> str:
    return re.search(r"Scale (.*?), the mean", text).group(1)


def test_behavioral_profiling_trait_shows_its_rubric_and_a_bootstrap(default_site):
    text = _text(default_site, "traits/warmth.html")
    # The data store 0-10 (a judge of the panel answered 0), the rubric runs 1-10.
    assert _scale(text) == "1 to 10"
    assert "Every interval is a 95% bootstrap interval over the prompts." in text
    assert "surely higher" not in text  # the rank is a place with its 95% range
    assert "its place by the mean, with the 95% range of that place" in text
    # A rank range is one model's; overlapping ranges do not make two models alike
    # (Gemini 2.0 Flash and Llama 4 Maverick on tribalism: ranks 3-30 and 26-45, means
    # 1.08-1.35 and 1.00-1.06).
    assert "cannot tell which is higher" not in text and "cannot be told apart" not in text
    assert "the places the data allow for that model" in text


def test_a_trait_whose_judges_saw_only_its_name_says_the_ends_are_ours(default_site,
                                                                        shared_data):
    """llm-dreams' judges got the trait names and "1.0 (minimum score) to 10.0 (maximum
    score)" (its PROTOCOL.md), nothing about the ends: the definition's wording of them
    is ffsite's, and the page must not claim an anchored rubric."""
    protocol = (shared_data / "llm_dreams" / "PROTOCOL.md").read_text()
    assert "'Achievement Motivation'" in protocol and "driven to succeed" not in protocol
    text = _text(default_site, "traits/achievement-motivation.html")
    assert ('Achievement Motivation: 1 indifferent to success; 10 driven to succeed (the '
            'judges were asked only for "Achievement Motivation" from 1 to 10; this wording '
            "of the ends is ffsite's reading of the name)") in text
    assert "anchored ends" not in text
    assert 'with nothing said of its ends but "minimum" and "maximum"' in text
    # Rubrics the judges were given keep saying so.
    for page in ("traits/warmth.html", "traits/agency.html"):
        text = _text(default_site, page)
        assert "with anchored ends (see the definition)" in text
        assert "reading of the name" not in text


@pytest.mark.parametrize(("page", "scale", "unit"), [
    ("traits/agency.html", "1 to 5", "poem"),
    ("traits/creativity.html", "1 to 10", "answer set"),
])
def test_repeated_answer_datasets_name_their_interval_and_unit(default_site, page, scale,
                                                               unit):
    text = _text(default_site, page)
    assert _scale(text) == scale
    assert f"Every interval comes from how far the model's {unit}s differ" in text
    assert "bootstrap interval over the prompts" not in text
    assert f" {unit.capitalize()}s " in text  # the count column is named by its unit


def test_a_model_whose_poems_all_scored_alike_still_has_an_interval(default_site,
                                                                    shared_data):
    """Claude 3 Haiku's five poems all scored 4 on agency (poem-eval's
    scored_results.csv): a bootstrap over the poems would give 4.00-4.00; the moderated
    interval around the mean of 4 is wider than a point."""
    raw = pd.read_csv(shared_data / "poem_eval" / "scored_results.csv")
    haiku = raw.loc[raw["model_id"] == "anthropic/claude-3-haiku", "passive_agentic"]
    assert list(haiku) == [4] * 5
    means = pd.read_csv(default_site / "data" / "traits" / "agency" / "means.csv")
    row = means[means["source_model"] == "anthropic/claude-3-haiku"].iloc[0]
    assert row["mean"] == 4.0 and row["n_prompts"] == 5
    assert row["ci_low"] < 4.0 - 0.1 and row["ci_high"] > 4.0 + 0.1


def test_no_votes_are_derived_from_repeated_answers(default_site, shared_data):
    """llm-dreams' models wrote two answer sets and poem-eval's five poems to one task
    (their READMEs): one model's answer set 0 has nothing to do with another's, so no
    pairwise votes, strengths or ratings are derived from them (a bootstrap over two
    answer sets gave intervals of next to no width); Behavioral Profiling's models
    answered the same 50 prompts and keep theirs."""
    assert len({p.name.rsplit("__", 1)[1] for p in (shared_data / "llm_dreams" / "answers")
                .glob("*.txt")}) == 2  # answer sets 0 and 1
    traits = default_site / "data" / "traits"
    for slug in ("creativity", "agency"):  # llm-dreams, poem-eval
        assert not (traits / slug / "strengths.csv").exists(), slug
        assert not (traits / slug / "ratings.csv").exists(), slug
        assert "Against all other models" not in (default_site / "traits" / f"{slug}.html"
                                                  ).read_text()
    assert (traits / "warmth" / "strengths.csv").is_file()
