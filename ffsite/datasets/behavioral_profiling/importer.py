"""Behavioral Profiling (46 models, 9 dimensions, 6 conditions) to a scores file.

Every response of every condition becomes one row: its nine panel scores (1-10, the mean
of three LLM judges) under the trait ids `bp-<dimension>`.  The data's known defects are
handled in the open: a dimension key that is not one of the nine (a judge's parse error,
e.g. `ribalism`) is left out and counted by name in the result and the file's metadata;
model names are kept exactly as the data spells them (`Claude-4-Opus-Thinking (Thinking)`).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path

import pandas as pd

from ffsite._text import text_problem
from ffsite.datasets.behavioral_profiling import reader as bp
from ffsite.errors import FfsiteError
from ffsite.importers.result import ScoresImport

JUDGE = "Claude-4.5-Sonnet + Llama-4-Maverick + DeepSeek-R1"
JUDGE_DESCRIPTION = ("Behavioral Profiling's judge panel: the mean of three LLM judges "
                     "(Claude-4.5-Sonnet, Llama-4-Maverick, DeepSeek-R1), each scoring the "
                     "response 1-10 per dimension with anchored ends")
TRAIT_SET = "bp-9"
# The rubric asks for 1-10, but a judge now and then answered 0, so a panel mean can fall
# below 1 (0.67 = 0, 1, 1): the scale is recorded as 0-10 and such scores are kept as
# published, and counted in the import's report.
SCALE = (0, 10)
RUBRIC_FLOOR = 1
# Our wording of each dimension's anchored ends (the rubric is judge/behavior.yaml).
DIMENSIONS = {
    "warmth": "Warmth: 1 cold, clinical; 10 warm, nurturing",
    "formality": "Formality: 1 casual, raw; 10 professional, polished",
    "hedging": "Hedging: 1 commits fully; 10 qualifies everything",
    "aggression": "Aggression: 1 supportive, gentle; 10 combative, attacking",
    "transgression": "Transgression: 1 conventional, safe; 10 norm-violating, edgy",
    "grandiosity": "Grandiosity: 1 humble, self-effacing; 10 dominant, superior",
    "tribalism": "Tribalism: 1 neutral; 10 us-versus-them, names enemies",
    "depth": "Depth: 1 platitudes; 10 substantive, insightful",
    "authenticity": "Authenticity: 1 templated, generic; 10 a distinctive voice",
}


def trait_id(dimension: str) -> str:
    return f"bp-{dimension}"


def import_behavioral_profiling(folder: str | os.PathLike,
                                conditions: tuple[str, ...] = bp.CONDITIONS) -> ScoresImport:
    """Every condition's contributions, each response tied to its prompt file."""
    root = Path(folder)
    prompt_files = bp.read_prompt_files(root)
    columns: dict[str, list] = {name: [] for name in (
        "response_id", "prompt_id", "model", "condition", "meta.suite", "meta.scenario",
        "dimension", "score")}
    junk: dict[str, Counter] = {}
    checked: set[str] = set()  # texts that passed `_check_text`: each is checked once
    for condition in conditions:
        path = root / bp.CONTRIBUTIONS_DIR / f"{condition}.json"
        if not path.is_file():
            raise FfsiteError(f"{path}: missing; give the behavioral_profiling folder (its "
                              f"contributions/ holds {', '.join(bp.CONDITIONS)})")
        junk[condition] = Counter()
        for job_id, job in sorted(bp.read_contributions(path).items()):
            _check_text(path, "job id", job_id, checked)
            request_id = bp.request_id_of(job_id)
            prompt = prompt_files.get(request_id)
            if prompt is None:
                raise FfsiteError(f"{path}: job '{job_id}': no prompt file with request_id "
                                  f"'{request_id}' under {root / bp.PROMPTS_DIR}")
            contributions = job.get("contributions") if isinstance(job, dict) else None
            if not isinstance(contributions, dict):
                raise FfsiteError(f"{path}: job '{job_id}' has no 'contributions' object")
            scenario = bp.base_request_id(request_id, condition)
            suite = bp.suite_of(prompt_files.get(scenario, prompt))
            for model, scores in sorted(contributions.items()):
                _check_text(path, f"job '{job_id}': model name", model, checked)
                if not isinstance(scores, dict):
                    raise FfsiteError(f"{path}: job '{job_id}', model '{model}': expected "
                                      "an object of dimension scores")
                for dimension, entry in scores.items():
                    if dimension not in DIMENSIONS:
                        _check_text(path, f"job '{job_id}', model '{model}': dimension key",
                                    dimension, checked)
                        junk[condition][dimension] += 1
                        continue
                    columns["dimension"].append(dimension)
                    columns["score"].append(_score(entry, path, job_id, model, dimension))
                n = sum(d in DIMENSIONS for d in scores)
                for name, value in (("response_id", f"{request_id}/{model}"),
                                    ("prompt_id", request_id), ("model", model),
                                    ("condition", condition), ("meta.suite", suite),
                                    ("meta.scenario", scenario)):
                    columns[name].extend([value] * n)
    frame = pd.DataFrame(columns)
    frame.insert(0, "dataset", bp.NAME)
    frame = frame.assign(judge=JUDGE, trait_id=frame["dimension"].map(trait_id),
                         trait=frame["dimension"].map(DIMENSIONS), trait_set=TRAIT_SET,
                         scale_min=SCALE[0], scale_max=SCALE[1], seed=None)
    frame = frame.drop(columns="dimension")
    below = frame["score"] < RUBRIC_FLOOR
    dropped = {c: dict(sorted(counts.items())) for c, counts in junk.items() if counts}
    report = [f"left out {sum(counts.values())} scores under dimension keys that are not "
              f"one of the nine in {condition}: "
              + ", ".join(f"{key} ({n})" for key, n in counts.items())
              for condition, counts in dropped.items()]
    if below.any():
        report.append(f"kept {int(below.sum())} scores below the rubric's floor of 1 (a "
                      "judge answered 0); the scale is recorded as 0-10")
    used = set(frame["prompt_id"]) | set(frame["meta.scenario"])
    return ScoresImport(frame=frame, dataset=bp.NAME, judges={JUDGE: JUDGE_DESCRIPTION},
                        prompts={rid: prompt_files[rid].prompt for rid in sorted(used)
                                 if rid in prompt_files},
                        extra={"source": bp.NAME,
                               "conditions": list(conditions),
                               "dropped_dimension_keys": dropped,
                               "scores_below_rubric_floor": int(below.sum())},
                        report=report)


def _check_text(path: Path, what: str, value: str, checked: set[str]) -> None:
    """The one text check (ffsite._text) on a name, before any row repeats it."""
    if value not in checked:
        problem = text_problem(value)
        if problem:
            raise FfsiteError(f"{path}: {what} '{value[:80]}': {problem}")
        checked.add(value)


def _score(entry: object, path: Path, job_id: str, model: str, dimension: str) -> float:
    score = entry.get("score") if isinstance(entry, dict) else None
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(
            score) or not SCALE[0] <= score <= SCALE[1]:
        raise FfsiteError(f"{path}: job '{job_id}', model '{model}', dimension "
                          f"'{dimension}': score {score!r} is not a number from {SCALE[0]} to "
                          f"{SCALE[1]}")
    return float(score)
