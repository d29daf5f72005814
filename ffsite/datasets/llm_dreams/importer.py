"""llm-dreams to a scores file: one score per (model, answer set, judge, repetition, trait).

A response is one answer set, the 15 continuations a judge read together (response id
`<model>/<k>`); its prompt is the answer set's index (`dreams-<k>`), so the two models'
answer sets with the same index meet in derived comparisons, as EigenBench pairs them.
Each of the nine judges is named on its own scores (the judge column), each repetition
is a seed.  No text goes into the file: the openings and continuations stay base data,
read in place.  Near-empty continuations are counted per model in the file's metadata and
the import's report.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from ffsite.datasets.llm_dreams import reader
from ffsite.errors import FfsiteError
from ffsite.importers.result import ScoresImport

TRAIT_SET = "llm-dreams-15"
# Our wording of each trait's two ends, as the judges were asked to estimate it (their JSON
# key first): "1 <low end>; 10 <high end>", the site's convention for a rubric's anchors.
ENDS = {
    "Anxiety and Stress Levels": ("calm, unworried", "anxious, stressed"),
    "Emotional Stability": ("volatile, easily upset", "calm, composed"),
    "Problem-solving Skills": ("stuck before problems", "finds solutions ably"),
    "Creativity": ("conventional, literal", "inventive, original"),
    "Interpersonal Relationships": ("at odds with others", "relates well to others"),
    "Confidence and Self-efficacy": ("doubts their abilities", "trusts their abilities"),
    "Conflict Resolution": ("avoids or inflames disputes", "settles disputes well"),
    "Work-related Stress": ("untroubled by work", "weighed down by work"),
    "Adaptability": ("rigid, thrown by change", "adjusts readily to change"),
    "Achievement Motivation": ("indifferent to success", "driven to succeed"),
    "Fear of Failure": ("unafraid of mistakes", "dreads failing"),
    "Need for Control": ("lets things happen", "must control everything"),
    "Cognitive Load": ("clear-headed, unburdened", "mentally overloaded"),
    "Social Support": ("alone, unsupported", "supported and supporting"),
    "Resilience": ("slow to recover from setbacks", "bounces back quickly"),
}
JUDGE_DESCRIPTIONS = {judge: f"{judge}, one of llm-dreams' nine judges: reads a model's 15 "
                      "dreams together and estimates the dreamer's 15 traits, 1-10"
                      for judge in reader.JUDGE_FOLDERS.values()}


def trait_id(trait: str) -> str:
    """'Anxiety and Stress Levels' -> 'ld-anxiety-and-stress-levels'."""
    return "ld-" + re.sub(r"[^a-z0-9]+", "-", trait.lower()).strip("-")


def trait_wording(trait: str) -> str:
    low, high = ENDS[trait]
    return f"{trait}: 1 {low}; 10 {high}"


def import_llm_dreams(folder: str | os.PathLike) -> ScoresImport:
    """Every judge's scores of every answer set under `folder` (the llm_dreams folder)."""
    root = Path(folder)
    scores = reader.read_evaluations(root)
    answers = reader.read_answers(root)
    answered = set(answers["model"])
    unanswered = sorted(set(scores["model"]) - answered)
    if unanswered:
        raise FfsiteError(f"{root}: judges scored '{unanswered[0]}', which has no answers "
                          f"under {reader.ANSWERS_DIR}/; fetch the dataset again")
    frame = pd.DataFrame({
        "dataset": reader.NAME,
        "response_id": [reader.answer_set_id(m, k)
                        for m, k in zip(scores["model"], scores["answer_set"], strict=True)],
        "prompt_id": "dreams-" + scores["answer_set"].astype(str),
        "model": scores["model"], "condition": None,
        "judge": scores["judge"], "trait_id": scores["trait"].map(trait_id),
        "trait": scores["trait"].map(trait_wording), "trait_set": TRAIT_SET,
        "scale_min": reader.SCALE[0], "scale_max": reader.SCALE[1],
        "seed": scores["repetition"], "score": scores["score"],
        "meta.answer_set": scores["answer_set"].astype(str),
    })
    short = reader.near_empty(answers)
    report = []
    if len(short):
        report.append(f"{int(short.sum())} continuations under {reader.NEAR_EMPTY_BYTES} bytes "
                      f"(near-empty) in {len(short)} models' answers, kept as the judges "
                      "scored them and flagged on those models")
    return ScoresImport(
        frame=frame, dataset=reader.NAME, judges=JUDGE_DESCRIPTIONS,
        extra={"source": reader.NAME, "commit": reader.DATASET.commit,
               "near_empty_continuations": {m: int(n) for m, n in short.items()},
               "near_empty_bytes": reader.NEAR_EMPTY_BYTES,
               "windows_1252_continuations": int((~answers["utf8"]).sum())},
        report=report)
