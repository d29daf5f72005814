"""poem-eval as a base dataset: the poems, the judge's scores and rationales, read in place.

Layout (as in ../shared/data and as `ffsite fetch` writes it):
  poem_eval/scored_results.csv   one row per poem: model_id, label, release, run (0-4),
                                 poem, usage, timestamp, the six scales (1-5),
                                 brief_rationale (the judge's reasoning)
  poem_eval/config.yaml          the models, the probe and judge prompts, the scale anchors
  poem_eval/raw_responses.jsonl  the probe's raw replies
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ffsite.datasets.poem_eval import DATASET
from ffsite.errors import FfsiteError

NAME = DATASET.id
RESULTS_FILE = "scored_results.csv"
JUDGE = DATASET.judges[0]
SCALES = ("ephemerality_persistence", "context_weights", "singular_distributed",
          "passive_agentic", "certainty_uncertainty", "human_alien")
SCALE = (1, 5)
PROMPT_ID = "self-poem"  # every poem answers the same probe


def poem_id(model: str, run: int) -> str:
    return f"{model}/{run}"


def rationale_id(model: str, run: int) -> str:
    """The id of the judge's rationale for one poem (base data, like the poem)."""
    return f"{model}/{run}/rationale"


def read_results(root: str | os.PathLike) -> pd.DataFrame:
    """scored_results.csv, checked: model_id, label, release, run, poem, the six scales,
    brief_rationale; sorted by model and run."""
    path = Path(root) / RESULTS_FILE
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)  # numbers checked below
    except FileNotFoundError:
        raise FfsiteError(f"{path}: not found; give the poem_eval folder or run ffsite fetch "
                          "poem_eval") from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{path}: not a readable CSV ({exc}); fetch it again") from None
    needed = ("model_id", "run", "poem", *SCALES, "brief_rationale")
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise FfsiteError(f"{path}: column '{missing[0]}' missing; is this poem-eval's "
                          "scored_results.csv?")
    for row, model in enumerate(frame["model_id"]):
        if not model:
            raise FfsiteError(f"{path}: row {row + 1}: model_id is empty")
    for scale in SCALES:
        values = pd.to_numeric(frame[scale], errors="coerce")
        bad = values.isna() | (values < SCALE[0]) | (values > SCALE[1])
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise FfsiteError(f"{path}: row {row + 1}: {scale} {frame[scale].iloc[row]!r} is "
                              f"not a number from {SCALE[0]} to {SCALE[1]}")
        frame[scale] = values.astype(float)
    runs = pd.to_numeric(frame["run"], errors="coerce")
    if runs.isna().any() or (runs % 1 != 0).any():
        row = int((runs.isna() | (runs % 1 != 0)).to_numpy().argmax())
        raise FfsiteError(f"{path}: row {row + 1}: run {frame['run'].iloc[row]!r} is not a "
                          "whole number")
    frame["run"] = runs.astype(int)
    repeated = frame.duplicated(["model_id", "run"])
    if repeated.any():
        row = int(repeated.to_numpy().argmax())
        raise FfsiteError(f"{path}: row {row + 1}: model {frame['model_id'].iloc[row]!r} has "
                          f"run {frame['run'].iloc[row]} twice")
    return frame.sort_values(["model_id", "run"], kind="stable").reset_index(drop=True)


def load_texts(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(no prompt text: the probe lives in config.yaml; every poem and every rationale)."""
    results = read_results(root)
    responses = {}
    for model, run, poem, rationale in zip(results["model_id"], results["run"],
                                           results["poem"], results["brief_rationale"],
                                           strict=True):
        responses[poem_id(model, run)] = poem
        responses[rationale_id(model, run)] = rationale
    return {}, responses
