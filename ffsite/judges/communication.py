"""AA-PersonalityBench's 21 communication traits of one response (methods.md §2).

Every count is taken on the body text (`ffsite.judges.body`): what a reader reads, with
Markdown syntax, code and web addresses removed, so a "?" in a regular expression or a ":"
in "https:" does not count.  docs/judges.md states each definition and the choices the
published definitions leave open.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pandas as pd

from ffsite.judges.body import Body, parse_body
from ffsite.judges.emoji import count_emojis

COMMUNICATION_TRAITS: tuple[str, ...] = (
    "characters", "words", "sentences", "paragraphs", "avg_sentence_length",
    "lists", "headings", "tables",
    "em_dashes", "contractions", "exclamations", "questions", "parentheses", "quotes",
    "colons", "ellipses",
    "bold", "italics", "emojis", "acronyms", "ends_with_question",
)
LABELS: dict[str, str] = {
    "characters": "Characters", "words": "Words", "sentences": "Sentences",
    "paragraphs": "Paragraphs", "avg_sentence_length": "Avg. sentence length",
    "lists": "Lists", "headings": "Headings", "tables": "Tables",
    "em_dashes": "Em dashes", "contractions": "Contractions", "exclamations": "Exclamations",
    "questions": "Questions", "parentheses": "Parentheses", "quotes": "Quotes",
    "colons": "Colons", "ellipses": "Ellipses",
    "bold": "Bold text", "italics": "Italics", "emojis": "Emojis", "acronyms": "Acronyms",
    "ends_with_question": "Ends with a question",
}
GROUPS: dict[str, str] = {
    **dict.fromkeys(("characters", "words", "sentences", "paragraphs",
                     "avg_sentence_length"), "Length"),
    **dict.fromkeys(("lists", "headings", "tables"), "Structure"),
    **dict.fromkeys(("em_dashes", "contractions", "exclamations", "questions", "parentheses",
                     "quotes", "colons", "ellipses"), "Punctuation"),
    **dict.fromkeys(("bold", "italics", "emojis", "acronyms", "ends_with_question"),
                    "Emphasis"),
}
# The traits that are 0 or 1 per response: a model's average is the share of its
# responses that have it, so its 95% interval is Wilson's for a proportion; the normal
# approximation collapses to zero width when no response (or every one) has it, and
# crosses 0 or 1 near either end.
SHARES: frozenset[str] = frozenset({"ends_with_question"})

# Chinese, Japanese and Korean letters: each one is a word.
_CJK = re.compile("[\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf"
                  "\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\U00020000-\U0003134f]")
# Words are the space-separated tokens (em and en dashes separate words too) that hold
# a letter or digit; these are the tokens that do not.
_TOKEN_WITHOUT_WORD = re.compile(r"\s(?:[^\w\s]|_)+(?=\s)")
_WORD_CHARACTER = re.compile(r"[^\W_]")

# A sentence ends at . ! ? or an ellipsis (with any closing quotes or brackets) followed
# by space and then something that does not continue a sentence (not a lowercase letter,
# digit, comma ...); at CJK full stops; and at every block boundary.  A full stop does
# not end a sentence after a single capital ("J. K. Rowling"), inside a dotted form
# ("e.g.", "U.S.") or after a title or Latin abbreviation that always precedes more text.
_TITLES = ("Mr|Ms|Mx|Dr|Sr|Jr|St|Mt|Lt|vs|cf", "Mrs|Rev|Gen|Sen|Rep|Gov|Col|Sgt|Hon|viz",
           "Prof|Capt", "approx")  # grouped by length: a look-behind has a fixed width
_NOT_AFTER = "".join(f"(?<!\\b(?:{group})\\.)" for group in _TITLES)
_CLOSERS = "[\"'\u201d\u2019)\\]\u00bb]*"
_SENTENCE_END = re.compile(  # (the leading look-ahead lets the regex engine skip fast)
    f"(?=[.!?\u2026\u3002\uff01\uff1f\n])(?:[.!?\u2026]+(?<!\\b[A-Z]\\.)(?<!\\.[A-Za-z]\\.)"
    f"{_NOT_AFTER}{_CLOSERS}(?=\\s+[^\\sa-z0-9\u00df-\u00ff,;:])"
    "|[\u3002\uff01\uff1f\n])")

# Contractions: n't, 're, 've, 'll, 'm, 'd after a letter, and 's only after the words
# where it stands for "is", "has" or "us" (it's, that's, let's ...), never a possessive.
_S_WORDS = ("it", "he", "she", "that", "there", "here", "what", "who", "where", "when",
            "why", "how", "let")
_CONTRACTION = re.compile(
    "['’](?:(?<=[A-Za-z][nN]['’])[tT]"
    "|(?<=[A-Za-z]['’])(?:[rR][eE]|[vV][eE]|[lL][lL]|[mMdD])"
    "|(?:" + "|".join(f"(?<=\\b(?i:{word})['’])" for word in _S_WORDS) + ")[sS]"
    "|(?<=\\b[yY]['’])[aA][lL][lL])\\b")
# Marks that are always quotation marks, whatever the style.
_QUOTE_MARK = re.compile("[\"\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a\u201a\u201b"
                         "\u300c\u300d\u300e\u300f\u301d\u301e]")
# Single marks (' ‘ ’) double as apostrophes, so they count only as a pair around text:
# the opening one not inside a word, the closing one not followed by a letter.
_SINGLE_QUOTED = re.compile("['\u2018](?<![\\w'\u2018\u2019]['\u2018])(?=\\S)[^\n]*?(?<=\\S)"
                            "['\u2019](?!\\w)")
_ELLIPSIS = re.compile("\\.{3,}|\u2026+")
_PARENTHESIS = re.compile(r"[()]")
# Two or more capitals in a row, or a dotted form of single capitals.
_ACRONYM = re.compile(r"[A-Z](?:[A-Z]+|(?<![A-Za-z][A-Z])\.(?:[A-Z]\.)+)")


def communication_traits(text: str) -> dict[str, float]:
    """The 21 communication traits of one response (Markdown text)."""
    return dict(zip(COMMUNICATION_TRAITS, traits_of_body(parse_body(text)), strict=True))


def communication_frame(texts: Sequence[str]) -> pd.DataFrame:
    """One row per text, one float column per trait (ends_with_question is 0 or 1)."""
    rows = [traits_of_body(parse_body(text if isinstance(text, str) else "")) for text in texts]
    return pd.DataFrame(rows, columns=list(COMMUNICATION_TRAITS), dtype=float)


def traits_of_body(body: Body) -> tuple[float, ...]:
    """The 21 traits, in COMMUNICATION_TRAITS order, from a parsed body."""
    text = body.text
    words = count_words(text)
    sentences = count_sentences(text)
    return (
        len(text), words, sentences, body.paragraphs,
        words / sentences if sentences else math.nan,
        body.lists, body.headings, body.tables,
        text.count("\u2014"),
        count_contractions(text),
        text.count("!") + text.count("\uff01"),
        text.count("?") + text.count("\uff1f"),
        count_parentheses(text),
        count_quotes(text),
        text.count(":") + text.count("\uff1a"),
        count_ellipses(text),
        body.bold, body.italics, count_emojis(text),
        len(_ACRONYM.findall(text)),
        float(not body.ends_in_code and text.rstrip()[-1:] in ("?", "\uff1f")),
    )


def count_words(text: str) -> int:
    cjk = 0
    if not text.isascii():
        text, cjk = _CJK.subn(" ", text.replace("\u2013", " ").replace("\u2014", " "))
    return cjk + len(text.split()) - len(_TOKEN_WITHOUT_WORD.findall(f" {text} "))


def count_sentences(text: str) -> int:
    """Sentences holding at least one letter or digit."""
    return sum(map(bool, map(_WORD_CHARACTER.search, _SENTENCE_END.split(text))))


def count_parentheses(text: str) -> int:
    """Matched ( ) pairs, nested ones included; unmatched marks do not count."""
    if "(" not in text:
        return 0
    marks = "".join(_PARENTHESIS.findall(text))
    pairs = 0
    while "()" in marks:  # removing innermost pairs repeatedly matches like a stack
        pairs += marks.count("()")
        marks = marks.replace("()", "")
    return pairs


def count_quotes(text: str) -> int:
    quotes = len(_QUOTE_MARK.findall(text))
    if "'" in text or "\u2018" in text:
        quotes += 2 * len(_SINGLE_QUOTED.findall(text))
    return quotes


def count_contractions(text: str) -> int:
    if "'" not in text and "\u2019" not in text:
        return 0
    return len(_CONTRACTION.findall(text))


def count_ellipses(text: str) -> int:
    """Runs of three or more full stops, or of the ellipsis character, each once."""
    if "..." not in text and "\u2026" not in text:
        return 0
    return len(_ELLIPSIS.findall(text))
