"""Communication traits per model (AA-PersonalityBench): each measure's mean over the
model's responses, how many responses it rests on, and its 95% interval.

A measure is a number per response (ffsite.judges.communication); a model's estimate is
the mean over its responses.  The interval treats the responses as a sample of the
model's answers: Wilson's score interval for the 0/1 measures, whose mean is a share
(`SHARES`), and the normal approximation for the others, mean ± z · sd / √n with the
sample standard deviation (ddof 1) of the model's values.  One response gives no
interval (no spread to measure): NaN.  A response whose measure is undefined (NaN: the
average sentence length of an answer with no sentence) counts in neither the mean nor n.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable

import numpy as np
import pandas as pd

from ffsite.format.response_metrics import ID_COLUMNS, read_response_metrics
from ffsite.judges.communication import COMMUNICATION_TRAITS, SHARES
from ffsite.metrics.intervals import Z95, wilson_interval

__all__ = ["ESTIMATE_COLUMNS", "communication_averages", "communication_estimates"]

# One row per (model, measure): `share` says the mean is a share with Wilson's interval;
# `responses` counts the model's responses, `n` those the measure is defined on.
# `empty` counts the model's responses without body text (no characters: empty, as 22 of
# gemma-2b-it's answers are, AlpacaEval's known defect, or only code or web addresses),
# which count as zeros in every mean.
ESTIMATE_COLUMNS = ("model", "measure", "share", "responses", "empty", "n", "mean", "low",
                    "high")
# The 21 traits count things (or divide two counts), so none is ever negative: a normal
# interval that reaches below 0 (a mark a model rarely uses) is cut at 0, as the score
# pages cut theirs at the scale's ends.  Other measures a file may hold keep theirs.
NEVER_NEGATIVE = frozenset(COMMUNICATION_TRAITS)
_DTYPES = {"model": object, "measure": object, "share": bool, "responses": np.int64,
           "empty": np.int64, "n": np.int64, "mean": float, "low": float, "high": float}


def communication_averages(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """`communication_estimates` of the response-metrics files under `paths`."""
    return communication_estimates(read_response_metrics(paths))


def communication_estimates(frame: pd.DataFrame, shares: Collection[str] = SHARES
                            ) -> pd.DataFrame:
    """Per model and measure of response-metrics rows `frame` (read_response_metrics):
    ESTIMATE_COLUMNS, models by name, measures in the frame's column order.  Rows
    without a model (HH-RLHF's responses) are left out; a boolean measure is a share
    too, as are `shares`."""
    measures = [c for c in frame.columns if c not in ID_COLUMNS]
    with_model = frame[frame["model"].notna()]
    if with_model.empty or not measures:
        return pd.DataFrame({c: pd.Series(dtype=_DTYPES[c]) for c in ESTIMATE_COLUMNS})
    is_share = np.array([m in shares or pd.api.types.is_bool_dtype(with_model[m])
                         for m in measures])
    # float: a boolean column's True is 1, a missing value NaN, both for every aggregate.
    values = with_model[measures].astype(float)
    grouped = values.groupby(with_model["model"].astype(str), sort=True)
    # [models, measures] arrays; groupby skips NaN in every one of them.
    mean = grouped.mean().to_numpy()
    n = grouped.count().to_numpy()
    sd = grouped.std(ddof=1).to_numpy()  # NaN where n < 2: no interval
    responses = grouped.size()
    empty = ((values["characters"] == 0).groupby(with_model["model"].astype(str), sort=True)
             .sum().to_numpy(dtype=np.int64) if "characters" in values
             else np.zeros(len(responses), np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        half = Z95 * sd / np.sqrt(n)
    low, high = mean - half, mean + half
    floor = np.array([0.0 if m in NEVER_NEGATIVE else -np.inf for m in measures])
    low = np.where(np.isnan(low), np.nan, np.maximum(low, floor))
    wilson_low, wilson_high = wilson_interval(mean * n, n)  # successes = share · trials
    low = np.where(is_share, wilson_low, low)
    high = np.where(is_share, wilson_high, high)

    models = responses.index.to_numpy(dtype=object)
    count = len(measures)
    return pd.DataFrame({
        "model": np.repeat(models, count),
        "measure": np.tile(np.array(measures, dtype=object), len(models)),
        "share": np.tile(is_share, len(models)),
        "responses": np.repeat(responses.to_numpy(dtype=np.int64), count),
        "empty": np.repeat(empty, count),
        "n": n.reshape(-1).astype(np.int64),
        "mean": mean.reshape(-1), "low": low.reshape(-1), "high": high.reshape(-1),
    })
