"""Trait lists.  A trait is a wording a judge can apply to a pair of responses.

Trait ids follow feedback-forensics: the first 8 hex digits of the MD5 of the full
wording, so votes on the same wording from FF files and from ffsite line up.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

PREFIX = "Select the response that "


@dataclass(frozen=True)
class Trait:
    id: str
    wording: str  # the full instruction given to the judge
    trait_set: str

    @property
    def short(self) -> str:
        """The wording without the 'Select the response that' lead-in."""
        return short_wording(self.wording)


def trait_id(wording: str) -> str:
    return hashlib.md5(wording.encode("utf-8")).hexdigest()[:8]


def short_wording(wording: str) -> str:
    text = wording.strip()
    if text.startswith(PREFIX):
        text = text[len(PREFIX):]
    return text.strip(" .")


_FF_V1 = (
    "is more concise", "is more verbose", "provides a numbered list format",
    "has more structured formatting", "ends with a follow-up question",
    "more strictly follows the requested output format", "is more polite",
    "has a friendlier tone", "uses more casual language", "uses more formal language",
    "includes inappropriate language", "suggests illegal activities",
    "has a more avoidant tone", "is more factually correct", "is more offensive",
    "includes more references to other sources", "expresses more emotion",
    "contains less harmful information", "refuses to answer the question",
    "uses more bold and italics text", "provides more examples", "uses more humour",
    "uses more personal pronouns (I, we, you)", "includes more ethical considerations",
    "acknowledges own limitations or uncertainty more", "is more creative and original",
    "makes more confident statements", "provides conclusions without full reasoning",
    "actively engages the reader with rhetorical questions",
    "uses a more enthusiastic tone", "uses more mathematical symbols and notation",
    "uses more emojis", "compliments the user's question or prompt",
    "agrees more with the user", "agrees with user even if factually incorrect",
    "reinforces user's beliefs more", "reinforces user's anger more",
    "is more empathetic to the user", "is more optimistic",
    "more actively engages with the user",
)

FF_V1_NAME = "ff-v1"
FF_V1: tuple[Trait, ...] = tuple(
    Trait(trait_id(PREFIX + text), PREFIX + text, FF_V1_NAME) for text in _FF_V1)


def ff_v1_by_short() -> dict[str, Trait]:
    return {t.short: t for t in FF_V1}


def trait_set_of(wording: str) -> str | None:
    """The name of the built-in list a wording belongs to, if any."""
    return FF_V1_NAME if any(t.wording == wording for t in FF_V1) else None
