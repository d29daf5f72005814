"""What a run works on and which calls it makes: settings, the judge, comparisons, requests.

Every request is a pure function of the settings and the texts, and so is its cache key:
a generation call's key covers its whole request; a judge call's key is the judge's
(`ffsite.annotate.llm_judge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.annotate import inputs
from ffsite.annotate.calls import Call
from ffsite.annotate.cost import find_price
from ffsite.annotate.llm_judge import LlmJudge
from ffsite.annotate.prompt import generation_body
from ffsite.annotate.session import Api, check_name
from ffsite.annotate.votes import comparisons
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import FfsiteError
from ffsite.judges.judge import Judge, Pairs, Request

RULES_JUDGE = "rules"  # --judge rules: the rule-based judge; any other name is an API model


def make_judge(name: str, *, traits: str | None = None, votes: int = 1, seed: int = 0,
               temperature: float = 0.0, max_tokens: int = 1024) -> Judge:
    """The judge `--judge name` asks for, with the options that apply to it.

    `traits` is a --traits value (default v1); `votes`, `temperature` and `max_tokens`
    are the LLM judge's."""
    if name == RULES_JUDGE:
        if traits is not None or votes != 1:
            raise FfsiteError("--judge rules votes once on its own traits; drop --traits/--votes")
        from ffsite.judges.rules import RulesJudge  # imported late: the API path needs none

        return RulesJudge(seed)
    return LlmJudge(name, inputs.resolve_traits(traits or "v1"), n_votes=votes, seed=seed,
                    temperature=temperature, max_tokens=max_tokens)


MAX_INVALID = 0.2  # a file with more invalid votes says more about the run than the model


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

    prompts: PromptSet  # the run's prompts (after --responses and --limit)
    table: pd.DataFrame  # from votes.comparisons, one row per prompt
    instructions: np.ndarray
    reference_texts: np.ndarray
    given: np.ndarray | None  # the model's answers when --responses was given
    comparison_ids: np.ndarray
    model_on_b: np.ndarray  # the side flip: the model's answer is side B


def prepare(settings: Settings, prompts: PromptSet) -> Work:
    check_name("--model", settings.model)
    check_name("--judge", settings.judge.id)
    if settings.model == prompts.reference:
        raise FfsiteError(f"--model {settings.model} is the reference model; pick another "
                          "model or --reference")
    given = None
    if settings.responses is not None:
        given = inputs.read_responses(settings.responses, prompts)
        prompts = prompts.where(prompts["prompt_id"].isin(given.index))
    if settings.limit is not None:
        prompts = prompts.head(settings.limit)
    if len(prompts) == 0:
        raise FfsiteError("no prompts to annotate; check --limit and --responses")
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
