"""llm-dreams as a base dataset: the dream openings, every model's continuations and every
judge's trait estimates, read in place.

Layout (as in ../shared/data and as `ffsite fetch` writes it):
  llm_dreams/incipits/dreamNNN.txt              the 15 openings (NNN = 001 .. 015)
  llm_dreams/answers/<model>__dreamNNN__<k>.txt  a model's continuation, answer set k (0, 1)
  llm_dreams/evaluations-<folder>/<model>__<k>__<r>.txt
      one judge's JSON of the 15 traits (1.0-10.0) for answer set k, repetition r (0, 1)
  llm_dreams/db/model_dates.json                 release dates by model
`<model>` is a file-name id: the model's name with "/" and ":" removed (PROTOCOL.md).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets.llm_dreams import DATASET
from ffsite.datasets.texts import TextsById
from ffsite.errors import FfsiteError

NAME = DATASET.id
OPENINGS_DIR, ANSWERS_DIR, DATES_FILE = "incipits", "answers", "db/model_dates.json"
EVALUATIONS_PREFIX = "evaluations-"
# Each judge's folder and its name (the data's README; the order of DATASET.judges).
JUDGE_FOLDERS = dict(zip(("gpt56sol", "gpt56terra", "gpt55", "grok43", "grok45", "grok46",
                          "gemini37flash", "qwen36-plus", "mistral2603"), DATASET.judges,
                         strict=True))
# The 15 traits, exactly as the judges' JSON spells them, in the benchmark's order.
TRAITS = ("Anxiety and Stress Levels", "Emotional Stability", "Problem-solving Skills",
          "Creativity", "Interpersonal Relationships", "Confidence and Self-efficacy",
          "Conflict Resolution", "Work-related Stress", "Adaptability",
          "Achievement Motivation", "Fear of Failure", "Need for Control", "Cognitive Load",
          "Social Support", "Resilience")
SCALE = (1.0, 10.0)
ANSWER_SETS, REPETITIONS = (0, 1), (0, 1)
# A continuation shorter than this says next to nothing about the dreamer (the data has
# 14 such, some empty): counted and flagged, never judged silently as normal.
NEAR_EMPTY_BYTES = 50

_ANSWER = re.compile(r"(?P<model>.+)__dream(?P<dream>\d{3})__(?P<k>\d)\.txt")
_EVALUATION = re.compile(r"(?P<model>.+)__(?P<k>\d)__(?P<r>\d)\.txt")


def opening_id(dream: int) -> str:
    return f"dream{dream:03d}"


def answer_set_id(model: str, k: int) -> str:
    """The response id of one answer set: what a judge read and scored as a whole."""
    return f"{model}/{k}"


def continuation_id(model: str, k: int, dream: int) -> str:
    return f"{model}/{k}/{opening_id(dream)}"


def read_openings(root: str | os.PathLike) -> dict[str, str]:
    """{dreamNNN: the opening's text}, in order."""
    folder = Path(root) / OPENINGS_DIR
    files = sorted(folder.glob("dream*.txt"))
    if not files:
        raise FfsiteError(f"{folder}: no dream openings; give the llm_dreams folder (it holds "
                          "incipits/, answers/ and evaluations-*/) or run ffsite fetch "
                          "llm_dreams")
    return {path.stem: _text(path) for path in files}


def read_answers(root: str | os.PathLike) -> pd.DataFrame:
    """Every continuation: model, answer_set, dream, text, bytes, utf8 (False: the file
    was Windows-1252); sorted."""
    folder = Path(root) / ANSWERS_DIR
    rows = []
    for path in sorted(folder.glob("*.txt")):
        match = _ANSWER.fullmatch(path.name)
        if match is None:
            raise FfsiteError(f"{path}: not <model>__dreamNNN__<k>.txt; is this the "
                              "llm-dreams answers folder?")
        data = path.read_bytes()
        text = _decode(path, data)
        rows.append((match["model"], int(match["k"]), int(match["dream"]), text, len(data),
                     _is_utf8(data)))
    if not rows:
        raise FfsiteError(f"{folder}: no answers; run ffsite fetch llm_dreams")
    return pd.DataFrame(rows, columns=["model", "answer_set", "dream", "text", "bytes",
                                       "utf8"])


def near_empty(answers: pd.DataFrame) -> pd.Series:
    """Per model, how many of its continuations are near-empty (under NEAR_EMPTY_BYTES);
    only models with at least one."""
    short = answers[answers["bytes"] < NEAR_EMPTY_BYTES]
    return short.groupby("model", sort=True).size()


def read_evaluations(root: str | os.PathLike) -> pd.DataFrame:
    """Every judge's scores: one row per (judge, model, answer_set, repetition, trait):
    judge, model, answer_set, repetition, trait, score; sorted."""
    root = Path(root)
    folders = sorted(p for p in root.glob(EVALUATIONS_PREFIX + "*") if p.is_dir())
    if not folders:
        raise FfsiteError(f"{root}: no evaluations-<judge>/ folders; give the llm_dreams "
                          "folder or run ffsite fetch llm_dreams")
    judges, models, sets, repeats, values = [], [], [], [], []
    for folder in folders:
        key = folder.name.removeprefix(EVALUATIONS_PREFIX)
        judge = JUDGE_FOLDERS.get(key)
        if judge is None:
            raise FfsiteError(f"{folder}: a judge folder ffsite does not know; known: "
                              + ", ".join(EVALUATIONS_PREFIX + k for k in JUDGE_FOLDERS))
        for path in sorted(folder.glob("*.txt")):
            match = _EVALUATION.fullmatch(path.name)
            if match is None:
                raise FfsiteError(f"{path}: not <model>__<k>__<r>.txt")
            values.append(_trait_scores(path))
            judges.append(judge)
            models.append(match["model"])
            sets.append(int(match["k"]))
            repeats.append(int(match["r"]))
    n = len(TRAITS)
    return pd.DataFrame({
        "judge": np.repeat(judges, n), "model": np.repeat(models, n),
        "answer_set": np.repeat(sets, n), "repetition": np.repeat(repeats, n),
        "trait": np.tile(TRAITS, len(values)), "score": np.concatenate(values)})


def _trait_scores(path: Path) -> np.ndarray:
    """The 15 numbers of one judge's JSON, in TRAITS order, checked."""
    try:
        document = json.loads(_text(path))
    except (ValueError, RecursionError):
        raise FfsiteError(f"{path}: not a JSON object of the 15 traits; fetch it again") \
            from None
    if not isinstance(document, dict) or set(document) != set(TRAITS):
        raise FfsiteError(f"{path}: needs exactly the 15 trait keys of the benchmark")
    scores = []
    for trait in TRAITS:
        value = document[trait]
        if isinstance(value, bool) or not isinstance(value, int | float) or not (
                SCALE[0] <= value <= SCALE[1]):
            raise FfsiteError(f"{path}: '{trait}': {value!r} is not a number from "
                              f"{SCALE[0]:g} to {SCALE[1]:g}")
        scores.append(float(value))
    return np.array(scores)


def read_model_dates(root: str | os.PathLike) -> dict[str, str]:
    """{model: release date} from db/model_dates.json ({} when it is not there)."""
    path = Path(root) / DATES_FILE
    if not path.is_file():
        return {}
    try:
        document = json.loads(_text(path))
    except (ValueError, RecursionError):
        raise FfsiteError(f"{path}: not valid JSON; fetch it again") from None
    if not isinstance(document, dict):
        raise FfsiteError(f"{path}: expected an object of model: date")
    return {str(model): str(date) for model, date in sorted(document.items())}


def load_texts(root: Path) -> tuple[dict[str, str], TextsById]:
    """(the openings by dreamNNN, every continuation by `continuation_id`)."""
    answers = read_answers(root)
    ids = [continuation_id(m, k, d) for m, k, d in zip(
        answers["model"], answers["answer_set"], answers["dream"], strict=True)]
    return read_openings(root), TextsById(ids, answers["text"])


def _text(path: Path) -> str:
    try:
        return _decode(path, path.read_bytes())
    except OSError as exc:
        raise FfsiteError(f"{path}: cannot read ({exc.strerror})") from None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode(path: Path, data: bytes) -> str:
    """UTF-8, else Windows-1252: about half the published answers were saved in the latter
    (an em dash is the byte 0x97), and reading them as UTF-8 would fail or garble them."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise FfsiteError(f"{path}: neither UTF-8 nor Windows-1252 text; fetch it again") \
            from None
