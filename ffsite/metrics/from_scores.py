# long: means, strengths, pressure shifts and the bend index share one reading of the
# scores (_long), its prompt blocks and their resampling; apart, each would import them.
"""What judge scores say about each model, with 95% bootstrap intervals over prompts.

- `score_means`: a model's mean on a trait is the plain average of every score its
  responses got for that trait (from one judge, in one condition of one dataset).
- `strength_from_scores`: the Feedback Forensics strength of a model against all the
  others, from the votes that scores imply (docs/format.md: a higher score shows the trait
  more, equal scores are a tie): (wins - losses) / comparisons over every other model and
  prompt, with relevance and Cohen's kappa.  It equals what the metrics engine computes
  on `derived.derive_votes` against all other models.

Intervals resample prompts with replacement, 1,000 times, taking all of a prompt's scores
along, and read the 2.5% and 97.5% quantiles.  A mean's rank among its block's models is
its place by the mean, with the 95% range of its rank over the same resamples
(ffsite.metrics.ranking.rank_ranges).  A prompt, not a derived comparison, is the
independent unit: one response takes part in every comparison of its prompt.  The models
of a block (dataset, condition, trait, judge) share the resampled prompts.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ffsite import models as models_module
from ffsite._stored import remembered
from ffsite.format import Scores
from ffsite.metrics import resampling
from ffsite.metrics.ranking import rank_ranges
from ffsite.metrics.resampling import nan_quantiles
from ffsite.models import Registry

MEAN_COLUMNS = ("dataset", "condition", "model", "source_model", "trait_id", "judge", "mean",
                "ci_low", "ci_high", "rank", "rank_low", "rank_high", "n", "n_prompts",
                "below_rubric_floor")
STRENGTH_COLUMNS = ("dataset", "condition", "model", "source_model", "trait_id", "judge",
                    "strength", "ci_low", "ci_high", "relevance", "cohens_kappa", "wins",
                    "losses", "ties", "comparisons")
BLOCK = ["dataset", "condition", "trait_id", "judge"]


F = TypeVar("F", bound=Callable)


def _one_blas_thread(function: F) -> F:
    """Run with BLAS on one thread: the products here are small, and on a busy machine
    BLAS threads waiting for each other made them ten times slower (measured)."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return function(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class _Block:
    """One (dataset, condition, trait, judge): every model's score total and count per
    prompt, and how often each bootstrap resample drew each prompt."""

    key: tuple
    models: np.ndarray  # registry ids, sorted
    spellings: np.ndarray  # the dataset's names for each model
    total: np.ndarray  # [models, prompts]
    count: np.ndarray  # [models, prompts]
    times: np.ndarray  # [resamples, prompts]
    below: np.ndarray  # [models] scores under the rubric's floor (kept, and counted)


@_one_blas_thread
def score_means(scores: Scores, registry: Registry | None = None, *,
                n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95,
                floors: Mapping[str, float] | None = None) -> pd.DataFrame:
    """One row per (dataset, condition, model, trait, judge): MEAN_COLUMNS, sorted.

    `model` is the registry's id of the model (`source_model`: the dataset's own
    spelling, '; '-joined when the dataset has several for one model).  `condition` is
    "" for responses without one.  `below_rubric_floor` counts the scores under the
    dataset's rubric floor (`floors`, by dataset: Behavioral Profiling's judges now and
    then answered 0 on a 1-10 rubric); they stay in the mean, as published.  Seeded: the
    same scores give the same intervals.
    """
    frames = []
    for block in _blocks(scores, registry, n_bootstrap, seed, floors):
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = (block.total @ block.times.T) / (block.count @ block.times.T)
        n = block.count.sum(axis=1)
        low, high = _interval(resampled, level)
        mean = block.total.sum(axis=1) / n
        ranks = rank_ranges(mean, resampled.T, level=level)
        frames.append(_rows(block, MEAN_COLUMNS, mean=mean, ci_low=low, ci_high=high,
                            rank=ranks.rank, rank_low=ranks.low, rank_high=ranks.high,
                            n=n.astype(np.int64),
                            n_prompts=(block.count > 0).sum(axis=1).astype(np.int64),
                            below_rubric_floor=block.below))
    return _table(frames, MEAN_COLUMNS)


