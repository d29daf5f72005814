"""What a run works on and which calls it makes: settings, comparisons, requests.

Every request is a pure function of the settings and the texts, and so is its cache key,
which covers the model, the prompt and both answers, the judge, the prompt-template
version, the trait list, the vote's seed and the order the judge sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.annotate import inputs
from ffsite.annotate.cache import call_key
from ffsite.annotate.calls import Call
from ffsite.annotate.client import RetryPolicy
from ffsite.annotate.cost import BUILT_IN_PRICES, Price, find_price
from ffsite.annotate.prompt import (
    TEMPLATE_VERSION,
    generation_messages,
    judge_messages,
    shown_swapped,
)
from ffsite.annotate.votes import comparisons
from ffsite.base import alpaca_eval
from ffsite.errors import FfsiteError
from ffsite.traits import FF_V1, Trait

RULES_JUDGE = "rules"


@dataclass(frozen=True)
class Settings:
    model: str
    judge: str
    out: Path
    cache_dir: Path
    base_dir: Path | None
    dataset: str = alpaca_eval.NAME
    reference: str = alpaca_eval.REFERENCE_MODEL
    responses: Path | None = None
    responses_out: Path | None = None
    limit: int | None = None
    traits: tuple[Trait, ...] = FF_V1
    votes: int = 1
    combine: str = "majority"
    seed: int = 0
    concurrency: int = 16
    max_cost: float | None = None
    prices: dict[str, Price] = field(default_factory=lambda: dict(BUILT_IN_PRICES))
    temperature: float = 0.0
    max_tokens: int = 2048
    judge_max_tokens: int = 1024
    policy: RetryPolicy = RetryPolicy()

    @property
    def by_rules(self) -> bool:
        return self.judge == RULES_JUDGE


@dataclass(frozen=True)
class Work:
    """The comparisons of a run and the texts they need."""

    table: pd.DataFrame  # from votes.comparisons, one row per prompt
    instructions: np.ndarray
    reference_texts: np.ndarray
    given: np.ndarray | None  # the model's answers when --responses was given
    comparison_ids: np.ndarray
    model_on_b: np.ndarray  # the side flip: the model's answer is side B


def prepare(settings: Settings) -> Work:
    if settings.model == settings.reference:
        raise FfsiteError(f"--model {settings.model} is the reference model; pick another "
                          "model or --reference")
    prompts = inputs.load_prompt_set(settings.dataset, settings.base_dir, settings.reference)
    given = None
    if settings.responses is not None:
        given = inputs.read_responses(settings.responses, prompts)
        prompts = prompts[prompts["prompt_id"].isin(given.index)].reset_index(drop=True)
    if settings.limit is not None:
        prompts = prompts.head(settings.limit)
    if prompts.empty:
        raise FfsiteError("no prompts to annotate; check --limit and --responses")
    table = comparisons(prompts, settings.model, settings.reference, settings.seed)
    return Work(table=table, instructions=prompts["instruction"].to_numpy(object),
                reference_texts=prompts["reference_output"].to_numpy(object),
                given=None if given is None else given.reindex(
                    prompts["prompt_id"]).to_numpy(object),
                comparison_ids=table["comparison_id"].to_numpy(object),
                model_on_b=table["model_on_b"].to_numpy(bool))


# ------------------------------------------------------------------------- the calls

def generation_call(settings: Settings, instruction: str) -> Call:
    body = {"model": settings.model, "messages": generation_messages(instruction),
            "temperature": settings.temperature, "max_tokens": settings.max_tokens}
    return Call(call_key(kind="generate", **body), body,
                find_price(settings.prices, settings.model))


def judge_call(settings: Settings, work: Work, row: int, model_text: str, seed: int,
               price: Price | None) -> Call:
    """The judge call for comparison `row` and one vote seed."""
    reference_text = work.reference_texts[row]
    on_b = work.model_on_b[row]
    side_a, side_b = (reference_text, model_text) if on_b else (model_text, reference_text)
    flipped = shown_swapped(work.comparison_ids[row], seed)
    first, second = (side_b, side_a) if flipped else (side_a, side_b)
    rules = [t.wording for t in settings.traits]
    instruction = work.instructions[row]
    body = {"model": settings.judge,
            "messages": judge_messages(instruction, first, second, rules),
            "temperature": settings.temperature, "max_tokens": settings.judge_max_tokens,
            "seed": seed}  # OpenAI's sampling seed: repeated votes are separate draws
    key = call_key(kind="judge", model=settings.model, reference=settings.reference,
                   judge=settings.judge, template=TEMPLATE_VERSION, prompt=instruction,
                   first=first, second=second, traits=rules, seed=seed, order=flipped,
                   temperature=settings.temperature, max_tokens=settings.judge_max_tokens)
    return Call(key, body, price)


def vote_seeds(settings: Settings) -> list[int]:
    return [settings.seed + k for k in range(settings.votes)]


def headline(settings: Settings, n: int) -> str:
    judge = "the rule-based judge" if settings.by_rules else (
        f"judge {settings.judge}, {len(settings.traits)} traits, "
        f"{settings.votes} vote{'s' if settings.votes > 1 else ''} each")
    return (f"annotate: {settings.model} vs {settings.reference} on {n} prompts of "
            f"{settings.dataset}; {judge}")
