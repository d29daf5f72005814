"""Communication traits per model (AA-PersonalityBench): each measure's mean over the
model's responses, how many responses it rests on, and its 95% interval.

A measure is a number per response (ffsite.judges.communication); a model's estimate is
the mean over its responses.  The interval treats the responses as a sample of the
model's answers: Wilson's score interval for the 0/1 measures, whose mean is a share
(`SHARES`), and the normal approximation for the others, mean ± z · sd / √n with the
sample standard deviation (ddof 1) of the model's values.  One response gives no
interval (no spread to measure): NaN.  A response whose measure is undefined (NaN: the
average sentence length of an answer with no sentence) counts in neither the mean nor n.

A mark a model rarely uses (an emoji in 1 of 805 answers) makes the normal interval far
too short above: the mean then rests on the few responses that have it.  For the traits
(counts, never negative) the upper bound is therefore at least the share of the model's
responses with the mark, k of n, at its exact (Clopper-Pearson) upper bound, times the
mean count in those k; with k = 0, that bound (1 - 0.025^(1/n)) times the smallest count
any response of the file shows.  Where the mark is common, the normal bound is the
higher and stays; the lower bound is the normal one, cut at 0.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable

import numpy as np
import pandas as pd
from scipy import special

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
    counted = np.array([m in NEVER_NEGATIVE for m in measures]) & ~is_share
    if counted.any():
        marked = (values > 0).groupby(with_model["model"].astype(str), sort=True).sum()
        low, high = _at_least_the_marks_share(low, high, mean, n, marked.to_numpy(float),
                                              values, counted)
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


def _at_least_the_marks_share(low: np.ndarray, high: np.ndarray, mean: np.ndarray,
                              n: np.ndarray, marked: np.ndarray, values: pd.DataFrame,
                              counted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[models, measures] upper bounds raised, in the `counted` columns, to the share of
    responses with the mark (`marked` of `n`) at its Clopper-Pearson upper bound times
    the mean count among them (module docstring); NaN bounds (one response) stay NaN."""
    tail = (1 - 0.95) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        share_high = np.where(marked < n, special.betaincinv(marked + 1, n - marked, 1 - tail),
                              1.0)
        per_marked = mean * n / marked  # the mean count in the responses with the mark
    smallest = values.where(values > 0).min().to_numpy()  # NaN: no response has the mark
    per_marked = np.where(marked > 0, per_marked, smallest[None, :])
    widen = counted[None, :] & ~np.isnan(high) & ~np.isnan(per_marked)
    return low, np.where(widen, np.fmax(high, share_high * per_marked), high)