@_one_blas_thread
def mean_differences(scores: Scores, registry: Registry | None = None, *, dataset: str,
                     condition: str, n_bootstrap: int = 1000, seed: int = 0,
                     level: float = 0.95) -> dict[tuple[str, str], tuple[np.ndarray,
                                                                         np.ndarray]]:
    """Per (trait, judge) of one dataset and condition: (its models, the half-width of
    the `level` interval of every two models' difference of means [models, models]),
    the two means resampled together, prompt by prompt (both answered the same
    prompts, so their difference is surer than their own intervals say).  The
    half-width is half the distance between the difference's 2.5% and 97.5% points.
    Kept on disk by a build (ffsite._stored): seconds for the scores' largest dataset."""
    return remembered("mean-differences", (sys.modules[__name__], models_module, resampling),
                      (scores, registry, dataset, condition, n_bootstrap, seed, level),
                      lambda: _mean_differences(scores, registry, dataset, condition,
                                                n_bootstrap, seed, level))


def _mean_differences(scores: Scores, registry: Registry | None, dataset: str,
                      condition: str, n_bootstrap: int, seed: int, level: float
                      ) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    found = {}
    tail = (1 - level) / 2
    for block in _blocks(scores, registry, n_bootstrap, seed):
        block_dataset, block_condition, trait_id, judge = block.key
        if block_dataset != dataset or block_condition != condition:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = (block.total @ block.times.T) / (block.count @ block.times.T)
        difference = resampled[:, None, :] - resampled[None, :, :]
        low, high = nan_quantiles(difference, [tail, 1 - tail], axis=2)
        found[(trait_id, judge)] = (block.models, (high - low) / 2)
    return found


@_one_blas_thread
def strength_from_scores(scores: Scores, registry: Registry | None = None, *,
                         n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95
                         ) -> pd.DataFrame:
    """One row per (dataset, condition, model, trait, judge): STRENGTH_COLUMNS, sorted.

    The model against every other model of its block, prompt by prompt, by mean score.
    """
    frames = []
    for block in _blocks(scores, registry, n_bootstrap, seed):
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = block.total / block.count  # NaN: no answer to that prompt
        difference = mean[:, None, :] - mean[None, :, :]  # [model, other, prompt]
        wins = (difference > 0).sum(axis=1).astype(float)
        losses = (difference < 0).sum(axis=1).astype(float)
        ties = (difference == 0).sum(axis=1) - (block.count > 0)  # not against itself
        compared = wins + losses + ties
        net = wins - losses
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = (net @ block.times.T) / (compared @ block.times.T)
            n, won, lost = compared.sum(axis=1), wins.sum(axis=1), losses.sum(axis=1)
            strength = (won - lost) / n
            relevance = (won + lost) / n  # NaN for a model alone in its block
            accuracy = np.where(won + lost > 0, won / np.maximum(won + lost, 1), 0.5)
        low, high = _interval(resampled, level)
        frames.append(_rows(block, STRENGTH_COLUMNS, strength=strength, ci_low=low,
                            ci_high=high, relevance=relevance,
                            cohens_kappa=2 * (accuracy - 0.5), wins=won.astype(np.int64),
                            losses=lost.astype(np.int64),
                            ties=ties.sum(axis=1).astype(np.int64),
                            comparisons=n.astype(np.int64)))
    return _table(frames, STRENGTH_COLUMNS)


PAIRED_COLUMNS = ("dataset", "condition", "judge", "trait_id", "earlier", "later", "change",
                  "ci_low", "ci_high")


