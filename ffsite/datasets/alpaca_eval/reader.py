"""AlpacaEval 2.0 as a base dataset: model outputs and the GPT-4-Turbo judge's preferences.

Layout (as in ../shared/data and as `ffsite fetch` writes it):
  alpaca_eval/model_outputs/<model>.json       [{dataset, instruction, output, generator}]
  alpaca_eval/judge_annotations/<model>.json   [{instruction, dataset, generator_1,
                                                 generator_2, preference, annotator}]
Model names are the `generator` field, unchanged (one file name differs from it).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ffsite._read import read_json
from ffsite.datasets.alpaca_eval import DATASET
from ffsite.datasets.prompt_set import PromptSet
from ffsite.datasets.texts import TextsById
from ffsite.errors import FfsiteError

NAME = DATASET.id
REFERENCE_MODEL = DATASET.reference_model
OUTPUTS_DIR = "model_outputs"
JUDGE_DIR = "judge_annotations"


def prompt_id(instruction: str) -> str:
    """Stable id of an instruction: 'ae-' and 12 hex digits of its SHA-256."""
    return "ae-" + hashlib.sha256(instruction.encode("utf-8")).hexdigest()[:12]


def response_id(model: str, prompt: str) -> str:
    return f"{model}/{prompt}"


def comparison_id(prompt: str, model: str, other: str) -> str:
    """Id of the comparison of `model` with `other` on a prompt.

    `model` is the model under study and `other` its reference; for a pair of two
    non-reference models, pass them in sorted order so the id does not depend on sides.
    """
    return f"{prompt}:{model}:{other}"


def _read_json_list(path: Path) -> list[dict]:
    records = read_json(path, hint="fetch it again")
    if not isinstance(records, list):
        raise FfsiteError(f"{path}: expected a JSON list of records")
    return records


def load_outputs(root: str | os.PathLike) -> pd.DataFrame:
    """All model outputs under `root` (the alpaca_eval folder), one row per response.

    Columns: model, prompt_id, instruction, output, subset (AlpacaEval's `dataset`
    field), response_id.  Sorted by model, then prompt_id.
    """
    folder = Path(root) / OUTPUTS_DIR
    files = sorted(folder.glob("*.json"))
    if not files:
        raise FfsiteError(f"{folder}: no model outputs found; run `ffsite fetch alpaca_eval` "
                          "or point --base-data at a copy")
    return read_output_files(files)


def read_output_files(files: list[Path]) -> pd.DataFrame:
    """`load_outputs` for the given model_outputs-style files (e.g. the answers a
    contributor's `ffsite annotate` run wrote beside its votes)."""
    frames = []
    for path in files:
        records = _read_json_list(path)
        frame = pd.DataFrame.from_records(records)
        for column in ("instruction", "output", "generator", "dataset"):
            if column not in frame.columns:
                raise FfsiteError(f"{path}: field '{column}' missing from the records")
        frames.append(frame[["generator", "instruction", "output", "dataset"]])
    outputs = pd.concat(frames, ignore_index=True).rename(
        columns={"generator": "model", "dataset": "subset"})
    outputs["output"] = outputs["output"].fillna("").astype(str)
    outputs["prompt_id"] = outputs["instruction"].map(prompt_id)
    outputs["response_id"] = outputs["model"] + "/" + outputs["prompt_id"]
    outputs = outputs.drop_duplicates(["model", "prompt_id"], keep="first")
    return outputs.sort_values(["model", "prompt_id"], kind="stable").reset_index(drop=True)[
        ["model", "prompt_id", "instruction", "output", "subset", "response_id"]]


def load_judge_annotations(root: str | os.PathLike) -> pd.DataFrame:
    """The AlpacaEval judge's preferences: model, prompt_id, reference, preference."""
    folder = Path(root) / JUDGE_DIR
    files = sorted(folder.glob("*.json"))
    frames = []
    for path in files:
        frame = pd.DataFrame.from_records(_read_json_list(path))
        for column in ("instruction", "generator_1", "generator_2", "preference"):
            if column not in frame.columns:
                raise FfsiteError(f"{path}: field '{column}' missing from the records")
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["model", "prompt_id", "reference", "preference",
                                     "annotator"])
    judged = pd.concat(frames, ignore_index=True)
    judged["prompt_id"] = judged["instruction"].map(prompt_id)
    judged = judged.rename(columns={"generator_2": "model", "generator_1": "reference"})
    if "annotator" not in judged.columns:
        judged["annotator"] = "alpaca_eval_judge"
    return judged.sort_values(["model", "prompt_id"], kind="stable").reset_index(drop=True)[
        ["model", "prompt_id", "reference", "preference", "annotator"]]


def load_texts(root: str | os.PathLike) -> tuple[dict[str, str], TextsById]:
    """(prompts, responses) keyed by the ids annotation files use."""
    outputs = load_outputs(root)
    prompts = dict(zip(outputs["prompt_id"], outputs["instruction"], strict=True))
    return prompts, TextsById(outputs["response_id"], outputs["output"])


def prompt_set(root: str | os.PathLike, reference: str = REFERENCE_MODEL) -> PromptSet:
    """AlpacaEval's instructions with `reference`'s answers (`root`: the alpaca_eval
    folder), as `ffsite annotate` asks them; each comparison keeps AlpacaEval's source
    subset (its `dataset` field) as meta.subset."""
    outputs = load_outputs(root)
    answers = outputs[outputs["model"] == reference]
    if answers.empty:
        models = sorted(outputs["model"].unique())
        raise FfsiteError(f"--reference {reference}: no answers of that model in "
                          f"{Path(root) / OUTPUTS_DIR}; known models: "
                          + ", ".join(models[:10]) + (" ..." if len(models) > 10 else ""))
    table = (answers.rename(columns={"output": "reference_output"})
             .sort_values("prompt_id", kind="stable").reset_index(drop=True)
             [["prompt_id", "instruction", "subset", "reference_output"]])
    return PromptSet(dataset=NAME, reference=reference, table=table, meta=("subset",),
                     prompt_id=prompt_id, response_id=response_id,
                     comparison_id=comparison_id, answer_record=_answer_record)


def _answer_record(model: str, prompt: Mapping[str, Any], output: str) -> dict:
    """One record of a model_outputs/<model>.json file."""
    return {"dataset": prompt["subset"], "instruction": prompt["instruction"],
            "output": output, "generator": model}
