"""Per-model means of judge scores, with 95% bootstrap intervals over prompts.

A model's mean on a trait is the plain average of every score its responses got for that
trait (from one judge, in one condition of one dataset).  The interval resamples prompts
with replacement, 1,000 times, taking all of a prompt's scores along, and reads the 2.5%
and 97.5% quantiles of the resampled means.  The models of a block (dataset, condition,
trait, judge) share the resampled prompts, so the draws of two models are paired the
way their answers are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.format.scores import Scores
from ffsite.models import Registry

MEAN_COLUMNS = ("dataset", "condition", "model", "source_model", "trait_id", "judge", "mean",
                "ci_low", "ci_high", "n", "n_prompts")
BLOCK = ["dataset", "condition", "trait_id", "judge"]


def score_means(scores: Scores, registry: Registry | None = None, *,
                n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """One row per (dataset, condition, model, trait, judge): MEAN_COLUMNS, sorted.

    `model` is the registry's id of the model (`source_model`: the dataset's own
    spelling, '; '-joined when the dataset has several for one model).  `condition` is
    "" for responses without one.  Seeded: the same scores give the same intervals.
    """
    long = _long(scores, registry or Registry())
    if long.empty:
        return pd.DataFrame(columns=list(MEAN_COLUMNS))
    quantiles = [(1 - level) / 2, (1 + level) / 2]
    rng = np.random.default_rng(seed)
    frames = []
    for block, part in long.groupby(BLOCK, sort=True, observed=True):
        model_code, models = pd.factorize(part["model"], sort=True)
        prompt_code, prompts = pd.factorize(part["prompt_id"], sort=True)
        n_models, n_prompts = len(models), len(prompts)
        cell = model_code * n_prompts + prompt_code
        total = np.bincount(cell, part["score"].to_numpy(), n_models * n_prompts).reshape(
            n_models, n_prompts)
        count = np.bincount(cell, minlength=n_models * n_prompts).reshape(
            n_models, n_prompts).astype(float)
        draws = rng.integers(0, n_prompts, size=(n_bootstrap, n_prompts))
        # How often each resample drew each prompt; the resampled sums are then one
        # matrix product for all models at once.
        times = np.bincount((draws + n_prompts * np.arange(n_bootstrap)[:, None]).ravel(),
                            minlength=n_bootstrap * n_prompts).reshape(n_bootstrap, n_prompts)
        drawn_total, drawn_count = total @ times.T, count @ times.T
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = drawn_total / drawn_count  # NaN: a resample without the model
        quantile = np.nanquantile if (drawn_count == 0).any() else np.quantile
        low, high = quantile(resampled, quantiles, axis=1)
        n = count.sum(axis=1)
        spellings = part.groupby("model", sort=True)["source_model"].agg(
            lambda names: "; ".join(sorted(set(names))))
        frames.append(pd.DataFrame({
            "dataset": block[0], "condition": block[1], "model": np.asarray(models, object),
            "source_model": spellings.reindex(models).to_numpy(object),
            "trait_id": block[2], "judge": block[3], "mean": total.sum(axis=1) / n,
            "ci_low": low, "ci_high": high, "n": n.astype(np.int64),
            "n_prompts": (count > 0).sum(axis=1).astype(np.int64)}))
    table = pd.concat(frames, ignore_index=True)[list(MEAN_COLUMNS)]
    return table.sort_values(["dataset", "condition", "model", "trait_id", "judge"],
                             kind="stable").reset_index(drop=True)


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
