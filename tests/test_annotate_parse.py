"""Reading judge answers tolerantly (ffsite.collect.shared.parse_answer)."""

from __future__ import annotations

import pytest

from ffsite.collect.shared import NOTE_UNPARSABLE, parse_answer


@pytest.mark.parametrize("text", [
    '{"1": "A", "2": "B", "3": "Both", "4": "None"}',
    '```json\n{"1": "A", "2": "B", "3": "Both", "4": "None"}\n```',
    'Here is my verdict:\n```\n{"1": "A", "2": "B", "3": "Both", "4": "None"}\n```\nThanks.',
    'Sure. {1: "A", 2: "B", 3: "Both", 4: "None"} Let me know.',
    "{1: 'a', 2: 'b', 3: 'both', 4: None}",
    '{"1": "A", "2": "B", "3": "Both", "4": "None",}',
    '{"rule 1": "Sample A", "rule 2": "Sample B", "rule 3": "BOTH", "rule 4": "none"}',
    '["A", "B", "Both", "None"]',
])
def test_tolerant_forms_read_alike(text):
    votes, notes = parse_answer(text, 4)
    assert votes == ["A", "B", "tie", "neither"]
    assert notes == [None, None, None, None]


def test_missing_and_unknown_rules_are_invalid_with_reasons():
    votes, notes = parse_answer('{"1": "A", "3": "perhaps", "9": "B"}', 3)
    assert votes == ["A", "invalid", "invalid"]
    assert notes[0] is None
    assert notes[1] == "rule 2 missing from the answer"
    assert notes[2] == "rule 3: answer 'perhaps' is not A, B, Both or None"


@pytest.mark.parametrize("text", ["", "I think A is better overall.", '{"1": "A", "2": ',
                                  "[1, 2, 3]", '{"first": "A"}'])
def test_unparsable_answers_make_every_rule_invalid(text):
    votes, notes = parse_answer(text, 2)
    assert votes == ["invalid", "invalid"]
    assert notes == [NOTE_UNPARSABLE, NOTE_UNPARSABLE]
