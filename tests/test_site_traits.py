"""A trait page's Elo table ranks the models by the Elo intervals themselves, as the
model pages do, whatever the strengths above it say (default site, checked against the
trait's published ratings)."""

from __future__ import annotations

import re

import pandas as pd
import pytest


@pytest.mark.parametrize("slug", ["ends-with-a-follow-up-question",
                                  "includes-more-references-to-other-sources",
                                  "uses-more-mathematical-symbols-and-notation",
                                  "is-more-verbose"])
def test_elo_ranks_follow_the_elo_intervals(default_site, slug):
    ratings = pd.read_csv(default_site / "data" / "traits" / slug / "ratings.csv")
    # Some two models' intervals are disjoint: the data tell them apart.
    disjoint = bool((ratings["ci_low"].to_numpy()[:, None]
                     > ratings["ci_high"].to_numpy()[None, :]).any())
    html = (default_site / "traits" / f"{slug}.html").read_text()
    table = html[html.index('id="elo"'):]
    table = table[:table.index("</table>")]
    ranks = [(int(k), int(n)) for k, n in re.findall(r">(\d+) of (\d+)<", table)]
    assert disjoint  # (on these traits the Elo intervals do separate models)
    assert len(ranks) == len(ratings)
    assert all(n == len(ratings) for _, n in ranks)
    assert "No rank: every model's interval overlaps" not in table
    for (place, _), elo in zip(ranks, ratings.sort_values("elo", ascending=False)["elo"],
                               strict=True):
        assert place == 1 + int((ratings["elo"] > elo).sum())


def test_a_rule_judged_trait_states_its_rule(default_site):
    """The rule-based judge never reads Feedback Forensics' instruction: the page says
    what the program checks (the last character is "?", methods.md's communication
    trait), below the numbers (a phone's first screen keeps them), and shows the
    instruction as what an LLM judge would be asked."""
    source = (default_site / "traits" / "ends-with-a-follow-up-question.html").read_text()
    facts = source[source.index('<dl class="facts">'):source.index("</dl>")]
    assert "<dt>Judge instruction</dt>" not in facts
    assert 'a program, not a model (<a href="#rule">its rule</a>)' in facts
    rule = source[source.index('<h2 id="rule">'):]
    assert ("<p>A program, not a model, checks each response for a question mark as its "
            "last character" in rule)
    assert "Feedback Forensics words the trait for an LLM judge as" in rule
