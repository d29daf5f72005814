"""A scenario set of one's own for `ffsite eigenbench run`: prompts from a file.

EigenBench needs scenarios, not reference answers (every model is compared with the
others), so any list of prompts will do: a text file with one prompt per line (`#` lines
are comments), a JSON list of strings, or JSON / JSONL records with the prompt under
`prompt` or `instruction`.  The set is named after the file's stem; a prompt's id is
"sc-" and 12 hex digits of its SHA-256, so the same prompt has the same id in every file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ffsite.collect.annotate.inputs import load_prompt_set, prompt_set_names
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import text_problem

MAX_SCENARIOS = 100_000
# What a dry run assumes an answer to be, with no reference answer to measure: about
# 300 tokens, a middling chat answer.
TYPICAL_ANSWER = "x" * 1200


def prompt_id(prompt: str) -> str:
    return "sc-" + hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:12]


def response_id(model: str, prompt: str) -> str:
    return f"{model}/{prompt}"


def comparison_id(prompt: str, model: str, other: str) -> str:
    return f"{prompt}:{model}:{other}"


def _answer_record(model: str, prompt: Mapping[str, Any], output: str) -> dict:
    return {"prompt_id": prompt["prompt_id"], "instruction": prompt["instruction"],
            "output": output, "generator": model}


def load_scenarios(prompts: str, base_dir: Path | None) -> PromptSet:
    """A prompt set by name (from the base data), or a file of prompts."""
    if prompts in prompt_set_names():
        return load_prompt_set(prompts, base_dir)
    if not Path(prompts).is_file():
        raise ParameterError(f"{{prompts}} {prompts}: not a prompt set ("
                             + ", ".join(prompt_set_names()) + ") nor a file of prompts",
                             "prompts")
    return read_scenarios(prompts)


def read_scenarios(path: str | Path) -> PromptSet:
    """The file's prompts as a prompt set (sorted by id, each once)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise FfsiteError(f"{path}: cannot read the scenarios ({reason})") from None
    prompts = _prompts(path, text)
    for number, prompt in enumerate(prompts, start=1):
        problem = text_problem(prompt) or ("empty" if not prompt.strip() else None)
        if problem:
            raise FfsiteError(f"{path}: scenario {number}: {problem}")
    if not prompts:
        raise FfsiteError(f"{path}: no scenarios; write one prompt per line")
    if len(prompts) > MAX_SCENARIOS:
        raise ParameterError(f"{path}: {len(prompts):,} scenarios; at most "
                             f"{MAX_SCENARIOS:,} (use {{scenarios}} to take the first N)",
                             "prompts", "scenarios")
    table = pd.DataFrame({"prompt_id": [prompt_id(p) for p in prompts],
                          "instruction": prompts, "reference_output": TYPICAL_ANSWER})
    table = (table.drop_duplicates("prompt_id").sort_values("prompt_id", kind="stable")
             .reset_index(drop=True))
    return PromptSet(dataset=path.stem, reference="", table=table, meta=(),
                     prompt_id=prompt_id, response_id=response_id,
                     comparison_id=comparison_id, answer_record=_answer_record)


def _prompts(path: Path, text: str) -> list[str]:
    if path.suffix not in (".json", ".jsonl"):
        return [line.strip() for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    try:
        items = ([json.loads(line) for line in text.splitlines() if line.strip()]
                 if path.suffix == ".jsonl" else json.loads(text))
    except (ValueError, RecursionError) as exc:
        raise FfsiteError(f"{path}: not valid {path.suffix.lstrip('.').upper()} "
                          f"({str(exc).splitlines()[0]})") from None
    if not isinstance(items, list):
        raise FfsiteError(f"{path}: expected a list of prompts (strings, or records with "
                          "'prompt' or 'instruction')")
    prompts = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, dict):
            item = item.get("prompt", item.get("instruction"))
        if not isinstance(item, str):
            raise FfsiteError(f"{path}: scenario {number}: not a string nor a record with "
                              "'prompt' or 'instruction' text")
        prompts.append(item)
    return prompts
