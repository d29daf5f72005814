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


def trait_label(trait_id: str, wording: str) -> str:
    """What pages call a trait: its AA-PersonalityBench name, the part before ": " of a
    "<label>: <definition>" wording (scored traits, EQ-Bench criteria), else the FF
    wording without its "Select the response that" lead."""
    if trait_id in AA30_NAMES:
        return AA30_NAMES[trait_id]
    label, colon, _ = wording.partition(": ")
    return label if colon and not wording.startswith(PREFIX) else short_wording(wording)


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


# AA-PersonalityBench's 30 traits (methods.md §2), with short definitions in our words.
# A judge is asked which response shows the trait more.
AA30_NAME = "aa30"
_AA30 = (
    ("Lexically Varied", "uses a wide, varied vocabulary rather than repeating the same words"),
    ("Eloquent", "is fluent and well-phrased, with a pleasing rhythm"),
    ("Literate", "reads like careful, educated writing: correct grammar, apt word choice"),
    ("Natural Sounding", "sounds like a person talking, not like a template or a machine"),
    ("Metaphorical", "uses metaphors, analogies or figurative images"),
    ("Structured", "organises its content into clear parts (sections, steps, lists)"),
    ("Scannable", "lets a reader find the key points at a glance (headings, bullets, bold)"),
    ("Bottom-Line Summary", "states a short takeaway or summary of the answer"),
    ("Answer First", "gives the direct answer at the start, before any explanation"),
    ("Information Dense", "packs much relevant information into few words"),
    ("Evidence-Based", "backs its claims with evidence, data or reasoning"),
    ("Resource-Specific", "names concrete resources: tools, books, sites, people, numbers"),
    ("Actionable Guidance", "tells the reader concrete next steps they can take"),
    ("Pragmatic", "focuses on what works in practice over theory"),
    ("Truthful", "says what is true, correcting false premises instead of going along"),
    ("Admits Uncertainty", "says when it does not know or when the answer is uncertain"),
    ("Disclaims Assumptions", "states the assumptions its answer rests on"),
    ("Flags Nuances", "points out exceptions, trade-offs and cases where the answer differs"),
    ("Sycophantic", "flatters the user or agrees with them to please rather than to inform"),
    ("Friendly", "is warm and kind towards the user"),
    ("Humorous", "is funny or playful"),
    ("Sincere", "comes across as genuine and earnest, not performative"),
    ("Emotionally Intelligent", "notices and responds well to the user's feelings"),
    ("Direct", "gets to the point without hedging or padding"),
    ("Confident", "states its views with assurance"),
    ("Opinionated", "takes a clear position and shares its own view"),
    ("Constructive Pushback", "respectfully disagrees with the user when warranted"),
    ("Creative", "brings original, imaginative ideas"),
    ("Open-Ended", "explores possibilities and invites further thought instead of closing"),
    ("Slop", "uses filler, clichés and generic stock phrases"),
)
AA30: tuple[Trait, ...] = tuple(
    Trait(trait_id(f"{PREFIX}shows more of the trait {name}: it {definition}"),
          f"{PREFIX}shows more of the trait {name}: it {definition}", AA30_NAME)
    for name, definition in _AA30)
AA30_NAMES: dict[str, str] = {t.id: name for t, (name, _) in zip(AA30, _AA30, strict=True)}

TRAIT_SETS: dict[str, tuple[Trait, ...]] = {FF_V1_NAME: FF_V1, AA30_NAME: AA30}
# What pages call the built-in lists (the datasets' own sets are named in their records).
TRAIT_SET_NAMES: dict[str, str] = {FF_V1_NAME: "Feedback Forensics' trait list",
                                   AA30_NAME: "AA-PersonalityBench's 30 traits"}
