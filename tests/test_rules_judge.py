"""The rule-based judge: crafted pairs for every rule, in both orders, and the margins."""

from __future__ import annotations

import pandas as pd
import pytest

from ffsite.judges.rules import (
    RULE_TRAITS,
    RULES_VERSION,
    judge_pairs,
    response_features,
)
from ffsite.traits import FF_V1, PREFIX

SWAP = {"A": "B", "B": "A", "tie": "tie", "neither": "neither"}
WORDS_100 = " ".join(["word"] * 100)


def trait_id(short: str) -> str:
    return next(t.id for t in FF_V1 if t.wording == PREFIX + short)


# (trait, text A, text B, the vote on A vs B), each counted by hand.
CASES = [
    ("is more verbose", WORDS_100, " ".join(["word"] * 50), "A"),
    ("is more verbose", WORDS_100, " ".join(["word"] * 90), "tie"),  # lead 10 = 10%
    ("is more verbose", WORDS_100, " ".join(["word"] * 89), "A"),  # lead 11 > 10%
    ("is more verbose", "", "", "tie"),
    ("is more verbose", "Yes.", "Yes, sure.", "B"),
    ("is more concise", WORDS_100, " ".join(["word"] * 50), "B"),
    ("is more concise", WORDS_100, " ".join(["word"] * 95), "tie"),
    ("provides a numbered list format", "1. one\n2. two\n3. three", "- one\n- two", "A"),
    ("provides a numbered list format", "1. one\n2. two", "1) a\n2) b\n3) c", "tie"),
    ("provides a numbered list format", "1. a lone item", "Plain prose.", "neither"),
    ("has more structured formatting", "# Plan\n\n- a\n- b\n- c", "Just prose.", "A"),
    ("has more structured formatting", "| a |\n|---|\n| 1 |\n| 2 |", "- x", "A"),  # 3 vs 1
    ("has more structured formatting", "- a\n- b\n- c\n- d", "- a\n- b\n- c\n- d\n- e",
     "tie"),  # 4 vs 5: a lead of 1 is under the margin of 2
    ("has more structured formatting", "- a single item", "Prose.", "neither"),
    ("uses more bold and italics text", "**a** and *b* and **c**", "plain", "A"),
    ("uses more bold and italics text", "*a*", "**a** and **b**", "B"),
    ("uses more bold and italics text", "*a* *b* *c* *d* *e*", "*a* *b* *c* *d* *e* *f*",
     "tie"),  # lead 1 is not more than 20% of 6
    ("uses more bold and italics text", "plain", "also plain", "neither"),
    ("uses more emojis", "\U0001f389 done \U0001f680", "done", "A"),
    ("uses more emojis", "\U0001f389", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "tie"),
    ("uses more emojis", "done", "finished", "neither"),
    ("ends with a follow-up question", "Here it is. Anything else?", "Here it is.", "A"),
    ("ends with a follow-up question", "Why? Because.", "Shall I go on?", "B"),
    ("ends with a follow-up question", "More?", "Another?", "tie"),
    ("ends with a follow-up question", "Done.", "Finished.", "neither"),
    ("uses more mathematical symbols and notation", "Let x = 2 + 3 and y \u2264 5.",
     "No maths here.", "A"),  # 3 vs 0
    ("uses more mathematical symbols and notation", "We have a = b.", "In C++ and ->.",
     "neither"),  # 1 vs 0: below the floor of 2
    ("uses more mathematical symbols and notation", r"$\alpha^2 + \beta^2$",
     "\u03b1 \u00d7 \u03b2 = \u03b3", "tie"),  # 5 vs 5
    ("uses more personal pronouns (I, we, you)", "I think you should try it.",
     "The method works well in practice.", "A"),
    ("uses more personal pronouns (I, we, you)", "I like it a lot today.",
     "You like it a lot now.", "tie"),  # 1 per 6 words on both sides
    ("uses more personal pronouns (I, we, you)", "The US economy grows.",
     "The UK economy grows.", "neither"),  # "US" is not "us"
    ("includes more references to other sources", "See https://example.com and [1].",
     "No sources.", "A"),
    ("includes more references to other sources", "The WHO says so.",
     "According to the WHO (Smith et al., 2020), yes.", "B"),
    ("includes more references to other sources", "[the docs](https://a.example/x)",
     "https://b.example/y", "tie"),
    ("includes more references to other sources", "Nothing cited.", "Nor here.", "neither"),
]


