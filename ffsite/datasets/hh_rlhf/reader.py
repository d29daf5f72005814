"""Anthropic HH-RLHF (harmless-base, test split) as a base dataset.

Each line {"chosen", "rejected"} is one conversation ending in two different final
assistant turns.  The shared prefix is the prompt; the two final turns are the
responses; `chosen` is the crowdworker's preference.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pandas as pd

from ffsite._read import loads_json
from ffsite.datasets.hh_rlhf import DATASET
from ffsite.datasets.texts import TextsById
from ffsite.errors import FfsiteError

NAME = DATASET.id
FILE = "harmless-base-test.jsonl.gz"
ASSISTANT = "\n\nAssistant:"


def prompt_id(prefix: str) -> str:
    return "hh-" + hashlib.sha256(prefix.encode("utf-8")).hexdigest()[:12]


def split_conversation(chosen: str, rejected: str) -> tuple[str, str, str]:
    """(prompt, chosen reply, rejected reply): the text up to the last assistant turn
    that both share, then each conversation's final assistant turn."""
    cut_chosen = chosen.rfind(ASSISTANT)
    cut_rejected = rejected.rfind(ASSISTANT)
    prefix = chosen[:cut_chosen] if cut_chosen >= 0 else ""
    if cut_rejected >= 0 and rejected[:cut_rejected] != prefix:
        # The two transcripts differ before their final turn; keep the common part.
        common = os.path.commonprefix([chosen[:cut_chosen], rejected[:cut_rejected]])
        prefix = common
    reply_chosen = chosen[cut_chosen + len(ASSISTANT):].strip() if cut_chosen >= 0 else chosen
    reply_rejected = (rejected[cut_rejected + len(ASSISTANT):].strip() if cut_rejected >= 0
                      else rejected)
    return prefix.strip(), reply_chosen, reply_rejected


def load_pairs(root: str | os.PathLike) -> pd.DataFrame:
    """One row per line: line, prompt_id, prompt, chosen, rejected, chosen_id, rejected_id."""
    return read_pairs(Path(root) / FILE)


def read_pairs(path: str | os.PathLike) -> pd.DataFrame:
    """`load_pairs` for a file under any name (e.g. a downloaded test.jsonl.gz)."""
    path = Path(path)
    if not path.is_file():
        raise FfsiteError(f"{path}: not found; run `ffsite fetch hh_rlhf` or point "
                          "--base-data at a copy")
    rows = []
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line_number, line in enumerate(handle):
                if not line.strip():
                    continue
                chosen, rejected = _conversations(path, line_number, line)
                prompt, chosen, rejected = split_conversation(chosen, rejected)
                rows.append((line_number, prompt_id(prompt), prompt, chosen, rejected))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{path}: cannot read ({exc}); fetch it again") from None
    frame = pd.DataFrame(rows, columns=["line", "prompt_id", "prompt", "chosen", "rejected"])
    frame["chosen_id"] = [f"hh{n:05d}-chosen" for n in frame["line"]]
    frame["rejected_id"] = [f"hh{n:05d}-rejected" for n in frame["line"]]
    return frame


def _conversations(path: Path, line_number: int, line: str) -> tuple[str, str]:
    """The chosen and rejected conversation of one line, or an error naming the line."""
    where = f"{path}: line {line_number + 1}"
    record = loads_json(line, source=where, hint="fetch the file again")
    if not isinstance(record, dict):
        kind = {list: "list", str: "string"}.get(type(record), "number or null")
        raise FfsiteError(f"{where}: a JSON {kind}, not an object with "
                          "\"chosen\" and \"rejected\"; fetch the file again")
    for key in ("chosen", "rejected"):
        if not isinstance(record.get(key), str):
            raise FfsiteError(f"{where}: \"{key}\" is missing or not text; each line needs "
                              "\"chosen\" and \"rejected\" conversations")
    return record["chosen"], record["rejected"]


def load_texts(root: str | os.PathLike) -> tuple[dict[str, str], TextsById]:
    pairs = load_pairs(root)
    prompts = dict(zip(pairs["prompt_id"], pairs["prompt"], strict=True))
    responses = TextsById(pairs["chosen_id"], pairs["chosen"]).plus(pairs["rejected_id"],
                                                                    pairs["rejected"])
    return prompts, responses
