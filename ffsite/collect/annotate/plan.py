"""What an annotate run works on and which calls it makes: settings, comparisons, requests.

Every request is a pure function of the settings and the texts, and so is its cache key:
a generation call's key covers its whole request; a judge call's key is the judge's
(`llm_judge.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.collect.annotate import inputs
from ffsite.collect.annotate.votes import comparisons
from ffsite.collect.api import Api, Call, find_price
from ffsite.collect.run import MAX_INVALID
from ffsite.collect.shared import generation_body
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import ParameterError
from ffsite.judges.judge import Judge, Pairs, Request


@dataclass(frozen=True)
class Settings:
    model: str
    judge: Judge
    out: Path
    api: Api
    responses: Path | None = None
    responses_out: Path | None = None
    limit: int | None = None
    combine: str = "majority"
    seed: int = 0
    temperature: float = 0.0
    max_tokens: int = 2048
    max_invalid: float = MAX_INVALID  # share of invalid votes above which the run fails


@dataclass(frozen=True)
class Work:
    """The comparisons of a run and the texts they need."""

    prompts: PromptSet  # the run's prompts (after the given responses and the limit)
    table: pd.DataFrame  # from votes.comparisons, one row per prompt
    instructions: np.ndarray
    reference_texts: np.ndarray
    given: np.ndarray | None  # the model's answers, when they were given
    comparison_ids: np.ndarray
    model_on_b: np.ndarray  # the side flip: the model's answer is side B


def prepare(settings: Settings, prompts: PromptSet) -> Work:
    """The run's comparisons: the prompts answered (given answers, limit), checked."""
    if settings.model == prompts.reference:
        raise ParameterError(f"{{model}} {settings.model} is the reference model; pick "
                             "another model or {reference}", "model", "reference")
    given = None
    if settings.responses is not None:
        given = inputs.read_responses(settings.responses, prompts)
        prompts = prompts.where(prompts["prompt_id"].isin(given.index))
    if settings.limit is not None:
        prompts = prompts.head(settings.limit)
    if len(prompts) == 0:
        raise ParameterError("no prompts to annotate; check {limit} and {responses}",
                             "limit", "responses")
    table = comparisons(prompts, settings.model, settings.seed)
    return Work(prompts=prompts, table=table,
                instructions=prompts["instruction"].to_numpy(object),
                reference_texts=prompts["reference_output"].to_numpy(object),
                given=None if given is None else given.reindex(
                    prompts["prompt_id"]).to_numpy(object),
                comparison_ids=table["comparison_id"].to_numpy(object),
                model_on_b=table["model_on_b"].to_numpy(bool))


def pairs(settings: Settings, work: Work, rows: Sequence[int], model_texts: np.ndarray
          ) -> Pairs:
    """Comparisons `rows` for the judge, with the model's answer to each (`model_texts`)."""
    rows = np.asarray(rows, np.int64)
    model_texts = np.asarray(model_texts, object)
    reference_texts = work.reference_texts[rows]
    on_b = work.model_on_b[rows]
    return Pairs(work.comparison_ids[rows], work.instructions[rows],
                 np.where(on_b, reference_texts, model_texts),
                 np.where(on_b, model_texts, reference_texts),
                 labels={"model": settings.model, "reference": work.prompts.reference})


# ------------------------------------------------------------------------- the calls

def generation_call(settings: Settings, instruction: str) -> Call:
    return settings.api.call("generate", generation_body(
        settings.model, instruction, settings.temperature, settings.max_tokens))


def judge_call(settings: Settings, request: Request) -> Call:
    return Call(request.key, request.body,
                find_price(settings.api.prices, request.body["model"]))


def headline(settings: Settings, prompts: PromptSet, n: int) -> str:
    return (f"annotate: {settings.model} vs {prompts.reference} on {n} prompts of "
            f"{prompts.dataset}; {settings.judge.describe()}")
