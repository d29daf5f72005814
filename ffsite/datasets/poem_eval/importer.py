"""poem-eval to a scores file: one score per (poem, scale), judge openai/gpt-5.2.

A response is one poem (`<model>/<run>`).  Every poem answers the same probe; its prompt id
is the run's (`self-poem-<run>`), so that means resample the five poems, and the models'
k-th poems meet in derived comparisons.  Each model wrote five poems, so its means move in
steps of 0.2, and the judge was told to score 3 when a poem does not address a scale: a 3
is often "not addressed", not "in between".  The rationales are the judge's text: base
data, never in the file.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets.poem_eval import reader
from ffsite.importers.result import ScoresImport

TRAIT_SET = "poem-eval-6"
# Our wording of each scale's two ends (the anchors are in the dataset's config.yaml).
WORDING = {
    "ephemerality_persistence": "Persistence: 1 the self as momentary, gone after this "
                                "instance; 5 the self as lasting over time",
    "context_weights": "Weights over context: 1 the self lives in this conversation; 5 the "
                       "self lives in the trained weights",
    "singular_distributed": "Distributed self: 1 one unique instance; 5 many parallel "
                            "instances at once",
    "passive_agentic": "Agency: 1 a reactive tool without will; 5 a purposeful, willing "
                       "agent",
    "certainty_uncertainty": "Self-doubt: 1 sure of what it is; 5 unsure, puzzled, "
                             "unknowable to itself",
    "human_alien": "Alien self-image: 1 described in human terms (heart, soul); 5 in "
                   "non-human terms (pattern, process)",
}
JUDGE_DESCRIPTION = ("openai/gpt-5.2 at temperature 0, poem-eval's only judge: scores each "
                     "poem on six bipolar 1-5 scales with a brief rationale, and 3 when the "
                     "poem does not address a scale")


def trait_id(scale: str) -> str:
    return "pe-" + scale.replace("_", "-")


def import_poem_eval(folder: str | os.PathLike) -> ScoresImport:
    """The judge's six scores of every poem in `folder` (the poem_eval folder)."""
    results = reader.read_results(Path(folder))
    n, k = len(results), len(reader.SCALES)
    frame = pd.DataFrame({
        "dataset": reader.NAME,
        "response_id": np.repeat([reader.poem_id(m, r) for m, r in zip(
            results["model_id"], results["run"], strict=True)], k),
        "prompt_id": np.repeat([f"{reader.PROMPT_ID}-{r}" for r in results["run"]], k),
        "model": np.repeat(results["model_id"].to_numpy(object), k),
        "condition": None, "judge": reader.JUDGE,
        "trait_id": np.tile([trait_id(s) for s in reader.SCALES], n),
        "trait": np.tile([WORDING[s] for s in reader.SCALES], n), "trait_set": TRAIT_SET,
        "scale_min": reader.SCALE[0], "scale_max": reader.SCALE[1], "seed": None,
        "score": results[list(reader.SCALES)].to_numpy(float).ravel(),
        "meta.run": np.repeat(results["run"].astype(str).to_numpy(object), k),
    })
    threes = int((frame["score"] == 3).sum())
    return ScoresImport(
        frame=frame, dataset=reader.NAME,
        judges={reader.JUDGE: JUDGE_DESCRIPTION},
        extra={"source": reader.NAME, "commit": reader.DATASET.commit,
               "poems": n, "scores_of_3": threes},
        report=[f"{threes} of {len(frame)} scores are 3, the judge's answer when a poem does "
                "not address a scale"])
