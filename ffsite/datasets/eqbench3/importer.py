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

from ffsite.datasets.eqbench3 import reader as eq
from ffsite.datasets.eqbench3.rules import (
    ANALYSIS,
    CRITERIA,
    JUDGE,
    ROLE_PLAY,
    TRAIT_SET,
    comparison_id,
    pair,
    trait_id,
)
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.importers.result import ImportResult

_VERDICT = re.compile(r"(A\d+)(\+{1,5})")

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
        scenario, test, neighbour, iteration, order, test_first = pair(entry, path, number)
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
