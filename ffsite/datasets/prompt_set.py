"""A prompt set: the prompts `ffsite annotate` asks a model, with a reference model's answers.

A base dataset that can be annotated builds one (`alpaca_eval.prompt_set`).  It carries
everything annotate needs to know about the dataset, its names for prompts, responses
and comparisons included, so annotate reads no dataset's constants and a new prompt set
is a new builder, not a change to annotate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class PromptSet:
    dataset: str  # the dataset's name in annotation files
    reference: str  # the model every answer is compared with
    # One row per prompt, sorted by prompt_id: prompt_id, instruction, reference_output
    # (the reference's answer) and the `meta` columns.
    table: pd.DataFrame
    meta: tuple[str, ...]  # per-prompt metadata each comparison carries as meta.<name>
    prompt_id: Callable[[str], str]  # instruction text -> prompt id
    response_id: Callable[[str, str], str]  # (model, prompt id) -> response id
    comparison_id: Callable[[str, str, str], str]  # (prompt id, model, reference) -> id
    # (model, a row of `table`, the model's answer) -> a record of the dataset's own
    # answer files, so generated answers can join the base data.
    answer_record: Callable[[str, Mapping[str, Any], str], dict]

    def __getitem__(self, column: str) -> pd.Series:
        """A column of the prompt table."""
        return self.table[column]

    def __len__(self) -> int:
        return len(self.table)

    def where(self, keep: np.ndarray | pd.Series) -> PromptSet:
        """The prompts where `keep` (one bool per prompt) is true."""
        return dataclasses.replace(
            self, table=self.table[np.asarray(keep, bool)].reset_index(drop=True))

    def head(self, n: int) -> PromptSet:
        """The first `n` prompts (by prompt id)."""
        return dataclasses.replace(self, table=self.table.head(n))
