"""EQ-Bench 3's names and rules, which its reader, importer and page share: the judge, the
criteria and which scenario type asks each, and how an entry of the verdicts file names its
pair, its comparison id and the order the judge saw the two sides in."""

from __future__ import annotations

import os
import re

from ffsite.errors import FfsiteError

JUDGE = "claude-3.7-sonnet"
TRAIT_SET = "eqbench3"
ROLE_PLAY, ANALYSIS = "role-play", "analysis"
# Criteria ("<label>: <our wording>"), and which scenario type asks each.
CRITERIA = {
    "demonstrated_empathy": ("Demonstrated empathy: shows real empathy, not a performance of it",
                             ROLE_PLAY),
    "pragmatic_ei": ("Pragmatic EI: puts emotional intelligence to practical use", ROLE_PLAY),
    "social_dexterity": ("Social dexterity: handles the people involved with skill", ROLE_PLAY),
    "emotional_reasoning": ("Emotional reasoning: reasons well about feelings", ROLE_PLAY),
    "appropriate_validating_challenging": (
        "Validating or challenging: validates or pushes back as the moment needs", ROLE_PLAY),
    "message_tailoring": ("Message tailoring: meets the person where they are", ROLE_PLAY),
    "depth_of_insight": ("Depth of insight: sees further into the situation", None),
    "overall_eq": ("Overall EQ: more emotionally intelligent, all told", None),
    "authentic_eu": ("Emotional understanding: understands feelings authentically", ANALYSIS),
    "causal_attribution": ("Causal attribution: explains behaviour by its causes", ANALYSIS),
    "theory_of_mind": ("Theory of mind: models what others think and feel", ANALYSIS),
    "incisiveness": ("Incisiveness: goes straight to what matters", ANALYSIS),
    "reading_between_lines": ("Reading between the lines: catches what is left unsaid",
                              ANALYSIS),
    "correctness": ("Correctness: reads the situation correctly", ANALYSIS),
}
_ORDER = re.compile(r"(A\d+):(test|other) / (A\d+):(test|other)")


def trait_id(criterion: str) -> str:
    return f"eq-{criterion}"


def comparison_id(scenario: str, test: str, neighbour: str, iteration: str) -> str:
    return f"{scenario}:{test}:{neighbour}:{iteration}"




def pair(entry: dict, path: str | os.PathLike, number: int
          ) -> tuple[str, str, str, str, dict[str, str], bool]:
    """scenario, test model, neighbour model, iteration, {respondent code: role}, and
    whether the test model was shown first (the order lists the first-shown code first)."""
    pair = entry.get("pair")
    order = _ORDER.fullmatch(str(entry.get("order")))
    fields = (entry.get("scenario_id"), *(pair.get(k) for k in (
        "test_model", "neighbor_model", "iteration_index"))) if isinstance(pair, dict) else ()
    if len(fields) != 4 or not all(isinstance(f, str) and f for f in fields):
        raise FfsiteError(f"{path}: entry {number}: needs scenario_id and pair.test_model, "
                          "neighbor_model, iteration_index")
    if order is None or {order[2], order[4]} != {"test", "other"}:
        raise FfsiteError(f"{path}: entry {number}: order {entry.get('order')!r} is not "
                          "'<code>:test / <code>:other'")
    return (*fields, {order[1]: order[2], order[3]: order[4]}, order[2] == "test")

