"""The 21 communication traits (methods.md §2), each on texts counted by hand."""

from __future__ import annotations

import math

import pytest

from ffsite.judges.body import parse_body
from ffsite.judges.communication import (
    COMMUNICATION_TRAITS,
    GROUPS,
    LABELS,
    communication_frame,
    communication_traits,
)


def trait(name: str, text: str) -> float:
    return communication_traits(text)[name]


def test_trait_list_order_labels_and_groups():
    assert COMMUNICATION_TRAITS == (
        "characters", "words", "sentences", "paragraphs", "avg_sentence_length", "lists",
        "headings", "tables", "em_dashes", "contractions", "exclamations", "questions",
        "parentheses", "quotes", "colons", "ellipses", "bold", "italics", "emojis",
        "acronyms", "ends_with_question")
    assert set(LABELS) == set(GROUPS) == set(COMMUNICATION_TRAITS)
    assert LABELS["avg_sentence_length"] == "Avg. sentence length"
    assert sorted(set(GROUPS.values())) == ["Emphasis", "Length", "Punctuation", "Structure"]
    assert [name for name in COMMUNICATION_TRAITS if GROUPS[name] == "Structure"] == [
        "lists", "headings", "tables"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Hello world.", 12),
    ("Run `ls -la` now.", 9),  # "Run  now.": the code span goes, both spaces stay
    ("Intro.\n\n```\nprint('x')\n```\n\nEnd.", 11),  # "Intro.\nEnd."
    ("Intro.\n\n    indented code\n\nEnd.", 11),
    ("See https://example.com/a?b=c now.", 9),  # "See  now."
    ("See [the docs](https://example.com) now.", 17),  # the link text stays
    ("**Bold** text", 9),  # Markdown syntax is not text
    ("One.\n\nTwo.", 9),  # blocks are joined by one line break
    ("", 0),
])
def test_characters_exclude_code_urls_and_syntax(text, expected):
    assert trait("characters", text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Hello, world! It's 2024 \u2014 a new-year.", 6),
    ("word\u2014word and 1990\u20132000", 5),  # em and en dashes separate words
    ("Yes ... no & maybe - ok", 4),  # tokens without a letter or digit are not words
    ("\u6211\u7231\u4f60 and \u65e5\u672c\u8a9e\u3067\u3059", 9),  # 3 + 1 + 5
    ("\uc548\ub155\ud558\uc138\uc694", 5),  # each Hangul syllable is a word
    ("AI\u6a21\u578b", 3),  # "AI" + two Han characters
    ("Call `foo bar baz` now", 2),  # code is not counted
])
def test_words(text, expected):
    assert trait("words", text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Dr. Smith arrived at 5 p.m. on Monday. He met Mr. J. K. Rowling at the U.S. Army "
     "base. Was it fun? Yes!", 4),
    ("Use a language, e.g. Python. Or Ruby.", 2),
    ("Prof. Lee vs. Dr. Kim. Done.", 2),
    ("Wait... What happened?", 2),
    ("Well... maybe not.", 1),
    ("Pi is 3.14 today. It was 3.15 yesterday.", 2),
    ("She said \"Stop.\" Then she left.", 2),  # a closing quote after the full stop
    ("# Title\n\nText without a full stop", 2),  # every block ends a sentence
    ("- apples\n- pears", 2),
    ("\u65e5\u672c\u8a9e\u3067\u3059\u3002\u6b21\u306e\u6587\u3002", 2),
    ("...", 0),
    ("", 0),
])
def test_sentences_know_abbreviations(text, expected):
    assert trait("sentences", text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("# Head\n\nPara one.\n\n- item a\n- item b\n\n```\ncode\n```\n\nPara two\ncontinues.", 2),
    ("- loose a\n\n- loose b", 2),  # items of a loose list are paragraphs
    ("> quoted text", 1),
    ("| a |\n|---|\n| 1 |", 0),
    ("Plain.\n\n\n\nAnother.\n\n  Third, indented two spaces.", 3),
])
def test_paragraphs(text, expected):
    assert trait("paragraphs", text) == expected


def test_average_sentence_length():
    assert trait("avg_sentence_length", "One two three. Four five.") == 2.5
    assert math.isnan(trait("avg_sentence_length", ""))  # no sentence: undefined


@pytest.mark.parametrize(("text", "expected"), [
    ("- a\n- b\n  - nested\n  - nested\n\nText\n\n1. one\n2. two", 2),
    ("- a\n1. b", 2),  # a different marker starts a new list
    ("* a\n\n* b\n\n* c", 1),
    ("> - quoted list", 1),
    ("No list - here. 3. Not at line start.", 0),
])
def test_lists_are_top_level_only(text, expected):
    assert trait("lists", text) == expected


def test_headings_of_any_level():
    assert trait("headings", "# H1\n## H2\n###### H6\n\nSetext\n===\n\nText") == 4
    assert trait("headings", "#NoSpace is not a heading") == 0


def test_tables():
    two = "| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n| c |\n|---|\n| 3 |"
    assert trait("tables", two) == 2
    assert trait("tables", "a | b\n--|--\n1 | 2") == 1  # GFM: outer pipes are optional
    assert trait("tables", "| a | b |\n| 1 | 2 |") == 0  # no delimiter row


def test_em_dashes_only_u2014():
    assert trait("em_dashes", "a \u2014 b -- c \u2013 d\u2014e") == 2


