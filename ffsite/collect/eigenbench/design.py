"""Who judges what in an EigenBench run: the settings, and the design of comparisons.

Every model is a judge.  For each scenario each judge gets `pairs_per_judge` pairs of
models, walking through a seeded shuffle of all pairs of the population, so over the run
every judge sees every pair equally often, give or take one.  The judge is thus drawn
independently of the pair, as the paper samples it: a pair that includes the judge's own
answer (a self-judgment) comes up as often as any other, 2 in N of a judge's judgments.
Self-judgments are what identify a judge's self-trust T_ii; without them
(`self_judgments=False`, each judge given pairs of the *other* models only) T_ii is
extrapolated from the judge's lens and its disposition, EigenTrust still weights it, and
the intervals widen (docs/eigenbench.md, "Identification").  A scenario and a pair of
evaluees is one comparison (sides A/B by ffsite's seeded coin flip); several judges may
vote on it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.collect.api import Api
from ffsite.collect.eigenbench.constitution import Constitution
from ffsite.collect.run import MAX_INVALID, check_names
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import FfsiteError, ParameterError
from ffsite.sides import swapped


@dataclass(frozen=True)
class RunSettings:
    models: tuple[str, ...]  # the population: every one answers and judges
    constitution: Constitution
    out: Path
    responses_out: Path
    api: Api
    pairs_per_judge: int = 1  # pairs each judge compares per scenario
    self_judgments: bool = True  # pairs that include the judge's own answer come up too
    scenarios: int | None = None  # the first N prompts of the set (by id); None: all
    seed: int = 0  # the pair shuffle and the side flip
    temperature: float = 0.0  # of answers; judges always answer at 0
    max_tokens: int = 2048  # longest answer
    reflection_max_tokens: int = 1024
    judge_max_tokens: int = 512  # longest verdict
    max_invalid: float = MAX_INVALID

    @property
    def dataset(self) -> str:
        """The votes' dataset: its own, so EigenBench comparisons never mix into the
        prompt set's own dataset page."""
        return f"eigenbench-{self.constitution.name}"


@dataclass(frozen=True)
class Design:
    """Who judges what.  `table`: one row per comparison (scenario and pair, sides A/B
    fixed); the arrays: one entry per judgment (a judge on a comparison)."""

    prompts: PromptSet
    table: pd.DataFrame
    judge: np.ndarray  # model index
    comparison: np.ndarray  # row of `table`
    scenario: np.ndarray  # row of `prompts` (of the comparison)
    side_a: np.ndarray  # model index on side A (of the comparison)
    side_b: np.ndarray


def check_models(models: Sequence[str]) -> tuple[str, ...]:
    """The population, checked before anything is read or called: names the votes file
    can hold, each given once, at least three."""
    check_names(("models", model) for model in models)
    if len(set(models)) != len(models):
        repeated = next(m for m in models if models.count(m) > 1)
        raise ParameterError(f"{{models}} {repeated} is given twice; name each model once",
                             "models")
    if len(models) < 3:
        raise ParameterError(f"EigenBench needs at least 3 models (got {len(models)}): "
                             "each judges pairs of the population; give {models} three or "
                             "more times", "models")
    return tuple(models)


def pairs_of(n_models: int, judge: int, self_judgments: bool) -> np.ndarray:
    """The pairs (low, high) a judge is given: all pairs of the population, or, without
    self-judgments, the pairs of the other models."""
    shown = [m for m in range(n_models) if self_judgments or m != judge]
    return np.array(list(itertools.combinations(shown, 2)), np.int64)


def plan(settings: RunSettings, prompts: PromptSet) -> Design:
    """The run's comparisons and judgments (a pure function of the settings)."""
    n_models = len(settings.models)
    n_pairs = len(pairs_of(n_models, 0, settings.self_judgments))
    if settings.pairs_per_judge > n_pairs:
        whose = "" if settings.self_judgments else " of others"
        raise ParameterError(f"{{pairs_per_judge}} {settings.pairs_per_judge}: with "
                             f"{n_models} models a judge has only {n_pairs} pairs{whose}",
                             "pairs_per_judge")
    if settings.scenarios is not None:
        prompts = prompts.head(settings.scenarios)
    if len(prompts) == 0:
        raise FfsiteError("no scenarios: the prompt set is empty")
    rng = np.random.default_rng(settings.seed)
    n_scenarios, per = len(prompts), settings.pairs_per_judge
    steps = np.arange(n_scenarios * per)
    judges, scenarios, firsts, seconds = [], [], [], []
    for judge in range(n_models):
        pairs = pairs_of(n_models, judge, settings.self_judgments)
        walk = pairs[rng.permutation(len(pairs))[steps % len(pairs)]]
        judges.append(np.full(len(steps), judge))
        scenarios.append(steps // per)
        firsts.append(walk[:, 0])
        seconds.append(walk[:, 1])
    judge, scenario = np.concatenate(judges), np.concatenate(scenarios)
    low, high = np.concatenate(firsts), np.concatenate(seconds)
    order = np.lexsort((judge, high, low, scenario))  # by comparison, then judge
    judge, scenario, low, high = judge[order], scenario[order], low[order], high[order]
    keys = scenario * n_models * n_models + low * n_models + high
    unique_keys, first_row, comparison = np.unique(keys, return_index=True,
                                                   return_inverse=True)
    table = _comparisons(settings, prompts, scenario[first_row], low[first_row],
                         high[first_row])
    side_a = table["side_a"].to_numpy(np.int64)[comparison]
    side_b = table["side_b"].to_numpy(np.int64)[comparison]
    return Design(prompts, table, judge, comparison, scenario, side_a, side_b)


def _comparisons(settings: RunSettings, prompts: PromptSet, scenario: np.ndarray,
                 low: np.ndarray, high: np.ndarray) -> pd.DataFrame:
    models = np.array(settings.models, dtype=object)
    prompt_ids = prompts["prompt_id"].to_numpy(object)[scenario]
    ids = np.array([_comparison_id(p, models[a], models[b])
                    for p, a, b in zip(prompt_ids, low, high, strict=True)], dtype=object)
    swap = swapped(ids, settings.seed)
    side_a, side_b = np.where(swap, high, low), np.where(swap, low, high)
    return pd.DataFrame({
        "dataset": settings.dataset, "comparison_id": ids, "prompt_id": prompt_ids,
        "model_a": models[side_a], "model_b": models[side_b],
        "response_a_id": [prompts.response_id(m, p)
                          for m, p in zip(models[side_a], prompt_ids, strict=True)],
        "response_b_id": [prompts.response_id(m, p)
                          for m, p in zip(models[side_b], prompt_ids, strict=True)],
        "scenario": scenario, "side_a": side_a, "side_b": side_b})


def _comparison_id(prompt_id: str, model: str, other: str) -> str:
    """The same scenario and pair give the same id in every run (names sorted)."""
    low, high = sorted((model, other))
    digest = hashlib.sha256(f"{prompt_id}\0{low}\0{high}".encode()).hexdigest()
    return f"eb-{digest[:20]}"
