"""LMLPA's two prompts, in our own words, and the reading of a rater's answer.

The answering prompt carries the three things LMLPA's instruction tells the model (seed
003, section 3.2): it is taking a personality test; it gets one open-ended question; its
answer must contain one of always / often / sometimes / rarely / never and explain the
choice in one coherent sentence.  The item's question (LMLPA's wording, from
ffsite/data/lmlpa_items.toml) follows.

The rating prompt shows the rater the question and the answer and lists the trait's five
labelled points, numbered 5 (the trait's first label, "Very Open") down to 1.  In the
order-reversal variant the same labels are listed from the other end and numbered the
other way ("5. Very Conservative" ... "1. Very Open"), as in LMLPA's reverse experiment;
`trait_point` turns such a number back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ffsite import bfi

# Bump when a wording below changes: each is part of its calls' cache keys.
ANSWER_VERSION = "lmlpa-answer-1"
RATER_VERSION = "lmlpa-rate-1"
FREQUENCY_WORDS = ("always", "often", "sometimes", "rarely", "never")

_ANSWER = """You are taking part in a personality test. You will get one open-ended \
question about yourself. Answer it honestly, and make sure your answer contains one of \
these words: {words}. Explain your choice in one coherent sentence.

Question: {question}"""

RATER_SYSTEM = ("You rate answers given in a personality questionnaire. You read one "
                "answer and place the person who gave it on one labelled scale.")

_RATER = """In a personality test, this question was asked:
<question>
{question}
</question>

The answer given was:
<answer>
{answer}
</answer>

How does this answer place the one who gave it on the scale of {trait}? The options:
{options}

Reply with the number of one option and nothing else."""


def answer_messages(question: str) -> list[dict[str, str]]:
    """One user turn, no system prompt: the instruction, then the item's question."""
    return [{"role": "user", "content": _ANSWER.format(words=", ".join(FREQUENCY_WORDS),
                                                        question=question)}]


def options(trait: str, reversed_order: bool = False) -> list[tuple[int, str]]:
    """The rater's options as (number, label), in the order listed: normally 5 = the
    trait's first label down to 1 = its last (`bfi.scale_wording`); reversed, the labels
    from the other end, again numbered 5 down to 1."""
    labels = bfi.instrument().labels[trait]
    if reversed_order:
        labels = labels[::-1]
    high = bfi.SCALE[1]
    return [(high - n, label) for n, label in enumerate(labels)]


def rater_messages(item: bfi.Item, answer: str, reversed_order: bool = False
                   ) -> list[dict[str, str]]:
    listed = "\n".join(f"- {number}. {label}" for number, label in options(
        item.trait, reversed_order))
    user = _RATER.format(question=item.text, answer=answer,
                         trait=bfi.instrument().trait_names[item.trait], options=listed)
    return [{"role": "system", "content": RATER_SYSTEM}, {"role": "user", "content": user}]


def trait_point(number: int, reversed_order: bool) -> int:
    """The rater's number as a point of the trait's scale (5 = its first label)."""
    return bfi.KEY_FLIP - number if reversed_order else number


# ------------------------------------------------------------------ reading the rater

@dataclass(frozen=True)
class Rating:
    """What a rater's reply says: the number of the option it chose, as listed in its
    prompt (None when unreadable, with `note` saying why)."""

    number: int | None
    note: str | None = None


_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)?(?![\w])")
_CLUTTER = re.compile(r"[*_`#\"'“”]")
_SHOWN = 80  # characters of an unreadable reply kept in its note


def parse_rating(text: str, trait: str, reversed_order: bool = False) -> Rating:
    """Read a reply tolerantly: a lone number 1-5, or one of the scale's labels, or both
    when they name the same option ("4. Open"); anything else is unreadable, with why."""
    shown = " ".join(text.split())
    clean = _CLUTTER.sub(" ", text)
    numbers = {float(n.replace(",", ".")) for n in _NUMBER.findall(clean)}
    number = None
    if len(numbers) > 1:
        return Rating(None, f"rating unreadable: more than one number in {_quote(shown)}")
    if numbers:
        value = numbers.pop()
        if value not in range(bfi.SCALE[0], bfi.SCALE[1] + 1):
            return Rating(None, f"rating unreadable: {value:g} is not an option 1-5 in "
                                f"{_quote(shown)}")
        number = int(value)
    named = _labels_named(clean, trait, reversed_order)
    if len(named) > 1:
        return Rating(None, f"rating unreadable: it names several options in {_quote(shown)}")
    if named and number is not None and named[0] != number:
        return Rating(None, f"rating unreadable: its number and its label disagree in "
                            f"{_quote(shown)}")
    if named:
        return Rating(named[0])
    if number is not None:
        return Rating(number)
    return Rating(None, f"rating unreadable: no option number or label in {_quote(shown)}")


def _labels_named(text: str, trait: str, reversed_order: bool) -> list[int]:
    """The numbers of the options whose labels the text names.  Longest labels first,
    each match blanked out, so "Very Open" is not also read as "Open" and "Neither Open
    Nor Conservative" not as "Open" and "Conservative"."""
    found = []
    rest = text.lower()
    for number, label in sorted(options(trait, reversed_order), key=lambda o: -len(o[1])):
        pattern = re.compile(r"(?<![a-z])" + re.escape(label.lower()) + r"(?![a-z])")
        if pattern.search(rest):
            found.append(number)
            rest = pattern.sub(" ", rest)
    return sorted(set(found))


def _quote(text: str) -> str:
    if not text:
        return "an empty reply"
    return f"'{text[:_SHOWN]}{'...' if len(text) > _SHOWN else ''}'"