@pytest.mark.parametrize(("text", "expected"), [
    ("I don't know; you're right, it's John's car by the dogs' bowls.", 3),
    ("We'll see, I'm sure they've gone and he'd agree.", 4),
    ("Don\u2019t forget it\u2019s fine, let\u2019s go, Mary\u2019s book.", 3),
    ("That's what's there's; children's toys and James' hat.", 3),
    ("DON'T SHOUT, IT'S LOUD", 2),
    ("Write `don't` in code.", 0),
])
def test_contractions_but_not_possessives(text, expected):
    assert trait("contractions", text) == expected


def test_exclamations_and_questions():
    assert trait("exclamations", "Wow! Great!! ok") == 3
    assert trait("exclamations", "![alt text](image.png) and `!important`") == 0
    assert trait("questions", "Why? How?? ok") == 3
    assert trait("questions", "Try `a?b` or https://x.com/?q=1 then") == 0
    assert trait("questions", "\u4f60\u597d\u5417\uff1f") == 1  # full-width question mark


@pytest.mark.parametrize(("text", "expected"), [
    ("f(x) and (a (b) c) but ) and :( end", 3),
    ("((()))", 3),
    (")(", 0),
    ("(unclosed", 0),
    ("Call `f(x)` here", 0),
])
def test_parentheses_count_closed_pairs(text, expected):
    assert trait("parentheses", text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("He said \"hi\" and \u201cbye\u201d.", 4),
    ("\u00ab oui \u00bb and \u201eja\u201c", 4),  # guillemets, low-high
    ("\u2018single\u2019 and 'plain'", 4),
    ("don't, John's, the dogs' bowls, rock'n'roll, it\u2019s", 0),  # apostrophes only
    ("She said 'it's fine' today", 2),
])
def test_quotes_of_every_style_but_not_apostrophes(text, expected):
    assert trait("quotes", text) == expected


def test_colons():
    assert trait("colons", "Note: time 10:30") == 2
    assert trait("colons", "See https://a.example for more") == 0
    assert trait("colons", "```\na: 1\n```\n\nNone here") == 0


def test_ellipses():
    assert trait("ellipses", "Wait... and\u2026then.... ok . . .") == 3
    assert trait("ellipses", "One. Two.") == 0


def test_bold_runs():
    assert trait("bold", "**a** and **b c** and __d__ and **e**__f__") == 4
    assert trait("bold", "**a whole sentence in bold, however long it is.**") == 1
    assert trait("bold", "- **One:** x\n- **Two:** y") == 2
    assert trait("bold", "2 ** 3 is not bold") == 0


def test_italic_runs():
    assert trait("italics", "*a* and _b_ and *c*_d_ and snake_case_name") == 3
    counts = communication_traits("***x***")
    assert (counts["bold"], counts["italics"]) == (1, 1)


@pytest.mark.parametrize(("text", "expected"), [
    ("Hi \U0001f44b", 1),
    ("family \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466", 1),  # ZWJ
    ("flags \U0001f1ef\U0001f1f5\U0001f1fa\U0001f1f8", 2),  # JP, US
    ("tone \U0001f44d\U0001f3fd", 1),
    ("keycap 1\ufe0f\u20e3", 1),
    ("heart \u2764\ufe0f", 1),  # text-default heart asking for emoji presentation
    ("heart \u2764 and \u2122 and \u2714", 0),  # text presentation: not emoji
    ("Scotland \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", 1),
    ("rainbow flag \U0001f3f3\ufe0f\u200d\U0001f308", 1),
    ("mage \U0001f9d9\u200d\u2642\ufe0f and \u2705 \u26a1", 3),
    ("in code `\U0001f389`", 0),
])
def test_emojis_count_as_seen(text, expected):
    assert trait("emojis", text) == expected


def test_acronyms():
    assert trait("acronyms", "AI and the USA, U.S. policy, NASA's GPT-4, iPhone and I") == 5
    assert trait("acronyms", "No capitals in a row here, e.g. none.") == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("Can I help?", 1),
    ("Help? Sure.", 0),
    ("Want more?  \n\n", 1),
    ("**Any questions?**", 1),
    ("Done?\n\n```\ncode\n```", 0),  # ends with code, not a question
    ("", 0),
])
def test_ends_with_question(text, expected):
    assert trait("ends_with_question", text) == expected


def test_frame_one_row_per_text():
    frame = communication_frame(["", "Is it *so*? Yes!", None])
    assert list(frame.columns) == list(COMMUNICATION_TRAITS)
    assert len(frame) == 3 and all(dtype == "float64" for dtype in frame.dtypes)
    row = frame.iloc[1]
    assert (row["words"], row["sentences"], row["italics"], row["questions"]) == (4, 2, 1, 1)
    assert row["ends_with_question"] == 0
    assert math.isnan(frame.iloc[0]["avg_sentence_length"])
    assert frame.iloc[2]["characters"] == 0  # a missing text counts as empty


@pytest.mark.parametrize("text", [
    "Plain prose.\n\nA second paragraph\n   with a soft break and trailing spaces   \nend.",
    "\u00a0Leading no-break space.\n\n\t\n\nAfter a blank line of a tab.",
    "1. numbered\n2. list\n\n- bullets\n  continued lazily\n\n# Heading\n\n> quote\n\n---",
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n    code\n\nSetext\n---\n\n<div>html</div>",
    "Windows line ends\r\nhere\r\n\r\n- and\r\n- a list\r\n",
    "Line with two trailing spaces  \nand a hard break, then https://example.com/x.",
])
def test_shortcuts_match_the_full_parse(text):
    assert parse_body(text) == parse_body(text, full_parse=True)
