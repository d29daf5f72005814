"""Text in drawings: how wide a label is, cutting long ones, escaping, short numbers."""

from __future__ import annotations

import unicodedata

FONT_SIZE = 12  # px: every label of a drawing
# Advance widths of Liberation Sans (= Arial, Helvetica) for printable ASCII, in
# thousandths of the font size, from " " (32) to "~" (126).
_ASCII = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
          556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
          1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
          667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
          333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
          556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]
_OTHER = {"…": 1000, "×": 584, "−": 584, "–": 556, "—": 1000, "’": 222, "‘": 222}


def _advance(char: str) -> int:
    code = ord(char)
    if 32 <= code <= 126:
        return _ASCII[code - 32]
    if char in _OTHER:
        return _OTHER[char]
    if unicodedata.east_asian_width(char) in "WF":
        return 1000
    return 0 if unicodedata.combining(char) else 556


def text_width(text: str, size: int = FONT_SIZE) -> float:
    """The width in px of `text` set in the drawings' font at `size` px."""
    return sum(_advance(char) for char in text) * size / 1000


def cut(label: str, letters: int) -> str:
    """`label`, cut to `letters` characters with "…" when longer.  (By count, not by
    measure: a phone's label column holds about this many letters of a name.)"""
    return label if len(label) <= letters else label[:letters - 1] + "…"


def escape(text: str) -> str:
    """Text safe inside an SVG element: markup characters escaped, characters XML does
    not allow (controls) left out."""
    kept = "".join(char for char in text if char in "\t\n" or (
        ord(char) >= 32 and not 0xD800 <= ord(char) <= 0xDFFF
        and char not in "\ufffe\uffff"))
    return (kept.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def fmt(value: float) -> str:
    """A coordinate to a tenth of a pixel, without trailing zeros ("12", "3.5", "-0.2")."""
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text
