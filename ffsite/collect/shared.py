"""What more than one method asks and reads: a model's answer to a prompt, and a judge's
verdict on each rule (a trait, a criterion) of its prompt.

Verdicts are read tolerantly: rule number -> "A" | "B" | "Both" | "None".  Judges wrap
JSON in code fences, add prose before or after it, write integer or quoted keys, single
quotes or a trailing comma.  All of that is accepted.  What cannot be read becomes an
"invalid" vote whose note says why, rule by rule.
"""

from __future__ import annotations

import ast
import json
import re


def generation_body(model: str, prompt: str, temperature: float, max_tokens: int) -> dict:
    """A model's answer to a prompt: one user turn, no system prompt (how AlpacaEval and
    AA-PersonalityBench ask).  Annotate and EigenBench ask alike, so they share answers
    (and cache entries)."""
    return {"model": model, "messages": [{"role": "user", "content": prompt}],
            "temperature": temperature, "max_tokens": max_tokens}


_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_ ]*\d+)\s*:")
_DIGITS = re.compile(r"\d+")
_VALUES = {"a": "A", "sample a": "A", "b": "B", "sample b": "B", "both": "tie", "tie": "tie",
           "none": "neither", "neither": "neither", "n/a": "neither", "na": "neither"}

NOTE_UNPARSABLE = "unparsable answer (no JSON object with rule numbers)"


def parse_answer(text: str, n_rules: int) -> tuple[list[str], list[str | None]]:
    """(vote, note) per rule 1..n_rules, votes in the order the judge saw the samples.

    Votes are "A", "B", "tie" (Both), "neither" (None) or "invalid"; a note is set only
    on invalid votes.
    """
    answers = _answers_by_rule(text, n_rules)
    if answers is None:
        return ["invalid"] * n_rules, [NOTE_UNPARSABLE] * n_rules
    votes: list[str] = []
    notes: list[str | None] = []
    for number in range(1, n_rules + 1):
        if number not in answers:
            votes.append("invalid")
            notes.append(f"rule {number} missing from the answer")
            continue
        raw = answers[number]
        value = _VALUES.get("none" if raw is None else str(raw).strip(" .'\"").lower())
        votes.append(value or "invalid")
        notes.append(None if value else
                     f"rule {number}: answer {str(raw)[:20]!r} is not A, B, Both or None")
    return votes, notes


def _answers_by_rule(text: str, n_rules: int) -> dict[int, object] | None:
    data = _load(text)
    if isinstance(data, list) and len(data) == n_rules:  # answers in rule order
        return {number: value for number, value in enumerate(data, start=1)}
    if not isinstance(data, dict):
        return None
    answers: dict[int, object] = {}
    for key, value in data.items():
        digits = _DIGITS.search(str(key))
        if digits:
            answers.setdefault(int(digits.group()), value)
    return answers or None


def _load(text: str) -> object:
    """The first JSON-like object (or list) in `text`, or None."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = body.find("{")
    end = body.rfind("}")
    if start < 0 or end < start:
        start, end = body.find("["), body.rfind("]")
        if start < 0 or end < start:
            return None
    candidate = body[start:end + 1]
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):
            pass
        try:
            return ast.literal_eval(attempt)  # Python-style: {1: 'A', 2: None}
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            pass
    quoted = _BARE_KEY.sub(lambda m: f'{m.group(1)}"{m.group(2).strip()}":',
                           _TRAILING_COMMA.sub(r"\1", candidate))
    try:
        return json.loads(quoted)
    except (ValueError, RecursionError):
        return None


# Written into the notes of a votes file, so it stays as files have always had it, flag
# and all (tests/test_collect_layout.py allows this one literal).
CUT_OFF = " (answer cut off at --judge-max-tokens)"


def cut_off(notes: list[str | None], finish_reason: str | None) -> list[str | None]:
    """The notes of a verdict, each saying so when the answer hit its length limit (the
    reason it could not be read, most likely)."""
    if finish_reason != "length":
        return notes
    return [note and note + CUT_OFF for note in notes]
