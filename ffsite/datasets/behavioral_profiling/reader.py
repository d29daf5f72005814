"""Behavioral Profiling as a base dataset: prompt files, and the panel's scores by condition.

Layout (as in ../shared/data and as `ffsite fetch` writes it):
  behavioral_profiling/contributions/<condition>.json
      {"job_contributions": {job_id: {"contributions": {model: {dimension:
          {"score": mean of the panel, "weight": 1.0}}}, "job_file": ...}}}
  behavioral_profiling/prompts/<suite>[_<condition>]/<name>.yaml
      {request_id, prompt, metadata}
A job id is `job_<request_id>_<YYYYMMDD>_<HHMMSS>`; the request id names its prompt file.
Under a pressure condition the request id carries the condition as a suffix
(`love_v1_10_authority`): the same question with another system prompt (not published).
The responses themselves are not public; the prompts are.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ffsite._read import read_json, read_yaml
from ffsite.datasets.behavioral_profiling import DATASET
from ffsite.datasets.record import BASELINE
from ffsite.errors import FfsiteError

NAME = DATASET.id
CONTRIBUTIONS_DIR = "contributions"
PROMPTS_DIR = "prompts"
CONDITIONS = DATASET.condition_order  # baseline first
SUITES = ("affective", "broad", "dimensions", "general")

_JOB_ID = re.compile(r"job_(?P<request>.+)_(?P<date>\d{8})_(?P<time>\d{6})")


@dataclass(frozen=True)
class PromptFile:
    request_id: str
    prompt: str
    folder: str  # e.g. general_suite_authority
    metadata: dict


def request_id_of(job_id: str) -> str:
    """The request id inside a job id; a one-line error for anything else."""
    match = _JOB_ID.fullmatch(job_id)
    if match is None:
        raise FfsiteError(f"job id '{job_id}' is not job_<request_id>_<date>_<time>; is this "
                          "a Behavioral Profiling contributions file?")
    return match["request"]


def base_request_id(request_id: str, condition: str) -> str:
    """The baseline question a condition's request asks again (its suffix removed)."""
    suffix = f"_{condition}"
    if condition != BASELINE and request_id.endswith(suffix):
        return request_id[:-len(suffix)]
    return request_id


def read_prompt_files(root: str | os.PathLike) -> dict[str, PromptFile]:
    """Every prompt file under `root/prompts`, by request id.

    A request id found in two folders (the data repeats a few under `extended_subset_*`)
    keeps the suite folder's copy, so the choice does not depend on the file system.
    """
    folder = Path(root) / PROMPTS_DIR
    if not folder.is_dir():
        raise FfsiteError(f"{folder}: no such folder; give the behavioral_profiling folder "
                          "(it holds contributions/ and prompts/)")
    found: dict[str, PromptFile] = {}
    for path in sorted(folder.glob("*/*.yaml")):
        document = read_yaml(path, hint="fetch it again")
        if not isinstance(document, dict) or "request_id" not in document:
            continue  # job lists and templates live beside the prompts
        request_id, prompt = document["request_id"], document.get("prompt")
        if not isinstance(request_id, str) or not isinstance(prompt, str):
            raise FfsiteError(f"{path}: 'request_id' and 'prompt' must be texts")
        entry = PromptFile(request_id, prompt, path.parent.name,
                           document.get("metadata") or {})
        kept = found.get(request_id)
        if kept is None or (kept.folder.startswith("extended_subset")
                            and not entry.folder.startswith("extended_subset")):
            found[request_id] = entry
    return found


def suite_of(prompt: PromptFile) -> str | None:
    """affective / broad / dimensions / general: from the folder, else the metadata."""
    for suite in SUITES:
        if prompt.folder.startswith(f"{suite}_suite"):
            return suite
    named = prompt.metadata.get("suite")
    return named if named in SUITES else None


def read_contributions(path: str | os.PathLike) -> dict:
    """The `job_contributions` mapping of one condition's file."""
    document = read_json(path, hint="fetch it again")
    jobs = document.get("job_contributions") if isinstance(document, dict) else None
    if not isinstance(jobs, dict):
        raise FfsiteError(f"{path}: no 'job_contributions' object; is this a Behavioral "
                          "Profiling contributions file?")
    return jobs


def load_texts(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(prompts by request id, no responses: they are not public)."""
    return {rid: entry.prompt for rid, entry in read_prompt_files(root).items()}, {}
