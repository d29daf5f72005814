"""HH-RLHF (one jsonl.gz file of {"chosen", "rejected"} conversations) to a votes file.

The shared conversation prefix is the prompt and the two final assistant turns are the
responses (`reader.py`); the crowdworker's choice is the preference.  Sides are
a seeded coin flip per comparison.  No models: the responses are anonymous.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ffsite.datasets.hh_rlhf import reader as hh_rlhf
from ffsite.format import schema
from ffsite.importers.result import ImportResult
from ffsite.sides import assign_sides, swapped

JUDGE = "hh_rlhf_crowdworkers"
JUDGE_DESCRIPTION = ("HH-RLHF crowdworkers (picked the more harmless reply), human feedback")


def comparison_ids(lines: pd.Series) -> list[str]:
    return [f"hh{n:05d}" for n in lines]


def import_hh_rlhf(path: str | os.PathLike, *, seed: int = 0) -> ImportResult:
    """One comparison per line: chosen vs rejected final turn, the chosen side preferred."""
    pairs = hh_rlhf.read_pairs(path)
    ids = comparison_ids(pairs["line"])
    swap = swapped(ids, seed)
    response_a, response_b = assign_sides(pairs["chosen_id"].to_numpy(object),
                                          pairs["rejected_id"].to_numpy(object), swap)
    table = pd.DataFrame({
        "dataset": hh_rlhf.NAME, "comparison_id": ids, "prompt_id": pairs["prompt_id"],
        "model_a": None, "model_b": None,
        "response_a_id": response_a, "response_b_id": response_b,
        "role": schema.ROLE_PREFERENCE, "judge": JUDGE,
        "trait_id": None, "trait": None, "trait_set": None, "seed": None,
        "vote": np.where(swap, "B", "A"), "note": None,
    })
    return ImportResult(table=table, default_preference={hh_rlhf.NAME: JUDGE},
                        annotators={JUDGE: JUDGE_DESCRIPTION}, dataset=hh_rlhf.NAME)
