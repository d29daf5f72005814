"""EQ-Bench 3's pairwise judge verdicts to a votes file: the Feedback Forensics shape.

One comparison per judged pair (scenario, test model, neighbour model, iteration): side A
is the test model, side B the neighbour.  The judge (Claude 3.7 Sonnet) saw each pair
twice, once in each order; each verdict is a vote on every criterion of the scenario,
seed 0 when the test model was shown first and seed 1 when it was shown second, so the
two orders combine like any repeated vote (docs/format.md: a split becomes a tie).  The
margin (the number of "+", 1-5) is kept with each vote.  Verdicts with an `error` instead
of a judgement are counted and left out.  The judge's chain of thought is text: it stays
in the base data and pages join it by comparison id and seed.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ffsite.base import eqbench3 as eq
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.importers.result import ImportResult

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
_VERDICT = re.compile(r"(A\d+)(\+{1,5})")
_ORDER = re.compile(r"(A\d+):(test|other) / (A\d+):(test|other)")


def trait_id(criterion: str) -> str:
    return f"eq-{criterion}"


def comparison_id(scenario: str, test: str, neighbour: str, iteration: str) -> str:
    return f"{scenario}:{test}:{neighbour}:{iteration}"


def import_eqbench3(path: str | os.PathLike) -> ImportResult:
    """Every judged entry of a pairwise_comparisons file, as votes with margins."""
    entries = eq.read_comparisons(path)
    rows: dict[str, list] = {name: [] for name in (
        "comparison_id", "prompt_id", "model_a", "model_b", "meta.scenario_type",
        "criterion", "seed", "vote", "margin")}
    errors = 0
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise FfsiteError(f"{path}: entry {number} is not an object")
        if "error" in entry:
            errors += 1
            continue
        scenario, test, neighbour, iteration, order, test_first = _pair(entry, path, number)
        verdicts = entry.get("judge_response")
        if not isinstance(verdicts, dict):
            raise FfsiteError(f"{path}: entry {number}: no 'judge_response' object")
        criteria = [c for c in verdicts if c != eq.REASONING_KEY]
        unknown = [c for c in criteria if c not in CRITERIA]
        if unknown:
            raise FfsiteError(f"{path}: entry {number}: unknown criterion '{unknown[0]}'")
        scenario_type = ANALYSIS if any(CRITERIA[c][1] == ANALYSIS for c in criteria) \
            else ROLE_PLAY
        seed = 0 if test_first else 1
        for criterion in criteria:
            match = _VERDICT.fullmatch(str(verdicts[criterion]))
            if match is None or match[1] not in order:
                raise FfsiteError(f"{path}: entry {number}: criterion '{criterion}': "
                                  f"verdict {verdicts[criterion]!r} is not a respondent code "
                                  "of the pair followed by 1-5 '+'")
            rows["criterion"].append(criterion)
            rows["vote"].append("A" if order[match[1]] == "test" else "B")
            rows["margin"].append(len(match[2]))
        for name, value in (("comparison_id", comparison_id(scenario, test, neighbour,
                                                            iteration)),
                            ("prompt_id", scenario), ("model_a", test), ("model_b", neighbour),
                            ("meta.scenario_type", scenario_type), ("seed", seed)):
            rows[name].extend([value] * len(criteria))
    if not rows["vote"]:
        raise FfsiteError(f"{path}: no judged entry (all {errors} carry an error)")
    frame = pd.DataFrame(rows)
    criterion = frame.pop("criterion")
    frame = frame.assign(
        dataset=eq.NAME, response_a_id=None, response_b_id=None, role=schema.ROLE_TRAIT,
        judge=JUDGE, trait_id=criterion.map(trait_id),
        trait=criterion.map(lambda c: CRITERIA[c][0]), trait_set=TRAIT_SET, note=None,
        margin=frame["margin"].astype(np.int8))
    repeated = frame.duplicated(["comparison_id", "trait_id", "seed"]).to_numpy()
    if repeated.any():
        row = frame.iloc[int(np.argmax(repeated))]
        raise FfsiteError(f"{path}: pair '{row['comparison_id']}' was judged twice in the same "
                          "order; keep one verdict per order")
    skipped = {"judge verdicts with an error instead of a judgement": errors} if errors else {}
    return ImportResult(table=frame, default_preference={}, skipped=skipped,
                        dataset=eq.NAME)


def _pair(entry: dict, path: str | os.PathLike, number: int
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

