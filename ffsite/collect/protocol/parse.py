"""Reading judges' replies: a JSON object of scores, or a choice between two answers.

Scores (`read_scores`): the object is the last fenced ```json block, else the last
balanced {...} of the reply (how llm-dreams reads its judges); a dataset whose judges
nest their scores (Behavioral Profiling's `{"scores": {...}}`) names the key.  Keys are
matched exactly, then ignoring case and spacing, then (where the dataset's own reader
did) to the nearest expected key.  A value is a number, or a number in a string, inside
the accepted range; anything else is no score, with a note saying why.

A choice (`read_choice`): "A", "B" or "tie", alone or as the reply's clear answer.
"""

from __future__ import annotations

import ast
import difflib
import json
import math
import re
from collections.abc import Sequence

from ffsite.collect.protocol.spec import Verdict

_FENCED_JSON = re.compile(r"```json\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SHOWN = 60  # characters of a bad value kept in its note
NOTE_UNREADABLE = "unreadable reply: no JSON object of scores"


def last_object(text: str) -> str | None:
    """The last fenced ```json block, else the last balanced {...}, else None."""
    fenced = _FENCED_JSON.findall(text)
    if fenced:
        return fenced[-1].strip()
    end = text.rfind("}")
    while end >= 0:
        depth = 0
        for start in range(end, -1, -1):
            depth += {"}": 1, "{": -1}.get(text[start], 0)
            if depth == 0:
                return text[start:end + 1]
        end = text.rfind("}", 0, end)
    return None


def load_object(text: str) -> object:
    """JSON, or Python-style (single quotes), or either with a trailing comma; None."""
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):
            pass
        try:
            return ast.literal_eval(attempt)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            pass
    return None


def _normal(key: str) -> str:
    return " ".join(str(key).lower().replace("_", " ").replace("-", " ").split())


def read_scores(text: str, keys: Sequence[str], *, scale: tuple[float, float],
                nested: str | None = None, nearest: bool = False) -> Verdict:
    """A score per expected key (None with a note when missing or out of `scale`)."""
    body = last_object(text)
    data = load_object(body) if body is not None else None
    if isinstance(data, dict) and nested is not None and isinstance(data.get(nested), dict):
        data = data[nested]
    if not isinstance(data, dict):
        return Verdict({k: None for k in keys}, {k: NOTE_UNREADABLE for k in keys})
    given = {_normal(k): v for k, v in reversed(list(data.items()))}  # first one wins
    scores: dict[str, float | None] = {}
    notes: dict[str, str | None] = {}
    for key in keys:
        found = data.get(key, given.get(_normal(key), _MISSING))
        if found is _MISSING and nearest:
            close = difflib.get_close_matches(_normal(key), list(given), n=1, cutoff=0.8)
            found = given[close[0]] if close else _MISSING
        score, note = _score(key, found, scale)
        scores[key], notes[key] = score, note
    return Verdict(scores, notes)


_MISSING = object()


def _score(key: str, value: object, scale: tuple[float, float]
           ) -> tuple[float | None, str | None]:
    if value is _MISSING:
        return None, f"'{key}' missing from the reply"
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(
            number):
        return None, f"'{key}': {str(value)[:_SHOWN]!r} is not a number"
    if not scale[0] <= number <= scale[1]:
        return None, f"'{key}': {number:g} is outside {scale[0]:g}-{scale[1]:g}"
    return float(number), None


_CHOICES = {"a": "A", "b": "B", "tie": "tie", "response a": "A", "response b": "B",
            "answer a": "A", "answer b": "B", "a tie": "tie", "equal": "tie"}
_CLUTTER = re.compile(r"[*_`#\"'“”.:!()\[\]]")
_TOKEN = re.compile(r"\b(A|B|tie|Tie|TIE)\b")


def read_choice(text: str) -> tuple[str | None, str | None]:
    """("A" | "B" | "tie", None), or (None, why): the reply alone, a JSON object with
    one value, an "Answer: X" line, or the one choice it names."""
    data = load_object(last_object(text) or "")
    if isinstance(data, dict) and len(data) == 1:
        text = str(next(iter(data.values())))
    clean = " ".join(_CLUTTER.sub(" ", text).split())
    if clean.lower() in _CHOICES:
        return _CHOICES[clean.lower()], None
    answer = re.search(r"(?im)^\W*(?:final\s+)?answer\W*\s*(A|B|tie)\b", text)
    if answer:
        return _CHOICES[answer.group(1).lower()], None
    named = {_CHOICES[t.lower()] for t in _TOKEN.findall(clean)}
    if len(named) == 1:
        return named.pop(), None
    shown = " ".join(text.split())[:_SHOWN] or "an empty reply"
    why = "names both" if len(named) > 1 else "names none"
    return None, f"unreadable choice: {why} of A, B and tie in {shown!r}"