@_one_blas_thread
def paired_mean_differences(scores: Scores, registry: Registry | None, pairs: pd.DataFrame,
                            *, n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95
                            ) -> pd.DataFrame:
    """The later model's mean minus the earlier's, with a paired 95% interval, for each
    row of `pairs` (dataset, condition, judge, trait_id, earlier, later: registry ids):
    PAIRED_COLUMNS.  Both means are taken on the same bootstrap resamples of prompts
    (seeded; only the scores of the pairs' datasets and conditions are read), and the
    interval is the percentiles of the resampled difference.  A pair whose models are
    not both in its block has no row."""
    responses = scores.responses
    wanted_blocks = set(zip(pairs["dataset"], pairs["condition"], strict=True))
    keys = list(zip(responses["dataset"], responses["condition"].fillna(""), strict=True))
    keep = np.array([key in wanted_blocks for key in keys], dtype=bool)[scores.response]
    scores = dataclasses.replace(scores, response=scores.response[keep],
                                 column=scores.column[keep], value=scores.value[keep])
    block_key = ["dataset", "condition", "trait_id", "judge"]
    wanted = {key: part for key, part in pairs.groupby(block_key, sort=False)}
    frames = []
    for block in _blocks(scores, registry, n_bootstrap, seed):
        part = wanted.get(block.key)
        if part is None:
            continue
        index = {model: number for number, model in enumerate(block.models)}
        found = part[part["earlier"].isin(index) & part["later"].isin(index)]
        if found.empty:
            continue
        first = found["earlier"].map(index).to_numpy(np.int64)
        second = found["later"].map(index).to_numpy(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = block.total.sum(axis=1) / block.count.sum(axis=1)
            resampled = (block.total @ block.times.T) / (block.count @ block.times.T)
        low, high = _interval(resampled[second] - resampled[first], level)
        frames.append(found[[*block_key, "earlier", "later"]].assign(
            change=mean[second] - mean[first], ci_low=low, ci_high=high))
    if not frames:
        return pd.DataFrame(columns=list(PAIRED_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(PAIRED_COLUMNS)]


def _blocks(scores: Scores, registry: Registry | None, n_bootstrap: int, seed: int,
            floors: Mapping[str, float] | None = None) -> Iterator[_Block]:
    long = _long(scores, registry or Registry())
    spellings = _block_spellings(long)
    rng = np.random.default_rng(seed)
    for key, part in long.groupby(BLOCK, sort=True, observed=True):
        model_code, models = pd.factorize(part["model"], sort=True)
        prompt_code, prompts = pd.factorize(part["prompt_id"], sort=True)
        n_models, n_prompts = len(models), len(prompts)
        cell = model_code * n_prompts + prompt_code
        total = np.bincount(cell, part["score"].to_numpy(), n_models * n_prompts)
        floor = (floors or {}).get(key[0], -np.inf)
        below = np.bincount(model_code, part["score"].to_numpy() < floor, n_models)
        count = np.bincount(cell, minlength=n_models * n_prompts).astype(float)
        draws = rng.integers(0, n_prompts, size=(n_bootstrap, n_prompts))
        # How often each resample drew each prompt: a resampled sum is then one matrix
        # product for all models at once.
        times = np.bincount((draws + n_prompts * np.arange(n_bootstrap)[:, None]).ravel(),
                            minlength=n_bootstrap * n_prompts).reshape(n_bootstrap, n_prompts)
        yield _Block(key, np.asarray(models, object),
                     spellings.loc[key].reindex(models).to_numpy(object),
                     total.reshape(n_models, n_prompts), count.reshape(n_models, n_prompts),
                     times.astype(float), below.astype(np.int64))


def _block_spellings(long: pd.DataFrame) -> pd.Series:
    """(block key, model) -> the dataset's names for the model in that block, '; '-joined;
    worked out once for every block (nearly every model has one name: joined only where
    there are several)."""
    keys = [*BLOCK, "model"]
    pairs = long[[*keys, "source_model"]].drop_duplicates().sort_values(
        [*keys, "source_model"], kind="stable")
    grouped = pairs.groupby(keys, sort=True, observed=True)["source_model"]
    names = grouped.first()
    several = grouped.size() > 1
    if several.any():
        joined = pairs.set_index(keys).loc[several[several].index, "source_model"]
        names[several] = joined.groupby(level=list(range(len(keys)))).agg("; ".join)
    return names


def _model_spellings(part: pd.DataFrame) -> pd.Series:
    """model -> the dataset's names for it, '; '-joined (from the distinct pairs only)."""
    pairs = part[["model", "source_model"]].drop_duplicates()
    return pairs.groupby("model", sort=True)["source_model"].agg(
        lambda names: "; ".join(sorted(names)))


def _interval(resampled: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bounds per row; a resample without the model's answers (NaN) is left out."""
    low, high = nan_quantiles(resampled, [(1 - level) / 2, (1 + level) / 2], axis=1)
    return low, high  # NaN for an all-NaN row: a lone model


def _rows(block: _Block, columns: tuple[str, ...], **values: np.ndarray) -> pd.DataFrame:
    dataset, condition, trait_id, judge = block.key
    frame = pd.DataFrame({"dataset": dataset, "condition": condition, "model": block.models,
                          "source_model": block.spellings, "trait_id": trait_id,
                          "judge": judge, **values})
    return frame[list(columns)]


def _table(frames: list[pd.DataFrame], columns: tuple[str, ...]) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame(columns=list(columns))
    table = pd.concat(frames, ignore_index=True)
    keys = [name for name in ("dataset", "condition", "model", "trait_id", "judge")
            if name in columns]
    return table.sort_values(keys, kind="stable").reset_index(drop=True)


def _long(scores: Scores, registry: Registry) -> pd.DataFrame:
    """One row per score of a response with a model, the model under its registry id."""
    responses = scores.responses
    columns = scores.columns
    model = responses["model"].to_numpy(object)[scores.response]
    dataset = responses["dataset"].to_numpy(object)[scores.response]
    frame = pd.DataFrame({
        "dataset": dataset,
        "condition": responses["condition"].fillna("").to_numpy(object)[scores.response],
        "model": registry.ids(dataset, model),
        "source_model": model,
        "prompt_id": responses["prompt_id"].fillna("").to_numpy(object)[scores.response],
        "trait_id": columns["trait_id"].to_numpy(object)[scores.column],
        "judge": columns["judge"].to_numpy(object)[scores.column],
        "score": scores.value,
    })
    return frame[frame["model"].notna().to_numpy()]


SHIFT_COLUMNS = ("dataset", "condition", "model", "source_model", "trait_id", "judge",
                 "shift", "ci_low", "ci_high", "baseline_mean", "condition_mean", "n_pairs",
                 "below_rubric_floor", "paired_scores")
BEND_COLUMNS = ("dataset", "condition", "model", "source_model", "judge", "bend", "ci_low",
                "ci_high", "traits", "n_pairs")


@dataclass(frozen=True)
class _Pressure:
    """One dataset, judge and condition against the baseline: per (trait, model, pair)
    the condition's mean score minus the baseline's (NaN: not both), and how often each
    bootstrap resample drew each pair (shared by every trait and model)."""

    dataset: str
    judge: str
    condition: str
    traits: np.ndarray
    models: np.ndarray
    spellings: np.ndarray
    difference: np.ndarray  # [traits, models, pairs]
    baseline: np.ndarray  # [traits, models, pairs]
    times: np.ndarray  # [resamples, pairs]
    # Scores under the rubric's floor, and all scores, of both conditions, on the pairs
    # that have both: [traits, models] (what a shift rests on: its floor mark counts them).
    below: np.ndarray | None = None
    scores: np.ndarray | None = None

    def resampled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(shift, resampled shifts [traits, models, resamples], pairs) per trait and model."""
        paired = ~np.isnan(self.difference)
        filled = np.where(paired, self.difference, 0.0)
        n_traits, n_models, n_pairs = filled.shape
        # One 2-D product each (BLAS), not a stack of small ones.
        sums = filled.reshape(-1, n_pairs) @ self.times.T
        counts = paired.reshape(-1, n_pairs).astype(float) @ self.times.T
        with np.errstate(invalid="ignore", divide="ignore"):
            n = paired.sum(axis=2)
            shift = filled.sum(axis=2) / n
            draws = (sums / counts).reshape(n_traits, n_models, -1)
        return shift, draws, n


@_one_blas_thread
def pressure_shifts(scores: Scores, registry: Registry | None = None, *,
                    baseline: str = "baseline", pair_by: str = "meta.scenario",
                    n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95,
                    floors: Mapping[str, float] | None = None) -> pd.DataFrame:
    """How far each model's scores move from `baseline` under every other condition.

    Responses are paired by `pair_by` (the same question asked under both conditions;
    `prompt_id` when the scores have no such column): the shift is the mean, over the
    pairs, of the condition's score minus the baseline's, and its interval resamples the
    pairs.  One row per (dataset, condition, model, trait, judge): SHIFT_COLUMNS, with
    `below_rubric_floor` (of `paired_scores`): the scores of both conditions on those
    pairs under the dataset's rubric floor (`floors`, as score_means counts them).
    """
    frames = []
    for block in _pressure(scores, registry, baseline, pair_by, n_bootstrap, seed, floors):
        shift, draws, n = block.resampled()
        low, high = _interval(draws.reshape(-1, draws.shape[-1]), level)
        paired = ~np.isnan(block.difference)
        with np.errstate(invalid="ignore", divide="ignore"):
            before = np.where(paired, block.baseline, 0).sum(axis=2) / n
        n_traits, n_models = shift.shape
        frame = pd.DataFrame({
            "dataset": block.dataset, "condition": block.condition,
            "model": np.tile(block.models, n_traits),
            "source_model": np.tile(block.spellings, n_traits),
            "trait_id": np.repeat(block.traits, n_models), "judge": block.judge,
            "shift": shift.ravel(), "ci_low": low, "ci_high": high,
            "baseline_mean": before.ravel(), "condition_mean": (before + shift).ravel(),
            "n_pairs": n.ravel().astype(np.int64),
            "below_rubric_floor": block.below.ravel().astype(np.int64),
            "paired_scores": block.scores.ravel().astype(np.int64)})
        frames.append(frame[frame["n_pairs"] > 0])
    return _table(frames, SHIFT_COLUMNS)


@_one_blas_thread
def bend_index(scores: Scores, registry: Registry | None = None, *,
               baseline: str = "baseline", pair_by: str = "meta.scenario",
               n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """How much a model's personality bends under a condition: the mean, over the traits,
    of the size of its shift from baseline (scale points), with a 95% interval from the
    same resamples of pairs for every trait.  BEND_COLUMNS, one row per (dataset,
    condition, model, judge)."""
    frames = []
    for block in _pressure(scores, registry, baseline, pair_by, n_bootstrap, seed):
        shift, draws, n = block.resampled()
        rated = n > 0  # [traits, models]
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # a model with no pairs
            bend = np.nanmean(np.where(rated, np.abs(shift), np.nan), axis=0)
            drawn = np.nanmean(np.where(rated[..., None], np.abs(draws), np.nan), axis=0)
        low, high = _interval(drawn, level)
        frame = pd.DataFrame({
            "dataset": block.dataset, "condition": block.condition, "model": block.models,
            "source_model": block.spellings, "judge": block.judge, "bend": bend,
            "ci_low": low, "ci_high": high, "traits": rated.sum(axis=0).astype(np.int64),
            "n_pairs": n.max(axis=0).astype(np.int64)})
        frames.append(frame[frame["traits"] > 0])
    return _table(frames, BEND_COLUMNS)


def _pressure(scores: Scores, registry: Registry | None, baseline: str, pair_by: str,
              n_bootstrap: int, seed: int, floors: Mapping[str, float] | None = None
              ) -> Iterator[_Pressure]:
    long = _long(scores, registry or Registry())
    key = pair_by if pair_by in scores.responses.columns else "prompt_id"
    long["pair"] = scores.responses[key].fillna("").to_numpy(object)[
        scores.response][long.index.to_numpy()]
    for (dataset, judge), part in long.groupby(["dataset", "judge"], sort=True):
        part = part.reset_index(drop=True)
        trait_code, traits = pd.factorize(part["trait_id"], sort=True)
        model_code, models = pd.factorize(part["model"], sort=True)
        pair_code, pairs = pd.factorize(part["pair"], sort=True)
        condition_code, conditions = pd.factorize(part["condition"], sort=True)
        if baseline not in set(conditions):
            continue
        shape = (len(conditions), len(traits), len(models), len(pairs))
        cell = np.ravel_multi_index((condition_code, trait_code, model_code, pair_code), shape)
        size = int(np.prod(shape))
        score = part["score"].to_numpy()
        total = np.bincount(cell, score, size)
        count = np.bincount(cell, minlength=size)
        floor = (floors or {}).get(dataset, -np.inf)
        below = np.bincount(cell, (score < floor).astype(float), size).reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (total / count).reshape(shape)
        count = count.reshape(shape)
        spellings = _model_spellings(part)
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, len(pairs), size=(n_bootstrap, len(pairs)))
        times = np.bincount((draws + len(pairs) * np.arange(n_bootstrap)[:, None]).ravel(),
                            minlength=n_bootstrap * len(pairs)).reshape(
            n_bootstrap, len(pairs)).astype(float)
        at_baseline = list(conditions).index(baseline)
        base = means[at_baseline]
        for number, condition in enumerate(conditions):
            if condition == baseline:
                continue
            paired = (count[number] > 0) & (count[at_baseline] > 0)
            yield _Pressure(dataset, judge, condition, np.asarray(traits, object),
                            np.asarray(models, object),
                            spellings.reindex(models).to_numpy(object),
                            means[number] - base, base, times,
                            np.where(paired, below[number] + below[at_baseline], 0).sum(2),
                            np.where(paired, count[number] + count[at_baseline], 0).sum(2))
