"""The one text check: what a name, id, wording or setting may hold before it reaches a
file, a page or a terminal.

`text_problem` refuses control characters (NUL, the escape sequences that repaint a
terminal, carriage returns that break CSV rows; the chart renderer aborts the process on
some of them) and texts longer than a cap.  Annotation files, scores files, the model
registry, site.toml, base-data.toml and the importers all check their texts here.
`for_terminal` is the last guard on an error line: whatever a message quotes from data
is shown escaped and shortened, never as terminal control.
"""

from __future__ import annotations

import re

MAX_TEXT = 10_000  # characters in one name, id, wording or setting
# Control characters other than tab and newline.  No name, id or wording needs them.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_BREAKS = re.compile(r"[\t\n\u2028\u2029]")
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
MAX_LINE = 2_000  # characters of an error line; a longer one keeps its start and end


def text_problem(value: object, *, limit: int = MAX_TEXT, one_line: bool = False
                 ) -> str | None:
    """Why a text cannot be stored or shown, or None (also for a value that is not text).
    `one_line`: a name or setting shown on one line, which tabs and line breaks would
    split."""
    if not isinstance(value, str):
        return None
    if len(value) > limit:
        return f"text longer than {limit:,} characters; shorten it"
    found = CONTROL.search(value) or (_LINE_BREAKS.search(value) if one_line else None)
    if found:
        return (f"text holds the control character U+{ord(found.group()):04X}; remove it "
                "(names, ids and wordings are plain text)")
    return None


def for_terminal(text: str, limit: int = MAX_LINE) -> str:
    """`text` as one safe terminal line: control characters and line breaks escaped
    (\\x1b, \\n), and at most `limit` characters (the middle of a longer one left out)."""
    text = _ANY_CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
    if len(text) > limit:
        keep = limit // 2
        text = f"{text[:keep]} [... {len(text) - 2 * keep:,} characters ...] {text[-keep:]}"
    return text