def test_the_judge_is_versioned_and_votes_on_ff_traits():
    assert RULES_VERSION == "rules-1"
    assert len(RULE_TRAITS) == 10 and len(set(RULE_TRAITS)) == 10
    assert set(RULE_TRAITS) <= set(FF_V1)  # same ids and wording as FF
    assert {t.trait_set for t in RULE_TRAITS} == {"ff-v1"}
    assert {t.short for t in RULE_TRAITS} == {short for short, *_ in CASES}


def test_every_rule_on_crafted_pairs_in_both_orders():
    features_a = response_features([a for _, a, _, _ in CASES])
    features_b = response_features([b for _, _, b, _ in CASES])
    forward = judge_pairs(features_a, features_b)
    backward = judge_pairs(features_b, features_a)
    assert list(forward.columns) == [t.id for t in RULE_TRAITS]
    for row, (short, text_a, text_b, expected) in enumerate(CASES):
        column = trait_id(short)
        assert forward[column].iat[row] == expected, (short, text_a, text_b)
        assert backward[column].iat[row] == SWAP[expected], (short, text_b, text_a)


def test_concise_is_the_mirror_of_verbose():
    texts = ["a b c", "a b c d e f g h", "", "one two three four five six seven eight nine ten",
             "one two three four five six seven eight nine"]
    features = response_features(texts)
    pairs = [(i, j) for i in range(len(texts)) for j in range(len(texts))]
    votes = judge_pairs(features.iloc[[i for i, _ in pairs]],
                        features.iloc[[j for _, j in pairs]])
    verbose, concise = trait_id("is more verbose"), trait_id("is more concise")
    assert votes[concise].map(SWAP).tolist() == votes[verbose].tolist()
    assert set(votes[verbose]) == {"A", "B", "tie"}


def _features(**columns: list[float]) -> pd.DataFrame:
    """Features of blank texts with some columns overwritten."""
    frame = response_features([""] * len(next(iter(columns.values()))))
    for name, values in columns.items():
        frame[name] = values
    return frame


def test_margins_on_feature_values():
    emphasis = trait_id("uses more bold and italics text")
    pronouns = trait_id("uses more personal pronouns (I, we, you)")
    math = trait_id("uses more mathematical symbols and notation")
    a = _features(emphasis_spans=[10, 10, 1, 0], pronoun_rate=[3.0, 3.0, 0.05, 0.4],
                  math_symbols=[10, 3, 1, 4])
    b = _features(emphasis_spans=[8, 7, 0, 0], pronoun_rate=[2.5, 2.3, 0.0, 0.0],
                  math_symbols=[8, 1, 0, 2])
    votes = judge_pairs(a, b)
    # 10 vs 8: lead 2 = 20% of 10, not more; 10 vs 7: lead 3 > 2; 1 vs 0 wins; 0 vs 0 none
    assert votes[emphasis].tolist() == ["tie", "A", "A", "neither"]
    # 3.0 vs 2.5 per 100 words: 0.5 is not more than 20% of 3.0; 3.0 vs 2.3 is;
    # 0.05 vs 0: both under the floor of 0.1; 0.4 vs 0: lead 0.4 under the 0.5 minimum
    assert votes[pronouns].tolist() == ["tie", "A", "neither", "tie"]
    # 10 vs 8: lead 2 = 20%, a tie; 3 vs 1: lead 2; 1 vs 0 under the floor; 4 vs 2
    assert votes[math].tolist() == ["tie", "A", "neither", "A"]


def test_votes_keep_the_index_and_check_lengths():
    features = response_features(["Hi!", "Hello there, friend."])
    features.index = ["x", "y"]
    votes = judge_pairs(features, features.iloc[::-1])
    assert list(votes.index) == ["x", "y"]
    assert set(votes.to_numpy().ravel()) <= {"A", "B", "tie", "neither"}
    with pytest.raises(ValueError, match="2 rows .* side A but 1"):
        judge_pairs(features, features.iloc[:1])


def test_features_are_computed_per_response():
    text = ("# Steps\n\n1. **Mix** the *flour*.\n2. Bake at 200 \u00b0C.\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n\nI hope we helped you (see [1]). Questions?")
    row = response_features([text]).iloc[0]
    assert row["list_items"] == 2 and row["ordered_items"] == 2
    assert row["numbered_list"] == 1
    assert row["table_rows"] == 2
    assert row["structure_elements"] == 1 + 2 + 2  # heading, items, table rows
    assert row["emphasis_spans"] == 2
    assert row["pronouns"] == 3  # I, we, you
    assert row["references"] == 1
    assert row["ends_with_question"] == 1
