"""Count emojis as a reader sees them: one per visible pictograph, however many code points.

An emoji on screen is often a sequence: a family joins several people with U+200D (zero
width joiner), a flag is two regional-indicator letters, a skin tone is a modifier after
the base, a keycap is a digit + U+FE0F + U+20E3, a subdivision flag is a black flag plus
tag characters.  The pattern below matches each such sequence once (the shapes of
Unicode's emoji sequences, UTS #51), using only the standard library.

What counts as a pictograph (the choice is documented in docs/judges.md):
- characters whose Unicode default presentation is emoji (Emoji_Presentation=Yes), e.g.
  U+2705, U+26A1, and everything drawn as emoji in the astral pictograph blocks
  (U+1F300-1F64F, U+1F680-1F6FF, U+1F900-1F9FF, U+1FA70-1FAFF): browsers draw those in
  colour even without U+FE0F because only emoji fonts have glyphs for them;
- any other symbol (not a letter, digit or space) followed by U+FE0F, the emoji
  presentation selector, e.g. a heart or snowflake written with it; without the selector
  such symbols render as text, so a bare (TM) sign, arrow or check mark is no emoji;
- keycaps, pairs of regional indicators (a flag; a lone indicator counts once).
"""

from __future__ import annotations

import re

# Emoji_Presentation=Yes in the Basic Multilingual Plane (Unicode 17.0 emoji data).
_BMP_PRESENTATION = (
    "\u231a-\u231b\u23e9-\u23ec\u23f0\u23f3\u25fd-\u25fe\u2614-\u2615\u2648-\u2653"
    "\u267f\u2693\u26a1\u26aa-\u26ab\u26bd-\u26be\u26c4-\u26c5\u26ce\u26d4\u26ea"
    "\u26f2-\u26f3\u26f5\u26fa\u26fd\u2705\u270a-\u270b\u2728\u274c\u274e\u2753-\u2755"
    "\u2757\u2795-\u2797\u27b0\u27bf\u2b1b-\u2b1c\u2b50\u2b55"
)
# Astral characters drawn as emoji: the pictograph blocks whole, plus the few
# Emoji_Presentation characters outside them (mahjong, cards, squared CJK, circles).
_ASTRAL_PICTOGRAPHS = (
    "\U0001f004\U0001f0cf\U0001f18e\U0001f191-\U0001f19a\U0001f201\U0001f21a\U0001f22f"
    "\U0001f232-\U0001f23a\U0001f250-\U0001f251\U0001f300-\U0001f64f\U0001f680-\U0001f6ff"
    "\U0001f7e0-\U0001f7f0\U0001f900-\U0001f9ff\U0001fa70-\U0001faff"
)
_PICTOGRAPH = f"[{_BMP_PRESENTATION}{_ASTRAL_PICTOGRAPHS}]"
_SKIN_TONE = "[\U0001f3fb-\U0001f3ff]"
_TAGS = "(?:[\U000e0020-\U000e007e]+\U000e007f)"  # subdivision flags (England, Scotland)
_REGIONAL_PAIR = "[\U0001f1e6-\U0001f1ff]{1,2}"
_KEYCAP = "[#*0-9]\ufe0f?\u20e3"

# One element: a keycap, a flag, or a pictograph (or a symbol asking for emoji
# presentation with U+FE0F), optionally with a skin tone, tags and selectors.
_ELEMENT = (f"(?:{_KEYCAP}|{_REGIONAL_PAIR}"
            f"|(?:{_PICTOGRAPH}|[^\\s\\w\ufe0f]\ufe0f){_SKIN_TONE}?{_TAGS}?\ufe0f*)")
# After a zero width joiner any character continues the same emoji (e.g. the male
# sign in "mage + ZWJ + male sign", often written without its selector).
_JOINED = f"(?:\u200d(?:{_PICTOGRAPH}|[^\\s]){_SKIN_TONE}?\ufe0f*)"
_EMOJI = re.compile(f"{_ELEMENT}{_JOINED}*")
# A quick test that rules most texts out: does any character that can start an emoji occur?
_MAY_START_EMOJI = re.compile(
    f"[{_BMP_PRESENTATION}{_ASTRAL_PICTOGRAPHS}\U0001f1e6-\U0001f1ff\ufe0f\u20e3]")


def count_emojis(text: str) -> int:
    """The number of emojis in `text`, each multi-code-point sequence counted once."""
    if text.isascii() or not _MAY_START_EMOJI.search(text):
        return 0
    return len(_EMOJI.findall(text))
