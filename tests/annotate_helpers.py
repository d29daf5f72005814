"""Shared pieces of the `ffsite annotate` tests: a tiny base-data folder and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
from click.testing import CliRunner

from ffsite.cli import cli
from ffsite.datasets.alpaca_eval.reader import prompt_id
from ffsite.format.read import vote_rows

REFERENCE = "gpt4_1106_preview"
KEY = "sk-test-7f3a9c-DO-NOT-LEAK"


def instructions(n: int) -> list[str]:
    return [f"Question {i}: tell me about topic {i}." for i in range(n)]


def make_base_data(root: Path, n: int = 6) -> Path:
    """<root>/alpaca_eval/model_outputs/ with the reference and one other model."""
    folder = root / "alpaca_eval" / "model_outputs"
    folder.mkdir(parents=True)
    for model, answer in ((REFERENCE, "Reference answer number {i}, of a middling length."),
                          ("other-model", "Other {i}.")):
        records = [{"dataset": "helpful_base" if i % 2 else "oasst", "instruction": text,
                    "output": answer.format(i=i), "generator": model}
                   for i, text in enumerate(instructions(n))]
        (folder / f"{model}.json").write_text(json.dumps(records), encoding="utf-8")
    return root


def make_run_inputs(folder: Path, n: int, prices: dict) -> Path:
    """What a cost or fault test's runs read from `folder`: base data with `n` prompts
    (returned), the model's answers (responses.json), two traits (traits.txt) and a price
    file (prices.json)."""
    base = make_base_data(folder / "base", n)
    (folder / "responses.json").write_text(json.dumps(
        [{"instruction": t, "output": f"Answer {i}."} for i, t in enumerate(instructions(n))]))
    (folder / "traits.txt").write_text("is more concise\nuses more emojis\n")
    (folder / "prices.json").write_text(json.dumps(prices))
    return base


def sorted_prompt_ids(n: int) -> list[str]:
    return sorted(prompt_id(text) for text in instructions(n))


def api_env(server_url: str) -> dict[str, str]:
    return {"FFSITE_API_BASE": server_url, "FFSITE_API_KEY": KEY,
            "OPENROUTER_API_KEY": "", "OPENAI_API_KEY": ""}


def run_cli(args: list[str], env: dict[str, str]):
    """Invoke the CLI in-process; FfsiteError propagates as result.exception."""
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=True)


def run_subprocess(args: list[str], env: dict[str, str], **kwargs) -> subprocess.Popen:
    full_env = {**os.environ, **env}
    return subprocess.Popen([sys.executable, "-m", "ffsite", *args], env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)


def read_rows(path: Path) -> list[dict]:
    return vote_rows(path).to_pylist()


def file_summary(path: Path) -> dict:
    return json.loads(pq.read_schema(path).metadata[b"ffsite"])["extra"]
